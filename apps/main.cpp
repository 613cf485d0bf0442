// The `edgewise` command-line tool: parses the command line, runs the chosen subcommand, and turns
// every failure into a message on stderr and a non-zero exit status.
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli_support.hpp"
#include "commands.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "edgewise/distributed/processes.hpp"
#include "edgewise/version.hpp"

namespace {

// Layers resize their output matrices to each batch's size, which frees and allocates megabytes per
// batch. By default glibc serves such blocks with fresh mmap()ed pages and returns freed memory to
// the system, so every batch pays the kernel for zeroed pages again (about 11 us per 4 KiB page on
// some virtual machines). Keeping freed memory in the process lets it be reused instead.
void keep_freed_memory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest; beyond it blocks are rare and mmap()ed
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace

#ifdef EDGEWISE_WITH_JEMALLOC
// jemalloc reads its options from this symbol (MALLOC_CONF in the environment still overrides it).
// Transparent huge pages, where the kernel grants them on request, cover a 50 MB node table with 25
// TLB entries instead of 12,800: on a 3.2M-edge random graph the attention layer's gathers then run
// about 10% faster, for about 50 MB more peak memory. Freed pages stay with the process
// (dirty_decay_ms:-1): by default jemalloc hands them back to the kernel over 10 seconds, and each
// one the next batch takes is then faulted in and zeroed again, which made predicting HIV's 41,127
// molecules up to 8% slower (it varies with the kernel's state), for no lower peak.
extern "C" {
const char* malloc_conf = "thp:always,dirty_decay_ms:-1";
}
#endif

namespace {

// Under mpirun, the commands that do not divide their work would each do all of it, side by side.
void check_divides_work(int argc, char** argv) {
  if (!edgewise::distributed::active() || argc < 2) return;
  const std::string command = argv[1];
  if (command != "predict" && command != "train")
    throw edgewise::ArgumentError("'edgewise " + command + "' runs as one process: of the commands, only 'predict' " +
                                  "(a molecule model on --data) and 'train --task molecule' divide their work among " +
                                  "the processes mpirun starts");
}

// CLI11's message for a command line it refuses, with the options a mistyped one was likely meant as
// after the error itself.
std::string parse_failure(const CLI::App* app, const CLI::Error& error) {
  std::string message = CLI::FailureMessage::simple(app, error);  // "<error>\nRun with --help ..."
  message.insert(std::string_view(error.what()).size() + 1, edgewise::cli::option_suggestions(*app));
  return message;
}

// Prints the error; with several processes, names this one and ends the others, which may be waiting
// for it. Returns the exit status.
int fail(const char* kind, const std::exception& e, int status) {
  const std::string process = edgewise::distributed::process_name();
  std::cerr << "edgewise" << (process.empty() ? "" : " (" + process + ")") << ": " << kind << ": " << e.what() << '\n';
  edgewise::distributed::abort_all(status);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();
  edgewise::remove_temporary_files_on_signal();
  CLI::App app{
      "edgewise: graph attention networks on the CPU.\n"
      "Run 'edgewise <command> --help' for the options of a command."};
  app.set_version_flag("--version", std::string(edgewise::version()));
  app.require_subcommand(1);
  app.failure_message(parse_failure);
  edgewise::cli::add_train_command(app);
  edgewise::cli::add_tune_command(app);
  edgewise::cli::add_predict_command(app);
  edgewise::cli::add_eval_command(app);
  edgewise::cli::add_embed_command(app);
  edgewise::cli::add_recommend_command(app);
  edgewise::cli::add_info_command(app);
  edgewise::cli::add_explain_command(app);
  edgewise::cli::add_graph_command(app);

  try {
    edgewise::distributed::start(argc, argv);
    check_divides_work(argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);  // prints help on --help (status 0), or the parse error (non-zero)
    if (status != 0) edgewise::distributed::abort_all(status);
    edgewise::distributed::finish();
    return status;
  } catch (const edgewise::Error& e) {
    return fail("error", e, 1);
  } catch (const std::exception& e) {
    return fail("internal error", e, 2);
  }
  edgewise::distributed::finish();
  return 0;
}

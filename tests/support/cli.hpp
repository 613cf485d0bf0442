// Runs the edgewise command-line tool from a test. EDGEWISE_CLI, the built tool's path, is defined
// for every test target by tests/CMakeLists.txt.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace edgewise::testing {

struct CliRun {
  int status = -1;     // the exit status; -1 when the process did not exit normally (a signal)
  std::string output;  // stdout and stderr
};

// The shell command that runs `edgewise ARGUMENTS --threads THREADS` with both output streams sent
// to output_file. threads = 0 leaves --threads out, for commands without it (`info`).
inline std::string cli_command(const std::string& arguments, const std::string& output_file, int threads = 1) {
  const std::string thread_option = threads > 0 ? " --threads " + std::to_string(threads) : "";
  return std::string(EDGEWISE_CLI) + " " + arguments + thread_option + " > " + output_file + " 2>&1";
}

// What a finished command printed into output_file, with its std::system status.
inline CliRun finished_run(int status, const std::string& output_file) {
  std::ostringstream output;
  output << std::ifstream(output_file, std::ios::binary).rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output.str()};
}

inline CliRun run_cli(const std::string& arguments, const std::string& output_file, int threads = 1) {
  return finished_run(std::system(cli_command(arguments, output_file, threads).c_str()), output_file);
}

// mpirun's PROGRAMS ("-np N program ..." or several of those joined by " : "), with the output in
// output_file (EDGEWISE_MPIEXEC, defined for the tool's tests, names mpirun). Open MPI keeps some of
// its memory to the end, which LeakSanitizer would report in sanitizer builds.
inline CliRun run_under_mpirun(const std::string& programs, const std::string& output_file) {
  const std::string command = "timeout 120 env ASAN_OPTIONS=\"${ASAN_OPTIONS}:detect_leaks=0\" " +
                              std::string(EDGEWISE_MPIEXEC) + " --allow-run-as-root --oversubscribe " + programs +
                              " > " + output_file + " 2>&1";
  return finished_run(std::system(command.c_str()), output_file);
}

// `edgewise ARGUMENTS` in `processes` processes under mpirun, 1 thread each, with the output in
// output_file.
inline CliRun run_cli_processes(int processes, const std::string& arguments, const std::string& output_file) {
  return run_under_mpirun("-np " + std::to_string(processes) + " " + EDGEWISE_CLI + " " + arguments + " --threads 1",
                          output_file);
}

// `edgewise ARGUMENTS` under mpirun in one process per entry of `environments`, each started with
// that entry's variables ("NAME=value ..."), 1 thread each, with the output in output_file.
inline CliRun run_cli_processes_with(const std::vector<std::string>& environments, const std::string& arguments,
                                     const std::string& output_file) {
  std::string programs;
  for (const std::string& variables : environments)
    programs += (programs.empty() ? "" : " : ") + ("-np 1 env " + variables + " ") + EDGEWISE_CLI + " " + arguments +
                " --threads 1";
  return run_under_mpirun(programs, output_file);
}

// A fixture for command-line tests: a folder of its own under the system's temporary folder, named
// after the test suite and the process and removed afterwards, and the tool run with its output
// kept there. Fixtures that write inputs call CliTest::SetUp() first.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string suite = ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name();
    folder_ = std::filesystem::temp_directory_path() / ("edgewise_" + suite + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  // A file in the folder; an absolute `name` stays as it is.
  std::string path(const std::string& name) const { return (folder_ / name).string(); }

  // Sixteen small molecules and a made-up target, "smiles,logS", in the folder's file `name`: enough
  // to train a tiny molecule model in well under a second.
  void write_small_molecules(const std::string& name) const {
    std::ofstream csv(path(name));
    csv << "smiles,logS\n";
    const char* smiles[] = {"CCO", "CCCO", "CCCCO", "c1ccccc1", "Cc1ccccc1", "CCN", "CCCN", "CC(C)O",
                            "CCOC", "CCCl", "c1ccncc1", "OCCO", "CC(=O)O", "CCCCCC", "CCC(C)O", "NCCO"};
    double value = -1.0;
    for (const char* s : smiles) csv << s << ',' << (value += 0.3) << '\n';
  }

  // Writes `contents` to the folder's file `name`, as bytes.
  void write(const std::string& name, const std::string& contents) const {
    std::ofstream(path(name), std::ios::binary) << contents;
  }

  std::string read(const std::string& name) const {
    std::ostringstream text;
    text << std::ifstream(path(name), std::ios::binary).rdbuf();
    return text.str();
  }

  // `edgewise ARGUMENTS --threads THREADS` (0: no --threads); output to the folder's output.txt.
  CliRun run_cli(const std::string& arguments, int threads = 1) const {
    return edgewise::testing::run_cli(arguments, path("output.txt"), threads);
  }

  std::filesystem::path folder_;
};

}  // namespace edgewise::testing

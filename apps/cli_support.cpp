#include "cli_support.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string_view>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/core/products.hpp"
#include "edgewise/distributed/processes.hpp"
#include "edgewise/tasks/common/model.hpp"

namespace edgewise::cli {

CLI::Validator at_least(long long minimum, const std::string& name) {
  const auto check = [minimum](const std::string& text) -> std::string {
    try {
      if (std::stoll(text) >= minimum) return {};
    } catch (const std::exception&) {
      return {};  // not a number: the conversion to the option's type reports it
    }
    return "value " + text + " is below the minimum of " + std::to_string(minimum);
  };
  return {check, name};
}

void add_threads_option(CLI::App& command, int& threads) {
  command.add_option("--threads", threads, "Threads for every parallel loop (default: EDGEWISE_NUM_THREADS, else all cores)")
      ->check(at_least(1, "POSITIVE"));
}

void apply_threads(int threads) {
  if (threads > 0) set_num_threads(threads);
}

void add_precision_option(CLI::App& command, std::string& precision) {
  command
      .add_option("--precision", precision,
                  "Arithmetic of the matrix products: float32, bf16 (operands rounded to bfloat16, float32 sums: "
                  "the products up to twice as fast on CPUs with AVX-512 BF16; float32 on other CPUs), or auto, "
                  "the default: bf16 on AMD CPUs with AVX-512 BF16, else float32 (the environment variable "
                  "EDGEWISE_PRECISION sets another default)")
      ->check(CLI::IsMember({"auto", "float32", "bf16"}));
}

namespace {

// The processes of one run compute at one precision, as one process would: where their CPUs do not
// all run the bf16 kernel, or their EDGEWISE_PRECISION differs, every one runs float32.
void agree_on_precision() {
  if (!distributed::active()) return;
  const std::uint64_t bf16_processes = distributed::sum(precision() == Precision::bf16 ? 1 : 0);
  if (bf16_processes == 0 || bf16_processes == static_cast<std::uint64_t>(distributed::size())) return;
  set_precision(Precision::float32);
  rank_0_errors() << "note: " << bf16_processes << " of the " << distributed::size()
                  << " processes would compute in bf16 and the others in float32; all compute in float32\n";
}

}  // namespace

void apply_precision(const std::string& precision) {
  const Precision chosen = precision.empty() ? default_precision() : precision_of_choice(precision);
  set_precision(chosen);
  if (chosen == Precision::bf16 && !bf16_available())  // bf16 asked for by --precision or EDGEWISE_PRECISION
    std::cerr << "note: this CPU has no AVX-512 BF16; bf16 products run float32\n";
  agree_on_precision();
}

void check_output_path(const std::string& path, bool force) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code error;
  if (fs::is_directory(target, error)) throw Error(path + ": is a directory, expected a file name");
  if (fs::exists(target, error) && !force) throw Error(path + ": already exists; pass --force to replace it");
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(folder, error)) throw Error(path + ": folder " + folder.string() + " does not exist");
}

Overwrite overwrite_for(bool force) { return force ? Overwrite::allow : Overwrite::refuse; }

void write_output(const std::string& path, const std::string& text, bool force) {
  if (path.empty()) {
    std::cout << text;
  } else {
    write_file_atomically(path, text, overwrite_for(force));
  }
}

void add_checkpoint_options(CLI::App& command, CheckpointArgs& args) {
  command.add_option("--checkpoint-every", args.every,
                     "Write a checkpoint (weights, optimizer, random and early-stopping state) every N epochs")
      ->check(at_least(1, "POSITIVE"));
  command.add_option("--checkpoint", args.path, "Checkpoint file (default: the --out file name with .ckpt added)");
  command.add_option("--resume", args.resume,
                     "Continue the run that wrote this checkpoint; give it the same data and options. It ends with "
                     "the model an uninterrupted run would have written (same --threads)")
      ->check(CLI::ExistingFile);
}

void check_plot_path(const std::string& plot, const std::string& out, bool force) {
  check_output_path(plot, force);
  namespace fs = std::filesystem;
  const auto resolved = [](const std::string& path) { return fs::weakly_canonical(fs::absolute(path)); };
  if (resolved(plot) == resolved(out))
    throw ArgumentError("--plot " + plot + ": the same file as --out; give the image its own name");
}

void write_plot(const std::string& path, const Plot& curve, bool force) {
  write_file_atomically(path, plot_svg(curve), overwrite_for(force));
}

void add_task_option(CLI::App& command, std::string& task,
                     const std::vector<std::pair<std::string, std::string>>& tasks) {
  std::string help;
  std::vector<std::string> names;
  for (const auto& [name, meaning] : tasks) {
    help += (help.empty() ? "" : "; ") + name + ": " + meaning + (name == "molecule" ? " ('graph' is read as molecule)" : "");
    names.push_back(name);
  }
  command.add_option("--task", task, help)
      ->required()
      ->transform([](const std::string& name) { return std::string(canonical_task_name(name)); })
      ->check(CLI::IsMember(names));
}

void add_log_options(CLI::App& command, bool& quiet, bool& verbose) {
  CLI::Option* quiet_flag = command.add_flag("--quiet,-q", quiet, "Print nothing but warnings and errors");
  command.add_flag("--verbose,-v", verbose, "Also print the training setup and why training stopped")
      ->excludes(quiet_flag);
}

namespace {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  return std::filesystem::equivalent(a, b, error);
}

// Columns of the terminal on standard output, less one: writing the last column wraps on some
// terminals, which would break redrawing the line.
int terminal_width() {
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1) return size.ws_col - 1;
  return 79;
}

}  // namespace

CheckpointOptions checkpoint_options(const CheckpointArgs& args, const std::string& out, bool force) {
  if (!args.path.empty() && args.every == 0) throw ArgumentError("--checkpoint needs --checkpoint-every");
  CheckpointOptions options{.path = args.path.empty() ? out + ".ckpt" : args.path,
                            .every = args.every,
                            .resume = args.resume};
  if (options.every > 0 && !(!options.resume.empty() && same_file(options.path, options.resume)))
    check_output_path(options.path, force);
  return options;
}

std::string last_checkpoint_note(const CheckpointOptions& checkpoints) {
  std::error_code error;
  if (checkpoints.every == 0 || !std::filesystem::exists(checkpoints.path, error)) return {};
  return "; the last checkpoint, from which --resume continues, is " + checkpoints.path;
}

LogSettings console_log(bool quiet, bool verbose) {
  const LogLevel level =
      quiet || distributed::rank() > 0 ? LogLevel::quiet : verbose ? LogLevel::verbose : LogLevel::normal;
  const bool terminal = ::isatty(STDOUT_FILENO) == 1;
  return {.level = level, .sink = console_sink(std::cout, terminal, terminal ? terminal_width() : 80)};
}

std::ostream& rank_0_errors() {
  static std::ostream dropped(nullptr);  // no buffer: every write fails silently
  return distributed::rank() == 0 ? std::cerr : dropped;
}

void reject_given(const std::vector<const CLI::Option*>& options, const std::string& reason) {
  for (const CLI::Option* option : options)
    if (option->count() > 0) throw ArgumentError(option->get_name() + " " + reason);
}

std::vector<const CLI::Option*> options_except(const CLI::App& command, const std::vector<std::string>& keep) {
  return command.get_options([&](const CLI::Option* option) {
    return std::none_of(keep.begin(), keep.end(), [&](const std::string& name) { return option->check_name(name); });
  });
}

namespace {

// Edits that turn a into b: insertions, deletions, replacements and swaps of neighbouring letters.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  // edits[i][j]: between the first i letters of a and the first j of b
  std::vector<std::vector<std::size_t>> edits(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) edits[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) edits[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t replace = edits[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      edits[i][j] = std::min({edits[i - 1][j] + 1, edits[i][j - 1] + 1, replace});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        edits[i][j] = std::min(edits[i][j], edits[i - 2][j - 2] + 1);
    }
  }
  return edits[a.size()][b.size()];
}

// The subcommand the command line ran, however deep (`graph build`); `app` itself when none.
const CLI::App& command_run(const CLI::App& app) {
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  return parsed.empty() ? app : command_run(*parsed.front());
}

// The long names of the command's options, those of its option groups included, without "--".
void add_long_names(const CLI::App& command, std::vector<std::string>& names) {
  for (const CLI::Option* option : command.get_options())
    names.insert(names.end(), option->get_lnames().begin(), option->get_lnames().end());
  for (const CLI::App* group : command.get_subcommands([](const CLI::App* sub) { return sub->get_name().empty(); }))
    add_long_names(*group, names);
}

// The known name nearest to `unknown` (both without "--"), if it is near enough to be a typing slip:
// one edit in a short name, two in a longer one.
std::optional<std::string> nearest_name(const std::string& unknown, const std::vector<std::string>& names) {
  const std::size_t allowed = unknown.size() < 6 ? 1 : 2;
  std::optional<std::string> nearest;
  std::size_t best = allowed + 1;
  for (const std::string& name : names) {
    const std::size_t distance = edit_distance(unknown, name);
    if (distance < best) {
      best = distance;
      nearest = name;
    }
  }
  return nearest;
}

}  // namespace

std::string option_suggestions(const CLI::App& app) {
  std::vector<std::string> names;
  add_long_names(command_run(app), names);
  std::string suggestions;
  for (const std::string& argument : app.remaining(true)) {
    if (!argument.starts_with("--")) continue;
    const std::string unknown = argument.substr(2, argument.find('=') - 2);
    if (const std::optional<std::string> name = nearest_name(unknown, names))
      suggestions += "--" + unknown + ": did you mean --" + *name + "?\n";
  }
  return suggestions;
}

long long column_index_option(const std::string& option, const std::string& text) {
  long long value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0)
    throw ArgumentError(option + ": '" + text + "' is not a column index (0-based); without a header, columns are chosen by index");
  return value;
}

namespace {

constexpr std::size_t kListedItems = 20;  // longer lists are shortened to their first items and a count

std::string list_text(const nlohmann::json& items) {
  if (items.empty()) return "(none)";
  std::string text;
  for (std::size_t i = 0; i < std::min(items.size(), kListedItems); ++i)
    text += (i > 0 ? ", " : "") + value_text(items[i]);
  if (items.size() > kListedItems) text += ", ... (" + std::to_string(items.size()) + " in all)";
  return text;
}

}  // namespace

std::string value_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) return list_text(value);
  if (value.is_null()) return "-";
  return value.dump();
}

void field(std::ostream& out, const std::string& name, const std::string& value) {
  std::string padded = "  " + name;
  if (padded.size() < 22) padded.append(22 - padded.size(), ' ');
  out << padded << ' ' << value << '\n';
}

void fields(std::ostream& out, const nlohmann::json& object, const std::string& prefix) {
  for (const auto& [name, value] : object.items()) {
    if (value.is_object()) {
      fields(out, value, prefix + name + ".");
    } else {
      field(out, prefix + name, value_text(value));
    }
  }
}

std::string format_value(float value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", static_cast<double>(value));
  return text;
}

}  // namespace edgewise::cli

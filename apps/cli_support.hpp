// Pieces shared by the subcommands: option validators, output-file safety, and the field lines of
// `info` and `graph info`.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "edgewise/models/checkpoint.hpp"
#include "edgewise/core/log.hpp"
#include "edgewise/core/names.hpp"
#include "plot.hpp"

namespace edgewise::cli {

// The coverage of the intervals and prediction sets that train and eval score.
inline constexpr double kDefaultCoverage = 0.9;

// Accepts integers >= minimum; `name` labels the option's type in --help. (CLI11's PositiveNumber
// would print its upper bound, DBL_MAX, in full in its error message.)
CLI::Validator at_least(long long minimum, const std::string& name);

// Adds --threads (default: EDGEWISE_NUM_THREADS, else every core) to a command.
void add_threads_option(CLI::App& command, int& threads);
// Applies a --threads value; 0 keeps the default.
void apply_threads(int threads);
// Adds --precision (auto, float32 or bf16) to a command that runs a model's matrix products.
void add_precision_option(CLI::App& command, std::string& precision);
// Applies a --precision value; empty applies default_precision() (EDGEWISE_PRECISION, else auto).
// Says so on stderr when bf16 was asked for (by either) on a CPU without AVX-512 BF16, which runs
// float32. Under mpirun every process calls it: where they would compute at different precisions,
// all run float32.
void apply_precision(const std::string& precision);

// Throws Error unless `path` can be created: an existing file is replaced only with `force`, so that
// nothing the user has is overwritten without asking. Call before any long work.
void check_output_path(const std::string& path, bool force);
// How an output is committed: an existing file is replaced only with --force, even one that
// appeared while the command ran.
Overwrite overwrite_for(bool force);

// Writes `text` to `path` atomically as overwrite_for(force) allows, or to standard output when
// `path` is empty.
void write_output(const std::string& path, const std::string& text, bool force);

// --checkpoint-every, --checkpoint and --resume of `train`.
struct CheckpointArgs {
  Index every = 0;
  std::string path;  // empty: the model file's name with ".ckpt" added
  std::string resume;
};

// Registers the checkpoint options on `command`.
void add_checkpoint_options(CLI::App& command, CheckpointArgs& args);

// The checkpoint options for a model written to `out`. Throws ArgumentError for --checkpoint
// without --checkpoint-every, and Error when checkpoints would replace an existing file other than
// the one resumed from without `force`.
CheckpointOptions checkpoint_options(const CheckpointArgs& args, const std::string& out, bool force);

// "; the last checkpoint, from which --resume continues, is PATH" when one was written; else empty.
std::string last_checkpoint_note(const CheckpointOptions& checkpoints);

// Runs `fit`; when it throws DivergenceError, rethrows it with where the last good state is.
template <typename Fit>
auto fit_reporting_divergence(const CheckpointOptions& checkpoints, Fit&& fit) {
  try {
    return fit();
  } catch (const DivergenceError& e) {
    throw DivergenceError(std::string(e.what()) + ". No model was written" + last_checkpoint_note(checkpoints));
  }
}

// check_output_path for a --plot image, which must also differ from the model file `out`.
void check_plot_path(const std::string& plot, const std::string& out, bool force);
// Writes the curve as SVG to `path` atomically; an existing file is replaced only with `force`.
void write_plot(const std::string& path, const Plot& curve, bool force);

// Adds the required --task, taking the tasks named in `tasks` (name, what it trains), with their
// help; graph, the molecule task's earlier name, reads as molecule.
void add_task_option(CLI::App& command, std::string& task,
                     const std::vector<std::pair<std::string, std::string>>& tasks);

// Adds --quiet and --verbose to a command.
void add_log_options(CLI::App& command, bool& quiet, bool& verbose);
// Settings for messages on standard output at the level --quiet or --verbose ask for. On a terminal,
// per-epoch lines become a progress bar redrawn on one line; piped or redirected, they stay lines.
// Under mpirun only rank 0 prints, as every process of a training says the same.
LogSettings console_log(bool quiet, bool verbose);
// Standard error on rank 0; elsewhere a stream that drops what it is given, for the warnings about
// the input that every process of a training would repeat.
std::ostream& rank_0_errors();

// Writes "  name" padded to a column, then the value, as one line of `edgewise info`.
void field(std::ostream& out, const std::string& name, const std::string& value);
// A JSON value as `edgewise info` shows it: text bare, lists shortened to their first items and a
// count, null as "-".
std::string value_text(const nlohmann::json& value);
// Every entry of a configuration object as a field (value_text), nested objects as "outer.inner".
void fields(std::ostream& out, const nlohmann::json& object, const std::string& prefix = "");
// A number as predictions are written: 6 significant digits.
std::string format_value(float value);

// Throws ArgumentError naming the first of `options` given on the command line: "<name> <reason>".
// For options that only one kind of model or task reads.
void reject_given(const std::vector<const CLI::Option*>& options, const std::string& reason);

// The options registered on `command` itself (not in its option groups) but those named in `keep`.
std::vector<const CLI::Option*> options_except(const CLI::App& command, const std::vector<std::string>& keep);

// Parses a non-negative integer column index; throws ArgumentError naming the option otherwise.
long long column_index_option(const std::string& option, const std::string& text);

// For a command line `app` failed to parse: a line "--epoch: did you mean --epochs?" for each long
// option the command run does not know but that is a letter or two from one it does; else empty.
std::string option_suggestions(const CLI::App& app);

}  // namespace edgewise::cli

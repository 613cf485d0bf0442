/// \file
/// Progress messages of long operations (training), as a setting passed in with the operation's
/// options rather than a global: a level (quiet, normal, verbose) and a sink that receives each
/// message. Without a sink, messages go to stderr, one line each.
///
///     TrainingOptions options;
///     options.log = {.level = LogLevel::verbose,
///                    .sink = [](const LogMessage& m) { my_logger.info(m.text); }};
///
/// A training loop's per-epoch message also carries its numbers (EpochProgress), so that a sink can
/// show them differently, e.g. as a progress bar redrawn on one terminal line (console_sink).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// How much a long operation reports.
enum class LogLevel {
  quiet,    ///< nothing
  normal,   ///< what a user follows: one line per epoch, summaries
  verbose,  ///< and details: the training setup, why it stopped
};

/// Where training stands after an epoch. Members left out of a designated initializer take their
/// defaults.
struct EpochProgress {
  Index epoch = 0;               ///< 1-based
  Index epochs = 0;              ///< the limit; early stopping may end sooner
  double train_loss = 0;         ///< the epoch's training loss
  std::string_view metric = {};  ///< name of the validation metric, e.g. "rmse" or "accuracy"
  double validation = 0;         ///< NaN without validation data
  double seconds = 0;            ///< since training started
};

/// One message to a sink.
struct LogMessage {
  LogLevel level = LogLevel::normal;        ///< normal or verbose
  std::string_view text;                    ///< one or more lines, without the final newline
  const EpochProgress* progress = nullptr;  ///< set on a training loop's per-epoch line
};

/// Receives the messages a Logger lets through.
using LogSink = std::function<void(const LogMessage&)>;

/// The log settings of an operation, passed in its options.
struct LogSettings {
  LogLevel level = LogLevel::normal;  ///< messages above this level are dropped
  LogSink sink;                       ///< empty: plain lines on stderr
};

/// Sends messages at or below the settings' level to their sink.
class Logger {
 public:
  /// Keeps a copy of the settings; an empty sink becomes plain lines on stderr.
  explicit Logger(const LogSettings& settings);

  /// Whether messages of `level` reach the sink (never for LogLevel::quiet).
  bool enabled(LogLevel level) const;
  /// A message at the normal level; `progress` marks a training loop's per-epoch line.
  void normal(std::string_view text, const EpochProgress* progress = nullptr) const;
  /// A message at the verbose level.
  void verbose(std::string_view text) const;

 private:
  void write(const LogMessage& message) const;

  LogSettings settings_;
};

/// A sink writing to `out`. Without `redraw`, each message's text as lines. With `redraw` (for a
/// terminal), per-epoch messages become a progress bar `width` characters wide that is redrawn in
/// place on one line; other messages are printed above it, and the bar's last state stays on screen.
/// The returned sink keeps a reference to `out`.
LogSink console_sink(std::ostream& out, bool redraw, int width = 80);

/// The progress bar line for `progress`, at most `width` characters, e.g.
///
///     epoch  12/100 [##.............]  loss 0.4123  val rmse 0.6012  0:12 elapsed  ETA 1:28
///
/// The bar shrinks to fit and is left out when there is no room for it.
std::string format_progress_bar(const EpochProgress& progress, int width);

/// Seconds left until the epoch limit at the mean pace so far; NaN before the first epoch ends.
double estimate_remaining_seconds(const EpochProgress& progress);

/// "m:ss", or "h:mm:ss" from an hour on; "--:--" when not finite or negative.
std::string format_duration(double seconds);

}  // namespace edgewise

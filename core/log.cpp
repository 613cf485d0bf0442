#include "edgewise/core/log.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

std::string number(double value, const char* format) {
  if (std::isnan(value)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// The parts of the bar line around the bar itself.
struct BarParts {
  std::string counter;  // "epoch  12/100"
  std::string numbers;  // "  loss 0.4123  val rmse 0.6012  0:12 elapsed  ETA 1:28"
};

BarParts bar_parts(const EpochProgress& p) {
  const std::string epochs = std::to_string(p.epochs);
  std::string epoch = std::to_string(p.epoch);
  if (epoch.size() < epochs.size()) epoch.insert(0, epochs.size() - epoch.size(), ' ');
  std::string numbers = "  loss " + number(p.train_loss, "%.4f");
  if (!std::isnan(p.validation)) numbers += "  val " + std::string(p.metric) + " " + number(p.validation, "%.4f");
  numbers += "  " + format_duration(p.seconds) + " elapsed  ETA " + format_duration(estimate_remaining_seconds(p));
  return {"epoch " + epoch + "/" + epochs, numbers};
}

std::string bar(Index done, Index total, std::size_t inner_width) {
  const double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
  const auto filled = std::min(inner_width, static_cast<std::size_t>(fraction * static_cast<double>(inner_width)));
  return " [" + std::string(filled, '#') + std::string(inner_width - filled, '.') + "]";
}

// Draws per-epoch messages as a bar redrawn in place ('\r', then erase to the end of the line) and
// prints other messages above it.
class RedrawingSink {
 public:
  RedrawingSink(std::ostream& out, int width) : out_(out), width_(width) {}

  void operator()(const LogMessage& message) {
    if (message.progress) {
      out_ << '\r' << format_progress_bar(*message.progress, width_) << "\x1b[K" << std::flush;
      bar_shown_ = true;
      return;
    }
    if (bar_shown_) out_ << '\n';  // leaves the bar's last state on screen
    bar_shown_ = false;
    out_ << message.text << std::endl;
  }

 private:
  std::ostream& out_;
  int width_;
  bool bar_shown_ = false;
};

}  // namespace

Logger::Logger(const LogSettings& settings) : settings_(settings) {
  if (!settings_.sink) settings_.sink = console_sink(std::cerr, false);
}

bool Logger::enabled(LogLevel level) const {
  return level != LogLevel::quiet && static_cast<int>(level) <= static_cast<int>(settings_.level);
}

void Logger::normal(std::string_view text, const EpochProgress* progress) const {
  write({.level = LogLevel::normal, .text = text, .progress = progress});
}

void Logger::verbose(std::string_view text) const { write({.level = LogLevel::verbose, .text = text}); }

void Logger::write(const LogMessage& message) const {
  if (enabled(message.level)) settings_.sink(message);
}

LogSink console_sink(std::ostream& out, bool redraw, int width) {
  if (redraw) {
    auto sink = std::make_shared<RedrawingSink>(out, width);
    return [sink](const LogMessage& message) { (*sink)(message); };
  }
  return [&out](const LogMessage& message) { out << message.text << std::endl; };
}

std::string format_progress_bar(const EpochProgress& progress, int width) {
  const BarParts parts = bar_parts(progress);
  const std::size_t fixed = parts.counter.size() + parts.numbers.size();
  constexpr std::size_t kBrackets = 3, kMinimumBar = 5;  // " [" and "]" around at least 5 marks
  const auto available = static_cast<std::size_t>(std::max(width, 0));
  if (available < fixed + kBrackets + kMinimumBar) return (parts.counter + parts.numbers).substr(0, available);
  return parts.counter + bar(progress.epoch, progress.epochs, available - fixed - kBrackets) + parts.numbers;
}

double estimate_remaining_seconds(const EpochProgress& progress) {
  if (progress.epoch < 1) return std::nan("");
  const double per_epoch = progress.seconds / static_cast<double>(progress.epoch);
  return per_epoch * static_cast<double>(std::max<Index>(progress.epochs - progress.epoch, 0));
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const auto total = static_cast<long long>(std::llround(seconds));
  const long long hours = total / 3600, minutes = total / 60 % 60, rest = total % 60;
  char text[40];
  if (hours > 0) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", hours, minutes, rest);
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", minutes, rest);
  }
  return text;
}

}  // namespace edgewise

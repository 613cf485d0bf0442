// Log settings: levels, sinks, and the progress bar a terminal shows for per-epoch messages.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/log.hpp"

namespace edgewise {
namespace {

struct Captured {
  LogLevel level;
  std::string text;
  bool has_progress;
};

LogSettings capture(LogLevel level, std::vector<Captured>& into) {
  return {.level = level, .sink = [&into](const LogMessage& m) {
            into.push_back({m.level, std::string(m.text), m.progress != nullptr});
          }};
}

EpochProgress halfway() {
  return {.epoch = 50, .epochs = 100, .train_loss = 0.41234, .metric = "rmse", .validation = 0.60123, .seconds = 100};
}

TEST(LoggerTest, PassesMessagesUpToItsLevel) {
  for (const LogLevel level : {LogLevel::quiet, LogLevel::normal, LogLevel::verbose}) {
    std::vector<Captured> messages;
    const Logger log(capture(level, messages));
    const EpochProgress progress = halfway();
    log.normal("epoch line", &progress);
    log.verbose("detail");
    std::vector<std::string> texts;
    for (const Captured& m : messages) texts.push_back(m.text);
    const std::vector<std::string> expected = level == LogLevel::quiet    ? std::vector<std::string>{}
                                              : level == LogLevel::normal ? std::vector<std::string>{"epoch line"}
                                                                          : std::vector<std::string>{"epoch line", "detail"};
    EXPECT_EQ(texts, expected);
    if (!messages.empty()) {
      EXPECT_TRUE(messages[0].has_progress);
      EXPECT_EQ(messages[0].level, LogLevel::normal);
    }
    EXPECT_EQ(log.enabled(LogLevel::verbose), level == LogLevel::verbose);
    EXPECT_FALSE(log.enabled(LogLevel::quiet)) << "quiet is a setting, never a message's level";
  }
}

TEST(ProgressTest, FormatsDurations) {
  EXPECT_EQ(format_duration(0), "0:00");
  EXPECT_EQ(format_duration(59.6), "1:00");
  EXPECT_EQ(format_duration(125), "2:05");
  EXPECT_EQ(format_duration(3725), "1:02:05");
  EXPECT_EQ(format_duration(std::nan("")), "--:--");
  EXPECT_EQ(format_duration(-1), "--:--");
}

TEST(ProgressTest, EstimatesTheRemainingTimeFromTheMeanEpoch) {
  EXPECT_DOUBLE_EQ(estimate_remaining_seconds({.epoch = 10, .epochs = 100, .seconds = 20}), 180.0);
  EXPECT_DOUBLE_EQ(estimate_remaining_seconds({.epoch = 100, .epochs = 100, .seconds = 20}), 0.0);
  EXPECT_DOUBLE_EQ(estimate_remaining_seconds({.epoch = 1, .epochs = 1, .seconds = 3}), 0.0);
  EXPECT_TRUE(std::isnan(estimate_remaining_seconds({.epoch = 0, .epochs = 100, .seconds = 0})));
}

TEST(ProgressTest, DrawsTheBarBetweenCounterAndNumbers) {
  const std::string expected = "epoch  50/100 [" + std::string(15, '#') + std::string(15, '.') +
                               "]  loss 0.4123  val rmse 0.6012  1:40 elapsed  ETA 1:40";
  EXPECT_EQ(format_progress_bar(halfway(), 100), expected);
  EXPECT_EQ(expected.size(), 100u);
}

TEST(ProgressTest, BarFillsAtTheLastEpochAndLeavesOutAMissingValidation) {
  const EpochProgress done{.epoch = 3, .epochs = 3, .train_loss = 1.5, .metric = "accuracy",
                           .validation = std::nan(""), .seconds = 4.2};
  EXPECT_EQ(format_progress_bar(done, 59), "epoch 3/3 [##########]  loss 1.5000  0:04 elapsed  ETA 0:00");
}

TEST(ProgressTest, NarrowTerminalsDropTheBarThenCutTheLine) {
  const std::string no_bar = format_progress_bar(halfway(), 70);
  EXPECT_EQ(no_bar, "epoch  50/100  loss 0.4123  val rmse 0.6012  1:40 elapsed  ETA 1:40");
  EXPECT_EQ(format_progress_bar(halfway(), 20), "epoch  50/100  loss ");
  EXPECT_EQ(format_progress_bar(halfway(), 0), "");
}

TEST(ConsoleSinkTest, PlainSinkWritesLines) {
  std::ostringstream out;
  const LogSettings settings{.sink = console_sink(out, false)};
  const Logger log(settings);
  const EpochProgress progress = halfway();
  log.normal("epoch 50", &progress);
  log.normal("two\nlines");
  EXPECT_EQ(out.str(), "epoch 50\ntwo\nlines\n");
}

TEST(ConsoleSinkTest, RedrawingSinkKeepsTheBarOnOneLine) {
  std::ostringstream out;
  const Logger log({.sink = console_sink(out, true, 100)});
  log.normal("setup");
  EpochProgress progress = halfway();
  log.normal("epoch 50 line", &progress);
  progress.epoch = 100;
  progress.seconds = 200;
  log.normal("epoch 100 line", &progress);
  log.normal("best epoch 100");
  const std::string bar50 = format_progress_bar(halfway(), 100), bar100 = format_progress_bar(progress, 100);
  EXPECT_EQ(out.str(), "setup\n\r" + bar50 + "\x1b[K\r" + bar100 + "\x1b[K\nbest epoch 100\n");
}

}  // namespace
}  // namespace edgewise

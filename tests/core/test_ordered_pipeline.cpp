// run_ordered_pipeline: every input handed out once, in input order, with its own batch's result or
// as refused; batches never span two windows and hold at most the batch size; windows of one row and
// a partial last window; the same on 1 and 2 threads; what a stage throws reaches the caller.
#include "edgewise/core/ordered_pipeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace edgewise {
namespace {

struct Slot {
  std::size_t value = 0;
  std::size_t square = 0;
  std::string error;
};

// Items whose value is 3 modulo 5 are refused.
bool refused(std::size_t value) { return value % 5 == 3; }

// What a batch's run gives: each item's square + 1, and where its items came from.
struct BatchResult {
  std::vector<std::size_t> values;
  std::vector<std::size_t> squares_plus_one;
};

struct Emitted {
  std::size_t index;
  std::size_t value;
  bool has_result;
  std::size_t result;
};

struct Outcome {
  std::vector<Emitted> emitted;
  std::vector<std::vector<std::size_t>> batches;  // the values of each batch, as run
  std::size_t most_read_ahead = 0;                // reads done beyond the row being emitted
};

Outcome run_numbers(std::size_t n, const OrderedPipelineSizes& sizes) {
  Outcome outcome;
  std::mutex batches;
  std::size_t read = 0;
  run_ordered_pipeline<Slot>(
      sizes,
      [&](Slot& slot) {
        if (read == n) return false;
        slot.value = read++;
        return true;
      },
      [](Slot& slot) {
        if (refused(slot.value)) {
          slot.error = "refused " + std::to_string(slot.value);
          return false;
        }
        slot.square = slot.value * slot.value;
        return true;
      },
      [&](std::span<Slot* const> items) {
        BatchResult result;
        for (const Slot* slot : items) {
          result.values.push_back(slot->value);
          result.squares_plus_one.push_back(slot->square + 1);
        }
        const std::lock_guard lock(batches);
        outcome.batches.push_back(result.values);
        return result;
      },
      [&](std::size_t index, Slot& slot, const BatchResult* result, std::size_t row) {
        outcome.most_read_ahead = std::max(outcome.most_read_ahead, read - index);
        if (!result) {
          EXPECT_EQ(slot.error, "refused " + std::to_string(slot.value));
          EXPECT_EQ(row, 0u);
          outcome.emitted.push_back({index, slot.value, false, 0});
          return;
        }
        EXPECT_EQ(result->values.at(row), slot.value);
        outcome.emitted.push_back({index, slot.value, true, result->squares_plus_one.at(row)});
      });
  return outcome;
}

class OrderedPipelineTest : public ::testing::Test {
 protected:
  void TearDown() override { set_num_threads(0); }
};

TEST_F(OrderedPipelineTest, HandsOutEveryInputInOrderWithItsOwnBatchsResult) {
  for (const int threads : {1, 2}) {
    set_num_threads(threads);
    for (const std::size_t n : {0u, 1u, 2u, 10u, 101u}) {
      for (const std::size_t window : {1u, 3u, 7u, 1024u}) {
        for (const std::size_t chunk : {1u, 4u}) {
          for (const std::size_t batch : {1u, 2u, 5u, 64u}) {
            SCOPED_TRACE("threads " + std::to_string(threads) + ", n " + std::to_string(n) + ", window " +
                         std::to_string(window) + ", chunk " + std::to_string(chunk) + ", batch " +
                         std::to_string(batch));
            const Outcome outcome = run_numbers(n, {.window = window, .chunk = chunk, .batch = batch});
            ASSERT_EQ(outcome.emitted.size(), n);
            for (std::size_t i = 0; i < n; ++i) {
              const Emitted& row = outcome.emitted[i];
              EXPECT_EQ(row.index, i);
              EXPECT_EQ(row.value, i);
              EXPECT_EQ(row.has_result, !refused(i));
              if (row.has_result) {
                EXPECT_EQ(row.result, i * i + 1);
              }
            }
            std::size_t batched = 0;
            for (const std::vector<std::size_t>& values : outcome.batches) {
              ASSERT_FALSE(values.empty());
              EXPECT_LE(values.size(), batch);
              EXPECT_EQ(values.front() / window, values.back() / window) << "a batch spans two windows";
              EXPECT_TRUE(std::is_sorted(values.begin(), values.end()));
              batched += values.size();
            }
            EXPECT_EQ(batched, static_cast<std::size_t>(std::count_if(
                                   outcome.emitted.begin(), outcome.emitted.end(),
                                   [](const Emitted& row) { return row.has_result; })));
            // A row is handed out before the window after the next one is read.
            EXPECT_LE(outcome.most_read_ahead, 2 * window);
          }
        }
      }
    }
  }
}

// Full batches first, the last one of each window partial: windows of 10 rows, 2 refused in each
// (values 3 and 8 modulo 10), batches of 3: 3 + 3 + 2 per window.
TEST_F(OrderedPipelineTest, EachWindowEndsInAPartialBatch) {
  set_num_threads(2);
  Outcome outcome = run_numbers(25, {.window = 10, .chunk = 4, .batch = 3});
  std::sort(outcome.batches.begin(), outcome.batches.end());
  const std::vector<std::vector<std::size_t>> expected = {
      {0, 1, 2}, {4, 5, 6}, {7, 9}, {10, 11, 12}, {14, 15, 16}, {17, 19}, {20, 21, 22}, {24}};
  EXPECT_EQ(outcome.batches, expected);
}

TEST_F(OrderedPipelineTest, AnExceptionOfAStageReachesTheCaller) {
  for (const int threads : {1, 2}) {
    set_num_threads(threads);
    const auto read_numbers = [](std::size_t n) {
      return [n, read = std::size_t{0}](Slot& slot) mutable {
        if (read == n) return false;
        slot.value = read++;
        return true;
      };
    };
    const auto accept = [](Slot&) { return true; };
    const auto count = [](std::span<Slot* const> items) { return items.size(); };
    const auto ignore = [](std::size_t, Slot&, const std::size_t*, std::size_t) {};
    const OrderedPipelineSizes sizes{.window = 8, .chunk = 2, .batch = 4};
    // Of two items that throw in one step, the first's exception.
    EXPECT_THROW(
        {
          try {
            run_ordered_pipeline<Slot>(sizes, read_numbers(30), [](Slot& slot) {
              if (slot.value == 13 || slot.value == 11)
                throw std::runtime_error("transform " + std::to_string(slot.value));
              return true;
            }, count, ignore);
          } catch (const std::runtime_error& e) {
            EXPECT_STREQ(e.what(), "transform 11");
            throw;
          }
        },
        std::runtime_error);
    EXPECT_THROW(run_ordered_pipeline<Slot>(sizes, read_numbers(30), accept,
                                            [](std::span<Slot* const> items) -> std::size_t {
                                              if (items.front()->value == 12) throw std::logic_error("run");
                                              return items.size();
                                            },
                                            ignore),
                 std::logic_error);
    EXPECT_THROW(run_ordered_pipeline<Slot>(sizes, [](Slot&) -> bool { throw std::out_of_range("read"); }, accept,
                                            count, ignore),
                 std::out_of_range);
    EXPECT_THROW(run_ordered_pipeline<Slot>(sizes, read_numbers(30), accept, count,
                                            [](std::size_t index, Slot&, const std::size_t*, std::size_t) {
                                              if (index == 9) throw std::domain_error("emit");
                                            }),
                 std::domain_error);
  }
  EXPECT_THROW(run_ordered_pipeline<Slot>({.window = 0}, [](Slot&) { return false; }, [](Slot&) { return true; },
                                          [](std::span<Slot* const>) { return 0; },
                                          [](std::size_t, Slot&, const int*, std::size_t) {}),
               ArgumentError);
}

}  // namespace
}  // namespace edgewise

// The thread count and parallel loops: every item runs exactly once, on a thread index below the
// count; a throwing item does not stop the others; nested loops run on the calling thread;
// set_num_threads(0) restores the default; the governor lowers the loops' thread count while the
// process is preempted and tries the higher count again after a growing wait; turns are given in
// the order they were asked for, to at most as many threads at once as asked.
#include "edgewise/core/parallel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace edgewise {
namespace {

class ParallelTest : public ::testing::Test {
 protected:
  void TearDown() override { set_num_threads(0); }
};

TEST_F(ParallelTest, EveryItemRunsOnceOnAThreadBelowTheCount) {
  set_num_threads(2);
  EXPECT_EQ(num_threads(), 2);
  constexpr Index n = 1000;
  std::vector<int> runs(n, 0);
  std::vector<int> threads(n, -1);
  parallel_for_dynamic(n, [&](Index i) {
    ++runs[static_cast<std::size_t>(i)];
    threads[static_cast<std::size_t>(i)] = thread_index();
  }, 7);
  for (Index i = 0; i < n; ++i) {
    EXPECT_EQ(runs[static_cast<std::size_t>(i)], 1) << i;
    EXPECT_GE(threads[static_cast<std::size_t>(i)], 0);
    EXPECT_LT(threads[static_cast<std::size_t>(i)], 2);
  }
  EXPECT_FALSE(in_parallel_region());
  EXPECT_EQ(thread_index(), 0);
}

TEST_F(ParallelTest, EveryItemOfAnOwnedRangesLoopRunsOnce) {
  set_num_threads(2);
  for (const Index n : {Index{0}, Index{1}, Index{2}, Index{31}, Index{1000}}) {
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
    parallel_for(n, [&](Index i) { ++runs[static_cast<std::size_t>(i)]; });
    for (const std::atomic<int>& count : runs) EXPECT_EQ(count.load(), 1) << "n = " << n;
  }
}

// A thread takes the chunks of its own range in order, then what is left of the next thread's.
TEST_F(ParallelTest, ThreadsTakeTheirOwnRangeFirstThenHelpWithTheOthers) {
  using Chunk = std::pair<Index, Index>;
  // 100 items, 2 threads: ranges [0, 50) and [50, 100), chunks of 100 / (2 * 16) = 3 items.
  detail::OwnedRanges ranges(100, 2);
  EXPECT_EQ(ranges.next(1), (Chunk{50, 53}));
  EXPECT_EQ(ranges.next(0), (Chunk{0, 3}));
  EXPECT_EQ(ranges.next(1), (Chunk{53, 56}));
  for (Index first = 3; first < 48; first += 3) EXPECT_EQ(ranges.next(0), (Chunk{first, first + 3}));
  EXPECT_EQ(ranges.next(0), (Chunk{48, 50}));  // the last chunk is cut at its range's end
  EXPECT_EQ(ranges.next(0), (Chunk{56, 59}));  // thread 0 helps with thread 1's range
  EXPECT_EQ(ranges.next(1), (Chunk{59, 62}));  // which thread 1 goes on taking
  for (Index first = 62; first < 98; first += 3) EXPECT_EQ(ranges.next(0), (Chunk{first, first + 3}));
  EXPECT_EQ(ranges.next(1), (Chunk{98, 100}));
  EXPECT_EQ(ranges.next(1), (Chunk{0, 0}));
  EXPECT_EQ(ranges.next(0), (Chunk{0, 0}));
}

TEST_F(ParallelTest, BlocksCoverTheRangeWithAShorterLastBlock) {
  set_num_threads(2);
  std::vector<std::atomic<int>> covered(103);
  std::atomic<int> short_blocks = 0;
  parallel_for_blocks(103, 10, [&](Index begin, Index end) {
    if (end - begin < 10) ++short_blocks;
    for (Index i = begin; i < end; ++i) ++covered[static_cast<std::size_t>(i)];
  });
  for (const auto& count : covered) EXPECT_EQ(count, 1);
  EXPECT_EQ(short_blocks, 1);
}

TEST_F(ParallelTest, NestedLoopsRunOnTheCallingThread) {
  set_num_threads(2);
  std::atomic<int> inner_on_another_thread = 0;
  parallel_for(4, [&](Index) {
    EXPECT_TRUE(in_parallel_region());
    const std::thread::id outer = std::this_thread::get_id();
    parallel_for(8, [&](Index) {
      if (std::this_thread::get_id() != outer) ++inner_on_another_thread;
    });
  });
  EXPECT_EQ(inner_on_another_thread, 0);
}

TEST_F(ParallelTest, LoopsOfAThreadMarkedSerialRunOnItAlone) {
  set_num_threads(2);
  const auto threads_used = [] {
    std::vector<int> used(64, 0);
    parallel_for(64, [&](Index i) { used[static_cast<std::size_t>(i)] = thread_index(); });
    return *std::max_element(used.begin(), used.end()) + 1;
  };
  int background = 0;
  std::thread worker([&] {
    const SerialLoopsOnThisThread serial;
    background = threads_used();
  });
  worker.join();
  EXPECT_EQ(background, 1);
  // The main thread's count is the governor's (which a busy machine may lower), so only the marked
  // scope is certain.
  const SerialLoopsOnThisThread serial;
  EXPECT_EQ(loop_threads(), 1);
}

TEST_F(ParallelTest, ThrowingBodiesRunEveryItemThenRethrowTheFirstInItemOrder) {
  set_num_threads(2);
  std::vector<std::atomic<int>> runs(100);
  try {
    parallel_for_rethrowing(
        100,
        [&](Index i) {
          ++runs[static_cast<std::size_t>(i)];
          if (i % 30 == 7) throw std::runtime_error("item " + std::to_string(i));
        },
        1);
    FAIL() << "expected the items' exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "item 7");
  }
  for (const std::atomic<int>& count : runs) EXPECT_EQ(count.load(), 1);
  EXPECT_NO_THROW(parallel_for_rethrowing(10, [](Index) {}));
}

TEST_F(ParallelTest, ZeroRestoresTheDefault) {
  set_num_threads(0);
  const int by_default = num_threads();
  EXPECT_GE(by_default, 1);
  set_num_threads(3);
  EXPECT_EQ(num_threads(), 3);
  set_num_threads(0);
  EXPECT_EQ(num_threads(), by_default);
}

// Windows of 1/8 s (so that their sums are exact): a quiet one, and one with 40 preemptions (320 a
// second) in which two threads got 2/3 of their CPU time, as when another CPU-bound process shares
// two cores with them. Windows without CPU time count as short of it.
constexpr ThreadGovernor::Window kQuiet{.seconds = 0.125, .preemptions = 0, .cpu_seconds = 0.25};
constexpr ThreadGovernor::Window kPreempted{.seconds = 0.125, .preemptions = 40, .cpu_seconds = 0.167};

void observe(ThreadGovernor& governor, const ThreadGovernor::Window& window, int times) {
  for (int i = 0; i < times; ++i) governor.observe(window);
}

TEST(ThreadGovernorTest, KeepsTheRequestedCountWhileUndisturbed) {
  ThreadGovernor governor(2);
  EXPECT_EQ(governor.threads(), 2);
  observe(governor, kQuiet, 100);
  // A few preemptions a second, as an idle machine's timers cause, are no reason to slow down.
  observe(governor, {.seconds = 0.125, .preemptions = 2}, 100);
  EXPECT_EQ(governor.threads(), 2);
}

TEST(ThreadGovernorTest, PreemptionsThatLeaveTheThreadsTheirCoresAreNoReasonToSlowDown) {
  // A terminal or pipe reading the log wakes once a line and preempts a thread for microseconds:
  // many preemptions, yet the threads keep nearly all their CPU time.
  ThreadGovernor governor(2);
  observe(governor, {.seconds = 0.125, .preemptions = 40, .cpu_seconds = 0.24}, 100);
  EXPECT_EQ(governor.threads(), 2);
  governor.observe({.seconds = 0.125, .preemptions = 40, .cpu_seconds = 0.2});  // under 85 %: short of cores
  EXPECT_EQ(governor.threads(), 1);
}

TEST(ThreadGovernorTest, HalvesWhenPreemptedAndTriesAgainAfterHalfASecond) {
  ThreadGovernor governor(2);
  governor.observe(kPreempted);
  EXPECT_EQ(governor.threads(), 1);
  observe(governor, kQuiet, 3);
  EXPECT_EQ(governor.threads(), 1);
  governor.observe(kQuiet);  // 0.5 s at one thread
  EXPECT_EQ(governor.threads(), 2);
  observe(governor, kQuiet, 50);  // the try went well: stay
  EXPECT_EQ(governor.threads(), 2);
}

TEST(ThreadGovernorTest, WaitsTwiceAsLongAfterEachFailedTryUpToEightSeconds) {
  ThreadGovernor governor(2);
  governor.observe(kPreempted);
  for (const int windows : {4, 8, 16, 32, 64, 64, 64}) {
    observe(governor, kQuiet, windows - 1);
    EXPECT_EQ(governor.threads(), 1) << windows;
    governor.observe(kQuiet);
    EXPECT_EQ(governor.threads(), 2) << windows;
    governor.observe(kPreempted);  // the try failed
    EXPECT_EQ(governor.threads(), 1) << windows;
  }
}

TEST(ThreadGovernorTest, NeverTriesMoreThreadsWhileEvenOneIsPreempted) {
  ThreadGovernor governor(2);
  governor.observe(kPreempted);
  // At one thread, 20 preemptions in 1/8 s: every core is busy with other work.
  observe(governor, {.seconds = 0.125, .preemptions = 20}, 100);
  EXPECT_EQ(governor.threads(), 1);
  observe(governor, kQuiet, 4);
  EXPECT_EQ(governor.threads(), 2);
}

TEST(ThreadGovernorTest, StepsDownByHalvingAndUpByDoubling) {
  ThreadGovernor governor(6);
  governor.observe({.seconds = 0.125, .preemptions = 100});
  EXPECT_EQ(governor.threads(), 3);
  governor.observe({.seconds = 0.125, .preemptions = 100});
  EXPECT_EQ(governor.threads(), 1);
  observe(governor, kQuiet, 4);
  EXPECT_EQ(governor.threads(), 2);
  observe(governor, kQuiet, 4);  // the try held; after another 0.5 s, the next one
  EXPECT_EQ(governor.threads(), 4);
  observe(governor, kQuiet, 4);
  EXPECT_EQ(governor.threads(), 6);
}

// Threads that each take `turns` turns, passing each on to the next; the order the turns began in,
// and the most threads that held one at once.
struct TurnsTaken {
  std::vector<int> order;
  int most_at_once = 0;
};

TurnsTaken take_turns(std::size_t at_once, int threads, int turns_each) {
  Turns turns(at_once);
  TurnsTaken taken;
  std::mutex recording;
  int holding = 0;
  const auto work = [&](int thread) {
    turns.take();
    for (int turn = 0; turn < turns_each; ++turn) {
      {
        const std::lock_guard lock(recording);
        taken.order.push_back(thread);
        taken.most_at_once = std::max(taken.most_at_once, ++holding);
      }
      std::this_thread::yield();
      {
        const std::lock_guard lock(recording);
        --holding;
      }
      if (turn + 1 < turns_each) turns.pass();
    }
    turns.give_back();
  };
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t) running.emplace_back(work, t);
  for (std::thread& thread : running) thread.join();
  return taken;
}

// Between two turns of one thread, every other thread has at most one: a thread that passes its turn
// on waits behind those already waiting, where a plain lock may hand it straight back.
TEST(TurnsTest, GivesTurnsInTheOrderAskedFor) {
  constexpr int kThreads = 4, kTurnsEach = 200;
  const TurnsTaken taken = take_turns(1, kThreads, kTurnsEach);
  ASSERT_EQ(taken.order.size(), static_cast<std::size_t>(kThreads * kTurnsEach));
  EXPECT_EQ(taken.most_at_once, 1);
  std::vector<std::size_t> last_turn(kThreads, taken.order.size());
  for (std::size_t i = 0; i < taken.order.size(); ++i) {
    const auto thread = static_cast<std::size_t>(taken.order[i]);
    if (last_turn[thread] < i) {
      std::vector<int> others(kThreads, 0);
      for (std::size_t between = last_turn[thread] + 1; between < i; ++between)
        ++others[static_cast<std::size_t>(taken.order[between])];
      EXPECT_LE(*std::max_element(others.begin(), others.end()), 1) << "turn " << i << " of thread " << thread;
    }
    last_turn[thread] = i;
  }
}

TEST(TurnsTest, LetsAsManyWorkAtOnceAsAsked) {
  const TurnsTaken taken = take_turns(2, 5, 100);
  EXPECT_EQ(taken.order.size(), 500u);
  EXPECT_LE(taken.most_at_once, 2);
  const TurnsTaken alone = take_turns(3, 1, 10);  // fewer threads than turns at once: no wait
  EXPECT_EQ(alone.order, std::vector<int>(10, 0));
}

TEST_F(ParallelTest, LoopsUseTheRequestedCountAndEigenOneThread) {
  set_num_threads(2);
  EXPECT_EQ(loop_threads(), 2);
  set_num_threads(1);
  EXPECT_EQ(loop_threads(), 1);
  EXPECT_EQ(Eigen::nbThreads(), 1);  // multiply() cuts the products instead
}

}  // namespace
}  // namespace edgewise

/// \file
/// The thread count used by every parallel loop in edgewise. OpenMP's own default may be 1 on some
/// machines, so edgewise sets it explicitly: from set_num_threads(), else EDGEWISE_NUM_THREADS, else
/// the number of hardware threads. That count is an upper bound: while other processes keep the
/// cores busy, loops run on fewer threads (ThreadGovernor).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// Sets the number of threads for kernels, projections and featurization. n < 1 restores the default.
void set_num_threads(int n);

/// The number of threads parallel loops will use.
int num_threads();

/// The threads the next parallel loop runs on: num_threads(), or fewer while this process's threads
/// are being preempted, as ThreadGovernor decides from the process's involuntary context switches in
/// windows of about 0.1 s. Which thread runs which item never changes a result, so the count changes
/// timings only.
int loop_threads();

/// Decides how many threads parallel loops use, from what each window of work saw. A loop's end
/// waits for its slowest thread, so a loop of 40 us whose thread another process preempts for a
/// scheduler slice (a few ms) takes 100 times longer: with more runnable threads than free cores,
/// two threads run many times slower than one. So while the process's threads are preempted often,
/// the governor halves the thread count, down to 1; after a wait at the lower count (0.5 s,
/// doubling after each failed try, up to 8 s) it tries the higher count for a window again.
/// Preemptions count only when they cost the process its cores: a window whose threads still got
/// 85 % of their CPU time was disturbed by short tasks (the terminal or pipe reading the process's
/// log lines, which wakes once a line), not by a process competing for the cores.
class ThreadGovernor {
 public:
  /// What one window of parallel work saw: its wall time, and the process's involuntary context
  /// switches (getrusage's ru_nivcsw) and CPU time (user and system, all threads) in it.
  struct Window {
    double seconds = 0;      ///< wall time
    double preemptions = 0;  ///< involuntary context switches of the whole process
    double cpu_seconds = 0;  ///< CPU time of the whole process
  };

  /// Starts at `requested` threads (at least 1), never more.
  explicit ThreadGovernor(int requested);

  /// The threads for the next window.
  int threads() const { return threads_; }
  /// Takes one window's measurements and sets threads() for the next window.
  void observe(const Window& window);

 private:
  bool preempted(const Window& window) const;

  int requested_;
  int threads_;
  double wait_;         // seconds to run at a lowered count before trying more threads
  double waited_ = 0;   // seconds run at the lowered count, undisturbed, since it was set
  bool trying_ = false; // whether threads() is a try at a higher count
};

/// The calling thread's index in the innermost enclosing parallel loop, in [0, num_threads()); 0
/// outside one. Lets loop bodies pick per-thread workspaces.
int thread_index();

/// Whether the caller runs inside a parallel loop. Loops nested in one run on the calling thread alone.
bool in_parallel_region();

/// While alive, every parallel loop the constructing thread starts runs on that thread alone: for a
/// background thread (the sampler of mini-batch training) whose loops must not take cores from the
/// loops of the thread it works for. Not movable; destroy it on the thread that made it.
class SerialLoopsOnThisThread {
 public:
  SerialLoopsOnThisThread();
  ~SerialLoopsOnThisThread();
  SerialLoopsOnThisThread(const SerialLoopsOnThisThread&) = delete;
  SerialLoopsOnThisThread& operator=(const SerialLoopsOnThisThread&) = delete;
};

/// Lets at most `at_once` threads work at a time, in turns given in the order they were asked for:
/// threads that each pass their turn on after a step of work (an ensemble member's epoch) advance
/// together, whatever the scheduler would favour.
class Turns {
 public:
  /// Turns for `at_once` threads at a time (at least 1).
  explicit Turns(std::size_t at_once);
  /// Waits for a turn.
  void take();
  /// Ends the caller's turn and waits for its next one, behind every thread already waiting.
  void pass();
  /// Ends the caller's turn.
  void give_back();

 private:
  void wait_for(std::uint64_t ticket, std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable admitted_more_;
  std::uint64_t next_ticket_ = 0;
  std::uint64_t admitted_;  // tickets below this may work
};

namespace detail {

/// The items of one parallel_for: [0, n) cut into one range of consecutive items per thread, each
/// range cut into chunks. A thread takes the chunks of its own range first, front to back, then
/// those left in the other ranges.
class OwnedRanges {
 public:
  OwnedRanges(Index n, int threads);
  /// The next chunk [first, second) for `thread`; an empty one once every chunk is taken.
  std::pair<Index, Index> next(int thread);

 private:
  struct alignas(64) Range {  // a cache line each, so that threads taking their own chunks do not meet
    std::atomic<Index> next;
    Index end;
  };
  std::unique_ptr<Range[]> ranges_;
  int threads_;
  Index chunk_;
};

}  // namespace detail

/// Runs body(i) for i in [0, n) across loop_threads() threads, for items that cost about alike (the
/// rows of a matrix, the nodes of a graph). Each i runs on exactly one thread, so a body that writes
/// only to slot i gives results independent of the thread count.
///
/// Thread t works through the t-th of T ranges of consecutive items, then helps with what is left of
/// the others (detail::OwnedRanges). So loops over the same rows, whatever their block sizes, give
/// each row to the same thread, which finds what the loop before wrote there in its own core's
/// cache; with threads taking chunks as they finish, half of each loop's rows came from the other
/// core, and short element-wise loops ran no faster on two threads than on one. The help at the end
/// keeps a loop from waiting long for a thread that another process holds off its core.
template <typename Body>
void parallel_for(Index n, Body&& body) {
  const int threads = static_cast<int>(std::min<Index>(loop_threads(), n));
  if (threads <= 1) {
    for (Index i = 0; i < n; ++i) body(i);
    return;
  }
  detail::OwnedRanges ranges(n, threads);
#pragma omp parallel num_threads(threads)
  {
    const int thread = thread_index();
    for (auto chunk = ranges.next(thread); chunk.first < chunk.second; chunk = ranges.next(thread))
      for (Index i = chunk.first; i < chunk.second; ++i) body(i);
  }
}

/// parallel_for for items whose costs differ widely or cannot be known (molecules, batches, sections
/// of a file): each thread takes the next chunk when it finishes one.
template <typename Body>
void parallel_for_dynamic(Index n, Body&& body, Index chunk = 64) {
#pragma omp parallel for schedule(dynamic, chunk) num_threads(loop_threads())
  for (Index i = 0; i < n; ++i) body(i);
}

/// parallel_for_dynamic for bodies that may throw: an exception must not leave an OpenMP region, so
/// each item's is kept, and once every item has run the first one in item order is rethrown.
template <typename Body>
void parallel_for_rethrowing(Index n, Body&& body, Index chunk = 64) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
  parallel_for_dynamic(
      n,
      [&](Index i) {
        try {
          body(i);
        } catch (...) {
          errors[static_cast<std::size_t>(i)] = std::current_exception();
        }
      },
      chunk);
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

/// Runs body(begin, end) on consecutive blocks of [0, n), `block` items each (the last may be
/// shorter), across threads. For element-wise loops: the compiler vectorizes a body's inner loop,
/// which it does not do for parallel_for's one call per item.
template <typename Body>
void parallel_for_blocks(Index n, Index block, Body&& body) {
  parallel_for((n + block - 1) / block, [&](Index b) {
    const Index begin = b * block;
    body(begin, begin + block < n ? begin + block : n);
  });
}

/// Elements per block of an element-wise loop: enough to outweigh the loop's scheduling, and a
/// multiple of any vector width, so that a block's start keeps an array's alignment.
inline constexpr Index kElementBlock = 4096;

/// parallel_for_blocks over the rows of a [rows, cols] matrix, about kElementBlock elements a block
/// (at least one row).
template <typename Body>
void parallel_for_row_blocks(Index rows, Index cols, Body&& body) {
  parallel_for_blocks(rows, std::max<Index>(1, kElementBlock / std::max<Index>(cols, 1)), std::forward<Body>(body));
}

}  // namespace edgewise

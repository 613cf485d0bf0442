#include "edgewise/core/parallel.hpp"

#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace edgewise {
namespace {

// Preemptions per thread and second above which a window counts as preempted. An idle machine
// preempts a busy thread a few times a second (timers, kernel threads); one other CPU-bound process
// on two cores preempts each of two threads over a hundred times a second.
constexpr double kPreemptedRate = 40;
// The share of its threads' wall time below which a preempted process lacks cores: one CPU-bound
// process beside two threads on two cores leaves them about 2/3.
constexpr double kStarvedShare = 0.85;
constexpr double kFirstWait = 0.5;
constexpr double kLongestWait = 8;
constexpr auto kWindow = std::chrono::milliseconds(100);

int default_threads() {
  if (const char* env = std::getenv("EDGEWISE_NUM_THREADS")) {
    try {
      const int n = std::stoi(env);
      if (n > 0) return n;
    } catch (const std::exception&) {
      // An unreadable value falls through to the hardware default.
    }
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int& requested_threads() {
  static int n = 0;
  return n;
}

// The process's involuntary context switches and CPU seconds so far.
struct ProcessUsage {
  double preemptions = 0;
  double cpu_seconds = 0;
};

double seconds_of(const timeval& time) { return static_cast<double>(time.tv_sec) + 1e-6 * static_cast<double>(time.tv_usec); }

ProcessUsage process_usage() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return {static_cast<double>(usage.ru_nivcsw), seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime)};
}

// The governor of the process, and the window it is measuring. Loops may start on several threads at
// once (a program's own threads, each running edgewise): whichever finds the window over closes it.
class LoopThreads {
 public:
  LoopThreads() { publish(); }

  int next() {
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    if (now - window_start_.load(std::memory_order_relaxed) >= kWindowTicks) close_window(now);
    return threads_.load(std::memory_order_relaxed);
  }

  void reset(int requested) {
    const std::lock_guard lock(mutex_);
    governor_ = ThreadGovernor(requested);
    start_window(std::chrono::steady_clock::now().time_since_epoch().count());
    publish();
  }

 private:
  static constexpr auto kWindowTicks = std::chrono::duration_cast<std::chrono::steady_clock::duration>(kWindow).count();

  void close_window(std::chrono::steady_clock::rep now) {
    const std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock() || now - window_start_.load(std::memory_order_relaxed) < kWindowTicks) return;
    const ProcessUsage usage = process_usage();
    const auto elapsed = std::chrono::steady_clock::duration(now - window_start_.load(std::memory_order_relaxed));
    const double seconds = std::chrono::duration<double>(elapsed).count();
    governor_.observe({.seconds = seconds,
                       .preemptions = usage.preemptions - window_usage_.preemptions,
                       .cpu_seconds = usage.cpu_seconds - window_usage_.cpu_seconds});
    start_window(now, usage);
    publish();
  }

  void start_window(std::chrono::steady_clock::rep now, const ProcessUsage& usage = process_usage()) {
    window_start_.store(now, std::memory_order_relaxed);
    window_usage_ = usage;
  }

  void publish() { threads_.store(governor_.threads(), std::memory_order_relaxed); }

  std::mutex mutex_;
  ThreadGovernor governor_{num_threads()};
  std::atomic<std::chrono::steady_clock::rep> window_start_{std::chrono::steady_clock::now().time_since_epoch().count()};
  ProcessUsage window_usage_ = process_usage();
  std::atomic<int> threads_{0};
};

// Eigen's threaded products size their blocking by the thread count, which would make results
// depend on it: Eigen runs on one thread, and multiply() (core/products.hpp) cuts products instead.
const bool eigen_on_one_thread = [] {
  Eigen::setNbThreads(1);
  return true;
}();

LoopThreads& loop_thread_count() {
  static LoopThreads instance;
  return instance;
}

}  // namespace

ThreadGovernor::ThreadGovernor(int requested)
    : requested_(std::max(1, requested)), threads_(requested_), wait_(kFirstWait) {}

bool ThreadGovernor::preempted(const Window& window) const {
  const double thread_seconds = threads_ * window.seconds;
  return window.preemptions > kPreemptedRate * thread_seconds && window.cpu_seconds < kStarvedShare * thread_seconds;
}

void ThreadGovernor::observe(const Window& window) {
  if (preempted(window)) {
    if (threads_ > 1) {
      wait_ = trying_ ? std::min(2 * wait_, kLongestWait) : kFirstWait;
      threads_ = std::max(1, threads_ / 2);
      trying_ = false;
    }
    waited_ = 0;  // busy even at this count: more threads would be slower still
    return;
  }
  if (trying_) {
    trying_ = false;
    wait_ = kFirstWait;
  }
  if (threads_ == requested_) return;
  waited_ += window.seconds;
  if (waited_ < wait_) return;
  threads_ = std::min(requested_, 2 * threads_);
  trying_ = true;
  waited_ = 0;
}

void set_num_threads(int n) {
  requested_threads() = n > 0 ? n : 0;
  omp_set_num_threads(num_threads());
  loop_thread_count().reset(num_threads());
}

int num_threads() {
  static const int fallback = default_threads();
  return requested_threads() > 0 ? requested_threads() : fallback;
}

namespace {
thread_local int serial_scopes = 0;  // SerialLoopsOnThisThread objects alive on this thread
}  // namespace

SerialLoopsOnThisThread::SerialLoopsOnThisThread() { ++serial_scopes; }
SerialLoopsOnThisThread::~SerialLoopsOnThisThread() { --serial_scopes; }

int loop_threads() {
  if (in_parallel_region() || serial_scopes > 0) return 1;
  return loop_thread_count().next();
}

int thread_index() { return omp_get_thread_num(); }

Turns::Turns(std::size_t at_once) : admitted_(std::max<std::size_t>(at_once, 1)) {}

void Turns::wait_for(std::uint64_t ticket, std::unique_lock<std::mutex>& lock) {
  admitted_more_.wait(lock, [&] { return ticket < admitted_; });
}

void Turns::take() {
  std::unique_lock lock(mutex_);
  wait_for(next_ticket_++, lock);
}

// One step under the lock: no thread admitted by the turn given back can take a second ticket before
// the caller's.
void Turns::pass() {
  std::unique_lock lock(mutex_);
  ++admitted_;
  admitted_more_.notify_all();
  wait_for(next_ticket_++, lock);
}

void Turns::give_back() {
  {
    const std::lock_guard lock(mutex_);
    ++admitted_;
  }
  admitted_more_.notify_all();
}

namespace detail {

// Chunks per range: enough for a thread that finished early to take over most of a held-off
// thread's range.
constexpr Index kChunksPerRange = 16;

OwnedRanges::OwnedRanges(Index n, int threads)
    : ranges_(new Range[static_cast<std::size_t>(threads)]),
      threads_(threads),
      chunk_(std::max<Index>(1, n / (Index{threads} * kChunksPerRange))) {
  for (int t = 0; t < threads; ++t) {
    ranges_[t].next.store(n * t / threads, std::memory_order_relaxed);
    ranges_[t].end = n * (t + 1) / threads;
  }
}

std::pair<Index, Index> OwnedRanges::next(int thread) {
  for (int k = 0; k < threads_; ++k) {
    Range& range = ranges_[(thread + k) % threads_];
    const Index first = range.next.fetch_add(chunk_, std::memory_order_relaxed);
    if (first < range.end) return {first, std::min(first + chunk_, range.end)};
  }
  return {0, 0};
}

}  // namespace detail

bool in_parallel_region() { return omp_in_parallel() != 0; }

}  // namespace edgewise

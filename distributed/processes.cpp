#include "edgewise/distributed/processes.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "edgewise/core/error.hpp"

#ifdef EDGEWISE_WITH_MPI
#include <mpi.h>
#endif

namespace edgewise::distributed {
namespace {

int rank_ = 0;
int size_ = 1;
bool started_ = false;

// The number of processes the launcher started, from its environment: Open MPI's mpirun, or a
// PMI launcher (MPICH's hydra, Slurm's srun). 1 when the process was not launched by one.
int launched_processes() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char* value = std::getenv(name)) return std::max(1, std::atoi(value));
  return 1;
}

#ifdef EDGEWISE_WITH_MPI
void check(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw Error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

// How long a call waits for the other processes: EDGEWISE_MPI_TIMEOUT seconds, 30 minutes by
// default, longer than any process's own work between two calls should take.
std::chrono::duration<double> timeout() {
  static const double seconds = [] {
    const char* given = std::getenv("EDGEWISE_MPI_TIMEOUT");
    const double value = given ? std::atof(given) : 0.0;
    return value > 0 ? value : 1800.0;
  }();
  return std::chrono::duration<double>(seconds);
}

// MPI waits forever for a process that neither answers nor dies (a deadlock, a stopped machine).
// Every call here starts without blocking and polls until `done()` for up to timeout(): past it, it
// throws, and main ends every process with the message. Between polls the process sleeps, a tenth
// of the time waited so far (10 us to 1 ms), so a short wait ends soon after the answer comes and a
// long one costs no core. It never spins or yields: on a busy or oversubscribed machine a waiter
// that keeps its core takes it from the very process it waits for (a 2-process Cora training beside
// one busy process took 9.1 s with 0.1 s of yielding first, 6.0 s sleeping as now; idle, 3.0-3.5 s
// both).
template <typename Done>
void wait_until(const std::string& call, Done done) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  while (!done()) {
    const auto waited = Clock::now() - start;
    if (waited > timeout())
      throw Error(call + ": no answer from the other processes in " + std::to_string(std::lround(timeout().count())) +
                  " s; one may be stopped or stuck (EDGEWISE_MPI_TIMEOUT sets the wait in seconds)");
    // A tenth of the time waited so far, between 10 us and 1 ms.
    const auto pause = std::chrono::duration_cast<std::chrono::microseconds>(waited / 10);
    std::this_thread::sleep_for(std::clamp(pause, std::chrono::microseconds(10), std::chrono::microseconds(1000)));
  }
}

// Starts a non-blocking call, start(&request) (MPI_Iallreduce, MPI_Ibcast ...), and waits for it.
template <typename Start>
void complete(const char* call, Start start) {
  MPI_Request request;
  check(start(&request), call);
  wait_until(call, [&] {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), call);
    return done != 0;
  });
}

// The sum of `value` over all processes, of MPI type `type`.
template <typename T>
T sum_of(T value, MPI_Datatype type) {
  T total = 0;
  complete("MPI_Iallreduce", [&](MPI_Request* request) {
    return MPI_Iallreduce(&value, &total, 1, type, MPI_SUM, MPI_COMM_WORLD, request);
  });
  return total;
}

// The next message from process `from`, matched for MPI_Imrecv.
void wait_for_message(int from, MPI_Message& message, MPI_Status& status) {
  wait_until("MPI_Improbe", [&] {
    int found = 0;
    check(MPI_Improbe(from, 0, MPI_COMM_WORLD, &found, &message, &status), "MPI_Improbe");
    return found != 0;
  });
}
#endif

}  // namespace

void start([[maybe_unused]] int& argc, [[maybe_unused]] char**& argv) {
  const int launched = launched_processes();
  if (launched <= 1) return;
#ifdef EDGEWISE_WITH_MPI
  // Errors come back as codes, which check() turns into exceptions with MPI's text.
  MPI_Init(&argc, &argv);
  started_ = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
#else
  throw Error("mpirun started " + std::to_string(launched) +
              " processes, but this edgewise was built without MPI (EDGEWISE_MPI), so each would run the "
              "whole job; run it as one process, or build with libopenmpi-dev installed");
#endif
}

void finish() {
#ifdef EDGEWISE_WITH_MPI
  if (started_) MPI_Finalize();
#endif
  started_ = false;
}

int rank() { return rank_; }
int size() { return size_; }

void abort_all([[maybe_unused]] int code) {
#ifdef EDGEWISE_WITH_MPI
  if (started_) MPI_Abort(MPI_COMM_WORLD, code);
#endif
}

std::uint64_t sum(std::uint64_t value) {
#ifdef EDGEWISE_WITH_MPI
  if (started_) return sum_of(value, MPI_UINT64_T);
#endif
  return value;
}

void broadcast([[maybe_unused]] std::string& bytes, [[maybe_unused]] int root) {
#ifdef EDGEWISE_WITH_MPI
  if (!started_) return;
  std::uint64_t size = bytes.size();
  complete("MPI_Ibcast",
           [&](MPI_Request* request) { return MPI_Ibcast(&size, 1, MPI_UINT64_T, root, MPI_COMM_WORLD, request); });
  bytes.resize(size);
  constexpr std::uint64_t kPiece = std::uint64_t{1} << 30;
  for (std::uint64_t begin = 0; begin < size; begin += kPiece) {
    const auto count = static_cast<int>(std::min(kPiece, size - begin));
    complete("MPI_Ibcast", [&](MPI_Request* request) {
      return MPI_Ibcast(bytes.data() + begin, count, MPI_BYTE, root, MPI_COMM_WORLD, request);
    });
  }
#endif
}

std::vector<std::string> all_gather(const std::string& bytes) {
  std::vector<std::string> all(static_cast<std::size_t>(size()));
  for (int root = 0; root < size(); ++root) {
    std::string& gathered = all[static_cast<std::size_t>(root)];
    if (root == rank()) gathered = bytes;
    broadcast(gathered, root);
  }
  return all;
}

std::uint64_t sum_before([[maybe_unused]] std::uint64_t value) {
#ifdef EDGEWISE_WITH_MPI
  if (started_) {
    std::uint64_t before = 0;
    complete("MPI_Iexscan", [&](MPI_Request* request) {
      return MPI_Iexscan(&value, &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD, request);
    });
    return rank_ == 0 ? 0 : before;  // MPI leaves rank 0's result undefined
  }
#endif
  return 0;
}

void send_to([[maybe_unused]] int to, [[maybe_unused]] const char* bytes, std::size_t size) {
  if (size > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw ArgumentError("send_to: a message of " + std::to_string(size) + " bytes is over MPI's limit");
#ifdef EDGEWISE_WITH_MPI
  if (started_) {
    complete("MPI_Isend", [&](MPI_Request* request) {
      return MPI_Isend(bytes, static_cast<int>(size), MPI_BYTE, to, 0, MPI_COMM_WORLD, request);
    });
    return;
  }
#endif
  throw ArgumentError("send_to: a one-process run has no other process");
}

void receive_from([[maybe_unused]] int from, [[maybe_unused]] std::string& bytes) {
#ifdef EDGEWISE_WITH_MPI
  if (started_) {
    MPI_Message message;
    MPI_Status status;
    wait_for_message(from, message, status);
    int count = 0;
    check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
    bytes.resize(static_cast<std::size_t>(count));
    complete("MPI_Imrecv",
             [&](MPI_Request* request) { return MPI_Imrecv(bytes.data(), count, MPI_BYTE, &message, request); });
    return;
  }
#endif
  throw ArgumentError("receive_from: a one-process run has no other process");
}

std::string process_name() {
  return size_ > 1 ? "rank " + std::to_string(rank_) + " of " + std::to_string(size_) : std::string();
}

#ifdef EDGEWISE_WITH_MPI
namespace {

// The counts as MPI takes them, and the offset of each count's values; throws unless there is one
// count a process and they total `values` (below 2^31).
void counts_and_offsets(std::span<const std::size_t> counts, std::size_t values, std::vector<int>& ints,
                        std::vector<int>& offsets) {
  if (counts.size() != static_cast<std::size_t>(size_))
    throw ArgumentError("exchange: " + std::to_string(counts.size()) + " counts for " + std::to_string(size_) +
                        " processes");
  std::size_t total = 0;
  ints.clear();
  offsets.clear();
  for (const std::size_t count : counts) {
    offsets.push_back(static_cast<int>(total));
    ints.push_back(static_cast<int>(count));
    total += count;
    if (total > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw ArgumentError("exchange: more than 2^31 values for one process");
  }
  if (total != values)
    throw ArgumentError("exchange: counts total " + std::to_string(total) + " for " + std::to_string(values) +
                        " values");
}

// The collectives of the processes mpirun started.
class RunProcesses final : public Collectives {
 public:
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  double sum(double value) const override { return sum_of(value, MPI_DOUBLE); }
  std::uint64_t sum(std::uint64_t value) const override { return sum_of(value, MPI_UINT64_T); }
  void sum_gradients(Parameters<float>& params) const override {
    const auto count = static_cast<std::size_t>(params.size());
    if (count == 0) return;
    if (count > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw ArgumentError("sum_gradients: " + std::to_string(count) + " values are over MPI's count limit");
    complete("MPI_Iallreduce", [&](MPI_Request* request) {
      return MPI_Iallreduce(MPI_IN_PLACE, params.grads().data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                            MPI_COMM_WORLD, request);
    });
  }
  std::uint64_t from_rank_0(std::uint64_t value) const override {
    complete("MPI_Ibcast",
             [&](MPI_Request* request) { return MPI_Ibcast(&value, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, request); });
    return value;
  }
  void from_rank_0(std::string& bytes) const override { broadcast(bytes, 0); }
  void exchange(std::span<const float> send, std::span<const std::size_t> send_counts, std::span<float> receive,
                std::span<const std::size_t> receive_counts) const override {
    std::vector<int> sent, sent_at, received, received_at;
    counts_and_offsets(send_counts, send.size(), sent, sent_at);
    counts_and_offsets(receive_counts, receive.size(), received, received_at);
    complete("MPI_Ialltoallv", [&](MPI_Request* request) {
      return MPI_Ialltoallv(send.data(), sent.data(), sent_at.data(), MPI_FLOAT, receive.data(), received.data(),
                            received_at.data(), MPI_FLOAT, MPI_COMM_WORLD, request);
    });
  }
};

}  // namespace
#endif

const Collectives& run_collectives() {
#ifdef EDGEWISE_WITH_MPI
  static const RunProcesses all;
  if (active()) return all;
#endif
  return single_process();
}

}  // namespace edgewise::distributed

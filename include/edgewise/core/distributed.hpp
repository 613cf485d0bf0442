/// \file
/// The processes of a run started by `mpirun -np P`: which one this is, how many there are, and the
/// few collectives edgewise needs, over MPI (Open MPI). A run not started by mpirun, or a build
/// without MPI (the CMake option EDGEWISE_MPI), is one process: rank 0 of 1, where every collective
/// returns its own input. MPI is started only under mpirun, so a one-process run never touches it.
/// No call waits forever: one that gets no answer from the other processes within
/// EDGEWISE_MPI_TIMEOUT seconds (30 minutes by default) throws Error, which the tool turns into a
/// message and the end of every process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace edgewise::distributed {

/// Whether this build can run across processes.
bool built_with_mpi();

/// Starts MPI when the process was started by mpirun (Open MPI's or another launcher's environment
/// says so) with more than one process; otherwise nothing. Call once from main, before any other
/// function here. Throws Error when mpirun started several processes of a build without MPI, which
/// would each run the whole job.
void start(int& argc, char**& argv);

/// Ends MPI if start() began it. Call once, at the end of main.
void finish();

/// This process's rank in [0, size()), and the number of processes.
/// @{
int rank();
int size();
/// @}

/// Whether this run has more than one process.
inline bool active() { return size() > 1; }

/// Ends every process of the run with `code`, after the caller has printed why: the way one failing
/// process stops the others from waiting on it forever. Returns only in a one-process run.
void abort_all(int code);

/// The sum of `value` over all processes.
std::uint64_t sum(std::uint64_t value);

/// The sum of `value` over all processes, the same on every process.
double sum(double value);

/// Replaces each of `values` by its sum over all processes, the same on every process.
void sum_in_place(std::span<float> values);

/// Every process sends to every process at once: the first send_counts[0] of `send` go to process 0,
/// the next send_counts[1] to process 1, and so on; `receive` gets receive_counts[p] values from each
/// process p, in rank order. The count a process sends to p must be the count p receives from it; a
/// process's counts have one entry per process and total below 2^31. In a one-process run `send` is
/// copied into `receive`. Throws ArgumentError on counts that do not fit the spans.
void exchange(std::span<const float> send, std::span<const std::size_t> send_counts, std::span<float> receive,
              std::span<const std::size_t> receive_counts);

/// Rank 0's `value`, on every process.
std::uint64_t from_rank_0(std::uint64_t value);

/// Process `root`'s `bytes`, on every process (each passes its own, which the root's replace).
/// Messages of any size: sent in pieces below MPI's 2 GiB limit.
void broadcast(std::string& bytes, int root);

/// Every process's `bytes`, by rank, on every process (one broadcast from each).
std::vector<std::string> all_gather(const std::string& bytes);

/// The sum of `value` over the processes of lower rank (0 on rank 0).
std::uint64_t sum_before(std::uint64_t value);

/// Sends one message of `size` bytes (below 2 GiB) to process `to`, which must receive it with
/// receive_from(rank()); blocks until it may reuse `bytes`. Messages between two processes arrive in
/// the order they were sent.
void send_to(int to, const char* bytes, std::size_t size);

/// The next message process `from` sends with send_to, into `bytes` (resized to fit).
void receive_from(int from, std::string& bytes);

/// "rank R of P" in a run of several processes, else empty: for messages.
std::string process_name();

}  // namespace edgewise::distributed

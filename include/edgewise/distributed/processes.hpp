/// \file
/// The processes of a run started by `mpirun -np P`: which one this is, how many there are, and the
/// few collectives edgewise needs, over MPI (Open MPI). A run not started by mpirun, or a build
/// without MPI (the CMake option EDGEWISE_MPI), is one process: rank 0 of 1, where every collective
/// returns its own input. MPI is started only under mpirun, so a one-process run never touches it.
/// No call waits forever: one that gets no answer from the other processes within
/// EDGEWISE_MPI_TIMEOUT seconds (30 minutes by default) throws Error, which the tool turns into a
/// message and the end of every process. The trainers' collectives over MPI (models/collectives.hpp)
/// are run_collectives().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "edgewise/models/collectives.hpp"

namespace edgewise::distributed {

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

/// The sum of `value` over all processes, the same on every process.
std::uint64_t sum(std::uint64_t value);

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

/// The collectives of the processes in a run of several (active()), over MPI, else single_process():
/// what the tasks hand their trainers.
const Collectives& run_collectives();

}  // namespace edgewise::distributed

/// \file
/// What training needs from the other processes of a run: which process this is, sums of losses and
/// counts, the all-reduce of the gradients, rank 0's values, and the exchange of a part's halo rows.
/// A trainer takes them as an interface around its one-process step: a one-process run passes
/// SingleProcess, whose collectives return their input, so that the step is the one-process step
/// unchanged; a run under mpirun passes the processes' own (distributed/processes.hpp). Every
/// process of a run must call each collective in the same order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "edgewise/core/parameters.hpp"

namespace edgewise {

/// What a training step needs from the other processes of its run (see the file comment).
class Collectives {
 public:
  virtual ~Collectives() = default;
  /// This process's rank in [0, size()), and the number of processes.
  /// @{
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// @}
  /// The sum of `value` over all processes, the same on every process.
  /// @{
  virtual double sum(double value) const = 0;
  virtual std::uint64_t sum(std::uint64_t value) const = 0;
  /// @}
  /// Replaces each gradient of `params` by its sum over all processes.
  virtual void sum_gradients(Parameters<float>& params) const = 0;
  /// Rank 0's `value`, on every process.
  virtual std::uint64_t from_rank_0(std::uint64_t value) const = 0;
  /// Rank 0's `bytes`, on every process (each passes its own, which rank 0's replace).
  virtual void from_rank_0(std::string& bytes) const = 0;
  /// Every process sends to every process at once: send_counts[p] of `send` go to process p, in
  /// order, and `receive` gets receive_counts[p] values from each process p, in rank order. The count
  /// a process sends to p must be the count p receives from it; a process's counts have one entry per
  /// process and total below 2^31 (ArgumentError otherwise, over MPI).
  virtual void exchange(std::span<const float> send, std::span<const std::size_t> send_counts,
                        std::span<float> receive, std::span<const std::size_t> receive_counts) const = 0;
};

/// The collectives of a run of one process: each returns its input.
class SingleProcess final : public Collectives {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  double sum(double value) const override { return value; }
  std::uint64_t sum(std::uint64_t value) const override { return value; }
  void sum_gradients(Parameters<float>&) const override {}
  std::uint64_t from_rank_0(std::uint64_t value) const override { return value; }
  void from_rank_0(std::string&) const override {}
  void exchange(std::span<const float> send, std::span<const std::size_t>, std::span<float> receive,
                std::span<const std::size_t>) const override { std::ranges::copy(send, receive.begin()); }
};

/// The collectives of a one-process run.
inline const Collectives& single_process() {
  static const SingleProcess one;
  return one;
}

}  // namespace edgewise

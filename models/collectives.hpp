// What a training step needs from the other processes of a run: sums of losses and counts, the
// all-reduce of the gradients, and rank 0's generator state. A trainer takes them as an interface
// around its one-process step: a one-process run passes SingleProcess, whose collectives return their
// input, so that the step is the one-process step unchanged; a run under mpirun passes RunProcesses
// (core/distributed). Every process of a run must call each collective in the same order. Private to
// models/.
#pragma once

#include <cstdint>

#include "edgewise/core/distributed.hpp"
#include "edgewise/core/parameters.hpp"

namespace edgewise::detail {

class Collectives {
 public:
  virtual ~Collectives() = default;
  /// The sum of `value` over all processes, the same on every process.
  virtual double sum(double value) const = 0;
  virtual std::uint64_t sum(std::uint64_t value) const = 0;
  /// Replaces each gradient of `params` by its sum over all processes.
  virtual void sum_gradients(Parameters<float>& params) const = 0;
  /// Rank 0's `value`, on every process.
  virtual std::uint64_t from_rank_0(std::uint64_t value) const = 0;
};

class SingleProcess final : public Collectives {
 public:
  double sum(double value) const override { return value; }
  std::uint64_t sum(std::uint64_t value) const override { return value; }
  void sum_gradients(Parameters<float>&) const override {}
  std::uint64_t from_rank_0(std::uint64_t value) const override { return value; }
};

class RunProcesses final : public Collectives {
 public:
  double sum(double value) const override { return distributed::sum(value); }
  std::uint64_t sum(std::uint64_t value) const override { return distributed::sum(value); }
  void sum_gradients(Parameters<float>& params) const override {
    distributed::sum_in_place({params.grads().data(), static_cast<std::size_t>(params.size())});
  }
  std::uint64_t from_rank_0(std::uint64_t value) const override { return distributed::from_rank_0(value); }
};

inline const Collectives& single_process() {
  static const SingleProcess one;
  return one;
}

/// RunProcesses in a run of several processes (distributed::active()), else single_process().
inline const Collectives& run_processes() {
  static const RunProcesses all;
  return distributed::active() ? static_cast<const Collectives&>(all) : single_process();
}

}  // namespace edgewise::detail

/// \file
/// The thread count used by every parallel loop in edgewise. OpenMP's own default may be 1 on some
/// machines, so edgewise sets it explicitly: from set_num_threads(), else EDGEWISE_NUM_THREADS, else
/// the number of hardware threads.
#pragma once

#include <exception>
#include <vector>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// Sets the number of threads for kernels, projections and featurization. n < 1 restores the default.
void set_num_threads(int n);

/// The number of threads parallel loops will use.
int num_threads();

/// The calling thread's index in the innermost enclosing parallel loop, in [0, num_threads()); 0
/// outside one. Lets loop bodies pick per-thread workspaces.
int thread_index();

/// Whether the caller runs inside a parallel loop. Loops nested in one run on the calling thread alone.
bool in_parallel_region();

/// Runs body(i) for i in [0, n) across num_threads() threads. Each i runs on exactly one thread, so
/// a body that writes only to slot i gives results independent of the thread count. Dynamic
/// scheduling in chunks balances the skewed degree distributions of real graphs.
template <typename Body>
void parallel_for(Index n, Body&& body, Index chunk = 64) {
#pragma omp parallel for schedule(dynamic, chunk) num_threads(num_threads())
  for (Index i = 0; i < n; ++i) body(i);
}

/// parallel_for for bodies that may throw: an exception must not leave an OpenMP region, so each
/// item's is kept, and once every item has run the first one in item order is rethrown.
template <typename Body>
void parallel_for_rethrowing(Index n, Body&& body, Index chunk = 64) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
  parallel_for(
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
  parallel_for(
      (n + block - 1) / block,
      [&](Index b) {
        const Index begin = b * block;
        body(begin, begin + block < n ? begin + block : n);
      },
      1);
}

}  // namespace edgewise

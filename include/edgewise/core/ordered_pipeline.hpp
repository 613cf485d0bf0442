/// \file
/// One ordered parallel pipeline: inputs read a window at a time, each transformed on its own, the
/// transformed ones run in batches, every input handed out in input order. Streaming prediction is
/// built on it (MoleculeModel::predict_smiles: parse and featurize SMILES, run the networks).
///
///   run_ordered_pipeline<Slot>(sizes, read, transform, run, emit);
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"

namespace edgewise {

/// How run_ordered_pipeline cuts its work.
struct OrderedPipelineSizes {
  std::size_t window = 1024;  ///< inputs read, and transformed, per step; no batch spans two windows
  std::size_t chunk = 16;     ///< inputs transformed per parallel work item
  std::size_t batch = 64;     ///< most items per batch; a window's last batch may be shorter
};

/// Runs inputs through two stages and hands each out in input order, holding at most two windows of
/// slots whatever the input's length.
///
/// Step s reads window s (read(slot), serially, until it returns false or the window is full), then
/// runs one parallel loop whose work items are first the batches of window s - 1 and then the chunks
/// of window s to transform: the batches go first, so that transforming fills the gaps they leave at
/// the loop's end, and threads meet only between steps. After the loop, emits the rows of window
/// s - 1 in input order. Each work item runs on one thread (thread_index() picks its workspace), so
/// results do not depend on the thread count.
///
/// - `Slot`: one input and what becomes of it, default-constructible; slots are reused from window to
///   window (two windows of them), so buffers inside them are kept.
/// - `read(Slot&) -> bool`: writes the next input into the slot; false once there is none.
/// - `transform(Slot&) -> bool`: in parallel; false when the item failed (the slot keeps why): it
///   joins no batch.
/// - `run(std::span<Slot* const>) -> Result`: in parallel, a batch at a time: the items a window's
///   transforms accepted, consecutive in input order, at most sizes.batch of them.
/// - `emit(std::size_t index, Slot&, const Result* result, std::size_t row)`: serially, once per input
///   in input order (index counts from 0); `result` is the item's batch's and `row` its position in
///   that batch, or null and 0 for an item transform refused.
///
/// What read or emit throws leaves at once; what transform or run throws is rethrown after the step's
/// loop, the first in work-item order. Throws ArgumentError when a size is 0.
template <typename Slot, typename Read, typename Transform, typename Run, typename Emit>
void run_ordered_pipeline(const OrderedPipelineSizes& sizes, Read&& read, Transform&& transform, Run&& run,
                          Emit&& emit) {
  using Result = std::invoke_result_t<Run&, std::span<Slot* const>>;
  if (sizes.window == 0 || sizes.chunk == 0 || sizes.batch == 0)
    throw ArgumentError("run_ordered_pipeline: window, chunk and batch sizes must be positive");
  // The window being read and transformed, and the one whose batches run: swapped after each step.
  std::vector<Slot> reading(sizes.window), running(sizes.window);
  std::vector<char> reading_ok(sizes.window), running_ok(sizes.window);
  std::size_t running_rows = 0, first_index = 0;  // rows of `running`, and the input index of its first
  std::vector<Slot*> accepted;                    // running's items that transform accepted, in order
  std::vector<std::optional<Result>> results;     // one per batch of `accepted`
  bool input_done = false;
  while (true) {
    std::size_t rows = 0;
    while (!input_done && rows < sizes.window) {
      if (read(reading[rows])) {
        ++rows;
      } else {
        input_done = true;
      }
    }
    if (rows == 0 && running_rows == 0) break;
    const std::size_t chunks = (rows + sizes.chunk - 1) / sizes.chunk;
    // One item at a time per thread: each is a whole batch or transform chunk.
    parallel_for_rethrowing(static_cast<Index>(results.size() + chunks), [&](Index index) {
      const auto item = static_cast<std::size_t>(index);
      if (item < results.size()) {
        const std::size_t first = item * sizes.batch;
        results[item].emplace(
            run(std::span<Slot* const>(accepted).subspan(first, std::min(sizes.batch, accepted.size() - first))));
        return;
      }
      const std::size_t chunk = item - results.size();
      for (std::size_t i = chunk * sizes.chunk; i < std::min(rows, (chunk + 1) * sizes.chunk); ++i)
        reading_ok[i] = transform(reading[i]) ? 1 : 0;
    }, 1);
    for (std::size_t i = 0, position = 0; i < running_rows; ++i) {
      if (running_ok[i]) {
        emit(first_index + i, running[i], &*results[position / sizes.batch], position % sizes.batch);
        ++position;
      } else {
        emit(first_index + i, running[i], static_cast<const Result*>(nullptr), std::size_t{0});
      }
    }
    first_index += running_rows;
    std::swap(reading, running);
    std::swap(reading_ok, running_ok);
    running_rows = rows;
    accepted.clear();
    for (std::size_t i = 0; i < rows; ++i)
      if (running_ok[i]) accepted.push_back(&running[i]);
    results.clear();
    results.resize((accepted.size() + sizes.batch - 1) / sizes.batch);
  }
}

}  // namespace edgewise

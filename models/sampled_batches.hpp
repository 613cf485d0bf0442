// Sampled mini-batches as the sampled trainers run them (node classification and link
// prediction): the seeds each draw comes from, a batch's blocks and features, and the thread that
// samples the next batch while the network runs on this one.
#pragma once

#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "edgewise/core/parallel.hpp"
#include "edgewise/graph/sampling.hpp"
#include "edgewise/models/sampled_training.hpp"

namespace edgewise::detail {

// Mixes the run's seed with a purpose and up to two counters (epoch, batch) into an independent seed.
inline std::uint64_t derived_seed(std::uint64_t seed, std::uint64_t purpose, std::uint64_t a, std::uint64_t b = 0) {
  SplitMix64 mix(seed ^ (purpose * 0x9E3779B97F4A7C15ULL));
  mix = SplitMix64(mix.next() ^ a);
  return SplitMix64(mix.next() ^ b).next();
}

// One sampled batch: its blocks and the features of their nodes, dense or sparse as the source gives
// them.
struct Batch {
  SampledBlocks blocks;
  Matrix<float> features;               // [blocks.nodes.size(), feature_dim], unless sparse
  SparseMatrix<float> sparse_features;  // the same, where the source gathers sparse rows
  bool sparse = false;

  const Matrix<float>& forward(NodeClassifier<float>& model, Mode mode) const {
    return sparse ? model.forward_blocks(blocks.blocks, sparse_features, mode)
                  : model.forward_blocks(blocks.blocks, features, mode);
  }
};

// Samples batches on a thread of its own, one ahead of the caller: request(b) starts batch b while the
// caller works on b - 1, and take() waits for it. Two slots alternate, so the batch being sampled is
// never the one in use.
class BatchPrefetcher {
 public:
  BatchPrefetcher(const NodeSource& graph, std::vector<Index> fanouts)
      : graph_(graph), sampler_(graph.in_edges, std::move(fanouts), graph.self_loops), worker_([this] { run(); }) {}

  ~BatchPrefetcher() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    worker_.join();
  }

  BatchPrefetcher(const BatchPrefetcher&) = delete;
  BatchPrefetcher& operator=(const BatchPrefetcher&) = delete;

  // Starts sampling `seeds` (which must stay valid until take()) with draws from `seed`.
  void request(std::span<const NodeId> seeds, std::uint64_t seed) {
    {
      const std::lock_guard lock(mutex_);
      pending_ = Request{seeds, seed, next_slot_};
      next_slot_ ^= 1;
    }
    wake_.notify_all();
  }

  // The batch of the oldest request not yet taken; rethrows what sampling it threw. Gathers sparse
  // features on the calling thread, whose loops have the cores (see fill).
  const Batch& take() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return !pending_ && !busy_; });
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    Batch& batch = slots_[ready_slot_];
    lock.unlock();
    if (batch.sparse) graph_.gather_sparse_features(batch.blocks.nodes, batch.sparse_features);
    return batch;
  }

 private:
  struct Request {
    std::span<const NodeId> seeds;
    std::uint64_t seed = 0;
    int slot = 0;
  };

  void run() {
    const SerialLoopsOnThisThread serial;  // the network's loops have the cores
    std::unique_lock lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return stopping_ || pending_; });
      if (stopping_) return;
      const Request request = *std::exchange(pending_, std::nullopt);
      busy_ = true;
      lock.unlock();
      std::exception_ptr error;
      try {
        fill(slots_[request.slot], request);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      busy_ = false;
      ready_slot_ = request.slot;
      error_ = error;
      done_.notify_all();
    }
  }

  void fill(Batch& batch, const Request& request) {
    sampler_.sample(request.seeds, request.seed, batch.blocks);
    // Sparse rows are left to take(): copied here, on a thread beside the network's two, they cost
    // its loops about the time the copy took, where the caller's loops copy them on both cores.
    batch.sparse = static_cast<bool>(graph_.gather_sparse_features);
    if (batch.sparse) return;
    batch.features.resize(static_cast<Index>(batch.blocks.nodes.size()), graph_.feature_dim);
    graph_.gather_features(batch.blocks.nodes, batch.features.data());
  }

  const NodeSource& graph_;
  NeighborSampler sampler_;
  Batch slots_[2];
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::optional<Request> pending_;
  bool busy_ = false;
  bool stopping_ = false;
  int next_slot_ = 0;
  int ready_slot_ = 0;
  std::exception_ptr error_;
  std::thread worker_;  // last: started once everything it reads is constructed
};

}  // namespace edgewise::detail

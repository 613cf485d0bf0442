// The processes of a run played by threads of one process: each thread is a rank with its own
// Collectives, whose calls meet the other ranks' at a barrier as MPI's collectives do. Sums add the
// ranks' values in rank order. With it a trainer across processes is checked against its one-process
// run without mpirun, and under the sanitizers.
#pragma once

#include <barrier>
#include <cstring>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "edgewise/models/collectives.hpp"

namespace edgewise::testing {

class ThreadRun {
 public:
  explicit ThreadRun(int size) : barrier_(size), posted_(static_cast<std::size_t>(size)) {
    ranks_.reserve(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) ranks_.emplace_back(*this, r);
  }

  // Runs body(rank's collectives, rank) on one thread a rank and waits for them all.
  void run(const std::function<void(const Collectives&, int)>& body) {
    std::vector<std::thread> threads;
    for (const Rank& rank : ranks_) threads.emplace_back([&body, &rank] { body(rank, rank.rank()); });
    for (std::thread& thread : threads) thread.join();
  }

 private:
  class Rank final : public Collectives {
   public:
    Rank(ThreadRun& run, int rank) : run_(run), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return static_cast<int>(run_.ranks_.size()); }
    double sum(double value) const override { return summed(value); }
    std::uint64_t sum(std::uint64_t value) const override { return summed(value); }

    void sum_gradients(Parameters<float>& params) const override {
      std::span<float> own(params.grads().data(), static_cast<std::size_t>(params.size()));
      std::vector<float> total(own.size(), 0.0f);
      meet(own.data(), [&] {
        for (const void* posted : run_.posted_)
          for (std::size_t i = 0; i < total.size(); ++i) total[i] += static_cast<const float*>(posted)[i];
      });
      std::memcpy(own.data(), total.data(), total.size() * sizeof(float));
    }

    std::uint64_t from_rank_0(std::uint64_t value) const override {
      std::uint64_t first = 0;
      meet(&value, [&] { first = *static_cast<const std::uint64_t*>(run_.posted_[0]); });
      return first;
    }

    void from_rank_0(std::string& bytes) const override {
      std::string first;
      meet(&bytes, [&] { first = *static_cast<const std::string*>(run_.posted_[0]); });
      bytes = std::move(first);
    }

    void exchange(std::span<const float> send, std::span<const std::size_t> send_counts, std::span<float> receive,
                  std::span<const std::size_t> receive_counts) const override {
      const Outbox outbox{send, send_counts};
      meet(&outbox, [&] {
        std::size_t at = 0;
        for (std::size_t from = 0; from < run_.posted_.size(); ++from) {
          const auto& their = *static_cast<const Outbox*>(run_.posted_[from]);
          std::size_t offset = 0;
          for (int before = 0; before < rank_; ++before) offset += their.counts[static_cast<std::size_t>(before)];
          const std::size_t count = their.counts[static_cast<std::size_t>(rank_)];
          if (count != receive_counts[from]) throw std::logic_error("exchange: send and receive counts disagree");
          std::memcpy(receive.data() + at, their.values.data() + offset, count * sizeof(float));
          at += count;
        }
      });
    }

   private:
    struct Outbox {
      std::span<const float> values;
      std::span<const std::size_t> counts;
    };

    // Posts `mine`, waits for every rank's, runs `read` over them, and waits until every rank has read.
    template <typename Read>
    void meet(const void* mine, Read read) const {
      run_.posted_[static_cast<std::size_t>(rank_)] = mine;
      run_.barrier_.arrive_and_wait();
      read();
      run_.barrier_.arrive_and_wait();
    }

    template <typename T>
    T summed(T value) const {
      T total = 0;
      meet(&value, [&] {
        for (const void* posted : run_.posted_) total += *static_cast<const T*>(posted);
      });
      return total;
    }

    ThreadRun& run_;
    int rank_;
  };

  std::barrier<> barrier_;
  std::vector<const void*> posted_;
  std::vector<Rank> ranks_;
};

}  // namespace edgewise::testing

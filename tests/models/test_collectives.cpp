// The three trainers (molecules, full-batch nodes, sampled nodes) across processes, each rank a
// thread (support/thread_collectives.hpp), against their one-process runs: what a step needs from the
// other processes reaches it only through the Collectives it is given, so two ranks that split the
// work end at the one-process weights up to the order of float sums, and every rank at the same
// weights.
#include <gtest/gtest.h>

#include <vector>

#include "edgewise/core/parallel.hpp"
#include "edgewise/graph/sampling.hpp"
#include "edgewise/models/molecule_predictor_training.hpp"
#include "edgewise/models/node_training.hpp"
#include "edgewise/models/sampled_training.hpp"
#include "edgewise/splits/splits.hpp"
#include "support/small_graphs.hpp"
#include "support/thread_collectives.hpp"

namespace edgewise {
namespace {

using testing::SmallGraphs;
using testing::ThreadRun;

constexpr int kRanks = 2;

class CollectivesTest : public ::testing::Test {
 protected:
  void SetUp() override { set_num_threads(1); }
};

// Trains by `train(collectives)` as one process and as kRanks ranks; expects every rank to end at the
// same weights, within 1e-4 of the one-process ones relative to the largest weight. Returns the
// largest difference between the ranks' weights and the one process's.
template <typename Train>
float expect_ranks_reach_one_process(Train train) {
  const Vector<float> one_process = train(single_process());
  std::vector<Vector<float>> ranks(kRanks);
  ThreadRun(kRanks).run(
      [&](const Collectives& processes, int rank) { ranks[static_cast<std::size_t>(rank)] = train(processes); });
  EXPECT_EQ(ranks[0], ranks[1]) << "every rank applies the same summed gradients";
  const float distance = (ranks[0] - one_process).cwiseAbs().maxCoeff();
  EXPECT_LT(distance / (1.0 + one_process.cwiseAbs().maxCoeff()), 1e-4);
  return distance;
}

Vector<float> train_molecules(const SmallGraphs& data, const Collectives& processes) {
  Parameters<float> params;
  MoleculePredictor<float> model(params, SmallGraphs::network());
  SplitMix64 rng(3);
  model.reset_parameters(rng);
  train_molecule_predictor(model, params, data.train, data.validation, SmallGraphs::options(), {}, {}, processes);
  return params.values();
}

TEST_F(CollectivesTest, MoleculeTrainingOnTwoRanksEndsAtTheOneProcessWeights) {
  const SmallGraphs data;
  const float distance =
      expect_ranks_reach_one_process([&](const Collectives& processes) { return train_molecules(data, processes); });
  EXPECT_GT(distance, 0.0f) << "each rank computed its slice of every batch";
}

// Three planted classes on 60 nodes, as in the checkpoint tests.
struct PlantedClasses {
  Graph graph;
  Matrix<float> features;
  std::vector<Index> labels;
  Split split;

  PlantedClasses() {
    SplitMix64 rng(2024);
    const Index n = 60;
    for (Index i = 0; i < n; ++i) labels.push_back(i % 3);
    std::vector<std::pair<Index, Index>> edges;
    for (Index i = 0; i < n; ++i)
      for (Index j = i + 1; j < n; ++j)
        if (rng.uniform() < (labels[i] == labels[j] ? 0.2 : 0.02)) edges.emplace_back(i, j);
    graph = Graph::from_pairs(n, edges, {.add_self_loops = true, .symmetrize = true});
    features = Matrix<float>::NullaryExpr(n, 4, [&] { return static_cast<float>(rng.normal()); });
    split = per_class_split(labels, {.train_per_class = 5, .val = 15, .test = 30, .seed = 7});
  }
};

const NodeTrainingOptions kNodeTraining{.epochs = 12, .patience = 50, .seed = 9,
                                        .log = {.level = LogLevel::quiet, .sink = {}}};

// Weights after node training, full batch or (with `sampling`) on sampled batches.
Vector<float> train_nodes(const PlantedClasses& data, const Collectives& processes,
                          const SamplingOptions* sampling = nullptr) {
  Parameters<float> params;
  NodeClassifier<float> model(params, {.in_dim = 4, .classes = 3, .heads = 2, .head_dim = 4});
  SplitMix64 init(1);
  model.reset_parameters(init);
  if (sampling == nullptr) {
    train_node_classifier(model, params, data.graph, data.features, data.labels, data.split, kNodeTraining, {}, {},
                          processes);
  } else {
    train_node_classifier_sampled(model, params, node_source(data.graph, data.features), data.labels, data.split,
                                  kNodeTraining, *sampling, {}, {}, processes);
  }
  return params.values();
}

TEST_F(CollectivesTest, NodeTrainingOnTwoRanksEndsAtTheOneProcessWeights) {
  const PlantedClasses data;
  expect_ranks_reach_one_process([&](const Collectives& processes) { return train_nodes(data, processes); });
}

// With every neighbour drawn, each rank's seeds give the blocks one process builds for them.
TEST_F(CollectivesTest, SampledNodeTrainingOnTwoRanksEndsAtTheOneProcessWeights) {
  const PlantedClasses data;
  const SamplingOptions sampling{.batch_size = 8, .fanouts = {kAllNeighbors, kAllNeighbors}};
  expect_ranks_reach_one_process(
      [&](const Collectives& processes) { return train_nodes(data, processes, &sampling); });
}

}  // namespace
}  // namespace edgewise

// A small molecule-like data set for the trainers' tests.
#pragma once

#include <utility>
#include <vector>

#include "edgewise/core/random.hpp"
#include "edgewise/models/molecule_predictor_training.hpp"

namespace edgewise::testing {

// 24 small random graphs (chains with a chord) whose target is a function of their features, in a
// training set of 16 and a validation set of 8.
struct SmallGraphs {
  static constexpr Index kFeatures = 5;
  std::vector<FeaturedGraph> graphs;
  GraphSet train, validation;

  SmallGraphs() {
    SplitMix64 rng(11);
    graphs.resize(24);
    Matrix<float> targets(24, 1);
    for (std::size_t g = 0; g < graphs.size(); ++g) {
      const Index n = 2 + static_cast<Index>(rng.below(5));
      std::vector<std::pair<Index, Index>> edges;
      for (Index i = 0; i + 1 < n; ++i) edges.emplace_back(i, i + 1);
      edges.emplace_back(0, n - 1);
      graphs[g].graph = Graph::from_pairs(n, edges, {.add_self_loops = true, .symmetrize = true});
      graphs[g].node_features = Matrix<float>::NullaryExpr(n, kFeatures, [&] { return static_cast<float>(rng.normal()); });
      graphs[g].edge_features.resize(graphs[g].graph.num_edges(), 0);
      targets(static_cast<Index>(g), 0) = graphs[g].node_features.col(0).sum() + static_cast<float>(n);
    }
    for (std::size_t g = 0; g < graphs.size(); ++g) (g < 16 ? train : validation).graphs.push_back(&graphs[g]);
    train.targets = targets.topRows(16);
    validation.targets = targets.bottomRows(8);
  }

  static MoleculePredictorOptions network() {
    return {.node_dim = kFeatures, .hidden = 8, .layers = 2, .heads = 2, .head_hidden = 8, .dropout = 0.2,
            .attention_dropout = 0.1};
  }

  // Batches of 5 over 16 graphs: three full ones and a short one, shuffled every epoch.
  static TrainingOptions options() {
    TrainingOptions options;
    options.epochs = 9;
    options.batch_size = 5;
    options.learning_rate = 3e-3;
    options.patience = 30;
    options.seed = 5;
    return options;
  }
};

}  // namespace edgewise::testing

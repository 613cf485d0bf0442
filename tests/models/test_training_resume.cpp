// Checkpoints of both training loops: a run continued from the state saved after any epoch ends at
// the very weights (bit for bit) of a run never interrupted; checkpoint files round-trip that state
// and refuse another run's; and training stops at the first non-finite loss or gradient, naming
// the epoch, batch and parameter.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/models/checkpoint.hpp"
#include "edgewise/models/molecule_predictor_training.hpp"
#include "edgewise/models/node_training.hpp"
#include "support/small_graphs.hpp"
#include "support/thrown.hpp"

namespace edgewise {
namespace {

using testing::argument_error_of;
using testing::SmallGraphs;

// The weights and state a training run handed to its checkpoint callback after one epoch.
struct Saved {
  Vector<float> weights;
  TrainingState state;
};

bool same_bits(const Vector<float>& a, const Vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(float)) == 0;
}

class TrainingResumeTest : public ::testing::Test {
 protected:
  void SetUp() override { set_num_threads(2); }
};

TEST_F(TrainingResumeTest, GraphTrainingResumedAfterAnyCheckpointEndsAtTheSameWeights) {
  const SmallGraphs data;
  const auto run = [&](const TrainingCheckpoints& checkpoints, const Vector<float>* start) {
    Parameters<float> params;
    MoleculePredictor<float> model(params, SmallGraphs::network());
    SplitMix64 rng(3);
    model.reset_parameters(rng);
    if (start) params.values() = *start;
    const TrainingResult result =
        train_molecule_predictor(model, params, data.train, data.validation, SmallGraphs::options(), {}, checkpoints);
    return std::make_pair(Vector<float>(params.values()), result);
  };
  Parameters<float> params;
  MoleculePredictor<float> model(params, SmallGraphs::network());
  SplitMix64 rng(3);
  model.reset_parameters(rng);
  std::vector<Saved> saved;
  const TrainingCheckpoints every_two{
      .every = 2, .save = [&](const TrainingState& state) { saved.push_back({params.values(), state}); }};
  const TrainingResult uninterrupted =
      train_molecule_predictor(model, params, data.train, data.validation, SmallGraphs::options(), {}, every_two);
  const Vector<float> final_weights = params.values();
  ASSERT_EQ(saved.size(), 4u);  // after epochs 2, 4, 6, 8
  EXPECT_EQ(saved[1].state.epoch, 4);
  EXPECT_EQ(saved[1].state.order.size(), 16u);
  EXPECT_EQ(saved[1].state.optimizer.steps, 16);  // 4 batches an epoch

  for (const Saved& checkpoint : saved) {
    const auto [weights, result] = run({.resume = &checkpoint.state}, &checkpoint.weights);
    EXPECT_TRUE(same_bits(weights, final_weights)) << "resumed after epoch " << checkpoint.state.epoch;
    EXPECT_EQ(result.best_epoch, uninterrupted.best_epoch);
    EXPECT_EQ(result.history.front().epoch, checkpoint.state.epoch + 1);
  }
  const auto [again, result] = run({}, nullptr);
  EXPECT_TRUE(same_bits(again, final_weights)) << "the same seed and thread count give the same weights";
}

TEST_F(TrainingResumeTest, NodeTrainingResumedAfterAnyCheckpointEndsAtTheSameWeights) {
  SplitMix64 rng(2024);
  const Index n = 60;
  std::vector<Index> labels;
  std::vector<std::pair<Index, Index>> edges;
  for (Index i = 0; i < n; ++i) labels.push_back(i % 3);
  for (Index i = 0; i < n; ++i)
    for (Index j = i + 1; j < n; ++j)
      if (rng.uniform() < (labels[i] == labels[j] ? 0.2 : 0.02)) edges.emplace_back(i, j);
  const Graph graph = Graph::from_pairs(n, edges, {.add_self_loops = true, .symmetrize = true});
  const Matrix<float> features = Matrix<float>::NullaryExpr(n, 4, [&] { return static_cast<float>(rng.normal()); });
  const Split split = per_class_split(labels, {.train_per_class = 5, .val = 15, .test = 30, .seed = 7});
  const NodeClassifierOptions network{.in_dim = 4, .classes = 3, .heads = 2, .head_dim = 4};
  const NodeTrainingOptions options{.epochs = 12, .patience = 50, .seed = 9};

  Parameters<float> params;
  NodeClassifier<float> model(params, network);
  const auto initialize = [&] {
    SplitMix64 init(1);
    model.reset_parameters(init);
  };
  initialize();
  std::vector<Saved> saved;
  const TrainingCheckpoints every_three{
      .every = 3, .save = [&](const TrainingState& state) { saved.push_back({params.values(), state}); }};
  const NodeTrainingResult uninterrupted =
      train_node_classifier(model, params, graph, features, labels, split, options, {}, every_three);
  const Vector<float> final_weights = params.values();
  ASSERT_EQ(saved.size(), 4u);  // after epochs 3, 6, 9, 12

  for (const Saved& checkpoint : saved) {
    initialize();
    params.values() = checkpoint.weights;
    const NodeTrainingResult result =
        train_node_classifier(model, params, graph, features, labels, split, options, {}, {.resume = &checkpoint.state});
    EXPECT_TRUE(same_bits(params.values(), final_weights)) << "resumed after epoch " << checkpoint.state.epoch;
    EXPECT_EQ(result.best_epoch, uninterrupted.best_epoch);
  }
}

TEST_F(TrainingResumeTest, ResumeRefusesAStateThatDoesNotFit) {
  const SmallGraphs data;
  Parameters<float> params;
  MoleculePredictor<float> model(params, SmallGraphs::network());
  TrainingState state;
  state.epoch = 3;
  state.optimizer.m = state.optimizer.v = state.best_weights = Vector<float>::Zero(params.size());
  state.order = {0, 1, 2};  // the training set has 16 graphs
  EXPECT_NE(argument_error_of([&] {
              train_molecule_predictor(model, params, data.train, data.validation, SmallGraphs::options(), {},
                                    {.resume = &state});
            }).find("16"),
            std::string::npos);
  state.epoch = 20;  // past the last epoch
  EXPECT_NE(argument_error_of([&] {
              train_molecule_predictor(model, params, data.train, data.validation, SmallGraphs::options(), {},
                                    {.resume = &state});
            }).find("epoch 20"),
            std::string::npos);
}

TEST_F(TrainingResumeTest, AnInfiniteFeatureStopsGraphTrainingNamingEpochBatchAndParameter) {
  SmallGraphs data;
  data.graphs[3].node_features(0, 2) = std::numeric_limits<float>::infinity();  // a training graph
  Parameters<float> params;
  MoleculePredictor<float> model(params, SmallGraphs::network());
  SplitMix64 rng(3);
  model.reset_parameters(rng);
  try {
    train_molecule_predictor(model, params, data.train, data.validation, SmallGraphs::options());
    FAIL() << "no DivergenceError";
  } catch (const DivergenceError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("epoch 1, batch "), std::string::npos) << message;
    EXPECT_NE(message.find("first non-finite gradient: "), std::string::npos) << message;
    EXPECT_TRUE(params.values().allFinite()) << "the failing step was not applied";
  }
}

TEST_F(TrainingResumeTest, AHugeLearningRateStopsNodeTrainingNamingTheParameter) {
  SplitMix64 rng(5);
  const Index n = 30;
  std::vector<Index> labels;
  for (Index i = 0; i < n; ++i) labels.push_back(i % 2);
  const Graph graph = Graph::from_pairs(n, {}, {.add_self_loops = true});
  const Matrix<float> features = Matrix<float>::NullaryExpr(n, 3, [&] { return static_cast<float>(rng.normal()); });
  const Split split = stratified_split(labels, 0.5, 0.25, 1);
  Parameters<float> params;
  NodeClassifier<float> model(params, {.in_dim = 3, .classes = 2, .heads = 2, .head_dim = 4});
  model.reset_parameters(rng);
  try {
    train_node_classifier(model, params, graph, features, labels, split, {.epochs = 200, .learning_rate = 1e30});
    FAIL() << "no DivergenceError";
  } catch (const DivergenceError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("training diverged in epoch "), std::string::npos) << message;
    EXPECT_NE(message.find(", batch 1: "), std::string::npos) << message;
  }
}

TEST(CheckpointFileTest, RoundTripsTheStateAndRefusesModelFilesAndOtherRuns) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("edgewise_checkpoint_" + std::to_string(::getpid()) + ".ckpt")).string();
  Checkpoint checkpoint;
  checkpoint.config = {{"kind", "test"}};
  checkpoint.weights.value(checkpoint.weights.add("layer.w", 2, 3)) << 1, 2, 3, 4, 5, 6;
  TrainingState& state = checkpoint.state;
  state.epoch = 7;
  state.optimizer = {.steps = 28, .m = Vector<float>::Constant(6, 0.25f), .v = Vector<float>::Constant(6, 1e-30f)};
  state.best_weights = Vector<float>::LinSpaced(6, -1, 1);
  state.best_epoch = 5;
  state.best_validation = 0.1 + 0.2;  // not a short decimal: must come back exactly
  state.shuffle_rng = 0xFFFFFFFFFFFFFFF1ULL;
  state.dropout_rng = 42;
  state.order = {2, 0, 1};
  checkpoint.run = {{"training", {{"learning_rate", 0.001}}}};
  save_checkpoint(path, checkpoint);

  const Checkpoint loaded = load_checkpoint(path);
  EXPECT_EQ(loaded.config, checkpoint.config);
  EXPECT_EQ(loaded.run, checkpoint.run);
  ASSERT_EQ(loaded.weights.slots().size(), 1u);
  EXPECT_EQ(loaded.weights.slots()[0].name, "layer.w");
  EXPECT_TRUE(same_bits(loaded.weights.values(), checkpoint.weights.values()));
  EXPECT_EQ(loaded.state.epoch, 7);
  EXPECT_EQ(loaded.state.optimizer.steps, 28);
  EXPECT_TRUE(same_bits(loaded.state.optimizer.m, state.optimizer.m));
  EXPECT_TRUE(same_bits(loaded.state.optimizer.v, state.optimizer.v));
  EXPECT_TRUE(same_bits(loaded.state.best_weights, state.best_weights));
  EXPECT_EQ(loaded.state.best_epoch, 5);
  EXPECT_EQ(loaded.state.best_validation, 0.1 + 0.2);
  EXPECT_TRUE(std::isnan(loaded.state.best_loss));
  EXPECT_EQ(loaded.state.shuffle_rng, state.shuffle_rng);
  EXPECT_EQ(loaded.state.dropout_rng, 42u);
  EXPECT_EQ(loaded.state.order, state.order);
  EXPECT_EQ(load_model(path).parameters.find("layer.w").slot, 0) << "a checkpoint also loads as a model file";

  const std::string message = argument_error_of(
      [&] { check_same_run(path, loaded.run, {{"training", {{"learning_rate", 0.01}}}}); });
  EXPECT_NE(message.find(path + ": the checkpoint was written by another run: training.learning_rate is 0.001"),
            std::string::npos)
      << message;
  EXPECT_NO_THROW(check_same_run(path, loaded.run, checkpoint.run));

  save_model(path, checkpoint.config, checkpoint.weights);
  EXPECT_THROW(load_checkpoint(path), ModelFormatError);
  save_model(path, checkpoint.config, checkpoint.weights, Overwrite::allow, {{"checkpoint", R"({"checkpoint_version": 99})"}});
  try {
    load_checkpoint(path);
    ADD_FAILURE() << "a checkpoint of another version was read";
  } catch (const ModelFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("checkpoint version 99 is not supported"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace edgewise

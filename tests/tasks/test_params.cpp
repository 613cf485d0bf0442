// The parameter tables' JSON reading: every front end and options file reads a value by its row, in
// the row's type or as the command line's text, with errors naming the option as the front end
// writes it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "edgewise/tasks/params.hpp"
#include "support/thrown.hpp"

namespace edgewise {
namespace {

using json = nlohmann::json;

const ParamNaming kFile = {.prefix = "options.json: option '", .task = "--task molecule", .suffix = "'"};

TEST(ParamsTest, OptionsAreReadInTheirTypesOrFromTheirText) {
  const json read = read_training_options(
      "graph", {{"hidden", "64"}, {"lr", 0.001}, {"dropout", 0}, {"readout", "mean"}, {"no-descriptors", true}}, kFile);
  EXPECT_EQ(read, json({{"hidden", 64}, {"lr", 0.001}, {"dropout", 0}, {"readout", "mean"}, {"descriptors", false}}));
  EXPECT_EQ(read_training_options("node", {{"fanout", "10,5"}, {"residual", "on"}}, kFile),
            json({{"fanout", {10, 5}}, {"residual", true}}));
  // What is read sets the parameters as the same options given in their types.
  EXPECT_EQ(molecule_training_params(read).plan.config.network.hidden, 64);
}

TEST(ParamsTest, RefusalsNameTheOptionAsTheFrontEndWritesIt) {
  EXPECT_EQ(testing::argument_error_of([] { read_training_options("graph", {{"hidden", 0}}, kFile); }),
            "options.json: option 'hidden': value 0 is below the minimum of 1");
  EXPECT_EQ(testing::argument_error_of([] { read_training_options("graph", {{"hidden", {64}}}, kFile); }),
            "options.json: option 'hidden': expected an integer, got [64]");
  EXPECT_EQ(testing::argument_error_of([] { read_training_options("graph", {{"hidden", 6.5}}, kFile); }),
            "options.json: option 'hidden': '6.5' is not an integer");
  EXPECT_EQ(testing::argument_error_of([] { read_training_options("graph", {{"fanout", {10}}}, kFile); }),
            "options.json: option 'fanout': not a training option of --task molecule");
  EXPECT_EQ(testing::argument_error_of([] { read_training_options("graph", {{"no-hidden", true}}, kFile); }),
            "options.json: option 'no-hidden': not a training option of --task molecule");
  EXPECT_EQ(testing::argument_error_of([] { molecule_training_params({{"head-dim", 0}}, {.prefix = "", .separator = '_'}); }),
            "head_dim: value 0 is below the minimum of 1");
}

// Seeds are 64-bit unsigned; every other whole number must fit an Index.
TEST(ParamsTest, SeedsTakeEveryUnsignedValueAndOtherIntegersFitAnIndex) {
  constexpr std::uint64_t kLargest = 18446744073709551615ULL;
  EXPECT_EQ(molecule_training_params({{"seed", "18446744073709551615"}}).plan.training.seed, kLargest);
  EXPECT_EQ(node_training_params({{"seed", kLargest}}).training.seed, kLargest);
  EXPECT_EQ(molecule_training_params({{"seed", "9223372036854775808"}}).plan.training.seed, 9223372036854775808ULL);
  EXPECT_EQ(testing::argument_error_of([] { read_training_options("graph", {{"seed", -1}}, kFile); }),
            "options.json: option 'seed': value -1 is below the minimum of 0");
  EXPECT_EQ(testing::argument_error_of([] { read_training_options("graph", {{"epochs", "9223372036854775808"}}, kFile); }),
            "options.json: option 'epochs': value 9223372036854775808 is above the maximum of 9223372036854775807");
  EXPECT_EQ(testing::argument_error_of([&] { read_training_options("node", {{"fanout", {kLargest}}}, kFile); }),
            "options.json: option 'fanout': a fan-out is a number of neighbours, at least 1, or -1 for all of them; got "
            "18446744073709551615");
  EXPECT_EQ(testing::argument_error_of([] { read_training_options("graph", {{"seed", "18446744073709551616"}}, kFile); }),
            "options.json: option 'seed': '18446744073709551616' is not an integer");
}

TEST(ParamsTest, TunableOptionsAreThoseOfTheModelAndItsTraining) {
  const std::vector<std::string> all = training_option_names("node");
  const std::vector<std::string> tunable = training_option_names("node", true);
  EXPECT_NE(std::ranges::find(all, "split"), all.end());
  EXPECT_EQ(std::ranges::find(tunable, "split"), tunable.end());
  EXPECT_NE(std::ranges::find(tunable, "weight-decay"), tunable.end());
  EXPECT_EQ(training_option_names("molecule"), training_option_names("graph"));
  EXPECT_EQ(testing::argument_error_of([] { training_option_names("edges"); }),
            "task: expected molecule (or graph, the same), node or link, got 'edges'");
}

// A link model of a graph without given features reads identity features and trains two layers with
// dropout 0.2, unless told otherwise; one of a graph with features trains one layer with dropout 0.5,
// or, told to train two, no dropout.
TEST(ParamsTest, LinkDefaultsFollowFromTheGraphsFeatures) {
  const std::vector<std::pair<Index, Index>> path = {{0, 1}, {1, 2}};
  NodeGraph data = make_node_graph(Graph::from_pairs(3, path, {.add_self_loops = true, .symmetrize = true}),
                                   Matrix<float>::Ones(3, 2));
  const LinkTrainingParams defaults = link_training_params(json::object());
  const LinkModelPlan featured = defaults.model(data);
  EXPECT_FALSE(featured.config.identity_features);
  EXPECT_EQ(featured.config.network.layers, 1);
  EXPECT_EQ(featured.config.network.dropout, 0.5);
  EXPECT_EQ(featured.config.network.value_dropout, 0.5);
  EXPECT_EQ(featured.config.scorer, PairScorer::mlp);
  EXPECT_FALSE(featured.config.network.output_score.has_value());
  EXPECT_EQ(featured.defaults, "identity features off (a graph with given features), layers 1 (given features, "
                               "without identity features), dropout 0.5 (one layer on given features), scorer mlp "
                               "(given features, without identity features), metric roc_auc (given features, "
                               "without identity features)");
  const LinkModelPlan two_layers = link_training_params({{"layers", 2}}).model(data);
  EXPECT_EQ(two_layers.config.network.layers, 2);
  EXPECT_EQ(two_layers.config.network.dropout, 0.0);
  data.input.features.format = FeatureFormat::structural;
  const LinkModelPlan structural = defaults.model(data);
  EXPECT_TRUE(structural.config.identity_features);
  EXPECT_EQ(structural.config.network.layers, 2);
  EXPECT_EQ(structural.config.network.dropout, 0.0);
  EXPECT_EQ(structural.config.network.value_dropout, 0.0);
  EXPECT_EQ(structural.config.scorer, PairScorer::dot);
  EXPECT_EQ(structural.config.network.score, ScoreFunction::additive);
  EXPECT_EQ(structural.config.network.output_score, ScoreFunction::scaled_dot);
  EXPECT_EQ(structural.defaults, "identity features on (a graph without given features), layers 2 (with identity "
                                 "features), dropout 0 (with identity features), scorer dot (with identity features), "
                                 "output score scaled_dot (with identity features), metric hits@50 (with identity "
                                 "features, given 50 validation non-links)");
  const LinkModelPlan additive = link_training_params({{"output-score", "additive"}}).model(data);
  EXPECT_EQ(additive.config.network.output_score, ScoreFunction::additive);
  EXPECT_EQ(additive.defaults.find("output score"), std::string::npos);
  const LinkModelPlan off = link_training_params({{"identity-features", false}}).model(data);
  EXPECT_FALSE(off.config.identity_features);
  EXPECT_EQ(off.config.network.dropout, 0.0);
  EXPECT_EQ(off.config.scorer, PairScorer::mlp);
  EXPECT_EQ(off.config.network.layers, 2);
  EXPECT_FALSE(off.config.network.output_score.has_value());
  EXPECT_EQ(off.defaults, "layers 2 (without identity features), dropout 0 (without identity features), scorer mlp "
                          "(without identity features), metric roc_auc (without identity features)");
  const LinkModelPlan given = link_training_params({{"layers", 3},
                                                    {"dropout", 0.5},
                                                    {"identity-features", true},
                                                    {"scorer", "mlp"},
                                                    {"output-score", "gatv2"},
                                                    {"metric", "mrr"}})
                                  .model(data);
  EXPECT_EQ(given.config.network.layers, 3);
  EXPECT_EQ(given.config.network.dropout, 0.5);
  EXPECT_EQ(given.config.network.output_score, ScoreFunction::gatv2);
  EXPECT_EQ(given.defaults, "");

  NodeGraph large = make_node_graph(Graph::from_pairs(kMostIdentityFeatureNodes + 1, {}, {.add_self_loops = true}),
                                    Matrix<float>(kMostIdentityFeatureNodes + 1, 0));
  large.input.features.format = FeatureFormat::structural;
  EXPECT_FALSE(default_identity_features(large));  // their weights would take over 200 MB
}

}  // namespace
}  // namespace edgewise

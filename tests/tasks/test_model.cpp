// The interface both models share: loading a file of either task, its description and its
// training summary.
#include "edgewise/tasks/model.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/tasks/molecule/molecule_model.hpp"
#include "edgewise/tasks/node/node_model.hpp"
#include "support/untrained_model.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;

class ModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("edgewise_model_" + std::to_string(::getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  std::string path(const std::string& name) const { return (folder_ / name).string(); }

  fs::path folder_;
};

// A two-class node classifier on a 4-node path with 3 features, untrained.
NodeModel small_node_model() {
  NodeInputOptions input;
  input.features = {.format = FeatureFormat::dense, .dim = 3};
  NodeModel model({.network = {.layers = 2, .heads = 2, .head_dim = 2}, .classes = {"a", "b"}, .input = input});
  model.initialize(3);
  return model;
}

// The value of a fact of a description, or null when it has none of that name.
nlohmann::json fact(const ModelDescription& description, const std::string& name) {
  for (const auto& [key, value] : description.facts)
    if (key == name) return value;
  return nullptr;
}

TEST_F(ModelTest, LoadsEitherTaskFromItsFile) {
  testing::save_untrained_molecule_model(path("molecule.ew"));
  small_node_model().save(path("node.ew"));

  const AnyModel molecule = load_any_model(path("molecule.ew"));
  ASSERT_TRUE(std::holds_alternative<MoleculeModel>(molecule));
  EXPECT_EQ(as_model(molecule).task(), Task::molecule);
  EXPECT_EQ(as_model(molecule).num_parameters(), MoleculeModel::load(path("molecule.ew")).num_parameters());
  const AnyModel node = load_any_model(path("node.ew"));
  ASSERT_TRUE(std::holds_alternative<NodeModel>(node));
  EXPECT_EQ(as_model(node).task(), Task::node);
  EXPECT_EQ(std::get<NodeModel>(node).config().classes, (std::vector<std::string>{"a", "b"}));
}

TEST_F(ModelTest, SavingThroughTheInterfaceWritesTheSameBytes) {
  testing::save_untrained_molecule_model(path("a.ew"));
  as_model(load_any_model(path("a.ew"))).save(path("b.ew"));
  EXPECT_EQ(read_file(path("a.ew")), read_file(path("b.ew")));
}

TEST_F(ModelTest, DescriptionsNameTheOutputsAndTheConfiguration) {
  testing::save_untrained_molecule_model(path("molecule.ew"));
  const ModelDescription molecule = as_model(load_any_model(path("molecule.ew"))).describe();
  EXPECT_EQ(molecule.title, "molecule property model (train --task molecule)");
  EXPECT_EQ(fact(molecule, "targets"), nlohmann::json::array({"y"}));
  EXPECT_EQ(fact(molecule, "task type"), "regression");
  EXPECT_EQ(molecule.examples, "molecules");
  ASSERT_EQ(molecule.sections.size(), 3u);
  EXPECT_EQ(molecule.sections[0].first, "architecture");
  EXPECT_EQ(molecule.sections[0].second.at("hidden"), 8);

  const ModelDescription node = small_node_model().describe();
  EXPECT_EQ(node.title, "node classification model (train --task node)");
  EXPECT_EQ(fact(node, "classes"), nlohmann::json::array({"a", "b"}));
  EXPECT_EQ(fact(node, "parameters"), small_node_model().num_parameters());
  EXPECT_EQ(node.examples, "nodes");
}

TEST_F(ModelTest, TrainingSummaryTravelsWithTheFile) {
  NodeModel model = small_node_model();
  model.set_training_summary({.data = "edges.txt", .seed = 7});
  model.save(path("node.ew"));
  const AnyModel loaded = load_any_model(path("node.ew"));
  const std::optional<TrainingSummary>& summary = as_model(loaded).training_summary();
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->data, "edges.txt");
  EXPECT_EQ(summary->seed, 7u);
}

TEST_F(ModelTest, RefusesAFileOfAnUnknownKind) {
  save_model(path("other.ew"), {{"kind", "something-else"}}, Parameters<float>());
  try {
    load_any_model(path("other.ew"));
    FAIL() << "expected ModelFormatError";
  } catch (const ModelFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("kind 'something-else'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace edgewise

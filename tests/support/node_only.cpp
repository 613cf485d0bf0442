// A node-classification program as a user of edgewise::tasks_node alone writes it: a graph with
// planted classes written as an edge list, read back, split by a split specification, trained on, saved, loaded and scored. It
// includes no header of chem/ or tasks/molecule/ and links neither, so RDKit is neither on its link
// line nor loaded; scripts/check-node-link.sh checks both and runs it. Prints the test accuracy and
// exits non-zero when training failed to learn the planted classes.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "edgewise/datasets/sbm.hpp"
#include "edgewise/io/edge_list.hpp"
#include "edgewise/io/node_graph.hpp"
#include "edgewise/tasks/common/split_spec.hpp"
#include "edgewise/tasks/node/node_model.hpp"

namespace {

int run(const std::filesystem::path& folder) {
  using namespace edgewise;
  const SbmGraph sbm = stochastic_block_model({.nodes = 200, .communities = 2, .p_in = 0.1, .p_out = 0.01, .seed = 7});
  {
    std::ofstream edges(folder / "edges.txt");
    for (const auto& [u, v] : sbm.edges) edges << u << ' ' << v << '\n';
  }
  // Every node has an edge at these probabilities, so the file numbers all 200; the features and
  // labels follow the file's numbering.
  const EdgeList edges = read_edge_list(folder / "edges.txt");
  Matrix<float> features(edges.nodes.size(), sbm.features.cols());
  std::vector<Index> classes(static_cast<std::size_t>(edges.nodes.size()));
  for (Index id = 0; id < edges.nodes.size(); ++id) {
    const Index node = std::stoll(std::string(edges.nodes.name(id)));
    features.row(id) = sbm.features.row(node);
    classes[static_cast<std::size_t>(id)] = sbm.labels[static_cast<std::size_t>(node)];
  }
  const NodeGraph data = make_node_graph(edges.to_graph(), std::move(features),
                                         {.classes = std::move(classes), .class_names = {"a", "b"}});

  const Split split = make_node_split(parse_node_split("stratified:0.5,0.2,0.3"), data.labels.classes, {}, /*seed=*/1);
  NodeModel model({.network = {.heads = 2, .head_dim = 4}, .classes = data.labels.class_names, .input = data.input});
  model.initialize(/*seed=*/0);
  model.fit(data, split, {.epochs = 40, .learning_rate = 0.01, .seed = 0, .log = {.level = LogLevel::quiet, .sink = {}}});
  model.save((folder / "model.ew").string());

  const NodeModel loaded = NodeModel::load((folder / "model.ew").string());
  const double accuracy = loaded.evaluate(data, split.test).metrics.accuracy;
  std::printf("node classification without RDKit: test accuracy %.3f on %zu nodes\n", accuracy, split.test.size());
  return accuracy > 0.8 ? 0 : 1;
}

}  // namespace

int main() {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("edgewise-node-only-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  int status = 1;
  try {
    status = run(folder);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "node_only: %s\n", error.what());
  }
  std::filesystem::remove_all(folder);
  return status;
}

// Node classification on a Boost.Graph social network: Zachary's karate club, built in code as a
// boost::adjacency_list, with the two factions it split into (Mr. Hi's club and the officer's).
// Trains on three members of each faction, predicts everyone's faction and prints the accuracy on
// the members it was not told about.
#include <edgewise/core/parallel.hpp>
#include <edgewise/graph/boost_interop.hpp>
#include <edgewise/tasks/node/node_model.hpp>

#include <boost/graph/adjacency_list.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace {

using Network = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

// The 78 friendships of Zachary (1977), members numbered 0 .. 33; 0 is Mr. Hi, 33 the officer.
const std::vector<std::pair<int, int>> kFriendships = {
    {0, 1},   {0, 2},   {0, 3},   {0, 4},   {0, 5},   {0, 6},   {0, 7},   {0, 8},   {0, 10},  {0, 11},
    {0, 12},  {0, 13},  {0, 17},  {0, 19},  {0, 21},  {0, 31},  {1, 2},   {1, 3},   {1, 7},   {1, 13},
    {1, 17},  {1, 19},  {1, 21},  {1, 30},  {2, 3},   {2, 7},   {2, 8},   {2, 9},   {2, 13},  {2, 27},
    {2, 28},  {2, 32},  {3, 7},   {3, 12},  {3, 13},  {4, 6},   {4, 10},  {5, 6},   {5, 10},  {5, 16},
    {6, 16},  {8, 30},  {8, 32},  {8, 33},  {9, 33},  {13, 33}, {14, 32}, {14, 33}, {15, 32}, {15, 33},
    {18, 32}, {18, 33}, {19, 33}, {20, 32}, {20, 33}, {22, 32}, {22, 33}, {23, 25}, {23, 27}, {23, 29},
    {23, 32}, {23, 33}, {24, 25}, {24, 27}, {24, 31}, {25, 31}, {26, 29}, {26, 33}, {27, 33}, {28, 31},
    {28, 33}, {29, 32}, {29, 33}, {30, 32}, {30, 33}, {31, 32}, {31, 33}, {32, 33}};

// The club each member joined after the split: 0 Mr. Hi's, 1 the officer's.
const std::vector<edgewise::Index> kFaction = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0,
                                               0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

Network karate_club() {
  Network network(kFaction.size());
  for (const auto& [a, b] : kFriendships) boost::add_edge(a, b, network);
  return network;
}

int run() {
  edgewise::set_num_threads(1);
  const Network network = karate_club();
  // Each undirected friendship becomes both directed edges; self-loops let members attend to themselves.
  edgewise::Graph graph = edgewise::from_boost(network, {.add_self_loops = true});
  const edgewise::Index members = graph.num_nodes();
  // No attributes are known about the members: each gets a one-hot identity, so the network learns
  // from who is friends with whom.
  edgewise::NodeGraph data = edgewise::make_node_graph(std::move(graph), edgewise::Matrix<float>::Identity(members, members),
                                                       {.classes = kFaction, .class_names = {"Mr. Hi", "Officer"}});

  edgewise::Split split;
  split.train = {0, 1, 2, 33, 32, 31};  // the two leaders and two close friends of each
  for (edgewise::Index member = 0; member < members; ++member)
    if (std::find(split.train.begin(), split.train.end(), member) == split.train.end()) split.test.push_back(member);

  edgewise::NodeClassifierOptions options;
  options.heads = 4;
  options.head_dim = 4;
  options.dropout = 0.2;
  options.attention_dropout = 0.2;
  edgewise::NodeModel model({.network = options, .classes = data.labels.class_names, .input = data.input});
  model.initialize(/*seed=*/0);
  model.fit(data, split, {.epochs = 100, .learning_rate = 0.01, .seed = 0});

  const edgewise::Matrix<float> probabilities = model.predict(data);
  edgewise::Index correct = 0;
  for (const edgewise::Index member : split.test) {
    edgewise::Index predicted = 0;
    probabilities.row(member).maxCoeff(&predicted);
    correct += predicted == kFaction[static_cast<std::size_t>(member)];
  }
  for (const edgewise::Index member : {0, 8, 19, 33}) {
    std::printf("member %2lld: P(Mr. Hi) = %.3f, P(Officer) = %.3f\n", static_cast<long long>(member),
                probabilities(member, 0), probabilities(member, 1));
  }
  const edgewise::Matrix<float> embeddings = model.embed(data);
  std::printf("embeddings: %lld x %lld\n", static_cast<long long>(embeddings.rows()),
              static_cast<long long>(embeddings.cols()));
  std::printf("accuracy on the %zu members not trained on: %.3f\n", split.test.size(),
              static_cast<double>(correct) / static_cast<double>(split.test.size()));
  return 0;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const edgewise::Error& error) {
    std::fprintf(stderr, "karate_club: %s\n", error.what());
    return 1;
  }
}

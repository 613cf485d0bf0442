// `edgewise graph build|info|generate`, run as a user would: a store built from text files or a .npy
// feature file and described by info, outputs kept without --force, and damaged stores refused with
// the file and the reason.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "edgewise/io/graph_store.hpp"
#include "support/cli.hpp"

namespace {

namespace fs = std::filesystem;

using edgewise::testing::CliRun;

class CliGraphTest : public edgewise::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_two_communities();
  }

  // Two 4-cliques with string ids joined by one edge; each community's nodes share a feature, and
  // each node has one of its own among 34 columns: sparse enough to be stored as CSR.
  void write_two_communities() const {
    std::ofstream edges(path("edges.txt")), labels(path("labels.txt")), features(path("features.txt"));
    for (const std::string community : {"a", "b"}) {
      for (int i = 0; i < 4; ++i) {
        const std::string node = community + std::to_string(i);
        for (int j = i + 1; j < 4; ++j) edges << node << ' ' << community << j << '\n';
        labels << node << ' ' << (community == "a" ? "red" : "blue") << '\n';
        features << node << ' ' << (community == "a" ? 0 : 1) << ' ' << 30 + i << '\n';
      }
    }
    edges << "a0 b0\n";
  }

  // A float32 .npy file of `rows` x 2 values, row i = (i, 10 i).
  void write_npy(const std::string& name, int rows) const {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", 2), }";
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    std::ofstream out(path(name), std::ios::binary);
    out << std::string("\x93NUMPY\x01\x00", 8);
    const auto length = static_cast<std::uint16_t>(header.size());
    out.write(reinterpret_cast<const char*>(&length), 2);
    out << header;
    for (int i = 0; i < rows; ++i) {
      const float row[2] = {static_cast<float>(i), 10.0f * static_cast<float>(i)};
      out.write(reinterpret_cast<const char*>(row), sizeof row);
    }
  }

  std::string build_arguments(const std::string& out) const {
    return "graph build --node-ids string --edges " + path("edges.txt") + " --labels " + path("labels.txt") +
           " --features " + path("features.txt") + " --out " + path(out);
  }
};

// A line of `edgewise graph info`: the name indented by two and padded to 22 columns, then the value.
std::string graph_info_row(const std::string& name, const std::string& value) {
  std::string text = "  " + name;
  if (text.size() < 22) text.resize(22, ' ');
  return "\n" + text + " " + value + "\n";
}

TEST_F(CliGraphTest, BuildsFromTextFilesAndInfoDescribesTheStore) {
  const CliRun build = run_cli(build_arguments("g.ewg"));
  ASSERT_EQ(build.status, 0) << build.output;
  EXPECT_NE(build.output.find("wrote " + path("g.ewg") + ": 8 nodes, 34 edges, features [8, 34] sparse, 8 labelled"),
            std::string::npos)
      << build.output;

  const CliRun info = run_cli("graph info " + path("g.ewg"));
  ASSERT_EQ(info.status, 0) << info.output;
  for (const std::string& expected :
       {graph_info_row("format version", "3"), graph_info_row("nodes", "8"), graph_info_row("edges", "34"),
        graph_info_row("features", "34 wide, sparse, 16 non-zeros"), graph_info_row("classes", "2: red, blue"),
        graph_info_row("labelled nodes", "8"), graph_info_row("node names", "stored"),
        graph_info_row("edge list", "8 nodes, 13 edges"), graph_info_row("node_ids", "string"),
        graph_info_row("features.format", "sparse"), graph_info_row("features.normalize_rows", "true")})
    EXPECT_NE(info.output.find(expected), std::string::npos) << expected << "\n" << info.output;

  const edgewise::GraphStore store = edgewise::GraphStore::open(path("g.ewg"));
  EXPECT_EQ(store.node_name(0), "a0");
  EXPECT_EQ(store.input().ids, edgewise::NodeIds::string);
}

TEST_F(CliGraphTest, BuildKeepsAnExistingStoreWithoutForce) {
  { std::ofstream(path("g.ewg")) << "precious"; }
  const CliRun refused = run_cli(build_arguments("g.ewg"));
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.output.find("edgewise: error: " + path("g.ewg") + ": already exists; pass --force"),
            std::string::npos)
      << refused.output;
  EXPECT_EQ(read("g.ewg"), "precious");
  ASSERT_EQ(run_cli(build_arguments("g.ewg") + " --force").status, 0);
  EXPECT_EQ(edgewise::GraphStore::open(path("g.ewg")).num_nodes(), 8);
}

TEST_F(CliGraphTest, BuildsWithNpyFeaturesByIntegerId) {
  { std::ofstream(path("int_edges.txt")) << "3 1\n1 0\n"; }
  write_npy("x.npy", 5);  // node 2 and 4 are only rows: they become nodes without edges
  const CliRun build = run_cli("graph build --edges " + path("int_edges.txt") + " --features " + path("x.npy") +
                               " --out " + path("g.ewg"));
  ASSERT_EQ(build.status, 0) << build.output;
  const edgewise::GraphStore store = edgewise::GraphStore::open(path("g.ewg"));
  ASSERT_EQ(store.num_nodes(), 5);
  const edgewise::Matrix<float> features = store.feature_matrix();
  for (edgewise::Index id = 0; id < 5; ++id) {
    const float node = std::stof(store.node_name(id));
    EXPECT_EQ(features(id, 0), node);
    EXPECT_EQ(features(id, 1), 10 * node);
  }
  EXPECT_EQ(store.input().features.format, edgewise::FeatureFormat::dense);

  write_npy("short.npy", 3);
  const CliRun missing = run_cli("graph build --edges " + path("int_edges.txt") + " --features " + path("short.npy") +
                                 " --out " + path("h.ewg"));
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.output.find(path("short.npy") + ": node 3 has no row"), std::string::npos) << missing.output;
  EXPECT_FALSE(fs::exists(path("h.ewg")));

  const CliRun strings = run_cli("graph build --node-ids string --edges " + path("edges.txt") + " --features " +
                                 path("x.npy") + " --out " + path("h.ewg"));
  EXPECT_EQ(strings.status, 1);
  EXPECT_NE(strings.output.find("5 rows for 8 nodes"), std::string::npos) << strings.output;
  const CliRun format = run_cli("graph build --feature-format sparse --edges " + path("int_edges.txt") +
                                " --features " + path("x.npy") + " --out " + path("h.ewg"));
  EXPECT_EQ(format.status, 1);
  EXPECT_NE(format.output.find("which holds dense features"), std::string::npos) << format.output;
}

TEST_F(CliGraphTest, InfoRefusesDamagedStoresNamingThem) {
  ASSERT_EQ(run_cli(build_arguments("g.ewg")).status, 0);
  std::string bytes = read("g.ewg");
  bytes[bytes.size() - 1] ^= 0x20;
  { std::ofstream(path("bad.ewg"), std::ios::binary) << bytes; }
  const CliRun corrupted = run_cli("graph info " + path("bad.ewg"));
  EXPECT_EQ(corrupted.status, 1);
  EXPECT_NE(corrupted.output.find("edgewise: error: " + path("bad.ewg") + ": checksum mismatch in section node_names"),
            std::string::npos)
      << corrupted.output;
  { std::ofstream(path("short.ewg"), std::ios::binary) << bytes.substr(0, 5000); }
  const CliRun truncated = run_cli("graph info " + path("short.ewg"));
  EXPECT_EQ(truncated.status, 1);
  EXPECT_NE(truncated.output.find(path("short.ewg") + ": truncated: expected " + std::to_string(bytes.size()) +
                                  " bytes, the file has 5000"),
            std::string::npos)
      << truncated.output;
  const CliRun text = run_cli("graph info " + path("edges.txt"));
  EXPECT_NE(text.output.find(path("edges.txt") + ": not an edgewise graph store"), std::string::npos) << text.output;
}

TEST_F(CliGraphTest, GeneratesAnRmatStore) {
  const CliRun generate = run_cli(
      "graph generate --rmat --scale 8 --edge-factor 4 --classes 4 --features 8 --seed 3 --out " + path("rmat.ewg"));
  ASSERT_EQ(generate.status, 0) << generate.output;
  EXPECT_NE(generate.output.find("generated an R-MAT graph of scale 8: 256 nodes"), std::string::npos)
      << generate.output;
  EXPECT_NE(generate.output.find("wrote " + path("rmat.ewg")), std::string::npos) << generate.output;
  const edgewise::GraphStore store = edgewise::GraphStore::open(path("rmat.ewg"));
  EXPECT_EQ(store.num_nodes(), 256);
  EXPECT_EQ(store.feature_dim(), 8);
  EXPECT_EQ(store.class_names().size(), 4u);
  EXPECT_TRUE(store.named_by_id());
  EXPECT_EQ(store.labels()[255], 3);
  const CliRun again = run_cli(
      "graph generate --rmat --scale 8 --edge-factor 4 --classes 4 --features 8 --seed 3 --out " + path("again.ewg"));
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_EQ(edgewise::GraphStore::open(path("again.ewg")).fingerprint(), store.fingerprint());
}

TEST_F(CliGraphTest, PartitionsAStoreAndWritesEachNodesPart) {
  ASSERT_EQ(run_cli("graph generate --rmat --scale 8 --edge-factor 4 --classes 4 --features 8 --seed 3 --out " +
                    path("rmat.ewg")).status, 0);
  const CliRun cut = run_cli("graph partition " + path("rmat.ewg") + " --parts 3 --out " + path("parts.tsv"));
  ASSERT_EQ(cut.status, 0) << cut.output;
  EXPECT_NE(cut.output.find("256 nodes cut into 3 parts by METIS"), std::string::npos) << cut.output;
  EXPECT_NE(cut.output.find("part      nodes   in-edges       halo"), std::string::npos) << cut.output;
  std::istringstream lines(read("parts.tsv"));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "node\tpart");
  std::vector<int> nodes_per_part(3, 0);
  int rows = 0;
  while (std::getline(lines, line)) {
    EXPECT_EQ(line.substr(0, line.find('\t')), std::to_string(rows++));
    const int part = std::stoi(line.substr(line.find('\t') + 1));
    ASSERT_GE(part, 0);
    ASSERT_LT(part, 3);
    ++nodes_per_part[static_cast<std::size_t>(part)];
  }
  EXPECT_EQ(rows, 256);
  for (const int nodes : nodes_per_part) {
    EXPECT_GE(nodes, 70) << "balanced parts";
    EXPECT_NE(cut.output.find(" " + std::to_string(nodes) + " "), std::string::npos) << cut.output;
  }
  const CliRun again = run_cli("graph partition " + path("rmat.ewg") + " --parts 3 --out " + path("parts.tsv"));
  EXPECT_NE(again.status, 0);
  EXPECT_NE(again.output.find("already exists"), std::string::npos) << again.output;
  const CliRun too_many = run_cli("graph partition " + path("rmat.ewg") + " --parts 300");
  EXPECT_NE(too_many.status, 0);
  EXPECT_NE(too_many.output.find("cannot cut 256 nodes into 300 parts"), std::string::npos) << too_many.output;
}

TEST_F(CliGraphTest, TrainsPredictsAndEvaluatesOnAStoreFullBatchOrSampled) {
  ASSERT_EQ(run_cli(build_arguments("g.ewg")).status, 0);
  const std::string train = "train --task node --graph " + path("g.ewg") + " --split stratified:0.5,0.25,0.25 " +
                            "--epochs 5 --heads 2 --head-dim 4 --verbose --out ";
  const CliRun full = run_cli(train + path("full.ew"));
  ASSERT_EQ(full.status, 0) << full.output;
  EXPECT_NE(full.output.find("within a quarter of this machine's memory"), std::string::npos) << full.output;
  const CliRun sampled = run_cli(train + path("sampled.ew") + " --batch-size 2 --fanout 3,2");
  ASSERT_EQ(sampled.status, 0) << sampled.output;
  EXPECT_NE(sampled.output.find("sampled mini-batches of 2 nodes, fan-out 3,2, as asked"), std::string::npos)
      << sampled.output;

  const CliRun predicted = run_cli("predict --model " + path("sampled.ew") + " --graph " + path("g.ewg"));
  ASSERT_EQ(predicted.status, 0) << predicted.output;
  EXPECT_NE(predicted.output.find("node\tpredicted\tred\tblue\na0\t"), std::string::npos) << predicted.output;
  // The store's bag-of-words rows reach the batches as the text files' rows do.
  const CliRun from_files = run_cli(
      "train --task node --node-ids string --edges " + path("edges.txt") + " --labels " + path("labels.txt") +
      " --features " + path("features.txt") + " --split stratified:0.5,0.25,0.25 --epochs 5 --heads 2 --head-dim 4 " +
      "--batch-size 2 --fanout 3,2 --out " + path("text.ew"));
  ASSERT_EQ(from_files.status, 0) << from_files.output;
  EXPECT_EQ(run_cli("predict --model " + path("text.ew") + " --graph " + path("g.ewg")).output, predicted.output);
  const CliRun evaluated = run_cli("eval --model " + path("full.ew") + " --graph " + path("g.ewg"));
  ASSERT_EQ(evaluated.status, 0) << evaluated.output;
  EXPECT_NE(evaluated.output.find("labeled: 8 nodes"), std::string::npos) << evaluated.output;
  const CliRun both = run_cli("predict --model " + path("full.ew") + " --graph " + path("g.ewg") + " --edges " +
                              path("edges.txt"));
  EXPECT_NE(both.status, 0);
  EXPECT_NE(both.output.find("--graph reads the edges, features and labels from the store"), std::string::npos)
      << both.output;
}

// Structural features whose random-walk columns are sampled: the store and the model record the
// walks, and the same files give the same features again, so a model trained on the text files
// predicts on the store as the store's own model does.
TEST_F(CliGraphTest, SampledRandomWalksAreRecordedAndRepeatable) {
  const std::string graph = " --node-ids string --edges " + path("edges.txt") + " --labels " + path("labels.txt");
  const std::string files = graph + " --random-walks 8";
  const CliRun build = run_cli("graph build" + files + " --out " + path("s.ewg"));
  ASSERT_EQ(build.status, 0) << build.output;
  EXPECT_NE(build.output.find("random-walk columns estimated from 8 sampled walks a node"), std::string::npos)
      << build.output;
  const CliRun info = run_cli("graph info " + path("s.ewg"));
  EXPECT_NE(info.output.find(graph_info_row("features.sampled_walks", "8")), std::string::npos) << info.output;

  const std::string options = " --split stratified:0.5,0.25,0.25 --epochs 3 --heads 2 --head-dim 4 --out ";
  ASSERT_EQ(run_cli("train --task node --graph " + path("s.ewg") + options + path("store.ew")).status, 0);
  const CliRun from_files = run_cli("train --task node" + files + options + path("text.ew") + " --verbose");
  ASSERT_EQ(from_files.status, 0) << from_files.output;
  EXPECT_NE(from_files.output.find("estimated from 8 sampled walks a node"), std::string::npos) << from_files.output;
  const CliRun predicted = run_cli("predict --model " + path("store.ew") + " --graph " + path("s.ewg"));
  ASSERT_EQ(predicted.status, 0) << predicted.output;
  EXPECT_EQ(run_cli("predict --model " + path("text.ew") + " --graph " + path("s.ewg")).output, predicted.output);

  const CliRun zero = run_cli("graph build" + graph + " --random-walks 0 --out " + path("z.ewg"));
  EXPECT_NE(zero.status, 0);
  EXPECT_NE(zero.output.find("--random-walks 0: give auto, exact or a number of walks above 0"), std::string::npos)
      << zero.output;
}

}  // namespace

// Part stores: each holds what graph_part cuts from the whole graph (rows, in-edges, halo counts, sent
// rows) with the rows' features, own labels and names; the whole graph's labels and names come back
// from the parts (distributed/graph_parts); inconsistent parts are refused when written, and a part
// is no whole graph to read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/distributed/graph_parts.hpp"
#include "edgewise/io/graph_parts.hpp"
#include "edgewise/io/graph_store.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;

class GraphPartsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("edgewise_graph_parts_" + std::to_string(::getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  fs::path path(const std::string& name) const { return folder_ / name; }

  // 12 string-named nodes in a ring with chords, labelled by thirds but for node n5, with features
  // in `format`; written to a store.
  GraphStore whole_store(FeatureFormat format) const {
    std::ofstream edges(path("edges.txt")), labels(path("labels.txt")), features(path("features.txt"));
    for (int node = 0; node < 12; ++node) {
      edges << 'n' << node << " n" << (node + 1) % 12 << '\n';
      if (node % 4 == 0) edges << 'n' << node << " n" << (node + 5) % 12 << '\n';
      if (node != 5) labels << 'n' << node << ' ' << "abc"[node / 4] << '\n';
      features << 'n' << node;
      if (format == FeatureFormat::sparse) {
        features << ' ' << node % 3 << ':' << node + 1 << '\n';
      } else {
        features << ' ' << node << ' ' << node % 3 << ' ' << -node << '\n';
      }
    }
    edges.close(), labels.close(), features.close();
    NodeInputOptions input;
    input.ids = NodeIds::string;
    input.features.format = format;
    const NodeGraph graph = read_node_graph(
        {.edges = path("edges.txt"), .labels = path("labels.txt"), .features = path("features.txt")}, input);
    GraphStoreSource source = graph_store_source(graph);
    std::vector<Index> offsets = {0};
    std::vector<std::int32_t> columns;
    std::vector<float> values;
    if (format == FeatureFormat::sparse) {  // stored as CSR, as `graph build` stores sparse files
      for (Index node = 0; node < graph.features.rows(); ++node) {
        for (Index column = 0; column < graph.features.cols(); ++column)
          if (graph.features(node, column) != 0) {
            columns.push_back(static_cast<std::int32_t>(column));
            values.push_back(graph.features(node, column));
          }
        offsets.push_back(static_cast<Index>(columns.size()));
      }
      source.dense_rows = {};
      source.sparse_rows = SparseFeatureRows{offsets, columns, values};
    }
    write_graph_store(path("whole.ewg"), source, Overwrite::allow);
    return GraphStore::open(path("whole.ewg"));
  }

  fs::path folder_;
};

std::vector<float> rows_of(const GraphStore& store, const std::vector<NodeId>& nodes) {
  std::vector<float> rows(nodes.size() * static_cast<std::size_t>(store.feature_dim()));
  store.gather_features(nodes, rows.data());
  return rows;
}

TEST_F(GraphPartsTest, EachPartStoreHoldsWhatGraphPartCuts) {
  for (const FeatureFormat format : {FeatureFormat::dense, FeatureFormat::sparse}) {
    const GraphStore whole = whole_store(format);
    std::vector<std::int32_t> owner;
    for (Index node = 0; node < whole.num_nodes(); ++node) owner.push_back(static_cast<std::int32_t>(node * 7 % 3));
    write_part_stores(whole, owner, 3, path("parts"), Overwrite::allow);
    for (int p = 0; p < 3; ++p) {
      const GraphPart expected = graph_part(whole.in_edges(), owner, p, 3);
      const GraphStore store = GraphStore::open(part_store_path(path("parts"), p));
      ASSERT_NE(store.part(), nullptr);
      EXPECT_EQ(store.part()->whole_fingerprint, whole.fingerprint());
      EXPECT_EQ(store.part()->whole_nodes, whole.num_nodes());
      EXPECT_EQ(store.part()->whole_edges, whole.num_edges());
      const GraphPart got = stored_graph_part(store);
      EXPECT_EQ(got.part, p);
      EXPECT_EQ(got.parts, 3);
      EXPECT_EQ(got.nodes, expected.nodes);
      EXPECT_EQ(got.owned, expected.owned);
      EXPECT_EQ(got.halo_counts, expected.halo_counts);
      EXPECT_EQ(got.sent_rows, expected.sent_rows);
      const InEdges got_edges = got.graph.in_edges(), expected_edges = expected.graph.in_edges();
      EXPECT_TRUE(std::ranges::equal(got_edges.offsets, expected_edges.offsets));
      EXPECT_TRUE(std::ranges::equal(got_edges.sources, expected_edges.sources));
      std::vector<NodeId> rows(static_cast<std::size_t>(store.num_nodes()));
      for (std::size_t r = 0; r < rows.size(); ++r) rows[r] = static_cast<NodeId>(r);
      EXPECT_EQ(rows_of(store, rows), rows_of(whole, expected.nodes));
      EXPECT_EQ(store.sparse_features().has_value(), format == FeatureFormat::sparse);
      for (Index r = 0; r < store.num_nodes(); ++r) {
        const NodeId node = expected.nodes[static_cast<std::size_t>(r)];
        EXPECT_EQ(store.node_name(r), whole.node_name(node));
        EXPECT_EQ(store.labels()[static_cast<std::size_t>(r)], r < got.owned ? whole.labels()[node] : -1) << r;
      }
      EXPECT_THROW(store.to_node_graph(), ArgumentError);
      EXPECT_THROW(distributed::check_part_of_run(store), ArgumentError);  // 3 parts, 1 process
    }
    EXPECT_THROW(write_part_stores(GraphStore::open(part_store_path(path("parts"), 0)), owner, 3, path("again")),
                 ArgumentError);
  }
}

TEST_F(GraphPartsTest, OnePartGivesBackTheWholeLabelsAndNames) {
  const GraphStore whole = whole_store(FeatureFormat::dense);
  const std::vector<std::int32_t> owner(static_cast<std::size_t>(whole.num_nodes()), 0);
  write_part_stores(whole, owner, 1, path("one"));
  const GraphStore part = GraphStore::open(part_store_path(path("one"), 0));
  distributed::check_part_of_run(part);
  EXPECT_TRUE(std::ranges::equal(distributed::whole_labels(part), whole.labels()));
  std::vector<std::string> names;
  for (Index node = 0; node < whole.num_nodes(); ++node) names.push_back(whole.node_name(node));
  EXPECT_EQ(distributed::whole_node_names(part), names);
  EXPECT_THROW(distributed::whole_labels(whole), ArgumentError);  // not a part
  EXPECT_THROW(write_part_stores(whole, owner, 1, path("one")), Error);  // the files exist
}

TEST_F(GraphPartsTest, InconsistentPartsAreRefusedWhenWritten) {
  const GraphStore whole = whole_store(FeatureFormat::dense);
  const std::vector<std::int32_t> owner(static_cast<std::size_t>(whole.num_nodes()), 0);
  GraphPart cut = graph_part(whole.in_edges(), owner, 0, 1);
  std::vector<Index> sent_offsets = {0, 1}, sent_rows = {0};
  GraphStoreSource source;
  source.in_edges = cut.graph.in_edges();
  source.feature_dim = whole.feature_dim();
  source.dense_rows = [&](Index first, Index count, float* out) {
    whole.gather_features(std::span(cut.nodes).subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(count)), out);
  };
  StorePart part{.part = 0, .parts = 1, .owned = cut.owned, .halo_counts = {0}, .nodes = cut.nodes,
                 .sent_offsets = sent_offsets, .sent_rows = sent_rows, .whole_nodes = whole.num_nodes(),
                 .whole_edges = whole.num_edges(), .whole_fingerprint = whole.fingerprint()};
  source.part = &part;
  EXPECT_THROW(write_graph_store(path("bad.ewg"), source), ArgumentError);  // a part sends no rows to itself
  sent_offsets = {0, 0};
  sent_rows.clear();
  part.sent_offsets = sent_offsets;
  part.sent_rows = sent_rows;
  part.owned = cut.owned - 1;  // the last own row would be a halo row with in-edges
  EXPECT_THROW(write_graph_store(path("bad.ewg"), source), ArgumentError);
  EXPECT_FALSE(fs::exists(path("bad.ewg")));
}

// A version 2 store (format 3 without parts) still opens; a part in one is refused.
TEST_F(GraphPartsTest, VersionTwoStoresOpenWithoutParts) {
  const GraphStore whole = whole_store(FeatureFormat::dense);
  const std::vector<std::int32_t> owner(static_cast<std::size_t>(whole.num_nodes()), 0);
  write_part_stores(whole, owner, 1, path("one"));
  for (const fs::path& file : {path("whole.ewg"), part_store_path(path("one"), 0)}) {
    std::ifstream in(file, std::ios::binary);
    std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    bytes[8] = 2;  // the format version, outside the header's digest
    if (file == path("whole.ewg")) {
      EXPECT_EQ(GraphStore::from_bytes(bytes, file).format_version(), 2U);
    } else {
      try {
        GraphStore::from_bytes(bytes, file);
        ADD_FAILURE() << "a part in a version 2 store was read";
      } catch (const StoreFormatError& e) {
        EXPECT_NE(std::string(e.what()).find("a part of a cut graph in a version 2 store"), std::string::npos) << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace edgewise

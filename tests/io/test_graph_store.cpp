// Graph stores (.ewg): a NodeGraph written and mapped back is the same graph, features, labels, names
// and options, dense or sparse; truncated, corrupted, foreign and newer files are refused with a
// StoreFormatError naming the file; an existing file is kept unless overwriting is allowed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/io/graph_store.hpp"
#include "fuzz/targets.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;

class GraphStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("edgewise_graph_store_" + std::to_string(::getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  fs::path path(const std::string& name) const { return folder_ / name; }

  void write_text(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }

  std::string bytes_of(const fs::path& file) const {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  void write_bytes(const fs::path& file, const std::string& bytes) const {
    std::ofstream(file, std::ios::binary) << bytes;
  }

  // Two string-named communities joined by one edge, labelled red and blue, with one isolated
  // labelled node (only in the labels) and sparse features.
  NodeGraph communities(FeatureFormat format = FeatureFormat::sparse) const {
    write_text("edges.txt", "a0 a1\na1 a2\na2 a0\nb0 b1\nb1 b2\nb2 b0\na0 b0\n");
    write_text("labels.txt", "a0 red\na1 red\na2 red\nb0 blue\nb1 blue\nlonely blue\n");
    write_text("features.txt", format == FeatureFormat::sparse ? "a0 0 3\na1 0\nb0 1 2:0.5\nb2 1\n"
                                                               : "a0 1 0 0 1\na1 1 0 0 0\nb0 0 1 0.5 0\n");
    NodeInputOptions input;
    input.ids = NodeIds::string;
    input.features.format = format;
    input.normalize_rows = format == FeatureFormat::sparse;
    return read_node_graph({.edges = path("edges.txt"), .labels = path("labels.txt"), .features = path("features.txt")},
                           input);
  }

  std::filesystem::path folder_;
};

// A random graph of `n` nodes with self-loops and `dim` random features, named by id, no labels.
NodeGraph random_graph(Index n, Index dim, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::pair<Index, Index>> edges;
  for (Index k = 0; k < 3 * n; ++k) edges.emplace_back(rng() % n, rng() % n);
  Graph graph = Graph::from_pairs(n, edges, {.add_self_loops = true, .symmetrize = true, .drop_duplicates = true});
  Matrix<float> features(n, dim);
  std::normal_distribution<float> normal;
  for (Index i = 0; i < features.size(); ++i) features.data()[i] = normal(rng);
  return make_node_graph(std::move(graph), std::move(features));
}

// The features' non-zeros as CSR, owned.
struct Csr {
  std::vector<Index> offsets{0};
  std::vector<std::int32_t> columns;
  std::vector<float> values;

  explicit Csr(const Matrix<float>& m) {
    for (Index i = 0; i < m.rows(); ++i) {
      for (Index j = 0; j < m.cols(); ++j)
        if (m(i, j) != 0.0f) {
          columns.push_back(static_cast<std::int32_t>(j));
          values.push_back(m(i, j));
        }
      offsets.push_back(static_cast<Index>(columns.size()));
    }
  }
  SparseFeatureRows rows() const { return {offsets, columns, values}; }
};

template <typename T>
std::vector<T> vec(std::span<const T> s) {
  return {s.begin(), s.end()};
}

void expect_same_input(const NodeInputOptions& a, const NodeInputOptions& b) {
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.directed, b.directed);
  EXPECT_EQ(a.add_self_loops, b.add_self_loops);
  EXPECT_EQ(a.features.format, b.features.format);
  EXPECT_EQ(a.features.dim, b.features.dim);
  EXPECT_EQ(a.features.max_degree, b.features.max_degree);
  EXPECT_EQ(a.features.walk_steps, b.features.walk_steps);
  EXPECT_EQ(a.features.sampled_walks, b.features.sampled_walks);
  EXPECT_EQ(a.normalize_rows, b.normalize_rows);
  EXPECT_EQ(a.self_loops_only, b.self_loops_only);
}

void expect_same_graph(const NodeGraph& a, const NodeGraph& b) {
  EXPECT_EQ(a.nodes.names(), b.nodes.names());
  EXPECT_EQ(vec(a.graph.in_offsets()), vec(b.graph.in_offsets()));
  EXPECT_EQ(vec(a.graph.in_sources()), vec(b.graph.in_sources()));
  EXPECT_EQ(a.features, b.features);
  EXPECT_EQ(a.labels.classes, b.labels.classes);
  EXPECT_EQ(a.labels.class_names, b.labels.class_names);
  expect_same_input(a.input, b.input);
  EXPECT_EQ(a.edge_list_nodes, b.edge_list_nodes);
  EXPECT_EQ(a.edge_list_edges, b.edge_list_edges);
}

// Everything a store gives back equals the graph it was written from.
void expect_store_holds(const GraphStore& store, const NodeGraph& data) {
  const Index n = data.nodes.size();
  ASSERT_EQ(store.num_nodes(), n);
  EXPECT_EQ(store.num_edges(), data.graph.num_edges());
  EXPECT_EQ(vec(store.in_edges().offsets), vec(data.graph.in_offsets()));
  EXPECT_EQ(vec(store.in_edges().sources), vec(data.graph.in_sources()));
  EXPECT_EQ(store.feature_dim(), data.features.cols());
  Matrix<float> gathered(n, data.features.cols());
  std::vector<NodeId> all(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = static_cast<NodeId>(i);
  store.gather_features(all, gathered.data());
  EXPECT_EQ(gathered, data.features);
  for (Index i = 0; i < n; ++i) EXPECT_EQ(store.node_name(i), data.nodes.name(i));
  EXPECT_EQ(store.class_names(), data.labels.class_names);
  if (data.labels.num_classes() > 0) {
    EXPECT_EQ(vec(store.labels()), data.labels.classes);
  }
  expect_same_input(store.input(), data.input);
  expect_same_graph(store.to_node_graph(), data);
}

TEST_F(GraphStoreTest, DenseIntegerIdsWithoutLabelsRoundTrip) {
  const NodeGraph data = random_graph(50, 7, 1);
  write_graph_store(path("g.ewg"), graph_store_source(data));
  const GraphStore store = GraphStore::open(path("g.ewg"));
  expect_store_holds(store, data);
  EXPECT_TRUE(store.named_by_id());
  EXPECT_TRUE(store.labels().empty());
  EXPECT_FALSE(store.sparse_features().has_value());
  EXPECT_EQ(store.feature_matrix(), data.features);
  EXPECT_EQ(store.format_version(), kGraphStoreFormatVersion);
  EXPECT_EQ(store.file_size(), fs::file_size(path("g.ewg")));
  EXPECT_EQ(store.path(), path("g.ewg"));
}

TEST_F(GraphStoreTest, DenseIntegerIdsWithLabelsRoundTrip) {
  NodeGraph data = random_graph(40, 3, 2);
  data.labels.class_names = {"x", "y", "z"};
  for (Index i = 0; i < 40; ++i) data.labels.classes[static_cast<std::size_t>(i)] = i % 4 == 3 ? -1 : i % 3;
  write_graph_store(path("g.ewg"), graph_store_source(data));
  expect_store_holds(GraphStore::open(path("g.ewg")), data);
}

TEST_F(GraphStoreTest, SparseStringIdsWithLabelsRoundTrip) {
  const NodeGraph data = communities();
  ASSERT_EQ(data.nodes.size(), 7);  // "lonely" comes from the labels
  GraphStoreSource source = graph_store_source(data);
  const Csr csr(data.features);
  source.dense_rows = {};
  source.sparse_rows = csr.rows();
  write_graph_store(path("g.ewg"), source);
  const GraphStore store = GraphStore::open(path("g.ewg"));
  expect_store_holds(store, data);
  EXPECT_FALSE(store.named_by_id());
  ASSERT_TRUE(store.sparse_features().has_value());
  EXPECT_EQ(vec(store.sparse_features()->columns), csr.columns);
  EXPECT_EQ(vec(store.sparse_features()->values), csr.values);
  EXPECT_EQ(store.edge_list_nodes(), 6);
  EXPECT_EQ(store.edge_list_edges(), 7);
}

TEST_F(GraphStoreTest, DenseStringIdsRoundTripAndFromBytesMatchesOpen) {
  const NodeGraph data = communities(FeatureFormat::dense);
  write_graph_store(path("g.ewg"), graph_store_source(data));
  const GraphStore opened = GraphStore::open(path("g.ewg"));
  expect_store_holds(opened, data);
  const GraphStore copied = GraphStore::from_bytes(bytes_of(path("g.ewg")), "copy.ewg");
  expect_store_holds(copied, data);
  EXPECT_EQ(copied.fingerprint(), opened.fingerprint());
}

TEST_F(GraphStoreTest, SampledStructuralFeaturesRecordTheirWalks) {
  write_text("edges.txt", "0 1\n1 2\n2 0\n2 3\n");
  NodeInputOptions input;
  input.features.sampled_walks = 8;
  const NodeGraph data = read_node_graph({.edges = path("edges.txt")}, input);
  ASSERT_EQ(data.input.features.sampled_walks, 8);
  write_graph_store(path("g.ewg"), graph_store_source(data));
  expect_store_holds(GraphStore::open(path("g.ewg")), data);
  // Exact columns (automatic on a small graph) leave the field out, as files before it did.
  const NodeGraph exact = read_node_graph({.edges = path("edges.txt")}, {});
  EXPECT_EQ(exact.input.features.sampled_walks, 0);
  EXPECT_FALSE(nlohmann::json(exact.input).at("features").contains("sampled_walks"));
  nlohmann::json negative = data.input;
  negative["features"]["sampled_walks"] = -1;
  EXPECT_THROW(negative.get<NodeInputOptions>(), ArgumentError);
}

TEST_F(GraphStoreTest, IntegerIdsOutOfOrderKeepTheirNames) {
  write_text("edges.txt", "7 3\n3 0\n");
  const NodeGraph data = read_node_graph({.edges = path("edges.txt")}, {});
  write_graph_store(path("g.ewg"), graph_store_source(data));
  const GraphStore store = GraphStore::open(path("g.ewg"));
  EXPECT_FALSE(store.named_by_id());
  EXPECT_EQ(store.node_name(0), "7");
  expect_store_holds(store, data);
}

TEST_F(GraphStoreTest, EmptyFeaturesAndAGraphWithoutEdgesRoundTrip) {
  const NodeGraph data =
      make_node_graph(Graph::from_pairs(3, std::vector<std::pair<Index, Index>>{}), Matrix<float>(3, 0));
  write_graph_store(path("g.ewg"), graph_store_source(data));
  expect_store_holds(GraphStore::open(path("g.ewg")), data);
}

TEST_F(GraphStoreTest, FingerprintDependsOnTheContentsOnly) {
  const NodeGraph data = random_graph(30, 4, 3);
  write_graph_store(path("a.ewg"), graph_store_source(data));
  write_graph_store(path("b.ewg"), graph_store_source(data));
  write_graph_store(path("c.ewg"), graph_store_source(random_graph(30, 4, 4)));
  const std::string a = GraphStore::open(path("a.ewg")).fingerprint();
  EXPECT_EQ(a.size(), 64u);
  EXPECT_EQ(a, GraphStore::open(path("b.ewg")).fingerprint());
  EXPECT_NE(a, GraphStore::open(path("c.ewg")).fingerprint());
}

TEST_F(GraphStoreTest, GatherFeaturesPicksRowsInTheOrderAsked) {
  const NodeGraph data = communities();
  GraphStoreSource source = graph_store_source(data);
  const Csr csr(data.features);
  source.dense_rows = {};
  source.sparse_rows = csr.rows();
  write_graph_store(path("sparse.ewg"), source);
  write_graph_store(path("dense.ewg"), graph_store_source(data));
  const std::vector<NodeId> nodes = {4, 0, 4, 6};
  for (const char* name : {"sparse.ewg", "dense.ewg"}) {
    const GraphStore store = GraphStore::open(path(name));
    std::vector<float> rows(nodes.size() * static_cast<std::size_t>(store.feature_dim()), -7.0f);
    store.gather_features(nodes, rows.data());
    for (std::size_t k = 0; k < nodes.size(); ++k)
      for (Index j = 0; j < store.feature_dim(); ++j)
        EXPECT_EQ(rows[k * static_cast<std::size_t>(store.feature_dim()) + static_cast<std::size_t>(j)],
                  data.features(nodes[k], j))
            << name;
    EXPECT_THROW(store.gather_features(std::vector<NodeId>{7}, rows.data()), ArgumentError);
    EXPECT_THROW(store.node_name(7), std::out_of_range);
  }
}

// The message of the StoreFormatError that opening `file` throws; a failure if it opens.
std::string open_error(const fs::path& file) {
  try {
    GraphStore::open(file);
  } catch (const StoreFormatError& e) {
    return e.what();
  }
  ADD_FAILURE() << file << " opened";
  return "";
}

// The header of the store's bytes, as JSON.
nlohmann::json header_of(const std::string& bytes) {
  std::uint64_t length = 0;
  std::memcpy(&length, bytes.data() + 16, 8);
  return nlohmann::json::parse(bytes.substr(56, length));
}

class DamagedStoreTest : public GraphStoreTest {
 protected:
  void SetUp() override {
    GraphStoreTest::SetUp();
    NodeGraph data = communities(FeatureFormat::dense);
    write_graph_store(path("good.ewg"), graph_store_source(data));
    good_ = bytes_of(path("good.ewg"));
  }

  // The message of opening `bytes` written to a file of the folder.
  std::string error_of(const std::string& bytes) const {
    write_bytes(path("bad.ewg"), bytes);
    const std::string message = open_error(path("bad.ewg"));
    EXPECT_EQ(message.rfind(path("bad.ewg").string() + ": ", 0), 0u) << message;
    return message;
  }

  std::string good_;
};

TEST_F(DamagedStoreTest, TruncationAtAnyPointIsNamed) {
  const nlohmann::json header = header_of(good_);
  std::vector<std::size_t> cuts = {1, 7, 8, 30, 55, 56, 57, 200, 4096, good_.size() - 1};
  for (const nlohmann::json& section : header["sections"])
    if (section["bytes"].get<std::size_t>() > 0)
      cuts.push_back(section["offset"].get<std::size_t>() + section["bytes"].get<std::size_t>() / 2);
  for (const std::size_t cut : cuts) {
    const std::string message = error_of(good_.substr(0, cut));
    EXPECT_NE(message.find("truncated"), std::string::npos) << cut << ": " << message;
    EXPECT_NE(message.find("the file has " + std::to_string(cut)), std::string::npos) << cut << ": " << message;
  }
  EXPECT_NE(error_of(good_.substr(0, good_.size() - 1)).find("expected " + std::to_string(good_.size()) + " bytes"),
            std::string::npos);
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  EXPECT_NE(error_of(good_ + "x").find("1 unexpected bytes after the last section"), std::string::npos);
}

TEST_F(DamagedStoreTest, AFlippedByteInEachSectionIsAChecksumErrorNamingIt) {
  const nlohmann::json header = header_of(good_);
  std::size_t flipped = 0;
  for (const nlohmann::json& section : header["sections"]) {
    const auto size = section["bytes"].get<std::size_t>();
    if (size == 0) continue;
    for (const std::size_t at : {std::size_t{0}, size / 2, size - 1}) {
      std::string bytes = good_;
      bytes[section["offset"].get<std::size_t>() + at] ^= 0x10;
      const std::string message = error_of(bytes);
      EXPECT_NE(message.find("checksum mismatch in section " + section["name"].get<std::string>()), std::string::npos)
          << message;
    }
    ++flipped;
  }
  EXPECT_EQ(flipped, 6u);  // in_offsets, in_sources, features, labels, node_name_ends, node_names
  std::string bytes = good_;
  bytes[60] ^= 0x01;
  EXPECT_NE(error_of(bytes).find("checksum mismatch in the JSON header"), std::string::npos);
  bytes = good_;
  bytes[30] ^= 0x01;  // the header's digest itself
  EXPECT_NE(error_of(bytes).find("checksum mismatch in the JSON header"), std::string::npos);
}

TEST_F(DamagedStoreTest, ForeignFilesAndOtherVersionsAreRefused) {
  std::string bytes = good_;
  bytes[0] = 'X';
  EXPECT_NE(error_of(bytes).find("not an edgewise graph store"), std::string::npos);
  EXPECT_NE(error_of("\x93NUMPY\x01\x00").find("not an edgewise graph store"), std::string::npos);
  EXPECT_NE(
      error_of("hello, world, this is a text file and not a graph store at all").find("not an edgewise graph store"),
      std::string::npos);
  bytes = good_;
  bytes[8] = static_cast<char>(kGraphStoreFormatVersion + 1);
  const std::string newer = error_of(bytes);
  EXPECT_NE(newer.find("written by a newer edgewise"), std::string::npos) << newer;
  EXPECT_NE(newer.find("version " + std::to_string(kGraphStoreFormatVersion + 1)), std::string::npos) << newer;
  bytes[8] = 0;
  EXPECT_NE(error_of(bytes).find("version 0"), std::string::npos);
  bytes[8] = 1;
  const std::string older = error_of(bytes);
  EXPECT_NE(older.find("version 1 (SHA-256 chunk digests) is no longer read"), std::string::npos) << older;
  EXPECT_NE(older.find("edgewise graph build"), std::string::npos) << older;
}

TEST_F(DamagedStoreTest, MissingFilesAndFoldersAreStoreFormatErrors) {
  EXPECT_NE(open_error(path("absent.ewg")).find("cannot open"), std::string::npos);
  EXPECT_NE(open_error(folder_).find("not a regular file"), std::string::npos);
}

// Bytes whose checksums are right but whose contents are not: with_valid_store_checksums re-signs
// them, as the fuzz target does, so that the structural checks are what refuses them.
TEST_F(DamagedStoreTest, ContentsThatBreakTheGraphAreRefusedAfterTheChecksums) {
  const nlohmann::json header = header_of(good_);
  const auto section_at = [&](const std::string& name) {
    for (const nlohmann::json& section : header["sections"])
      if (section["name"] == name) return section["offset"].get<std::size_t>();
    ADD_FAILURE() << name;
    return std::size_t{0};
  };
  const auto refused = [&](const std::string& name, std::size_t entry, auto value, const std::string& expected) {
    std::string bytes = good_;
    std::memcpy(bytes.data() + section_at(name) + entry * sizeof(value), &value, sizeof(value));
    const std::string message = error_of(fuzz::with_valid_store_checksums(bytes));
    EXPECT_NE(message.find("section " + name + ": " + expected), std::string::npos) << message;
  };
  refused("in_sources", 2, std::int32_t{7}, "entry 2 is 7, outside [0, 7)");
  refused("in_sources", 0, std::int32_t{-1}, "entry 0 is -1, outside [0, 7)");
  refused("in_offsets", 3, Index{1}, "entry 3 is 1, below the entry before it");
  refused("in_offsets", 7, Index{99}, "entry 7 is 99, outside [0, ");
  refused("labels", 1, Index{2}, "entry 1 is 2, outside [-1, 2)");
  refused("features", 5, std::numeric_limits<float>::infinity(), "entry 5 is not a finite number");
  refused("node_name_ends", 0, Index{1000}, "entry 0 is 1000, outside [0, ");
}

TEST_F(DamagedStoreTest, HeadersThatDisagreeWithTheirSectionsAreRefused) {
  const auto with_header = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json header = header_of(good_);
    change(header);
    std::uint64_t length = 0;
    std::memcpy(&length, good_.data() + 16, 8);
    std::string bytes = good_;
    std::string text = header.dump();
    text.resize(std::max<std::size_t>(text.size(), length), ' ');
    bytes.replace(56, length, text);
    return error_of(fuzz::with_valid_store_checksums(bytes));
  };
  EXPECT_NE(with_header([](nlohmann::json& h) { h["num_nodes"] = 8; }).find("expected int64 [9]"), std::string::npos);
  EXPECT_NE(
      with_header([](nlohmann::json& h) { h["sections"][1]["dtype"] = "int64"; }).find("section in_sources is int64"),
      std::string::npos);
  EXPECT_NE(with_header([](nlohmann::json& h) { h["sections"][0]["offset"] = 4100; }).find("not a multiple of 4096"),
            std::string::npos);
  EXPECT_NE(with_header([](nlohmann::json& h) { h["sections"].erase(3); }).find("is missing"), std::string::npos);
  EXPECT_NE(
      with_header([](nlohmann::json& h) { h["sections"][2]["name"] = "extra"; }).find("unexpected section 'extra'"),
      std::string::npos);
  EXPECT_NE(with_header([](nlohmann::json& h) { h["input"]["node_ids"] = "words"; }).find("malformed JSON header"),
            std::string::npos);
  EXPECT_NE(with_header([](nlohmann::json& h) { h["format"] = "other"; }).find("not an edgewise graph store"),
            std::string::npos);
  EXPECT_NE(with_header([](nlohmann::json& h) { h["file_bytes"] = 1; }).find("the header says the file has 1 bytes"),
            std::string::npos);
}

TEST_F(GraphStoreTest, RefuseKeepsAnExistingFileAndLeavesNoTemporaryFile) {
  write_text("g.ewg", "precious");
  const NodeGraph data = random_graph(10, 2, 5);
  EXPECT_THROW(write_graph_store(path("g.ewg"), graph_store_source(data)), Error);
  EXPECT_EQ(bytes_of(path("g.ewg")), "precious");
  write_graph_store(path("g.ewg"), graph_store_source(data), Overwrite::allow);
  expect_store_holds(GraphStore::open(path("g.ewg")), data);
  for (const auto& entry : fs::directory_iterator(folder_))
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
}

TEST_F(GraphStoreTest, InconsistentSourcesAreArgumentErrorsAndWriteNothing) {
  const NodeGraph data = random_graph(10, 2, 6);
  const auto refused = [&](const std::function<void(GraphStoreSource&)>& change, const std::string& expected) {
    GraphStoreSource source = graph_store_source(data);
    source.class_names = {"only"};
    change(source);
    try {
      write_graph_store(path("g.ewg"), source);
      ADD_FAILURE() << "written: " << expected;
    } catch (const ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(path("g.ewg")));
  };
  static const std::vector<Index> short_labels(9, 0), bad_labels(10, 1);
  refused([](GraphStoreSource& s) { s.labels = short_labels; }, "9 labels for 10 nodes");
  refused([](GraphStoreSource& s) { s.labels = bad_labels; }, "has class 1");
  refused([](GraphStoreSource& s) { s.dense_rows = {}; }, "either as dense rows or as sparse rows");
  static const Csr csr(Matrix<float>::Ones(10, 2));
  refused([](GraphStoreSource& s) { s.sparse_rows = csr.rows(); }, "either as dense rows or as sparse rows");
  refused(
      [](GraphStoreSource& s) {
        s.feature_dim = 1;
        s.dense_rows = {};
        s.sparse_rows = csr.rows();
      },
      "sparse feature column 1 is not in [0, 1)");
  refused(
      [](GraphStoreSource& s) {
        s.dense_rows = [](Index first, Index count, float* out) {
          std::fill(out, out + 2 * count, 1.0f);
          if (first == 0) out[7] = std::nanf("");
        };
      },
      "feature 1 of node 3 is not a finite number");
  static const std::vector<Index> bad_offsets = {0, 1, 0};
  static const std::vector<NodeId> one_source = {0};
  refused([](GraphStoreSource& s) { s.in_edges = {bad_offsets, one_source}; }, "do not run from 0 to E");
  static const std::vector<NodeId> bad_sources = {5};
  static const std::vector<Index> one_edge = {0, 1};
  refused(
      [](GraphStoreSource& s) {
        s.in_edges = {one_edge, bad_sources};
        s.labels = {};
        s.node_names = nullptr;
      },
      "in-edge 0 has source 5");
}

// A store bigger than one 64 MiB chunk: digests per chunk, a flipped byte named by its chunk, and
// the cross-chunk order of the offsets checked.
TEST_F(GraphStoreTest, SectionsOfSeveralChunksAreVerifiedChunkByChunk) {
  const Index n = 1 << 10, e = Index{17} << 20;  // in_sources: 68 MiB, two chunks
  std::vector<Index> offsets(static_cast<std::size_t>(n + 1));
  std::vector<NodeId> sources(static_cast<std::size_t>(e));
  for (Index i = 0; i <= n; ++i) offsets[static_cast<std::size_t>(i)] = i * (e / n);
  for (Index k = 0; k < e; ++k) sources[static_cast<std::size_t>(k)] = static_cast<NodeId>(k % n);
  GraphStoreSource source{.in_edges = {offsets, sources}, .feature_dim = 1};
  source.dense_rows = [](Index, Index count, float* out) { std::fill(out, out + count, 0.5f); };
  write_graph_store(path("big.ewg"), source);
  const GraphStore store = GraphStore::open(path("big.ewg"));
  EXPECT_EQ(vec(store.in_edges().sources), sources);

  std::string bytes = bytes_of(path("big.ewg"));
  const nlohmann::json header = header_of(bytes);
  const nlohmann::json& in_sources = header["sections"][1];
  ASSERT_EQ(in_sources["xxh3_128"].size(), 2u);
  bytes[in_sources["offset"].get<std::size_t>() + (std::size_t{65} << 20)] ^= 1;
  write_bytes(path("bad.ewg"), bytes);
  const std::string message = open_error(path("bad.ewg"));
  EXPECT_NE(message.find("checksum mismatch in section in_sources (chunk 2 of 2"), std::string::npos) << message;
}

// Write and open times of a large store, run by hand, each under /usr/bin/time -v for its peak memory
// (the sizes default to 2^22 nodes, 2^26 edges and 64 features, the path to the temporary folder):
//   EDGEWISE_STORE_NODES=4194304 EDGEWISE_STORE_EDGES=67108864 EDGEWISE_STORE_DIM=64
//   EDGEWISE_STORE_PATH=/tmp/big.ewg io_test_graph_store --gtest_also_run_disabled_tests
//     --gtest_filter='*DISABLED_WriteLarge*'   (then '*DISABLED_OpenLarge*')
Index env_count(const char* name, Index fallback) {
  const char* value = std::getenv(name);
  return value ? std::stoll(value) : fallback;
}

fs::path large_store_path() {
  const char* value = std::getenv("EDGEWISE_STORE_PATH");
  return value ? fs::path(value) : fs::temp_directory_path() / "edgewise_large.ewg";
}

TEST(GraphStoreLarge, DISABLED_WriteLarge) {
  const Index n = env_count("EDGEWISE_STORE_NODES", Index{1} << 22),
              e = env_count("EDGEWISE_STORE_EDGES", Index{1} << 26);
  const Index dim = env_count("EDGEWISE_STORE_DIM", 64);
  std::vector<Index> offsets(static_cast<std::size_t>(n + 1));
  std::vector<NodeId> sources(static_cast<std::size_t>(e));
  std::mt19937_64 rng(0);
  for (Index i = 0; i <= n; ++i) offsets[static_cast<std::size_t>(i)] = i * e / n;
  for (NodeId& s : sources) s = static_cast<NodeId>(rng() % static_cast<std::uint64_t>(n));
  std::vector<Index> labels(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) labels[static_cast<std::size_t>(i)] = i % 4;
  GraphStoreSource source{
      .in_edges = {offsets, sources}, .feature_dim = dim, .labels = labels, .class_names = {"0", "1", "2", "3"}};
  source.dense_rows = [dim](Index first, Index count, float* out) {
    for (Index k = 0; k < count * dim; ++k) out[k] = static_cast<float>((first * dim + k) % 1000) * 0.001f;
  };
  const auto start = std::chrono::steady_clock::now();
  write_graph_store(large_store_path(), source, Overwrite::allow);
  std::cout << "wrote " << large_store_path() << " (" << fs::file_size(large_store_path()) << " bytes) in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
}

TEST(GraphStoreLarge, DISABLED_OpenLarge) {
  const auto start = std::chrono::steady_clock::now();
  const GraphStore store = GraphStore::open(large_store_path());
  std::cout << "opened " << store.num_nodes() << " nodes, " << store.num_edges() << " edges, " << store.file_size()
            << " bytes in " << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
            << " s\n";
}

}  // namespace
}  // namespace edgewise

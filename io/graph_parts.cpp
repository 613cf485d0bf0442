#include "edgewise/io/graph_parts.hpp"

#include <cstring>
#include <optional>

#include "edgewise/core/distributed.hpp"
#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

const StorePart& part_of(const GraphStore& store, const char* what) {
  const StorePart* part = store.part();
  if (!part)
    throw ArgumentError(std::string(what) + ": " + store.path().string() +
                        " holds a whole graph, not a part from `edgewise graph partition --stores`");
  return *part;
}

// A part's sent rows as CSR by receiving part.
void flatten_sent_rows(const GraphPart& part, std::vector<Index>& offsets, std::vector<Index>& rows) {
  offsets.assign(1, 0);
  rows.clear();
  for (const auto& sent : part.sent_rows) {
    rows.insert(rows.end(), sent.begin(), sent.end());
    offsets.push_back(static_cast<Index>(rows.size()));
  }
}

// The rows' features in CSR, from the whole store's sparse features.
struct SparseRows {
  std::vector<Index> offsets{0};
  std::vector<std::int32_t> columns;
  std::vector<float> values;
};

SparseRows sparse_rows_of(const SparseFeatureRows& whole, std::span<const NodeId> nodes) {
  SparseRows rows;
  for (const NodeId node : nodes) {
    const auto begin = static_cast<std::size_t>(whole.offsets[node]), end = static_cast<std::size_t>(whole.offsets[node + 1]);
    rows.columns.insert(rows.columns.end(), whole.columns.begin() + begin, whole.columns.begin() + end);
    rows.values.insert(rows.values.end(), whole.values.begin() + begin, whole.values.begin() + end);
    rows.offsets.push_back(static_cast<Index>(rows.columns.size()));
  }
  return rows;
}

void write_part(const GraphStore& whole, const GraphPart& part, const std::filesystem::path& path, Overwrite overwrite) {
  GraphStoreSource source;
  source.in_edges = part.graph.in_edges();
  source.feature_dim = whole.feature_dim();
  std::optional<SparseRows> sparse;
  if (const auto rows = whole.sparse_features()) {
    sparse = sparse_rows_of(*rows, part.nodes);
    source.sparse_rows = SparseFeatureRows{sparse->offsets, sparse->columns, sparse->values};
  } else {
    source.dense_rows = [&](Index first, Index count, float* out) {
      whole.gather_features(std::span(part.nodes).subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(count)), out);
    };
  }
  std::vector<Index> labels;
  if (!whole.labels().empty()) {
    labels.assign(static_cast<std::size_t>(part.rows()), -1);
    for (Index r = 0; r < part.owned; ++r) labels[static_cast<std::size_t>(r)] = whole.labels()[static_cast<std::size_t>(part.nodes[r])];
  }
  source.labels = labels;
  source.class_names = whole.class_names();
  NodeIndex names;
  if (!whole.named_by_id()) {
    for (const NodeId node : part.nodes) names.add(whole.node_name(node));
    source.node_names = &names;
  }
  source.input = whole.input();
  source.edge_list_nodes = whole.edge_list_nodes();
  source.edge_list_edges = whole.edge_list_edges();
  std::vector<Index> sent_offsets, sent_rows;
  flatten_sent_rows(part, sent_offsets, sent_rows);
  const StorePart stored{.part = part.part,
                         .parts = part.parts,
                         .owned = part.owned,
                         .halo_counts = part.halo_counts,
                         .nodes = part.nodes,
                         .sent_offsets = sent_offsets,
                         .sent_rows = sent_rows,
                         .whole_nodes = whole.num_nodes(),
                         .whole_edges = whole.num_edges(),
                         .whole_fingerprint = whole.fingerprint()};
  source.part = &stored;
  write_graph_store(path, source, overwrite);
}

// Bytes of a trivially copyable array, and back.
template <typename T>
void append_array(std::string& bytes, std::span<const T> values) {
  const std::uint64_t count = values.size();
  bytes.append(reinterpret_cast<const char*>(&count), sizeof count);
  bytes.append(reinterpret_cast<const char*>(values.data()), values.size_bytes());
}

template <typename T>
std::vector<T> take_array(const std::string& bytes, std::size_t& at) {
  std::uint64_t count = 0;
  EDGEWISE_CHECK(at + sizeof count <= bytes.size());
  std::memcpy(&count, bytes.data() + at, sizeof count);
  at += sizeof count;
  EDGEWISE_CHECK(count <= (bytes.size() - at) / sizeof(T));
  std::vector<T> values(static_cast<std::size_t>(count));
  std::memcpy(values.data(), bytes.data() + at, values.size() * sizeof(T));
  at += values.size() * sizeof(T);
  return values;
}

// Each process's own nodes with what `own_values` writes of them, gathered; `take` reads one
// process's values for its nodes, in the order of its node ids.
template <typename OwnValues, typename Take>
void gather_own_rows(const GraphStore& store, OwnValues&& own_values, Take&& take) {
  const StorePart& part = part_of(store, "gathering a cut graph");
  std::string mine;
  append_array(mine, part.nodes.first(static_cast<std::size_t>(part.owned)));
  own_values(mine, part);
  for (const std::string& bytes : distributed::all_gather(mine)) {
    std::size_t at = 0;
    const std::vector<NodeId> nodes = take_array<NodeId>(bytes, at);
    for (const NodeId node : nodes)
      if (node < 0 || node >= part.whole_nodes) throw Error("gathering a cut graph: a process sent node " + std::to_string(node));
    take(nodes, bytes, at);
  }
}

}  // namespace

std::filesystem::path part_store_path(const std::filesystem::path& folder, int part) {
  return folder / ("part-" + std::to_string(part) + std::string(kGraphStoreExtension));
}

void write_part_stores(const GraphStore& whole, std::span<const std::int32_t> owner, int parts,
                       const std::filesystem::path& folder, Overwrite overwrite) {
  if (whole.part()) throw ArgumentError(whole.path().string() + " is already a part of a cut graph; cut the whole store");
  std::filesystem::create_directories(folder);
  for (int p = 0; p < parts; ++p)
    write_part(whole, graph_part(whole.in_edges(), owner, p, parts), part_store_path(folder, p), overwrite);
}

GraphPart stored_graph_part(const GraphStore& store) {
  const StorePart& stored = part_of(store, "stored_graph_part");
  GraphPart part;
  part.part = stored.part;
  part.parts = stored.parts;
  part.graph = Graph::from_in_edges(store.in_edges());
  part.nodes.assign(stored.nodes.begin(), stored.nodes.end());
  part.owned = stored.owned;
  part.halo_counts = stored.halo_counts;
  for (int p = 0; p < stored.parts; ++p)
    part.sent_rows.emplace_back(stored.sent_rows.begin() + stored.sent_offsets[p],
                                stored.sent_rows.begin() + stored.sent_offsets[p + 1]);
  return part;
}

void check_part_of_run(const GraphStore& store) {
  const StorePart& part = part_of(store, "training on parts");
  const std::string name = store.path().string();
  if (part.parts != distributed::size())
    throw ArgumentError(name + " is part of a graph cut into " + std::to_string(part.parts) + " parts; run " +
                        std::to_string(part.parts) + " processes (mpirun -np " + std::to_string(part.parts) +
                        "), this run has " + std::to_string(distributed::size()));
  if (part.part != distributed::rank())
    throw ArgumentError(name + " holds part " + std::to_string(part.part) + ", process " +
                        std::to_string(distributed::rank()) + " takes part " + std::to_string(distributed::rank()));
  std::string whole = part.whole_fingerprint;
  distributed::broadcast(whole, 0);
  if (whole != part.whole_fingerprint)
    throw ArgumentError(name + " is a part of another graph (or another cut) than process 0's part");
}

std::vector<Index> whole_labels(const GraphStore& store) {
  if (store.labels().empty()) throw ArgumentError(store.path().string() + ": the part store has no labels");
  std::vector<Index> labels;
  gather_own_rows(
      store,
      [&](std::string& bytes, const StorePart& part) {
        append_array(bytes, store.labels().first(static_cast<std::size_t>(part.owned)));
        labels.assign(static_cast<std::size_t>(part.whole_nodes), -1);
      },
      [&](const std::vector<NodeId>& nodes, const std::string& bytes, std::size_t& at) {
        const std::vector<Index> values = take_array<Index>(bytes, at);
        EDGEWISE_CHECK(values.size() == nodes.size());
        for (std::size_t i = 0; i < nodes.size(); ++i) labels[static_cast<std::size_t>(nodes[i])] = values[i];
      });
  return labels;
}

std::vector<std::string> whole_node_names(const GraphStore& store) {
  std::vector<std::string> names;
  gather_own_rows(
      store,
      [&](std::string& bytes, const StorePart& part) {
        std::vector<Index> ends;
        std::string text;
        for (Index r = 0; r < part.owned; ++r) {
          text += store.node_name(r);
          ends.push_back(static_cast<Index>(text.size()));
        }
        append_array<Index>(bytes, ends);
        append_array<char>(bytes, text);
        names.resize(static_cast<std::size_t>(part.whole_nodes));
      },
      [&](const std::vector<NodeId>& nodes, const std::string& bytes, std::size_t& at) {
        const std::vector<Index> ends = take_array<Index>(bytes, at);
        const std::vector<char> text = take_array<char>(bytes, at);
        EDGEWISE_CHECK(ends.size() == nodes.size() && (ends.empty() || ends.back() == static_cast<Index>(text.size())));
        Index begin = 0;
        for (std::size_t i = 0; i < nodes.size(); ++i) {
          names[static_cast<std::size_t>(nodes[i])].assign(text.data() + begin, text.data() + ends[i]);
          begin = ends[i];
        }
      });
  return names;
}

}  // namespace edgewise

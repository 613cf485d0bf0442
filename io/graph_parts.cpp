#include "edgewise/io/graph_parts.hpp"

#include <algorithm>
#include <optional>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

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

}  // namespace

const StorePart& store_part(const GraphStore& store, const char* what) {
  const StorePart* part = store.part();
  if (!part)
    throw ArgumentError(std::string(what) + ": " + store.path().string() +
                        " holds a whole graph, not a part from `edgewise graph partition --stores`");
  return *part;
}

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
  const StorePart& stored = store_part(store, "stored_graph_part");
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

Index own_row(const GraphStore& store, Index node) {
  const StorePart& part = *store.part();
  const auto own = part.nodes.first(static_cast<std::size_t>(part.owned));
  const auto found = std::lower_bound(own.begin(), own.end(), node);
  return found != own.end() && *found == node ? static_cast<Index>(found - own.begin()) : -1;
}

}  // namespace edgewise

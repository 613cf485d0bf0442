#include "edgewise/tasks/common/store_source.hpp"

#include <cstdint>
#include <optional>

#include "edgewise/core/sparse.hpp"

namespace edgewise {
namespace {

// A store's sparse features as batches gather them: where they are bags of words (the density below
// which full-batch training reads features sparsely) with each row's columns ascending.
std::optional<SparseRowsView<float, std::int32_t>> sparse_rows_of(const GraphStore& store) {
  const std::optional<SparseFeatureRows> rows = store.sparse_features();
  if (!rows) return std::nullopt;
  const SparseRowsView<float, std::int32_t> view{rows->offsets.data(), rows->columns.data(), rows->values.data(),
                                                 store.feature_dim()};
  const double cells = static_cast<double>(store.num_nodes()) * static_cast<double>(store.feature_dim());
  if (static_cast<double>(rows->values.size()) >= sparse_feature_density * cells || !view.ascending(store.num_nodes()))
    return std::nullopt;
  return view;
}

}  // namespace

NodeSource store_source(const GraphStore& store) {
  NodeSource source{
      .in_edges = store.in_edges(),
      .feature_dim = store.feature_dim(),
      .gather_features = [&store](std::span<const NodeId> nodes, float* out) { store.gather_features(nodes, out); },
      .self_loops = store.input().add_self_loops};
  if (const auto sparse = sparse_rows_of(store))
    source.gather_sparse_features = [view = *sparse](std::span<const NodeId> nodes, SparseMatrix<float>& out) {
      view.gather(nodes, out);
    };
  return source;
}

}  // namespace edgewise

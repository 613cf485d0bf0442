#include "edgewise/distributed/molecules/molecule_exchange.hpp"

#include <cstdint>
#include <cstring>

#include "edgewise/core/error.hpp"
#include "edgewise/distributed/processes.hpp"

namespace edgewise::distributed {
namespace {

// Numbers are written in the machine's byte order: the processes of one run share it.
template <typename T>
void put(std::string& bytes, const T& value) {
  bytes.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

void put_matrix(std::string& bytes, const Matrix<float>& matrix) {
  put(bytes, static_cast<std::int64_t>(matrix.rows()));
  put(bytes, static_cast<std::int64_t>(matrix.cols()));
  bytes.append(reinterpret_cast<const char*>(matrix.data()), sizeof(float) * static_cast<std::size_t>(matrix.size()));
}

// Reads what put wrote, in order.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}

  bool done() const { return at_ == bytes_.size(); }
  std::size_t left() const { return bytes_.size() - at_; }

  template <typename T>
  T get() {
    T value;
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
    return value;
  }

  Matrix<float> get_matrix() {
    const auto rows = get<std::int64_t>(), cols = get<std::int64_t>();
    const std::size_t floats_left = left() / sizeof(float);
    if (rows < 0 || cols < 0 || (cols > 0 && static_cast<std::size_t>(rows) > floats_left / static_cast<std::size_t>(cols)))
      throw Error("featurized molecules: the bytes end inside a matrix of " + std::to_string(rows) + " x " +
                  std::to_string(cols));
    Matrix<float> matrix(rows, cols);  // allocated only once the bytes are known to hold it
    const std::size_t size = sizeof(float) * static_cast<std::size_t>(matrix.size());
    std::memcpy(matrix.data(), take(size), size);
    return matrix;
  }

  std::string get_string() {
    const auto size = get<std::uint64_t>();
    return std::string(take(size), size);
  }

 private:
  const char* take(std::size_t size) {
    if (size > bytes_.size() - at_) throw Error("featurized molecules: the bytes end inside a molecule");
    const char* begin = bytes_.data() + at_;
    at_ += size;
    return begin;
  }

  std::string_view bytes_;
  std::size_t at_ = 0;
};

void put_graph(std::string& bytes, const MoleculeGraph& molecule) {
  put(bytes, static_cast<std::int64_t>(molecule.graph.num_nodes()));
  const std::vector<std::pair<Index, Index>> edges = molecule.graph.edge_pairs();  // in the graph's edge order
  put(bytes, static_cast<std::int64_t>(edges.size()));
  for (const auto& [source, target] : edges) {
    put(bytes, static_cast<std::int64_t>(source));
    put(bytes, static_cast<std::int64_t>(target));
  }
  put_matrix(bytes, molecule.node_features);
  put_matrix(bytes, molecule.edge_features);
  put_matrix(bytes, molecule.graph_features);
  for (const Index bond : molecule.bond_of_edge) put(bytes, static_cast<std::int64_t>(bond));
}

MoleculeGraph get_graph(ByteReader& in) {
  MoleculeGraph molecule;
  const auto nodes = in.get<std::int64_t>(), edges = in.get<std::int64_t>();
  if (nodes < 0 || static_cast<std::size_t>(nodes) > in.left())  // each node has feature bytes to come
    throw Error("featurized molecules: a molecule of " + std::to_string(nodes) + " atoms in " +
                std::to_string(in.left()) + " bytes");
  std::vector<Index> sources, targets;
  for (std::int64_t e = 0; e < edges; ++e) {
    sources.push_back(in.get<std::int64_t>());
    targets.push_back(in.get<std::int64_t>());
  }
  molecule.graph = Graph::from_edges(nodes, sources, targets);  // no options: the edges as given
  molecule.node_features = in.get_matrix();
  molecule.edge_features = in.get_matrix();
  molecule.graph_features = in.get_matrix();
  for (std::int64_t e = 0; e < edges; ++e) molecule.bond_of_edge.push_back(in.get<std::int64_t>());
  return molecule;
}

}  // namespace

void append_rows(std::string& bytes, std::span<const FeaturizedMolecule> rows) {
  for (const FeaturizedMolecule& row : rows) {
    put(bytes, static_cast<std::uint8_t>(row.graph ? 1 : 0));
    if (row.graph) {
      put_graph(bytes, *row.graph);
    } else {
      put(bytes, static_cast<std::uint64_t>(row.error.size()));
      bytes.append(row.error);
    }
  }
}

std::vector<FeaturizedMolecule> rows_from_bytes(std::string_view bytes) {
  ByteReader in(bytes);
  std::vector<FeaturizedMolecule> rows;
  while (!in.done()) {
    FeaturizedMolecule& row = rows.emplace_back();
    if (in.get<std::uint8_t>() != 0) {
      row.graph = get_graph(in);
    } else {
      row.error = in.get_string();
    }
  }
  return rows;
}

std::vector<FeaturizedMolecule> featurize_shared(std::size_t n, const RowFeaturizer& featurize) {
  if (!distributed::active()) return featurize(0, n);
  const auto processes = static_cast<std::size_t>(distributed::size());
  const auto share_start = [&](std::size_t rank) { return n * rank / processes; };
  const auto rank = static_cast<std::size_t>(distributed::rank());
  std::vector<FeaturizedMolecule> own = featurize(share_start(rank), share_start(rank + 1));
  std::vector<FeaturizedMolecule> rows;
  rows.reserve(n);
  for (std::size_t from = 0; from < processes; ++from) {
    std::string bytes;
    if (from == rank) append_rows(bytes, own);
    distributed::broadcast(bytes, static_cast<int>(from));
    std::vector<FeaturizedMolecule> share = from == rank ? std::move(own) : rows_from_bytes(bytes);
    if (share.size() != share_start(from + 1) - share_start(from))
      throw Error("featurized molecules: process " + std::to_string(from) + " sent " + std::to_string(share.size()) +
                  " rows for a share of " + std::to_string(share_start(from + 1) - share_start(from)));
    for (FeaturizedMolecule& row : share) rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace edgewise::distributed

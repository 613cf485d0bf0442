#include "edgewise/distributed/graph_parts.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/distributed/processes.hpp"
#include "edgewise/io/graph_parts.hpp"

namespace edgewise::distributed {
namespace {

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
  if (!values.empty()) std::memcpy(values.data(), bytes.data() + at, values.size() * sizeof(T));  // data() may be null
  at += values.size() * sizeof(T);
  return values;
}

// Each process's own nodes with what `own_values` writes of them, gathered; `take` reads one
// process's values for its nodes, in the order of its node ids.
template <typename OwnValues, typename Take>
void gather_own_rows(const GraphStore& store, OwnValues&& own_values, Take&& take) {
  const StorePart& part = store_part(store, "gathering a cut graph");
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

void check_part_of_run(const GraphStore& store) {
  const StorePart& part = store_part(store, "training on parts");
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

ListedRows gather_listed_rows(const GraphStore& store, std::span<const Index> nodes, const Matrix<float>& own_rows,
                              std::span<const Index> class_ids) {
  const auto width = static_cast<std::size_t>(own_rows.cols());
  // Each own listed node's place in `nodes`, its label and its row.
  std::vector<Index> places, labels;
  std::vector<float> rows;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Index row = own_row(store, nodes[i]);
    if (row < 0) continue;
    const Index label = store.labels().empty() ? -1 : store.labels()[static_cast<std::size_t>(row)];
    places.push_back(static_cast<Index>(i));
    labels.push_back(label >= 0 ? class_ids[static_cast<std::size_t>(label)] : -1);
    rows.insert(rows.end(), own_rows.row(row).data(), own_rows.row(row).data() + width);
  }
  std::string mine;
  append_array<Index>(mine, places);
  append_array<Index>(mine, labels);
  append_array<float>(mine, rows);
  ListedRows listed{.rows = Matrix<float>::Zero(static_cast<Index>(nodes.size()), own_rows.cols()),
                    .labels = std::vector<Index>(nodes.size(), -1)};
  for (const std::string& bytes : all_gather(mine)) {
    std::size_t at = 0;
    const std::vector<Index> their_places = take_array<Index>(bytes, at);
    const std::vector<Index> their_labels = take_array<Index>(bytes, at);
    const std::vector<float> their_rows = take_array<float>(bytes, at);
    EDGEWISE_CHECK(their_labels.size() == their_places.size() && their_rows.size() == their_places.size() * width);
    for (std::size_t k = 0; k < their_places.size(); ++k) {
      const Index place = their_places[k];
      EDGEWISE_CHECK(place >= 0 && place < static_cast<Index>(nodes.size()));
      listed.labels[static_cast<std::size_t>(place)] = their_labels[k];
      std::copy_n(their_rows.data() + k * width, width, listed.rows.row(place).data());
    }
  }
  return listed;
}

}  // namespace edgewise::distributed

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <system_error>
#include <utility>

#include "edgewise/io/edge_list.hpp"
#include "records.hpp"

namespace edgewise {
namespace {

using namespace detail;

// Keeps the first of each repeated edge (undirected: of each pair, whichever way round), in order.
// Memory: a counting sort of the edges by their smaller (directed: source) node, 4 bytes an edge and
// 8 a node, where a hash set of the pairs would take about 40 bytes an edge.
void drop_repeated_edges(std::vector<std::pair<NodeId, NodeId>>& edges, Index num_nodes, bool directed) {
  const auto key = [&](const std::pair<NodeId, NodeId>& edge) { return directed ? edge.first : std::min(edge.first, edge.second); };
  const auto other = [&](const std::pair<NodeId, NodeId>& edge) { return directed ? edge.second : std::max(edge.first, edge.second); };
  std::vector<Index> offsets(static_cast<std::size_t>(num_nodes) + 1, 0);
  for (const auto& edge : edges) ++offsets[static_cast<std::size_t>(key(edge)) + 1];
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i) offsets[i + 1] += offsets[i];
  std::vector<NodeId> order(edges.size());  // edge ids by key, ascending within a key
  {
    std::vector<Index> cursor(offsets.begin(), offsets.end() - 1);
    for (std::size_t e = 0; e < edges.size(); ++e)
      order[static_cast<std::size_t>(cursor[static_cast<std::size_t>(key(edges[e]))]++)] = static_cast<NodeId>(e);
  }
  std::vector<bool> repeated(edges.size(), false);
  std::vector<std::pair<NodeId, NodeId>> bucket;  // (other node, edge id) of one key
  for (std::size_t k = 0; k + 1 < offsets.size(); ++k) {
    bucket.clear();
    for (Index p = offsets[k]; p < offsets[k + 1]; ++p) {
      const NodeId e = order[static_cast<std::size_t>(p)];
      bucket.emplace_back(other(edges[static_cast<std::size_t>(e)]), e);
    }
    std::ranges::sort(bucket);
    for (std::size_t i = 1; i < bucket.size(); ++i)
      if (bucket[i].first == bucket[i - 1].first) repeated[static_cast<std::size_t>(bucket[i].second)] = true;
  }
  std::size_t kept = 0;
  for (std::size_t e = 0; e < edges.size(); ++e)
    if (!repeated[e]) edges[kept++] = edges[e];
  edges.resize(kept);
}

struct EdgeArrays {
  std::vector<NodeId> sources, targets;
};

// The graph's edges in its order: `edges`, then (undirected) their reverses, then the added
// self-loops. Graph::from_pairs with symmetrize would look every reverse edge up in a hash set; the
// list holds each pair once already, so the reverse of every edge but a self-loop is missing, and the
// arrays can be filled directly, once, at their final size.
EdgeArrays directed_edges(const EdgeList& list, const EdgeListBuildOptions& options) {
  const auto& edges = list.edges;
  const auto loops = static_cast<std::size_t>(std::ranges::count_if(edges, [](const auto& e) { return e.first == e.second; }));
  std::vector<bool> has_loop(static_cast<std::size_t>(list.nodes.size()), false);
  for (const auto& [source_node, target_node] : edges)
    if (source_node == target_node) has_loop[static_cast<std::size_t>(source_node)] = true;
  const std::size_t added_loops =
      options.add_self_loops ? static_cast<std::size_t>(std::ranges::count(has_loop, false)) : 0;
  const std::size_t total = edges.size() + (list.directed ? 0 : edges.size() - loops) + added_loops;
  EdgeArrays arrays;
  arrays.sources.reserve(total);
  arrays.targets.reserve(total);
  const auto append = [&](NodeId from, NodeId to) {
    arrays.sources.push_back(from);
    arrays.targets.push_back(to);
  };
  for (const auto& [source_node, target_node] : edges) append(source_node, target_node);
  if (!list.directed)
    for (const auto& [source_node, target_node] : edges)
      if (source_node != target_node) append(target_node, source_node);
  if (options.add_self_loops)
    for (Index i = 0; i < list.nodes.size(); ++i)
      if (!has_loop[static_cast<std::size_t>(i)]) append(static_cast<NodeId>(i), static_cast<NodeId>(i));
  return arrays;
}


}  // namespace

Graph EdgeList::to_graph(const EdgeListBuildOptions& options) const {
  EdgeArrays arrays = directed_edges(*this, options);
  return Graph::from_edge_arrays(nodes.size(), std::move(arrays.sources), std::move(arrays.targets));
}

Graph EdgeList::take_graph(const EdgeListBuildOptions& options) {
  EdgeArrays arrays = directed_edges(*this, options);
  // Freed before the graph's indices are built, which take about as much memory. (`edges = {}` would
  // keep the capacity: it assigns an empty initializer list.)
  edges.clear();
  edges.shrink_to_fit();
  return Graph::from_edge_arrays(nodes.size(), std::move(arrays.sources), std::move(arrays.targets));
}

namespace {

// Reads the records of an edge list one at a time into an EdgeList.
class EdgeListBuilder {
 public:
  EdgeListBuilder(std::string source, const EdgeListOptions& options, NodeIndex nodes)
      : list_{std::move(source), std::move(nodes), {}, options.directed}, options_(options) {}

  void add(const Record& record) {
    const bool first = std::exchange(first_, false);
    if (first && is_header(record, options_.header, options_.ids, {0, 1})) {
      list_.header.assign(record.fields.begin(), record.fields.end());
      return;
    }
    const Where where{list_.source, record.line};
    if (record.fields.size() < 2) fail(where, record.fields.front(), "expected two node ids, found one field");
    const Index known = list_.nodes.size();
    const Index source_node = node(record.fields[0], where.at(0));
    const Index target_node = node(record.fields[1], where.at(1));
    if (std::max(source_node, target_node) > std::numeric_limits<NodeId>::max())
      fail(where.at(1), record.fields[1], "more than 2^31 - 1 distinct nodes");
    list_.edges.emplace_back(static_cast<NodeId>(source_node), static_cast<NodeId>(target_node));
    if (first) start_header_guess(record, known);
    else if (guessing_header_) guessing_header_ = !names_first_record(source_node) && !names_first_record(target_node);
  }

  // Room for the edges of a file of `bytes` bytes at 8 bytes a line or more, so the list does not
  // grow by copies whose freed blocks would stay in the process while the graph is built.
  void reserve_for(std::uintmax_t bytes) { list_.edges.reserve(static_cast<std::size_t>(bytes / 8)); }

  const std::string& source() const { return list_.source; }

  EdgeList finish() {
    if (guessing_header_ && list_.edges.size() > 1) drop_guessed_header();
    if (list_.edges.empty())
      fail({list_.source, 1}, "", "no edges: the file is empty or holds only comments and a header");
    drop_repeated_edges(list_.edges, list_.nodes.size(), list_.directed);
    return std::move(list_);
  }

 private:
  Index node(std::string_view token, const Where& where) {
    if (options_.ids == NodeIds::string) return list_.nodes.add(node_name(token, options_.ids, where));
    const std::uint64_t value = node_value(token, where);
    if (!in_table(value)) return list_.nodes.add(std::to_string(value));
    NodeId& id = id_of_value_[static_cast<std::size_t>(value)];
    if (id < 0) id = static_cast<NodeId>(list_.nodes.add(std::to_string(value)));
    return id;
  }

  // Integer ids are looked up by value in a table, which costs far less than hashing every line's
  // names; NodeIndex still numbers each new name, once. The table grows to the largest value seen,
  // but not beyond 16 entries per node seen plus 2^20: ids spread over a wider range go to the index.
  bool in_table(std::uint64_t value) {
    if (value >= std::numeric_limits<std::size_t>::max() / 2) return false;
    const auto index = static_cast<std::size_t>(value);
    if (index < id_of_value_.size()) return true;
    const auto limit = static_cast<std::size_t>(16 * list_.nodes.size()) + (std::size_t{1} << 20);
    if (index >= limit) return false;
    id_of_value_.resize(std::min(limit, std::max(index + 1, 2 * id_of_value_.size())), -1);
    return true;
  }

  // String ids cannot tell a header by its type. With Header::detect, the first record is one when
  // its two names are new and no other record names either ("node_1,node_2" above "a,b"): its edge
  // is read, then taken back by finish().
  void start_header_guess(const Record& first, Index known) {
    known_before_first_ = known;
    guessing_header_ = options_.ids == NodeIds::string && options_.header == Header::detect &&
                       list_.nodes.size() == known + 2;
    if (guessing_header_) first_fields_.assign(first.fields.begin(), first.fields.end());
  }

  bool names_first_record(Index node) const { return node == known_before_first_ || node == known_before_first_ + 1; }

  // Removes the first edge and its two nodes, numbering the later nodes two lower.
  void drop_guessed_header() {
    const Index removed = known_before_first_;
    NodeIndex kept;
    for (Index id = 0; id < list_.nodes.size(); ++id)
      if (id != removed && id != removed + 1) kept.add(list_.nodes.name(id));
    list_.nodes = std::move(kept);
    list_.edges.erase(list_.edges.begin());
    const auto renumber = [removed](NodeId& id) { id -= id > removed ? 2 : 0; };
    for (auto& [source_node, target_node] : list_.edges) {
      renumber(source_node);
      renumber(target_node);
    }
    list_.header = std::move(first_fields_);
  }

  EdgeList list_;
  EdgeListOptions options_;
  bool first_ = true;
  bool guessing_header_ = false;  // string ids: whether the first record may still be a header
  Index known_before_first_ = 0;  // the nodes numbered before the first record
  std::vector<std::string> first_fields_;  // while guessing_header_
  std::vector<NodeId> id_of_value_;  // integer ids: the dense id of each value, -1 before it is seen
};

}  // namespace

EdgeList parse_edge_list(std::string_view text, std::string source, const EdgeListOptions& options, NodeIndex nodes) {
  EdgeListBuilder builder(std::move(source), options, std::move(nodes));
  RecordReader reader(text, options.delimiter, builder.source());
  Record record;
  while (reader.next(record)) builder.add(record);
  return builder.finish();
}

EdgeList read_edge_list(const std::filesystem::path& path, const EdgeListOptions& options, NodeIndex nodes) {
  EdgeListBuilder builder(path.string(), options, std::move(nodes));
  std::error_code error;  // an unreadable file is reported by for_each_record_in_file
  if (const std::uintmax_t bytes = std::filesystem::file_size(path, error); !error) builder.reserve_for(bytes);
  for_each_record_in_file(path, options.delimiter, [&](const Record& record) { builder.add(record); });
  return builder.finish();
}

}  // namespace edgewise

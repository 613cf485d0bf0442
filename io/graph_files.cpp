#include "edgewise/io/graph_files.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

#include "edgewise/core/error.hpp"
#include "edgewise/graph/positional.hpp"
#include "edgewise/io/csv.hpp"

namespace edgewise {
namespace {

constexpr auto max_node_id = static_cast<std::uint64_t>(std::numeric_limits<NodeId>::max());
// Feature indices share the node id limit, which also keeps an inferred dimension allocatable.
constexpr auto max_feature_index = max_node_id;

// Where a record came from, for errors.
struct Where {
  const std::string& source;
  std::size_t line;
};

[[noreturn]] void fail(const Where& where, std::string_view token, std::string reason) {
  throw ParseError(where.source, where.line, std::string(token), std::move(reason));
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open for reading: " + std::generic_category().message(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(path.string() + ": read error");
  return std::move(buffer).str();
}

std::string_view without_byte_order_mark(std::string_view text) {
  constexpr std::string_view bom = "\xEF\xBB\xBF";
  if (text.starts_with(bom)) text.remove_prefix(bom.size());
  return text;
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::vector<std::string_view> split_at_blanks(std::string_view text) {
  std::vector<std::string_view> tokens;
  std::size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && is_blank(text[pos])) ++pos;
    const std::size_t start = pos;
    while (pos < text.size() && !is_blank(text[pos])) ++pos;
    if (pos > start) tokens.push_back(text.substr(start, pos - start));
  }
  return tokens;
}

std::vector<std::string_view> split_at(std::string_view text, char delimiter) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(delimiter, start);
    fields.push_back(trim_whitespace(text.substr(start, end - start)));
    if (end == std::string_view::npos) return fields;
    start = end + 1;
  }
}

std::vector<std::string_view> split_fields(std::string_view line, std::optional<char> delimiter) {
  if (delimiter) return split_at(line, *delimiter);
  return line.find(',') != std::string_view::npos ? split_at(line, ',') : split_at_blanks(line);
}

struct Record {
  std::size_t line = 0;
  std::vector<std::string_view> fields;  // at least one
};

// The records of a line-based file, without blank and comment lines.
class RecordReader {
 public:
  // Lines are numbered on from first_line - 1 (a block of a file that starts further down).
  RecordReader(std::string_view text, std::optional<char> delimiter, std::size_t first_line = 1)
      : text_(first_line == 1 ? without_byte_order_mark(text) : text), delimiter_(delimiter), line_(first_line - 1) {}

  bool next(Record& record) {
    while (pos_ < text_.size()) {
      const std::string_view content = trim_whitespace(next_line());
      if (content.empty() || content.front() == '#' || content.front() == '%') continue;
      record.line = line_;
      record.fields = split_fields(content, delimiter_);
      return true;
    }
    return false;
  }

  // The number of the last line read.
  std::size_t line() const { return line_; }

 private:
  std::string_view next_line() {
    const std::size_t end = std::min(text_.find('\n', pos_), text_.size());
    const std::string_view line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    ++line_;
    return line;
  }

  std::string_view text_;
  std::optional<char> delimiter_;
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
};

// Calls visit(record) for every record of a file, read in blocks of whole lines so that memory does
// not grow with the file.
template <typename Visit>
void for_each_record_in_file(const std::filesystem::path& path, std::optional<char> delimiter, Visit&& visit) {
  constexpr std::size_t kBlockBytes = 4 << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open for reading: " + std::generic_category().message(errno));
  std::string block;
  std::size_t first_line = 1;
  Record record;
  while (in) {
    const std::size_t kept = block.size();
    block.resize(kept + kBlockBytes);
    in.read(block.data() + kept, static_cast<std::streamsize>(kBlockBytes));
    block.resize(kept + static_cast<std::size_t>(in.gcount()));
    if (in.bad()) throw Error(path.string() + ": read error");
    // Whole lines only, but for the last block; the partial line waits for the next block.
    const std::size_t end = in ? block.rfind('\n') + 1 : block.size();
    RecordReader reader(std::string_view(block).substr(0, end), delimiter, first_line);
    while (reader.next(record)) visit(record);
    first_line = reader.line() + 1;
    block.erase(0, end);
  }
}

bool is_integer(std::string_view token) {
  if (token.starts_with('-')) token.remove_prefix(1);
  return !token.empty() && std::ranges::all_of(token, [](char c) { return c >= '0' && c <= '9'; });
}

// A token of digits only, below `limit`; nullopt otherwise.
std::optional<std::uint64_t> non_negative_integer(std::string_view token, std::uint64_t limit) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || end != token.data() + token.size() || value > limit) return std::nullopt;
  return value;
}

// The value of an integer node id, any 64-bit unsigned integer (user ids of social networks need
// more than 32 bits); fails on an empty, non-integer, negative or too large one.
std::uint64_t node_value(std::string_view token, const Where& where) {
  if (token.empty()) fail(where, token, "empty node id");
  if (!is_integer(token)) fail(where, token, "node id is not an integer");
  if (token.starts_with('-')) fail(where, token, "negative node id");
  const auto value = non_negative_integer(token, std::numeric_limits<std::uint64_t>::max());
  if (!value) fail(where, token, "node id above 2^64 - 1");
  return *value;
}

// The name a node token stands for: integer ids by their decimal value, string ids as written.
std::string node_name(std::string_view token, NodeIds ids, const Where& where) {
  if (ids == NodeIds::string) {
    if (token.empty()) fail(where, token, "empty node id");
    return std::string(token);
  }
  return std::to_string(node_value(token, where));
}

// Looks node tokens up in an index, adding or refusing unknown ones.
class NodeResolver {
 public:
  NodeResolver(NodeIndex& nodes, NodeIds ids, UnknownNodes unknown_nodes)
      : nodes_(nodes), ids_(ids), unknown_nodes_(unknown_nodes) {}

  Index operator()(std::string_view token, const Where& where) const {
    const std::string name = node_name(token, ids_, where);
    if (const std::optional<Index> id = nodes_.find(name)) return *id;
    if (unknown_nodes_ == UnknownNodes::error) fail(where, token, "node not in the graph");
    return nodes_.add(name);
  }

 private:
  NodeIndex& nodes_;
  NodeIds ids_;
  UnknownNodes unknown_nodes_;
};

// Whether the first record of a file is a header; node_columns are the fields holding node ids.
bool is_header(const Record& first, Header header, NodeIds ids, std::initializer_list<std::size_t> node_columns) {
  if (header != Header::detect) return header == Header::present;
  if (ids != NodeIds::integer) return false;
  return std::ranges::any_of(node_columns, [&](std::size_t column) {
    return column < first.fields.size() && !first.fields[column].empty() && !is_integer(first.fields[column]);
  });
}

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

std::optional<std::int64_t> integer_label(std::string_view label) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(label.data(), label.data() + label.size(), value);
  if (error != std::errc() || end != label.data() + label.size()) return std::nullopt;
  return value;
}

// The label as a class key: integers by their decimal value, so that "07" and "7" are one class.
std::string label_key(std::string_view label) {
  const std::optional<std::int64_t> value = integer_label(label);
  return value ? std::to_string(*value) : std::string(label);
}

// Class names in first-appearance order, sorted numerically instead when all are integers.
void order_classes(std::vector<std::string>& names) {
  if (!std::ranges::all_of(names, [](const std::string& name) { return integer_label(name).has_value(); })) return;
  std::ranges::sort(names, {}, [](const std::string& name) { return *integer_label(name); });
}

struct LabelRecord {
  std::string label;  // label_key of the label
  std::size_t line = 0;
};

// The labels of a file by node, each node's first record kept, conflicting ones refused.
class LabelCollector {
 public:
  void add(Index node, std::string_view label, const Where& where) {
    auto [it, inserted] = by_node_.try_emplace(node, LabelRecord{label_key(label), where.line});
    if (inserted) {
      order_.push_back(node);
    } else if (it->second.label != label_key(label)) {
      fail(where, label,
           "conflicting label: the node was labeled '" + it->second.label + "' on line " +
               std::to_string(it->second.line));
    }
  }

  NodeLabels labels(Index num_nodes) const {
    NodeLabels labels;
    std::unordered_set<std::string> seen;
    for (Index node : order_) {
      const std::string& label = by_node_.at(node).label;
      if (seen.insert(label).second) labels.class_names.push_back(label);
    }
    order_classes(labels.class_names);
    std::unordered_map<std::string, Index> class_of;
    for (std::size_t c = 0; c < labels.class_names.size(); ++c) class_of.emplace(labels.class_names[c], c);
    labels.classes.assign(static_cast<std::size_t>(num_nodes), -1);
    for (const auto& [node, record] : by_node_)
      labels.classes[static_cast<std::size_t>(node)] = class_of.at(record.label);
    return labels;
  }

 private:
  std::unordered_map<Index, LabelRecord> by_node_;
  std::vector<Index> order_;  // nodes in the order of their first record
};

void check_feature_options(const FeatureOptions& options) {
  if (options.format == FeatureFormat::structural)
    throw ArgumentError("node features: the structural format is computed by structural_features, not read");
  if (options.dim < 0) throw ArgumentError("node features: negative dim " + std::to_string(options.dim));
}

// Refuses a second feature record for a node.
class ListedNodes {
 public:
  void mark(Index node, std::string_view token, const Where& where) {
    const auto [it, inserted] = line_of_.try_emplace(node, where.line);
    if (!inserted) fail(where, token, "features for this node were given on line " + std::to_string(it->second));
  }

 private:
  std::unordered_map<Index, std::size_t> line_of_;
};

float parse_value(std::string_view token, const Where& where) {
  if (token.size() > 1 && token.front() == '+') token.remove_prefix(1);
  float value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error == std::errc::result_out_of_range) fail(where, token, "feature value out of range");
  if (error != std::errc() || end != token.data() + token.size()) fail(where, token, "feature value is not a number");
  if (!std::isfinite(value)) fail(where, token, "feature value is not a finite number");
  return value;
}

Index parse_feature_index(std::string_view token, Index dim, const Where& where) {
  const std::optional<std::uint64_t> index = non_negative_integer(token, max_feature_index);
  if (!index) fail(where, token, "feature index is not an integer in [0, 2^31 - 1]");
  if (dim > 0 && static_cast<Index>(*index) >= dim)
    fail(where, token, "feature index not below the dimension " + std::to_string(dim));
  return static_cast<Index>(*index);
}

struct SparseEntry {
  Index node = 0;
  Index index = 0;
  float value = 1;
  std::size_t line = 0;
};

// "index" (value 1) or "index:value".
SparseEntry parse_sparse_entry(Index node, std::string_view token, Index dim, const Where& where) {
  const std::size_t colon = token.find(':');
  if (colon == std::string_view::npos) return {node, parse_feature_index(token, dim, where), 1.0f, where.line};
  return {node, parse_feature_index(token.substr(0, colon), dim, where), parse_value(token.substr(colon + 1), where),
          where.line};
}

// Features are kept as a dense [nodes, dim] matrix, so one stray index in a sparse file (or a dense
// row for each of millions of nodes) would ask for more memory than the machine has. `where` and
// `token` point at the record that set the dimension.
void check_matrix_size(Index num_nodes, Index dim, Index max_values, const Where& where, std::string_view token) {
  if (dim == 0 || num_nodes <= max_values / dim) return;
  fail(where, token,
       "the features would need a [" + std::to_string(num_nodes) + ", " + std::to_string(dim) +
           "] matrix, more than the limit of " + std::to_string(max_values) + " values (FeatureOptions::max_values)");
}

NodeFeatures sparse_features(std::span<const SparseEntry> entries, Index num_nodes, FeatureSpec spec, Index max_values,
                             const std::string& source) {
  const SparseEntry* widest = nullptr;
  for (const SparseEntry& entry : entries)
    if (!widest || entry.index > widest->index) widest = &entry;
  if (spec.dim == 0 && widest) spec.dim = widest->index + 1;
  if (widest) check_matrix_size(num_nodes, spec.dim, max_values, {source, widest->line}, std::to_string(widest->index));
  NodeFeatures features{Matrix<float>::Zero(num_nodes, spec.dim), spec};
  for (const SparseEntry& entry : entries) features.values(entry.node, entry.index) = entry.value;
  return features;
}

// A text feature file record: the node token, and the value tokens after the skipped fields.
struct FeatureRecord {
  std::string_view node;
  std::vector<std::string_view> values;
};

FeatureRecord split_feature_record(const Record& record, std::size_t skip_fields, const Where& where) {
  if (record.fields.size() < 1 + skip_fields) {
    fail(where, record.fields.front(),
         "expected the node and " + std::to_string(skip_fields) + " more fields before the values, found " +
             std::to_string(record.fields.size()) + " fields");
  }
  FeatureRecord split{record.fields.front(), {}};
  for (std::size_t f = 1 + skip_fields; f < record.fields.size(); ++f) {
    for (std::string_view token : split_at_blanks(record.fields[f])) split.values.push_back(token);
  }
  return split;
}

// Calls visit(where, node id, record) for every record of a text feature file.
template <typename Visit>
void for_each_feature_record(std::string_view text, const std::string& source, NodeIndex& nodes,
                             const FeatureOptions& options, Visit&& visit) {
  const NodeResolver resolve(nodes, options.ids, options.unknown_nodes);
  ListedNodes listed;
  RecordReader reader(text, options.delimiter);
  Record record;
  bool first = true;
  while (reader.next(record)) {
    if (std::exchange(first, false) && is_header(record, options.header, options.ids, {0})) continue;
    const Where where{source, record.line};
    const FeatureRecord split = split_feature_record(record, options.skip_fields, where);
    const Index node = resolve(split.node, where);
    listed.mark(node, split.node, where);
    visit(where, node, split);
  }
}

NodeFeatures parse_sparse_features(std::string_view text, const std::string& source, NodeIndex& nodes,
                                   const FeatureOptions& options) {
  std::vector<SparseEntry> entries;
  for_each_feature_record(text, source, nodes, options,
                          [&](const Where& where, Index node, const FeatureRecord& record) {
                            for (std::string_view token : record.values)
                              entries.push_back(parse_sparse_entry(node, token, options.dim, where));
                          });
  return sparse_features(entries, nodes.size(), {.format = FeatureFormat::sparse, .dim = options.dim},
                         options.max_values, source);
}

NodeFeatures parse_dense_features(std::string_view text, const std::string& source, NodeIndex& nodes,
                                  const FeatureOptions& options) {
  Index dim = options.dim;
  std::vector<Index> row_nodes;
  std::vector<float> values;  // [rows, dim]
  std::size_t first_line = 0;
  std::string first_node;
  for_each_feature_record(
      text, source, nodes, options, [&](const Where& where, Index node, const FeatureRecord& record) {
        const auto count = static_cast<Index>(record.values.size());
        if (row_nodes.empty()) {
          if (dim == 0) dim = count;
          first_line = where.line;
          first_node = record.node;
        }
        if (count != dim) {
          fail(where, record.node,
               "expected " + std::to_string(dim) + " feature values, found " + std::to_string(count));
        }
        row_nodes.push_back(node);
        for (std::string_view token : record.values) values.push_back(parse_value(token, where));
      });
  if (!row_nodes.empty()) check_matrix_size(nodes.size(), dim, options.max_values, {source, first_line}, first_node);
  NodeFeatures features{Matrix<float>::Zero(nodes.size(), dim), {.format = FeatureFormat::dense, .dim = dim}};
  for (std::size_t r = 0; r < row_nodes.size(); ++r)
    features.values.row(row_nodes[r]) =
        ConstMatrixMap<float>(values.data() + r * static_cast<std::size_t>(dim), 1, dim);
  return features;
}

// Where nlohmann's SAX parser has read to: the line of the last character that is not white space,
// which is the line of the token just read (the lexer reads one character past a number).
struct ReadPosition {
  std::size_t newlines = 0;
  std::size_t token_line = 1;
};

// Feeds text to nlohmann's SAX parser, keeping a ReadPosition up to date.
class TrackingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackingIterator(const char* at, ReadPosition* position) : at_(at), position_(position) {}

  reference operator*() const { return *at_; }
  TrackingIterator& operator++() {
    const char c = *at_++;
    if (c == '\n') {
      ++position_->newlines;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      position_->token_line = position_->newlines + 1;
    }
    return *this;
  }
  bool operator==(const TrackingIterator& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  ReadPosition* position_;
};

// 1-based line of the character at `offset`.
std::size_t line_at(std::string_view text, std::size_t offset) {
  return 1 +
         static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

// Reads {"node": [index, ...], ...} as SAX events, turning each into sparse entries or a ParseError
// on the line of the event.
class MusaeJsonReader {
 public:
  using json = nlohmann::json;

  MusaeJsonReader(std::string_view text, const std::string& source, NodeIndex& nodes, const FeatureOptions& options)
      : text_(text), source_(source), resolve_(nodes, options.ids, options.unknown_nodes), dim_(options.dim) {}

  std::vector<SparseEntry> read() {
    json::sax_parse(TrackingIterator(text_.data(), &position_),
                    TrackingIterator(text_.data() + text_.size(), &position_), this);
    return std::move(entries_);
  }

  bool start_object(std::size_t) {
    if (depth_ != Depth::top) unexpected("{");
    depth_ = Depth::nodes;
    return true;
  }
  bool key(std::string& name) {
    const Where where = here();
    node_ = resolve_(name, where);
    listed_.mark(node_, name, where);
    return true;
  }
  bool start_array(std::size_t) {
    if (depth_ != Depth::nodes) unexpected("[");
    depth_ = Depth::indices;
    return true;
  }
  bool end_array() {
    depth_ = Depth::nodes;
    return true;
  }
  bool end_object() {
    depth_ = Depth::top;
    return true;
  }
  bool number_unsigned(json::number_unsigned_t value) { return index(std::to_string(value)); }
  bool number_integer(json::number_integer_t value) { return index(std::to_string(value)); }
  bool number_float(json::number_float_t, const std::string& text) { return index(text); }
  bool string(std::string& value) { unexpected('"' + value + '"'); }
  bool boolean(bool value) { unexpected(value ? "true" : "false"); }
  bool null() { unexpected("null"); }
  bool binary(json::binary_t&) { unexpected(""); }

  bool parse_error(std::size_t position, const std::string& last_token, const json::exception& error) {
    const std::string message = error.what();
    const std::size_t colon = message.find(": ");
    const std::size_t offset = std::min(position, text_.size());
    throw ParseError(source_, line_at(text_, offset == 0 ? 0 : offset - 1), last_token,
                     "invalid JSON: " + (colon == std::string::npos ? message : message.substr(colon + 2)));
  }

 private:
  enum class Depth { top, nodes, indices };

  Where here() const { return {source_, position_.token_line}; }

  bool index(const std::string& token) {
    if (depth_ != Depth::indices) unexpected(token);
    entries_.push_back({node_, parse_feature_index(token, dim_, here()), 1.0f, position_.token_line});
    return true;
  }

  [[noreturn]] void unexpected(const std::string& token) const {
    const char* expected = depth_ == Depth::top     ? "expected an object mapping nodes to lists of feature indices"
                           : depth_ == Depth::nodes ? "expected a list of feature indices"
                                                    : "feature index is not an integer in [0, 2^31 - 1]";
    fail(here(), token, expected);
  }

  std::string_view text_;
  const std::string& source_;
  NodeResolver resolve_;
  Index dim_;
  ListedNodes listed_;
  ReadPosition position_;
  Depth depth_ = Depth::top;
  Index node_ = 0;
  std::vector<SparseEntry> entries_;
};

NodeFeatures parse_musae_json(std::string_view text, const std::string& source, NodeIndex& nodes,
                              const FeatureOptions& options) {
  const std::vector<SparseEntry> entries = MusaeJsonReader(text, source, nodes, options).read();
  return sparse_features(entries, nodes.size(), {.format = FeatureFormat::musae_json, .dim = options.dim},
                         options.max_values, source);
}

Index degree_without_self_loops(const Graph& graph, Index node) {
  const std::span<const NodeId> sources = graph.in_sources();
  Index degree = 0;
  for (Index p = graph.in_offsets()[node]; p < graph.in_offsets()[node + 1]; ++p) degree += sources[p] != node;
  return degree;
}

constexpr std::pair<FeatureFormat, std::string_view> feature_format_names[] = {
    {FeatureFormat::dense, "dense"},
    {FeatureFormat::sparse, "sparse"},
    {FeatureFormat::musae_json, "musae_json"},
    {FeatureFormat::structural, "structural"},
};

}  // namespace

std::string_view NodeIndex::name(Index id) const {
  if (id < 0 || id >= size()) throw std::out_of_range("node id " + std::to_string(id) + " out of range");
  const auto k = static_cast<std::size_t>(id);
  const std::size_t begin = k == 0 ? 0 : name_ends_[k - 1];
  return std::string_view(text_).substr(begin, name_ends_[k] - begin);
}

std::vector<std::string> NodeIndex::names() const {
  std::vector<std::string> all;
  all.reserve(name_ends_.size());
  for (Index id = 0; id < size(); ++id) all.emplace_back(name(id));
  return all;
}

// Linear probing from the name's hash: the slot that holds `name`'s id, or the empty slot where it
// would go. The table is never full, so the search ends.
std::size_t NodeIndex::slot_of(std::string_view name) const {
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = std::hash<std::string_view>{}(name) & mask;
  while (slots_[slot] >= 0 && this->name(slots_[slot]) != name) slot = (slot + 1) & mask;
  return slot;
}

void NodeIndex::grow_table() {
  slots_.assign(std::max<std::size_t>(16, 2 * slots_.size()), -1);
  for (Index id = 0; id < size(); ++id) slots_[slot_of(name(id))] = static_cast<NodeId>(id);
}

Index NodeIndex::add(std::string_view name) {
  if (slots_.empty()) grow_table();
  NodeId& slot = slots_[slot_of(name)];
  if (slot >= 0) return slot;
  const Index id = size();
  if (id == std::numeric_limits<NodeId>::max()) throw GraphError("node index: more than 2^31 - 1 distinct nodes");
  slot = static_cast<NodeId>(id);
  text_.append(name);
  name_ends_.push_back(text_.size());
  if (2 * name_ends_.size() > slots_.size()) grow_table();
  return id;
}

std::optional<Index> NodeIndex::find(std::string_view name) const {
  if (slots_.empty()) return std::nullopt;
  const NodeId id = slots_[slot_of(name)];
  if (id < 0) return std::nullopt;
  return id;
}

namespace {

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
    if (std::exchange(first_, false) && is_header(record, options_.header, options_.ids, {0, 1})) return;
    const Where where{list_.source, record.line};
    if (record.fields.size() < 2) fail(where, record.fields.front(), "expected two node ids, found one field");
    const Index source_node = node(record.fields[0], where);
    const Index target_node = node(record.fields[1], where);
    if (std::max(source_node, target_node) > std::numeric_limits<NodeId>::max())
      fail(where, record.fields[1], "more than 2^31 - 1 distinct nodes");
    list_.edges.emplace_back(static_cast<NodeId>(source_node), static_cast<NodeId>(target_node));
  }

  // Room for the edges of a file of `bytes` bytes at 8 bytes a line or more, so the list does not
  // grow by copies whose freed blocks would stay in the process while the graph is built.
  void reserve_for(std::uintmax_t bytes) { list_.edges.reserve(static_cast<std::size_t>(bytes / 8)); }

  EdgeList finish() {
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

  EdgeList list_;
  EdgeListOptions options_;
  bool first_ = true;
  std::vector<NodeId> id_of_value_;  // integer ids: the dense id of each value, -1 before it is seen
};

}  // namespace

EdgeList parse_edge_list(std::string_view text, std::string source, const EdgeListOptions& options, NodeIndex nodes) {
  EdgeListBuilder builder(std::move(source), options, std::move(nodes));
  RecordReader reader(text, options.delimiter);
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

Index NodeLabels::num_labeled() const {
  return static_cast<Index>(std::ranges::count_if(classes, [](Index c) { return c >= 0; }));
}

void NodeLabels::extend_to(Index num_nodes) {
  if (num_nodes < static_cast<Index>(classes.size()))
    throw ArgumentError("node labels: cannot shrink from " + std::to_string(classes.size()) + " to " +
                        std::to_string(num_nodes) + " nodes");
  classes.resize(static_cast<std::size_t>(num_nodes), -1);
}

namespace {

// Where `column` is in a labels file whose header (when it has one) is `first`.
std::size_t label_file_column(const FileColumn& column, const Record& first, bool has_header, const Where& where) {
  if (const auto* index = std::get_if<Index>(&column)) {
    if (*index < 0) throw ArgumentError(where.source + ": column index " + std::to_string(*index) + " is negative");
    return static_cast<std::size_t>(*index);
  }
  const std::string& name = std::get<std::string>(column);
  if (!has_header) fail(where, first.fields.front(), "a column is named ('" + name + "') but the file has no header");
  const auto found = std::ranges::find(first.fields, name);
  if (found == first.fields.end())
    fail(where, name, "no column named '" + name + "'; the header has " + quoted_list(first.fields));
  return static_cast<std::size_t>(found - first.fields.begin());
}

}  // namespace

NodeLabels parse_node_labels(std::string_view text, std::string source, NodeIndex& nodes, const LabelOptions& options) {
  const NodeResolver resolve(nodes, options.ids, options.unknown_nodes);
  const bool named = std::holds_alternative<std::string>(options.node_column) ||
                     std::holds_alternative<std::string>(options.label_column);
  const Header header = named && options.header == Header::detect ? Header::present : options.header;
  std::size_t node_column = 0, label_column = 0, needed = 0;
  LabelCollector collector;
  RecordReader reader(text, options.delimiter);
  Record record;
  bool first = true;
  while (reader.next(record)) {
    const Where where{source, record.line};
    if (std::exchange(first, false)) {
      const auto* node_index = std::get_if<Index>(&options.node_column);
      const std::size_t detect_column = node_index && *node_index > 0 ? static_cast<std::size_t>(*node_index) : 0;
      const bool has_header = is_header(record, header, options.ids, {detect_column});
      node_column = label_file_column(options.node_column, record, has_header, where);
      label_column = label_file_column(options.label_column, record, has_header, where);
      needed = std::max(node_column, label_column) + 1;
      if (has_header) continue;
    }
    if (record.fields.size() < needed) {
      fail(where, record.fields.back(),
           "expected at least " + std::to_string(needed) + " fields, found " + std::to_string(record.fields.size()));
    }
    const Index node = resolve(record.fields[node_column], where);
    const std::string_view label = record.fields[label_column];
    if (!label.empty()) collector.add(node, label, where);
  }
  return collector.labels(nodes.size());
}

NodeLabels read_node_labels(const std::filesystem::path& path, NodeIndex& nodes, const LabelOptions& options) {
  return parse_node_labels(read_file(path), path.string(), nodes, options);
}

std::string_view feature_format_name(FeatureFormat format) {
  for (const auto& [known, name] : feature_format_names)
    if (known == format) return name;
  throw ArgumentError("unknown feature format " + std::to_string(static_cast<int>(format)));
}

FeatureFormat feature_format_from_name(std::string_view name) {
  for (const auto& [format, known] : feature_format_names)
    if (known == name) return format;
  throw ArgumentError("unknown feature format '" + std::string(name) +
                      "'; known formats: dense, sparse, musae_json, structural");
}

void NodeFeatures::extend_to(Index num_nodes) {
  const Index old_rows = values.rows();
  if (num_nodes < old_rows)
    throw ArgumentError("node features: cannot shrink from " + std::to_string(old_rows) + " to " +
                        std::to_string(num_nodes) + " nodes");
  values.conservativeResize(num_nodes, values.cols());
  values.bottomRows(num_nodes - old_rows).setZero();
}

NodeFeatures parse_node_features(std::string_view text, std::string source, NodeIndex& nodes,
                                 const FeatureOptions& options) {
  check_feature_options(options);
  switch (options.format) {
    case FeatureFormat::dense:
      return parse_dense_features(text, source, nodes, options);
    case FeatureFormat::sparse:
      return parse_sparse_features(text, source, nodes, options);
    default:
      return parse_musae_json(text, source, nodes, options);
  }
}

NodeFeatures read_node_features(const std::filesystem::path& path, NodeIndex& nodes, const FeatureOptions& options) {
  return parse_node_features(read_file(path), path.string(), nodes, options);
}

NodeFeatures structural_features(const Graph& graph, const StructuralFeatureOptions& options) {
  if (options.max_degree < 0 || options.walk_steps < 0)
    throw ArgumentError("structural_features: max_degree (" + std::to_string(options.max_degree) +
                        ") and walk_steps (" + std::to_string(options.walk_steps) + ") must be non-negative");
  const Index degree_columns = options.max_degree + 1;
  NodeFeatures features{Matrix<float>::Zero(graph.num_nodes(), degree_columns + options.walk_steps),
                        {.format = FeatureFormat::structural,
                         .dim = degree_columns + options.walk_steps,
                         .max_degree = options.max_degree,
                         .walk_steps = options.walk_steps}};
  for (Index i = 0; i < graph.num_nodes(); ++i)
    features.values(i, std::min(degree_without_self_loops(graph, i), options.max_degree)) = 1.0f;
  features.values.rightCols(options.walk_steps) = random_walk_encoding<float>(graph, options.walk_steps);
  return features;
}

}  // namespace edgewise

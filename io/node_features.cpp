#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <unordered_map>

#include "edgewise/core/files.hpp"
#include "edgewise/graph/positional.hpp"
#include "edgewise/io/node_features.hpp"
#include "records.hpp"

namespace edgewise {
namespace {

using namespace detail;

// The walks a node behind structural_features' random-walk columns, 0 for exact ones.
Index sampled_walks(const Graph& graph, const StructuralFeatureOptions& options) {
  if (options.sampled_walks != automatic_walks) return options.sampled_walks;
  return random_walk_work(graph, options.walk_steps) <= exact_walks_max_work ? 0 : default_sampled_walks;
}

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
  float value = 0;
  switch (parse_finite(token, value)) {
    case NumberError::none:
      return value;
    case NumberError::out_of_range:
      fail(where, token, "feature value out of range");
    case NumberError::not_a_number:
      fail(where, token, "feature value is not a number");
    case NumberError::not_finite:
      fail(where, token, "feature value is not a finite number");
  }
  fail(where, token, "feature value is not a number");
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

// A text feature file record: the node token, and the value tokens after the skipped fields with
// the 0-based field each came from.
struct FeatureRecord {
  std::string_view node;
  std::vector<std::string_view> values;
  std::vector<std::size_t> fields;
};

FeatureRecord split_feature_record(const Record& record, std::size_t skip_fields, const Where& where) {
  if (record.fields.size() < 1 + skip_fields) {
    fail(where, record.fields.front(),
         "expected the node and " + std::to_string(skip_fields) + " more fields before the values, found " +
             std::to_string(record.fields.size()) + " fields");
  }
  FeatureRecord split{record.fields.front(), {}, {}};
  for (std::size_t f = 1 + skip_fields; f < record.fields.size(); ++f) {
    for (std::string_view token : split_at_blanks(record.fields[f])) {
      split.values.push_back(token);
      split.fields.push_back(f);
    }
  }
  return split;
}

// Whether the first record of a feature file is a header. String ids cannot tell one by its node
// field, so Header::detect then looks at the value fields: a header names them ("id,f0,f1"), where
// values start as numbers do.
bool is_feature_header(const Record& first, const FeatureOptions& options) {
  if (options.ids != NodeIds::string || options.header != Header::detect)
    return is_header(first, options.header, options.ids, {0});
  const auto not_a_number = [](std::string_view field) {
    return !field.empty() && std::string_view("0123456789+-.").find(field.front()) == std::string_view::npos;
  };
  const std::size_t values_from = std::min(first.fields.size(), 1 + options.skip_fields);
  return std::any_of(first.fields.begin() + static_cast<std::ptrdiff_t>(values_from), first.fields.end(), not_a_number);
}

// Calls visit(where, node id, record) for every record of a text feature file.
template <typename Visit>
void for_each_feature_record(std::string_view text, const std::string& source, NodeIndex& nodes,
                             const FeatureOptions& options, Visit&& visit) {
  const NodeResolver resolve(nodes, options.ids, options.unknown_nodes);
  ListedNodes listed;
  RecordReader reader(text, options.delimiter, source);
  Record record;
  bool first = true;
  while (reader.next(record)) {
    if (std::exchange(first, false) && is_feature_header(record, options)) continue;
    const Where where{source, record.line};
    const FeatureRecord split = split_feature_record(record, options.skip_fields, where);
    const Index node = resolve(split.node, where.at(0));
    listed.mark(node, split.node, where.at(0));
    visit(where, node, split);
  }
}

NodeFeatures parse_sparse_features(std::string_view text, const std::string& source, NodeIndex& nodes,
                                   const FeatureOptions& options) {
  std::vector<SparseEntry> entries;
  for_each_feature_record(text, source, nodes, options,
                          [&](const Where& where, Index node, const FeatureRecord& record) {
                            for (std::size_t v = 0; v < record.values.size(); ++v)
                              entries.push_back(parse_sparse_entry(node, record.values[v], options.dim,
                                                                   where.at(record.fields[v])));
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
        for (std::size_t v = 0; v < record.values.size(); ++v)
          values.push_back(parse_value(record.values[v], where.at(record.fields[v])));
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


}  // namespace

std::string feature_format_name(FeatureFormat format) { return name_of(kFeatureFormatNames, format); }

FeatureFormat feature_format_from_name(std::string_view name) {
  return value_named(kFeatureFormatNames, name, "feature format");
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
  return parse_node_features(read_file(path.string()), path.string(), nodes, options);
}

NodeFeatures structural_features(const Graph& graph, const StructuralFeatureOptions& options) {
  if (options.max_degree < 0 || options.walk_steps < 0 || options.sampled_walks < automatic_walks)
    throw ArgumentError("structural_features: max_degree (" + std::to_string(options.max_degree) + "), walk_steps (" +
                        std::to_string(options.walk_steps) + ") and sampled_walks (" +
                        std::to_string(options.sampled_walks) + ") must be non-negative");
  if (options.sampled_walks > max_sampled_walks)
    throw ArgumentError("structural_features: " + std::to_string(options.sampled_walks) +
                        " sampled walks a node, above the limit of " + std::to_string(max_sampled_walks));
  const Index degree_columns = options.max_degree + 1;
  const Index walks = sampled_walks(graph, options);
  NodeFeatures features{Matrix<float>::Zero(graph.num_nodes(), degree_columns + options.walk_steps),
                        {.format = FeatureFormat::structural,
                         .dim = degree_columns + options.walk_steps,
                         .max_degree = options.max_degree,
                         .walk_steps = options.walk_steps,
                         .sampled_walks = walks}};
  for (Index i = 0; i < graph.num_nodes(); ++i)
    features.values(i, std::min(degree_without_self_loops(graph, i), options.max_degree)) = 1.0f;
  features.values.rightCols(options.walk_steps) =
      walks == 0 ? random_walk_encoding<float>(graph, options.walk_steps)
                 : sampled_random_walk_encoding<float>(graph, options.walk_steps, walks, structural_walk_seed);
  return features;
}

}  // namespace edgewise

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include "edgewise/core/files.hpp"
#include "edgewise/io/node_labels.hpp"
#include "records.hpp"

namespace edgewise {
namespace {

using namespace detail;

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
    std::unordered_map<std::string, std::size_t> first_line;
    for (Index node : order_) {
      const LabelRecord& record = by_node_.at(node);
      if (seen.insert(record.label).second) {
        labels.class_names.push_back(record.label);
        first_line.emplace(record.label, record.line);
      }
    }
    order_classes(labels.class_names);
    for (const std::string& name : labels.class_names) labels.class_lines.push_back(first_line.at(name));
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

}  // namespace

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

// String ids cannot tell a header by its node field. Header::detect takes the first record for one
// ("id,target") when the index lacks its node and no other record repeats its node or its label.
bool is_guessed_header(std::string_view text, const std::string& source, const NodeIndex& nodes,
                       const LabelOptions& options) {
  const auto* node_index = std::get_if<Index>(&options.node_column);
  const auto* label_index = std::get_if<Index>(&options.label_column);
  if (options.ids != NodeIds::string || options.header != Header::detect || !node_index || !label_index) return false;
  const auto node_column = static_cast<std::size_t>(*node_index), label_column = static_cast<std::size_t>(*label_index);
  RecordReader reader(text, options.delimiter, source);
  Record record;
  if (!reader.next(record) || record.fields.size() <= std::max(node_column, label_column)) return false;
  const std::string node(record.fields[node_column]), label(record.fields[label_column]);
  if (nodes.find(node)) return false;
  while (reader.next(record)) {
    const auto field = [&](std::size_t column) { return column < record.fields.size() ? record.fields[column] : ""; };
    if (field(node_column) == node || field(label_column) == label) return false;
  }
  return true;
}

}  // namespace

NodeLabels parse_node_labels(std::string_view text, std::string source, NodeIndex& nodes, const LabelOptions& options) {
  const NodeResolver resolve(nodes, options.ids, options.unknown_nodes);
  const bool named = std::holds_alternative<std::string>(options.node_column) ||
                     std::holds_alternative<std::string>(options.label_column);
  const bool guessed = is_guessed_header(text, source, nodes, options);
  const Header header_rule = (named || guessed) && options.header == Header::detect ? Header::present : options.header;
  std::vector<std::string> header;
  std::size_t node_column = 0, label_column = 0, needed = 0;
  LabelCollector collector;
  RecordReader reader(text, options.delimiter, source);
  Record record;
  bool first = true;
  while (reader.next(record)) {
    const Where where{source, record.line};
    if (std::exchange(first, false)) {
      const auto* node_index = std::get_if<Index>(&options.node_column);
      const std::size_t detect_column = node_index && *node_index > 0 ? static_cast<std::size_t>(*node_index) : 0;
      const bool has_header = is_header(record, header_rule, options.ids, {detect_column});
      node_column = label_file_column(options.node_column, record, has_header, where);
      label_column = label_file_column(options.label_column, record, has_header, where);
      needed = std::max(node_column, label_column) + 1;
      if (has_header) {
        header.assign(record.fields.begin(), record.fields.end());
        continue;
      }
    }
    if (record.fields.size() < needed) {
      fail(where, record.fields.back(),
           "expected at least " + std::to_string(needed) + " fields, found " + std::to_string(record.fields.size()));
    }
    const Index node = resolve(record.fields[node_column], where.at(node_column));
    const std::string_view label = record.fields[label_column];
    if (!label.empty()) collector.add(node, label, where.at(label_column));
  }
  NodeLabels labels = collector.labels(nodes.size());
  labels.header = std::move(header);
  return labels;
}

NodeLabels read_node_labels(const std::filesystem::path& path, NodeIndex& nodes, const LabelOptions& options) {
  return parse_node_labels(read_file(path.string()), path.string(), nodes, options);
}

}  // namespace edgewise

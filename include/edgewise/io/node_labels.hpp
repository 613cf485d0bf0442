/// \file
/// Node labels: a text file of `node label` records, read into classes by a NodeIndex
/// (node_index.hpp has the rules of the text).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "edgewise/core/tensor.hpp"
#include "edgewise/io/node_index.hpp"

namespace edgewise {

/// A column of a labels file: its 0-based index, or the name the file's header gives it.
using FileColumn = std::variant<Index, std::string>;

/// How read_node_labels reads a file.
struct LabelOptions {
  NodeIds ids = NodeIds::integer;  ///< How nodes are named.
  Header header = Header::detect;  ///< Whether the first record is a header; a column named here implies one.
  std::optional<char> delimiter = std::nullopt;  ///< As in EdgeListOptions.
  FileColumn node_column = Index{0};   ///< MUSAE's ENGB_target.csv: 5, or "new_id"
  FileColumn label_column = Index{1};  ///< MUSAE's ENGB_target.csv: 2, or "mature"
  UnknownNodes unknown_nodes = UnknownNodes::error;  ///< Nodes the index does not have yet.
};

/// Labels as classes 0 .. num_classes() - 1. Class order is stable: numeric when every label is an
/// integer (labels 3, 10, 7 give classes 0, 1, 2 for 3, 7, 10), else by first appearance.
struct NodeLabels {
  std::vector<Index> classes;            ///< [N]: the class of each node, -1 where unlabeled
  std::vector<std::string> class_names;  ///< [num_classes]: each class's label (integers by value)
  std::vector<std::size_t> class_lines = {};  ///< [num_classes]: each label's first line; empty if not read
  std::vector<std::string> header = {};  ///< The fields of the file's header; empty when it had none

  /// The number of distinct labels.
  Index num_classes() const { return static_cast<Index>(class_names.size()); }
  /// The number of nodes with a label.
  Index num_labeled() const;
  /// Covers nodes added to the index after the labels were read: they are unlabeled.
  void extend_to(Index num_nodes);
};

/// Reads `node label` records; nodes without a record, or with an empty label field ("5," in a CSV),
/// are unlabeled. The same label twice for a node is accepted. Throws ParseError for a record
/// without the two columns, a node the index does not have (unless options.unknown_nodes is add), a
/// node given two different labels, and the id errors of read_edge_list.
NodeLabels read_node_labels(const std::filesystem::path& path, NodeIndex& nodes, const LabelOptions& options = {});
/// read_node_labels on text held in memory; `source` names it in messages.
NodeLabels parse_node_labels(std::string_view text, std::string source, NodeIndex& nodes,
                             const LabelOptions& options = {});

}  // namespace edgewise

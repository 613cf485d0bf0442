/// \file
/// Node features: read from a text file (dense, sparse or MUSAE's JSON) by a NodeIndex
/// (node_index.hpp has the rules of the text), or computed from the graph's structure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"
#include "edgewise/io/node_index.hpp"

namespace edgewise {

/// How node features are stored.
enum class FeatureFormat {
  dense,       ///< node, then dim values
  sparse,      ///< node, then feature indices (value 1) or index:value pairs; absent indices are 0
  musae_json,  ///< {"node": [feature index, ...], ...}: binary features
  structural,  ///< computed from the graph by structural_features, not read
};

/// The names model files use.
inline constexpr std::pair<FeatureFormat, std::string_view> kFeatureFormatNames[] = {
    {FeatureFormat::dense, "dense"},
    {FeatureFormat::sparse, "sparse"},
    {FeatureFormat::musae_json, "musae_json"},
    {FeatureFormat::structural, "structural"},
};

/// The name used in docs and model files ("dense", "sparse", "musae_json", "structural"), and back;
/// feature_format_from_name throws ArgumentError for an unknown name.
/// @{
std::string feature_format_name(FeatureFormat format);
FeatureFormat feature_format_from_name(std::string_view name);
/// @}

/// What a model needs to know to featurize nodes the same way again.
struct FeatureSpec {
  FeatureFormat format = FeatureFormat::sparse;  ///< How the features were read or computed.
  Index dim = 0;  ///< The number of feature columns.
  Index max_degree = 0;  ///< structural only
  Index walk_steps = 0;  ///< structural only
  /// structural only: the walks a node that estimated the random-walk columns; 0, computed exactly.
  /// automatic_walks before the features are made.
  Index sampled_walks = 0;
};

/// How read_node_features reads a file.
struct FeatureOptions {
  FeatureFormat format = FeatureFormat::sparse;  ///< dense, sparse or musae_json.
  Index dim = 0;  ///< 0: inferred (dense: the values on the first record; else the largest index + 1)
  NodeIds ids = NodeIds::integer;  ///< How nodes are named.
  /// Text formats only. Fields after the node are split further at spaces and tabs, so that
  /// "node<TAB>3 17 42" holds three indices whatever the delimiter.
  Header header = Header::detect;
  std::optional<char> delimiter = std::nullopt;  ///< As in EdgeListOptions.
  std::size_t skip_fields = 0;  ///< fields between the node and its values (Cora's nodes.tsv: 1, its label)
  UnknownNodes unknown_nodes = UnknownNodes::error;  ///< Nodes the index does not have yet.
  /// The most values the dense [nodes, dim] feature matrix may hold: 2^30, 4 GiB of floats. Guards
  /// against a stray huge index in a sparse file asking for more memory than the machine has.
  Index max_values = Index{1} << 30;
};

/// Node features with the settings that produced them.
struct NodeFeatures {
  Matrix<float> values;  ///< [N, spec.dim]; zero rows for nodes the file does not list
  FeatureSpec spec;  ///< How to produce the same features again.

  /// Covers nodes added to the index after the features were read, with zero rows.
  void extend_to(Index num_nodes);
};

/// Reads node features in options.format (dense, sparse or musae_json). A repeated sparse index sets
/// the same entry again (MUSAE lists repeat some). Throws ParseError for a node the index does not
/// have (unless options.unknown_nodes is add), a node listed twice, a value that is not a finite
/// number, an index that is not a non-negative integer or not below options.dim, a dense record with
/// another number of values, features that need more than options.max_values values, malformed
/// JSON, and the id errors of read_edge_list; ArgumentError for the structural format or a negative
/// dim.
NodeFeatures read_node_features(const std::filesystem::path& path, NodeIndex& nodes,
                                const FeatureOptions& options = {});
/// read_node_features on text held in memory; `source` names it in messages.
NodeFeatures parse_node_features(std::string_view text, std::string source, NodeIndex& nodes,
                                 const FeatureOptions& options = {});

/// StructuralFeatureOptions::sampled_walks: exact random-walk columns while random_walk_work stays
/// within exact_walks_max_work, else default_sampled_walks walks a node.
inline constexpr Index automatic_walks = -1;

/// The most exact random-walk work (random_walk_work's units) that automatic_walks takes on: three
/// times GitHub's (37,700 nodes, 615,706 edges with self-loops: 9.2e9, 12 to 17 s on 2 cores), so
/// under a minute. Above it the columns are sampled, in time linear in the nodes.
inline constexpr double exact_walks_max_work = 3e10;

/// The walks a node that automatic_walks samples: on the shared graphs without features, validation
/// accuracy could not tell 16, 64 or 256 walks from exact columns, so the cheapest (docs/defaults.md).
inline constexpr Index default_sampled_walks = 16;

/// The most walks a node structural_features takes, far past any gain in accuracy: a guard against
/// a mistyped count asking for more memory and time than the machine has.
inline constexpr Index max_sampled_walks = Index{1} << 20;

/// The seed of sampled random walks: the same graph always gets the same features.
inline constexpr std::uint64_t structural_walk_seed = 0;

/// The sizes of structural_features.
struct StructuralFeatureOptions {
  Index max_degree = 32;  ///< one-hot over degrees 0 .. max_degree; higher degrees share the last column
  Index walk_steps = 16;  ///< random-walk columns
  /// 0: the random-walk columns exactly (random_walk_encoding); above 0: estimated from that many
  /// walks a node (sampled_random_walk_encoding); automatic_walks: whichever the graph's size allows.
  Index sampled_walks = automatic_walks;
};

/// Features for a graph that has none, [N, max_degree + 1 + walk_steps]: the one-hot in-degree (edges
/// from other nodes; self-loops are not counted) followed by the random-walk return probabilities of
/// 1 .. walk_steps steps, which see the graph as given, self-loops included: exact, or estimated from
/// sampled walks (options.sampled_walks; the spec records which). Throws ArgumentError on negative
/// options other than automatic_walks, more than max_sampled_walks walks, and where exact columns
/// would take more than random_walk_max_work.
NodeFeatures structural_features(const Graph& graph, const StructuralFeatureOptions& options = {});

}  // namespace edgewise

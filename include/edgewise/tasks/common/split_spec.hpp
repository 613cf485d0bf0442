/// \file
/// The split specifications every front end takes (`--split`, `--split-sizes`, Python's `split=` and
/// `split_sizes=`), parsed once into a typed SplitSpec, and the node split each names. The molecule
/// split is make_molecule_split (tasks/molecule/molecule_training.hpp), which needs chem/.
///
///   SplitSpec spec = parse_molecule_split("scaffold", parse_split_fractions("0.8,0.1,0.1"));
///   Split split = make_molecule_split(spec, data, TaskType::regression, seed, std::cerr);
///   SplitSpec nodes = parse_node_split("per-class:20,500,1000");
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "edgewise/splits/splits.hpp"
#include "edgewise/models/molecule_predictor_training.hpp"

namespace edgewise {

/// What a split specification names.
enum class SplitKind {
  random,      ///< molecules or links: drawn at random, in the given fractions
  scaffold,    ///< molecules: Bemis-Murcko groups (class-balanced and seeded for classification)
  folder,      ///< a folder holding train.txt, val.txt and test.txt (links: and their negatives)
  per_class,   ///< nodes: K labelled nodes of each class to train on, then VAL and TEST more
  stratified,  ///< nodes: these fractions of each class's labelled nodes
};

/// Train, validation and test fractions, adding up to 1, and the text that gave them.
struct SplitFractions {
  double train = 0.8;  ///< fraction of the rows to train on
  double val = 0.1;    ///< fraction for validation (early stopping)
  double test = 0.1;   ///< fraction held out for the test metrics
  std::string text = "0.8,0.1,0.1";  ///< as given, for descriptions
};

/// A parsed split specification.
struct SplitSpec {
  SplitKind kind = SplitKind::random;  ///< what it names
  std::string text = "random";         ///< the specification as given
  std::string folder = {};             ///< SplitKind::folder: the folder
  SplitFractions fractions = {};       ///< random and scaffold (from the sizes), stratified
  PerClassSplitOptions per_class = {};  ///< SplitKind::per_class: the counts (its seed is not used)
};

/// "TRAIN,VAL,TEST" fractions. Throws ArgumentError naming `option` and the value unless there are
/// three numbers adding up to 1.
SplitFractions parse_split_fractions(std::string_view text, std::string_view option = "--split-sizes");

/// A molecule split: "random" or "scaffold" with `sizes`, or a folder of data-row files. Throws
/// ArgumentError naming `option` and the value for anything else.
SplitSpec parse_molecule_split(std::string_view text, const SplitFractions& sizes = {},
                               std::string_view option = "--split");

/// A node split: "per-class:K[,VAL,TEST]", "stratified:TRAIN,VAL,TEST" or a folder of node-id files.
/// Throws ArgumentError naming `option` and the value for anything else.
SplitSpec parse_node_split(std::string_view text, std::string_view option = "--split");

/// A link split: "random" with `sizes`, or a folder of pair files (read_link_split). Throws
/// ArgumentError naming `option` and the value for anything else.
SplitSpec parse_link_split(std::string_view text, const SplitFractions& sizes, std::string_view option = "--split");

/// How a model file's training summary names the link split: "random 0.85,0.05,0.1", or the folder
/// as given.
std::string describe_link_split(const SplitSpec& spec);

/// How a model file's training summary names the molecule split: "random 0.8,0.1,0.1",
/// "scaffold (class-balanced, seed 3) 0.8,0.1,0.1", or the folder as given.
std::string describe_molecule_split(const SplitSpec& spec, TaskType type, std::uint64_t seed);

/// The split `spec` names of the nodes with `labels` (-1: unlabelled), seeded by `seed`; a folder's
/// files name nodes as `lookup` finds them.
Split make_node_split(const SplitSpec& spec, std::span<const Index> labels, const NodeLookup& lookup,
                      std::uint64_t seed);

}  // namespace edgewise

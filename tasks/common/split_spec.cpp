#include "edgewise/tasks/common/split_spec.hpp"

#include <cmath>
#include <filesystem>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/names.hpp"

namespace edgewise {
namespace {

// The numbers of a comma-separated list; `what` names it in errors.
std::vector<double> numbers(std::string_view text, const std::string& what) {
  std::vector<double> result;
  for (const std::string& item : split_list(text)) {
    std::size_t end = 0;
    double value = 0;
    try {
      value = std::stod(item, &end);
    } catch (const std::exception&) {
      end = 0;
    }
    if (end != item.size() || !std::isfinite(value)) throw ArgumentError(what + ": '" + item + "' is not a number");
    result.push_back(value);
  }
  return result;
}

bool add_up_to_one(const std::vector<double>& fractions) {
  return std::abs(fractions[0] + fractions[1] + fractions[2] - 1.0) <= 1e-6;
}

Index node_count(std::string_view option, double value) {
  if (value < 0 || value != std::floor(value))
    throw ArgumentError(std::string(option) + ": " + std::to_string(value) + " is not a node count");
  return static_cast<Index>(value);
}

SplitSpec folder_spec(std::string_view text) {
  return {.kind = SplitKind::folder, .text = std::string(text), .folder = std::string(text)};
}

}  // namespace

SplitFractions parse_split_fractions(std::string_view text, std::string_view option) {
  const std::string name(option);
  if (split_list(text).size() != 3)
    throw ArgumentError(name + ": expected three fractions such as 0.8,0.1,0.1, got '" + std::string(text) + "'");
  const std::vector<double> fractions = numbers(text, name);
  if (!add_up_to_one(fractions))
    throw ArgumentError(name + ": the fractions must add up to 1, got '" + std::string(text) + "'");
  return {.train = fractions[0], .val = fractions[1], .test = fractions[2], .text = std::string(text)};
}

SplitSpec parse_molecule_split(std::string_view text, const SplitFractions& sizes, std::string_view option) {
  if (text == "random" || text == "scaffold")
    return {.kind = text == "random" ? SplitKind::random : SplitKind::scaffold,
            .text = std::string(text),
            .fractions = sizes};
  if (!std::filesystem::is_directory(std::string(text)))
    throw ArgumentError(std::string(option) + ": '" + std::string(text) +
                        "' is neither random, scaffold nor a folder with train.txt, val.txt, test.txt");
  return folder_spec(text);
}

SplitSpec parse_node_split(std::string_view text, std::string_view option) {
  constexpr std::string_view per_class = "per-class:", stratified = "stratified:";
  const std::string name(option);
  if (text.starts_with(per_class)) {
    const std::vector<double> counts = numbers(text.substr(per_class.size()), name + " per-class");
    if (counts.size() != 1 && counts.size() != 3)
      throw ArgumentError(name + ": expected per-class:K or per-class:K,VAL,TEST, got '" + std::string(text) + "'");
    SplitSpec spec{.kind = SplitKind::per_class, .text = std::string(text)};
    spec.per_class.train_per_class = node_count(option, counts[0]);
    if (counts.size() == 3) {
      spec.per_class.val = node_count(option, counts[1]);
      spec.per_class.test = node_count(option, counts[2]);
    }
    return spec;
  }
  if (text.starts_with(stratified)) {
    const std::vector<double> fractions = numbers(text.substr(stratified.size()), name + " stratified");
    if (fractions.size() != 3 || !add_up_to_one(fractions))
      throw ArgumentError(name + ": expected stratified:TRAIN,VAL,TEST with fractions adding up to 1, got '" +
                          std::string(text) + "'");
    return {.kind = SplitKind::stratified,
            .text = std::string(text),
            .fractions = {.train = fractions[0],
                          .val = fractions[1],
                          .test = fractions[2],
                          .text = std::string(text.substr(stratified.size()))}};
  }
  if (!std::filesystem::is_directory(std::string(text)))
    throw ArgumentError(name + ": '" + std::string(text) + "' is not per-class:K, stratified:TRAIN,VAL,TEST or a folder");
  return folder_spec(text);
}

SplitSpec parse_link_split(std::string_view text, const SplitFractions& sizes, std::string_view option) {
  if (text == "random") return {.kind = SplitKind::random, .text = "random", .fractions = sizes};
  if (!std::filesystem::is_directory(std::string(text)))
    throw ArgumentError(std::string(option) + ": '" + std::string(text) +
                        "' is neither random nor a folder with train.txt, val.txt, test.txt of node pairs");
  return folder_spec(text);
}

std::string describe_link_split(const SplitSpec& spec) {
  return spec.kind == SplitKind::random ? "random " + spec.fractions.text : spec.text;
}

std::string describe_molecule_split(const SplitSpec& spec, TaskType type, std::uint64_t seed) {
  switch (spec.kind) {
    case SplitKind::random:
      return "random " + spec.fractions.text;
    case SplitKind::scaffold:
      return (type == TaskType::classification ? "scaffold (class-balanced, seed " + std::to_string(seed) + ")"
                                               : std::string("scaffold")) +
             " " + spec.fractions.text;
    default:
      return spec.text;
  }
}

Split make_node_split(const SplitSpec& spec, std::span<const Index> labels, const NodeLookup& lookup,
                      std::uint64_t seed) {
  switch (spec.kind) {
    case SplitKind::per_class: {
      PerClassSplitOptions options = spec.per_class;
      options.seed = seed;
      return per_class_split(labels, options);
    }
    case SplitKind::stratified:
      return stratified_split(labels, spec.fractions.train, spec.fractions.val, seed);
    case SplitKind::folder:
      return read_node_split(spec.folder, static_cast<Index>(labels.size()), lookup);
    default:
      throw ArgumentError("split '" + spec.text + "' applies to molecules, not to node classification");
  }
}

}  // namespace edgewise

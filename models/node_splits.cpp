#include "edgewise/models/node_splits.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "edgewise/core/random.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;

constexpr std::array<const char*, 3> kSplitFiles = {"train.txt", "val.txt", "test.txt"};

// The labeled nodes of each class 0 .. max label, in ascending order.
std::vector<std::vector<Index>> nodes_by_class(std::span<const Index> labels) {
  std::vector<std::vector<Index>> classes;
  for (std::size_t node = 0; node < labels.size(); ++node) {
    const Index label = labels[node];
    if (label < 0) continue;
    if (static_cast<std::size_t>(label) >= classes.size()) classes.resize(static_cast<std::size_t>(label) + 1);
    classes[static_cast<std::size_t>(label)].push_back(static_cast<Index>(node));
  }
  return classes;
}

void shuffle(std::vector<Index>& nodes, SplitMix64& rng) {
  for (std::size_t i = nodes.size(); i > 1; --i) std::swap(nodes[i - 1], nodes[rng.below(i)]);
}

// Appends nodes[begin, end) to part.
void take(std::vector<Index>& part, const std::vector<Index>& nodes, std::size_t begin, std::size_t end) {
  part.insert(part.end(), nodes.begin() + static_cast<std::ptrdiff_t>(begin),
              nodes.begin() + static_cast<std::ptrdiff_t>(end));
}

NodeSplit sorted(NodeSplit split) {
  for (auto* part : {&split.train, &split.val, &split.test}) std::sort(part->begin(), part->end());
  return split;
}

// floor(n * fraction), where a product just below an integer (0.7 * 10 = 6.9999999999999991) counts
// as that integer.
std::size_t part_size(std::size_t n, double fraction) {
  return static_cast<std::size_t>(std::floor(static_cast<double>(n) * fraction + 1e-6));
}

void check_fractions(double train_fraction, double val_fraction) {
  const auto in_unit_interval = [](double f) { return f >= 0.0 && f <= 1.0; };  // false for NaN
  // The tolerance admits decimal fractions meant to sum to 1 whose binary sum rounds just above it.
  if (in_unit_interval(train_fraction) && in_unit_interval(val_fraction) && train_fraction + val_fraction <= 1.0 + 1e-9)
    return;
  throw ArgumentError("split fractions must lie in [0, 1] and sum to at most 1; got train " +
                      std::to_string(train_fraction) + " and validation " + std::to_string(val_fraction));
}

std::string_view trimmed(std::string_view text) {
  constexpr std::string_view blanks = " \t\r\n\v\f";
  const auto begin = text.find_first_not_of(blanks);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(blanks) - begin + 1);
}

// The node index of a line's text, or -1 when it is not a non-negative integer.
Index parse_index(std::string_view text) {
  Index value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < 0) return -1;
  return value;
}

// Where each node was first listed while reading a split, to report duplicates.
struct FirstListing {
  std::vector<int> file;  // index into kSplitFiles, -1 when not yet listed
  std::vector<std::size_t> line;
};

std::vector<Index> read_part(const fs::path& path, int file_index, Index num_nodes, const NodeLookup& lookup,
                             FirstListing& listed) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read split file " + path.string());
  std::vector<Index> nodes;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const std::string_view text = trimmed(line);
    if (text.empty()) continue;
    const Index node = lookup ? lookup(text) : parse_index(text);
    if (node < 0)
      throw ParseError(path.string(), number, std::string(text), lookup ? "unknown node" : "not a node index");
    if (node >= num_nodes)
      throw ParseError(path.string(), number, std::string(text),
                       "node index " + std::to_string(node) + " is not below the node count " +
                           std::to_string(num_nodes));
    const auto slot = static_cast<std::size_t>(node);
    if (listed.file[slot] >= 0) {
      const std::string first = kSplitFiles[static_cast<std::size_t>(listed.file[slot])];
      throw ParseError(path.string(), number, std::string(text),
                       "node listed twice (first in " + first + " line " + std::to_string(listed.line[slot]) + ")");
    }
    listed.file[slot] = file_index;
    listed.line[slot] = number;
    nodes.push_back(node);
  }
  if (in.bad()) throw Error("error while reading split file " + path.string());
  return nodes;
}

void write_part(const fs::path& path, const std::vector<Index>& nodes, const NodeNamer& name) {
  std::string text;
  for (const Index node : nodes) text += (name ? name(node) : std::to_string(node)) + '\n';
  write_file_atomically(path.string(), text);
}

}  // namespace

NodeSplit per_class_split(std::span<const Index> labels, const PerClassSplitOptions& options) {
  if (options.train_per_class < 0 || options.val < 0 || options.test < 0)
    throw ArgumentError("per-class split: the part sizes must not be negative");
  const auto per_class = static_cast<std::size_t>(options.train_per_class);
  SplitMix64 rng(options.seed);
  NodeSplit split;
  std::vector<Index> rest;
  auto classes = nodes_by_class(labels);
  for (std::size_t c = 0; c < classes.size(); ++c) {
    auto& nodes = classes[c];
    if (nodes.size() < per_class)
      throw ArgumentError("per-class split: class " + std::to_string(c) + " has " + std::to_string(nodes.size()) +
                          " labeled nodes, fewer than the " + std::to_string(per_class) + " training nodes asked for");
    shuffle(nodes, rng);
    take(split.train, nodes, 0, per_class);
    take(rest, nodes, per_class, nodes.size());
  }
  const auto val = static_cast<std::size_t>(options.val), test = static_cast<std::size_t>(options.test);
  if (rest.size() < val + test)
    throw ArgumentError("per-class split: " + std::to_string(rest.size()) +
                        " labeled nodes remain after the training nodes, fewer than the " + std::to_string(val) +
                        " validation and " + std::to_string(test) + " test nodes asked for");
  shuffle(rest, rng);
  take(split.val, rest, 0, val);
  take(split.test, rest, val, val + test);
  return sorted(std::move(split));
}

NodeSplit stratified_split(std::span<const Index> labels, double train_fraction, double val_fraction,
                           std::uint64_t seed) {
  check_fractions(train_fraction, val_fraction);
  SplitMix64 rng(seed);
  NodeSplit split;
  for (auto& nodes : nodes_by_class(labels)) {
    shuffle(nodes, rng);
    const std::size_t train_end = part_size(nodes.size(), train_fraction);
    const std::size_t val_end = train_end + part_size(nodes.size(), val_fraction);
    take(split.train, nodes, 0, train_end);
    take(split.val, nodes, train_end, val_end);
    take(split.test, nodes, val_end, nodes.size());
  }
  return sorted(std::move(split));
}

NodeSplit read_node_split(const std::string& dir, Index num_nodes, const NodeLookup& lookup) {
  if (num_nodes < 0) throw ArgumentError("read_node_split: the node count must not be negative");
  const auto n = static_cast<std::size_t>(num_nodes);
  FirstListing listed{std::vector<int>(n, -1), std::vector<std::size_t>(n, 0)};
  NodeSplit split;
  std::vector<Index>* parts[] = {&split.train, &split.val, &split.test};
  for (int f = 0; f < 3; ++f)
    *parts[f] = read_part(fs::path(dir) / kSplitFiles[static_cast<std::size_t>(f)], f, num_nodes, lookup, listed);
  return split;
}

void write_node_split(const std::string& dir, const NodeSplit& split, bool overwrite, const NodeNamer& name) {
  const fs::path folder(dir);
  if (!overwrite)
    for (const char* file : kSplitFiles)
      if (fs::exists(folder / file))
        throw Error("split file " + (folder / file).string() + " exists; pass overwrite to replace it");
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) throw Error("cannot create split folder " + dir + ": " + error.message());
  const std::vector<Index>* parts[] = {&split.train, &split.val, &split.test};
  for (std::size_t f = 0; f < kSplitFiles.size(); ++f) write_part(folder / kSplitFiles[f], *parts[f], name);
}

}  // namespace edgewise

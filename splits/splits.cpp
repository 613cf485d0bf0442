#include "edgewise/splits/splits.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <optional>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "edgewise/core/names.hpp"
#include "edgewise/core/random.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;

constexpr std::array<const char*, 3> kSplitFiles = {"train.txt", "val.txt", "test.txt"};

void check_count(Index n, std::string_view noun) {
  if (n < 0)
    throw ArgumentError("a split needs a " + std::string(noun) + " count of at least 0; got " + std::to_string(n));
}

// floor(n * fraction), where a product just below an integer (0.57 * 100 = 56.99999999999999) counts
// as that integer.
Index part_size(Index n, double fraction) {
  return static_cast<Index>(std::floor(static_cast<double>(n) * fraction + 1e-6));
}

// Cuts items into train, val and the rest, keeping their order.
Split cut(const std::vector<Index>& items, Index train_size, Index val_size) {
  const auto train_end = items.begin() + train_size;
  const auto val_end = train_end + val_size;
  return {{items.begin(), train_end}, {train_end, val_end}, {val_end, items.end()}};
}

template <typename Item>
void shuffle(std::vector<Item>& items, SplitMix64& rng) {
  for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng.below(i)]);
}

std::vector<Index> shuffled_rows(Index n, std::uint64_t seed) {
  std::vector<Index> rows(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<Index>(i);
  SplitMix64 rng(seed);
  shuffle(rows, rng);
  return rows;
}

// Row indices grouped by key, groups in the order their first row appears.
std::vector<std::vector<Index>> groups_by_key(const std::vector<std::string>& keys) {
  std::unordered_map<std::string_view, std::size_t> group_of_key;
  std::vector<std::vector<Index>> groups;
  for (std::size_t row = 0; row < keys.size(); ++row) {
    const auto [entry, added] = group_of_key.try_emplace(keys[row], groups.size());
    if (added) groups.emplace_back();
    groups[entry->second].push_back(static_cast<Index>(row));
  }
  return groups;
}

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

// Appends items[begin, end) to part.
void take(std::vector<Index>& part, const std::vector<Index>& items, Index begin, Index end) {
  part.insert(part.end(), items.begin() + begin, items.begin() + end);
}

Split sorted(Split split) {
  for (auto* part : {&split.train, &split.val, &split.test}) std::sort(part->begin(), part->end());
  return split;
}

// What a split file lists, for reading its lines and naming them in errors.
struct SplitItems {
  std::string_view noun;   // "row" or "node"
  std::string_view whole;  // what holds them: "dataset" or "graph"
  Index count;
  const NodeLookup* lookup;  // null: each line is an index
};

// Where each item was first listed, to name both places when an item is listed twice.
struct Listing {
  std::string file;
  std::size_t line = 0;
};

class SplitFileReader {
 public:
  explicit SplitFileReader(const SplitItems& items) : items_(items), listed_(static_cast<std::size_t>(items.count)) {}

  std::vector<Index> read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open for reading: " + std::generic_category().message(errno));
    std::vector<Index> found;
    std::string text;
    for (std::size_t line = 1; std::getline(in, text); ++line) {
      const std::string_view entry = trimmed(text);
      if (!entry.empty()) found.push_back(claim(entry, path, line));
    }
    if (in.bad()) throw Error(path + ": read error");
    return found;
  }

 private:
  Index claim(std::string_view entry, const std::string& path, std::size_t line) {
    const Index item = parse(entry, path, line);
    std::optional<Listing>& listing = listed_[static_cast<std::size_t>(item)];
    if (listing) {
      throw ParseError(path, line, std::string(entry),
                       std::string(items_.noun) + " " + std::to_string(item) + " is already listed at " +
                           listing->file + ":" + std::to_string(listing->line));
    }
    listing = Listing{path, line};
    return item;
  }

  Index parse(std::string_view entry, const std::string& path, std::size_t line) const {
    const std::string noun(items_.noun);
    Index item = -1;
    if (items_.lookup) {
      item = (*items_.lookup)(entry);
      if (item < 0) throw ParseError(path, line, std::string(entry), "unknown " + noun);
    } else {
      const auto [end, error] = std::from_chars(entry.data(), entry.data() + entry.size(), item);
      if (error != std::errc() || end != entry.data() + entry.size())
        throw ParseError(path, line, std::string(entry), "not a " + noun + " index (a non-negative integer)");
      if (item < 0) throw ParseError(path, line, std::string(entry), noun + " index is negative");
    }
    if (item >= items_.count) {
      throw ParseError(path, line, std::string(entry),
                       noun + " index is out of range; the " + std::string(items_.whole) + " has " +
                           std::to_string(items_.count) + " " + noun + "s");
    }
    return item;
  }

  SplitItems items_;
  std::vector<std::optional<Listing>> listed_;
};

Split read_split_files(const std::string& dir, const SplitItems& items) {
  check_count(items.count, items.noun);
  SplitFileReader reader(items);
  const auto path = [&](std::size_t part) { return (fs::path(dir) / kSplitFiles[part]).string(); };
  Split split;
  split.train = reader.read(path(0));
  split.val = reader.read(path(1));
  split.test = reader.read(path(2));
  return split;
}

std::string split_file_text(const std::vector<Index>& items, const NodeNamer& name) {
  std::string text;
  for (const Index item : items) text += (name ? name(item) : std::to_string(item)) + '\n';
  return text;
}

std::optional<std::string> existing_contents(const fs::path& path) {
  if (!fs::exists(path)) return std::nullopt;
  return read_file(path.string());
}

void refuse_to_replace_other_contents(const fs::path& path, const std::string& text) {
  const std::optional<std::string> existing = existing_contents(path);
  if (existing && *existing != text) {
    throw Error(path.string() + ": already exists with other contents; pass overwrite to replace it");
  }
}

void write_split_files(const std::string& dir, const Split& split, bool overwrite, const NodeNamer& name) {
  const std::array<std::string, 3> texts = {split_file_text(split.train, name), split_file_text(split.val, name),
                                            split_file_text(split.test, name)};
  const auto path = [&](std::size_t part) { return fs::path(dir) / kSplitFiles[part]; };
  if (!overwrite) {
    for (std::size_t part = 0; part < texts.size(); ++part) refuse_to_replace_other_contents(path(part), texts[part]);
  }
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw Error(dir + ": cannot create the split folder: " + error.message());
  for (std::size_t part = 0; part < texts.size(); ++part) write_file_atomically(path(part).string(), texts[part]);
}

}  // namespace

void check_split_fractions(double train_fraction, double val_fraction) {
  const auto in_unit_interval = [](double f) { return f >= 0.0 && f <= 1.0; };  // false for NaN
  // The tolerance admits decimal fractions meant to sum to 1 whose binary sum rounds just above it.
  if (in_unit_interval(train_fraction) && in_unit_interval(val_fraction) && train_fraction + val_fraction <= 1.0 + 1e-9)
    return;
  throw ArgumentError("split fractions must lie in [0, 1] and sum to at most 1; got train " +
                      std::to_string(train_fraction) + " and validation " + std::to_string(val_fraction));
}


std::string part_sizes(const Split& split) {
  return std::to_string(split.train.size()) + " / " + std::to_string(split.val.size()) + " / " +
         std::to_string(split.test.size()) + " (train / validation / test)";
}

Split random_split(Index n, double train_fraction, double val_fraction, std::uint64_t seed) {
  check_count(n, "row");
  check_split_fractions(train_fraction, val_fraction);
  const Index train_size = part_size(n, train_fraction);
  const Index train_val_size = std::min(n, part_size(n, train_fraction + val_fraction));
  return cut(shuffled_rows(n, seed), train_size, train_val_size - train_size);
}

std::vector<Split> cross_validation_folds(const std::vector<Index>& rows, Index folds, double val_fraction,
                                         std::uint64_t seed) {
  const Index n = static_cast<Index>(rows.size());
  if (folds < 2 || folds > n)
    throw ArgumentError("cross-validation needs 2 to " + std::to_string(n) + " folds for " + std::to_string(n) +
                        " rows, got " + std::to_string(folds));
  if (!(val_fraction >= 0.0 && val_fraction < 1.0))
    throw ArgumentError("the validation fraction of a fold must lie in [0, 1), got " + std::to_string(val_fraction));
  std::vector<Index> order = shuffled_rows(n, seed);
  for (Index& position : order) position = rows[static_cast<std::size_t>(position)];
  std::vector<Split> result;
  for (Index k = 0; k < folds; ++k) {
    const auto begin = order.begin() + k * n / folds, end = order.begin() + (k + 1) * n / folds;
    std::vector<Index> rest(order.begin(), begin);
    rest.insert(rest.end(), end, order.end());
    const Index rest_size = static_cast<Index>(rest.size());
    const std::uint64_t fold_seed = seed ^ (0x9E3779B97F4A7C15ULL * (static_cast<std::uint64_t>(k) + 1));
    const std::vector<Index> draw = shuffled_rows(rest_size, fold_seed);
    const Index val_size = part_size(rest_size, val_fraction);
    Split fold;
    fold.test.assign(begin, end);
    for (std::size_t i = 0; i < draw.size(); ++i)
      (static_cast<Index>(i) < val_size ? fold.val : fold.train).push_back(rest[static_cast<std::size_t>(draw[i])]);
    result.push_back(std::move(fold));
  }
  return result;
}

Split group_split(const std::vector<std::string>& keys, double train_fraction, double val_fraction) {
  check_split_fractions(train_fraction, val_fraction);
  std::vector<std::vector<Index>> groups = groups_by_key(keys);
  std::ranges::stable_sort(groups, std::greater{}, &std::vector<Index>::size);
  const Index n = static_cast<Index>(keys.size());
  const std::size_t train_size = static_cast<std::size_t>(part_size(n, train_fraction));
  const std::size_t val_size = static_cast<std::size_t>(part_size(n, val_fraction));
  Split split;
  for (const std::vector<Index>& group : groups) {
    std::vector<Index>& part = split.train.size() + group.size() <= train_size ? split.train
                               : split.val.size() + group.size() <= val_size   ? split.val
                                                                               : split.test;
    part.insert(part.end(), group.begin(), group.end());
  }
  return split;
}

namespace {

// The labels of a group, one count per (task, class): [2 * tasks], negatives then positives.
std::vector<double> class_counts(const std::vector<Index>& rows, const Matrix<float>& labels) {
  std::vector<double> counts(static_cast<std::size_t>(2 * labels.cols()), 0.0);
  for (const Index row : rows)
    for (Index task = 0; task < labels.cols(); ++task)
      if (const float y = labels(row, task); !std::isnan(y)) counts[static_cast<std::size_t>(2 * task + (y > 0.5f))] += 1;
  return counts;
}

// How many of a group's labels a part still lacks to reach its share of each class.
double labels_wanted(const std::vector<double>& group, const std::vector<double>& have,
                     const std::vector<double>& share) {
  double wanted = 0;
  for (std::size_t c = 0; c < group.size(); ++c) wanted += std::min(group[c], std::max(0.0, share[c] - have[c]));
  return wanted;
}

// Groups larger than half a validation or test part first, largest first; then the others in a
// seeded random order (Chemprop's balanced scaffold split).
std::vector<std::vector<Index>> balanced_group_order(const std::vector<std::vector<Index>>& groups,
                                                     std::size_t val_size, std::size_t test_size, std::uint64_t seed) {
  std::vector<std::vector<Index>> big, small;
  for (const std::vector<Index>& group : groups)
    (2 * group.size() > val_size || 2 * group.size() > test_size ? big : small).push_back(group);
  std::ranges::stable_sort(big, std::greater{}, &std::vector<Index>::size);
  SplitMix64 rng(seed);
  shuffle(small, rng);
  big.insert(big.end(), std::make_move_iterator(small.begin()), std::make_move_iterator(small.end()));
  return big;
}

}  // namespace

Split class_balanced_group_split(const std::vector<std::string>& keys, const Matrix<float>& labels,
                                 double train_fraction, double val_fraction, std::uint64_t seed) {
  check_split_fractions(train_fraction, val_fraction);
  if (labels.rows() != static_cast<Index>(keys.size()))
    throw ArgumentError("class-balanced group split: " + std::to_string(keys.size()) + " keys but " +
                        std::to_string(labels.rows()) + " label rows");
  const Index n = static_cast<Index>(keys.size());
  const std::array<std::size_t, 3> capacity = {
      static_cast<std::size_t>(part_size(n, train_fraction)), static_cast<std::size_t>(part_size(n, val_fraction)),
      static_cast<std::size_t>(n - part_size(n, train_fraction) - part_size(n, val_fraction))};
  std::vector<Index> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), Index{0});
  const std::vector<double> totals = class_counts(all, labels);
  std::array<std::vector<double>, 3> share, have;
  for (std::size_t p = 0; p < 3; ++p) {
    have[p].assign(totals.size(), 0.0);
    for (const double total : totals) share[p].push_back(n > 0 ? total * static_cast<double>(capacity[p]) / static_cast<double>(n) : 0.0);
  }
  Split split;
  std::array<std::vector<Index>*, 3> parts = {&split.train, &split.val, &split.test};
  for (const std::vector<Index>& group : balanced_group_order(groups_by_key(keys), capacity[1], capacity[2], seed)) {
    const std::vector<double> counts = class_counts(group, labels);
    std::optional<std::size_t> chosen;
    for (std::size_t p = 0; p < 3; ++p) {
      if (parts[p]->size() + group.size() > capacity[p]) continue;
      if (!chosen || labels_wanted(counts, have[p], share[p]) > labels_wanted(counts, have[*chosen], share[*chosen]))
        chosen = p;
    }
    const std::size_t part = chosen.value_or(2);  // fits nowhere: the test part takes it, as group_split does
    parts[part]->insert(parts[part]->end(), group.begin(), group.end());
    for (std::size_t c = 0; c < counts.size(); ++c) have[part][c] += counts[c];
  }
  return split;
}

Split per_class_split(std::span<const Index> labels, const PerClassSplitOptions& options) {
  if (options.train_per_class < 0 || options.val < 0 || options.test < 0)
    throw ArgumentError("per-class split: the part sizes must not be negative");
  const Index per_class = options.train_per_class;
  SplitMix64 rng(options.seed);
  Split split;
  std::vector<Index> rest;
  auto classes = nodes_by_class(labels);
  for (std::size_t c = 0; c < classes.size(); ++c) {
    auto& nodes = classes[c];
    const Index size = static_cast<Index>(nodes.size());
    if (size < per_class)
      throw ArgumentError("per-class split: class " + std::to_string(c) + " has " + std::to_string(size) +
                          " labeled nodes, fewer than the " + std::to_string(per_class) + " training nodes asked for");
    shuffle(nodes, rng);
    take(split.train, nodes, 0, per_class);
    take(rest, nodes, per_class, size);
  }
  const Index rest_size = static_cast<Index>(rest.size());
  if (rest_size < options.val + options.test)
    throw ArgumentError("per-class split: " + std::to_string(rest_size) +
                        " labeled nodes remain after the training nodes, fewer than the " +
                        std::to_string(options.val) + " validation and " + std::to_string(options.test) +
                        " test nodes asked for");
  shuffle(rest, rng);
  take(split.val, rest, 0, options.val);
  take(split.test, rest, options.val, options.val + options.test);
  return sorted(std::move(split));
}

Split stratified_split(std::span<const Index> labels, double train_fraction, double val_fraction, std::uint64_t seed) {
  check_split_fractions(train_fraction, val_fraction);
  SplitMix64 rng(seed);
  Split split;
  for (auto& nodes : nodes_by_class(labels)) {
    shuffle(nodes, rng);
    const Index size = static_cast<Index>(nodes.size());
    const Index train_end = part_size(size, train_fraction);
    const Index val_end = train_end + part_size(size, val_fraction);
    take(split.train, nodes, 0, train_end);
    take(split.val, nodes, train_end, val_end);
    take(split.test, nodes, val_end, size);
  }
  return sorted(std::move(split));
}

Split read_split_directory(const std::string& dir, Index n) {
  return read_split_files(dir, {.noun = "row", .whole = "dataset", .count = n, .lookup = nullptr});
}

void write_split_directory(const std::string& dir, const Split& split, bool overwrite) {
  write_split_files(dir, split, overwrite, {});
}

Split read_node_split(const std::string& dir, Index num_nodes, const NodeLookup& lookup) {
  return read_split_files(dir,
                          {.noun = "node", .whole = "graph", .count = num_nodes, .lookup = lookup ? &lookup : nullptr});
}

void write_node_split(const std::string& dir, const Split& split, bool overwrite, const NodeNamer& name) {
  write_split_files(dir, split, overwrite, name);
}

}  // namespace edgewise

#include "edgewise/io/splits.hpp"

#include <GraphMol/ChemTransforms/ChemTransforms.h>
#include <GraphMol/GraphMol.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "edgewise/core/random.hpp"
#include "edgewise/io/csv.hpp"
#include "edgewise/io/molecule.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;

constexpr std::array<const char*, 3> split_file_names = {"train.txt", "val.txt", "test.txt"};

void check_fractions(double train_fraction, double val_fraction) {
  const auto in_unit_interval = [](double f) { return f >= 0.0 && f <= 1.0; };  // false for NaN
  const bool valid =
      in_unit_interval(train_fraction) && in_unit_interval(val_fraction) && train_fraction + val_fraction <= 1.0;
  if (valid) return;
  throw ArgumentError("split fractions must lie in [0, 1] and sum to at most 1; got train " +
                      std::to_string(train_fraction) + " and validation " + std::to_string(val_fraction));
}

void check_row_count(Index n) {
  if (n < 0) throw ArgumentError("a split needs a row count of at least 0; got " + std::to_string(n));
}

// floor(n * fraction), where a product just below an integer (0.57 * 100 = 56.99999999999999) counts
// as that integer.
Index part_size(Index n, double fraction) {
  return static_cast<Index>(std::floor(static_cast<double>(n) * fraction + 1e-6));
}

// Cuts rows into train, val and the rest, keeping their order.
Split cut(const std::vector<Index>& rows, Index train_size, Index val_size) {
  const auto train_end = rows.begin() + train_size;
  const auto val_end = train_end + val_size;
  return {{rows.begin(), train_end}, {train_end, val_end}, {val_end, rows.end()}};
}

std::vector<Index> shuffled_rows(Index n, std::uint64_t seed) {
  std::vector<Index> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), Index{0});
  SplitMix64 rng(seed);
  for (std::size_t i = rows.size(); i > 1; --i) std::swap(rows[i - 1], rows[rng.below(i)]);
  return rows;
}

// Row indices grouped by scaffold, groups in the order their first molecule appears.
std::vector<std::vector<Index>> scaffold_groups(const std::vector<std::string>& smiles) {
  std::unordered_map<std::string, std::size_t> group_of_scaffold;
  std::vector<std::vector<Index>> groups;
  for (std::size_t row = 0; row < smiles.size(); ++row) {
    std::string scaffold;
    try {
      scaffold = murcko_scaffold(smiles[row]);
    } catch (const ArgumentError& e) {
      throw ArgumentError("row " + std::to_string(row) + ": " + e.what());
    }
    const auto [entry, added] = group_of_scaffold.try_emplace(std::move(scaffold), groups.size());
    if (added) groups.emplace_back();
    groups[entry->second].push_back(static_cast<Index>(row));
  }
  return groups;
}

// Where each row was first listed, to name both places when a row is listed twice.
struct Listing {
  std::string file;
  std::size_t line = 0;
};

class SplitFileReader {
 public:
  explicit SplitFileReader(Index n) : n_(n), listed_(static_cast<std::size_t>(n)) {}

  std::vector<Index> read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open for reading: " + std::generic_category().message(errno));
    std::vector<Index> rows;
    std::string text;
    for (std::size_t line = 1; std::getline(in, text); ++line) {
      const std::string_view entry = trim_whitespace(text);
      if (!entry.empty()) rows.push_back(claim(entry, path, line));
    }
    if (in.bad()) throw Error(path + ": read error");
    return rows;
  }

 private:
  Index claim(std::string_view entry, const std::string& path, std::size_t line) {
    const Index row = parse_row(entry, path, line);
    std::optional<Listing>& listing = listed_[static_cast<std::size_t>(row)];
    if (listing) {
      throw ParseError(path, line, std::string(entry),
                       "row " + std::to_string(row) + " is already listed at " + listing->file + ":" +
                           std::to_string(listing->line));
    }
    listing = Listing{path, line};
    return row;
  }

  Index parse_row(std::string_view entry, const std::string& path, std::size_t line) const {
    Index row = 0;
    const auto [end, error] = std::from_chars(entry.data(), entry.data() + entry.size(), row);
    if (error != std::errc() || end != entry.data() + entry.size()) {
      throw ParseError(path, line, std::string(entry), "not a row index (a non-negative integer)");
    }
    if (row < 0) throw ParseError(path, line, std::string(entry), "row index is negative");
    if (row >= n_) {
      throw ParseError(path, line, std::string(entry),
                       "row index is out of range; the dataset has " + std::to_string(n_) + " rows");
    }
    return row;
  }

  Index n_;
  std::vector<std::optional<Listing>> listed_;
};

std::string split_file_text(const std::vector<Index>& rows) {
  std::string text;
  for (const Index row : rows) text += std::to_string(row) + '\n';
  return text;
}

std::optional<std::string> existing_contents(const fs::path& path) {
  if (!fs::exists(path)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open for reading: " + std::generic_category().message(errno));
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

void refuse_to_replace_other_contents(const fs::path& path, const std::string& text) {
  const std::optional<std::string> existing = existing_contents(path);
  if (existing && *existing != text) {
    throw Error(path.string() + ": already exists with other contents; pass overwrite to replace it");
  }
}

}  // namespace

Split random_split(Index n, double train_fraction, double val_fraction, std::uint64_t seed) {
  check_row_count(n);
  check_fractions(train_fraction, val_fraction);
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

std::string murcko_scaffold(const std::string& smiles) {
  const SmilesResult parsed = parse_smiles(smiles, {.flag_possible_stereocenters = false});
  if (!parsed.molecule) {
    throw ArgumentError("cannot compute the Murcko scaffold of '" + smiles + "': " + parsed.error);
  }
  const std::unique_ptr<RDKit::ROMol> scaffold(RDKit::MurckoDecompose(*parsed.molecule));
  return RDKit::MolToSmiles(*scaffold, /*doIsomericSmiles=*/false);
}

Split scaffold_split(const std::vector<std::string>& smiles, double train_fraction, double val_fraction) {
  check_fractions(train_fraction, val_fraction);
  std::vector<std::vector<Index>> groups = scaffold_groups(smiles);
  std::ranges::stable_sort(groups, std::greater{}, &std::vector<Index>::size);
  const Index n = static_cast<Index>(smiles.size());
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

Split read_split_directory(const std::string& dir, Index n) {
  check_row_count(n);
  SplitFileReader reader(n);
  const auto path = [&](const char* name) { return (fs::path(dir) / name).string(); };
  Split split;
  split.train = reader.read(path(split_file_names[0]));
  split.val = reader.read(path(split_file_names[1]));
  split.test = reader.read(path(split_file_names[2]));
  return split;
}

void write_split_directory(const std::string& dir, const Split& split, bool overwrite) {
  const std::array<std::string, 3> texts = {split_file_text(split.train), split_file_text(split.val),
                                            split_file_text(split.test)};
  const auto path = [&](std::size_t part) { return fs::path(dir) / split_file_names[part]; };
  if (!overwrite) {
    for (std::size_t part = 0; part < texts.size(); ++part) refuse_to_replace_other_contents(path(part), texts[part]);
  }
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw Error(dir + ": cannot create the split folder: " + error.message());
  for (std::size_t part = 0; part < texts.size(); ++part) write_file_atomically(path(part).string(), texts[part]);
}

}  // namespace edgewise

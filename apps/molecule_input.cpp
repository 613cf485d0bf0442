#include "molecule_input.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "cli_support.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/io/csv.hpp"

namespace edgewise::cli {
namespace {

CsvColumn column_option(const MoleculeInput& input, const std::string& option, const std::string& text) {
  if (input.no_header) return static_cast<Index>(column_index_option(option, text));
  return text;
}

// Every column of the CSV header except the SMILES one.
std::vector<CsvColumn> all_but_smiles(const MoleculeInput& input) {
  const std::vector<std::string> names = default_molecule_columns(input.data, input.comment, input.smiles_column).targets;
  return {names.begin(), names.end()};
}

void report_skipped(const MoleculeInput& input, const MoleculeDataset& data, std::ostream& log) {
  if (data.skipped.empty() || !input.list_skipped) return;
  const std::string list = input.skipped_list.empty()
                               ? std::filesystem::path(input.data).filename().string() + ".skipped.csv"
                               : input.skipped_list;
  check_output_path(list, input.force);
  write_skipped(list, data, overwrite_for(input.force));
  log << "skipped " << data.skipped.size() << " molecule" << (data.skipped.size() == 1 ? "" : "s")
      << " RDKit could not read (first: line " << data.skipped.front().line << ", " << data.skipped.front().reason
      << "); the list is in " << list << '\n';
}

// Split-file rows whose molecules were skipped: how many per part, and the first few.
void report_skipped_split_rows(const std::vector<SkippedSplitRow>& skipped, std::ostream& log) {
  if (skipped.empty()) return;
  std::map<std::string, std::size_t> per_part;
  for (const SkippedSplitRow& row : skipped) ++per_part[row.part];
  log << "the split lists " << skipped.size() << " row" << (skipped.size() == 1 ? "" : "s")
      << " whose molecules were skipped (";
  for (auto part = per_part.begin(); part != per_part.end(); ++part)
    log << (part == per_part.begin() ? "" : ", ") << part->first << " " << part->second;
  log << "); they are left out:\n";
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < std::min(kShown, skipped.size()); ++i) {
    const SkippedMolecule& molecule = skipped[i].molecule;
    log << "  " << skipped[i].part << " row " << molecule.row << " (line " << molecule.line << "): " << molecule.reason
        << '\n';
  }
  if (skipped.size() > kShown) log << "  ... and " << skipped.size() - kShown << " more\n";
}

void rename_targets(const MoleculeInput& input, MoleculeDataset& data) {
  if (input.target_names.empty()) return;
  std::vector<std::string> names = split_list(input.target_names);
  if (names.size() != data.tasks.size()) {
    throw ArgumentError("--target-names: " + std::to_string(names.size()) + " names for " +
                        std::to_string(data.tasks.size()) + " targets");
  }
  data.tasks = std::move(names);
}

}  // namespace

void add_molecule_input_options(CLI::App& command, MoleculeInput& input, const std::string& targets_help) {
  command.add_option("--data", input.data, "CSV file of molecules (Chemprop layout: a header, SMILES and targets), or an SDF file")
      ->check(CLI::ExistingFile);
  command.add_option("--smiles-column", input.smiles_column,
                     "SMILES column: its header name, or its 0-based index with --no-header (default: the column "
                     "named smiles, in any case, else the first)");
  if (!targets_help.empty()) {
    command.add_option("--targets", input.targets, targets_help);
    command.add_option("--target-names", input.target_names,
                       "Names for the targets, comma-separated, in --targets order (for files without a header)");
  }
  command.add_flag("--no-header", input.no_header, "The CSV has no header row; columns are chosen by 0-based index");
  command.add_option("--comment", input.comment, "Skip CSV lines that start with this prefix (e.g. \"#\")");
  command.add_flag("--skip-invalid", input.skip_invalid,
                   "Drop molecules RDKit cannot read (reported and listed in a file) instead of stopping at the first");
  command.add_option("--skipped-list", input.skipped_list,
                     "Where --skip-invalid lists the dropped rows as CSV (line,row,smiles,reason; default: <data file name>.skipped.csv in the current folder)");
  command.add_option("--max-atoms", input.max_atoms,
                     "A molecule with more atoms (as written, explicit hydrogens included) is invalid, refused "
                     "before RDKit's costlier steps; 0: no limit. The default covers drug-like molecules and "
                     "peptides of about 100 residues")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
}

CsvColumn smiles_column(const MoleculeInput& input) {
  if (!input.smiles_column.empty()) return column_option(input, "--smiles-column", input.smiles_column);
  if (input.no_header || is_sdf_path(input.data)) return Index{0};
  return default_molecule_columns(input.data, input.comment).smiles;
}

std::vector<CsvColumn> target_columns(const MoleculeInput& input, const std::vector<std::string>& default_targets) {
  std::vector<CsvColumn> columns;
  if (!input.targets.empty()) {
    for (const std::string& item : split_list(input.targets)) columns.push_back(column_option(input, "--targets", item));
  } else if (!default_targets.empty()) {
    for (const std::string& name : default_targets) columns.push_back(column_option(input, "--targets", name));
  } else if (!input.no_header) {
    columns = all_but_smiles(input);
  }
  return columns;
}

MoleculeDataset load_molecules(const MoleculeInput& input, const std::vector<std::string>& default_targets,
                               const FeaturizerSpec& featurizer, std::ostream& log) {
  const InvalidMoleculePolicy policy = input.skip_invalid ? InvalidMoleculePolicy::skip : InvalidMoleculePolicy::fail;
  MoleculeDataset data;
  if (is_sdf_path(input.data)) {
    const std::vector<std::string> properties = input.targets.empty() ? default_targets : split_list(input.targets);
    data = load_molecule_sdf(input.data, properties, policy, featurizer, input.max_atoms);
  } else {
    MoleculeCsvOptions options;
    options.smiles_column = smiles_column(input);
    options.target_columns = target_columns(input, default_targets);
    options.has_header = !input.no_header;
    options.comment_prefix = input.comment;
    options.invalid_molecules = policy;
    options.featurizer = featurizer;
    options.max_atoms = input.max_atoms;
    options.share_among_processes = input.share_among_processes;
    data = load_molecule_csv(input.data, options);
  }
  rename_targets(input, data);
  report_skipped(input, data, log);
  if (data.size() == 0) throw Error(input.data + ": no molecules to use");
  return data;
}

Split make_split(const std::string& split, const MoleculeDataset& data, double train_fraction, double val_fraction,
                 std::uint64_t seed, std::ostream& log) {
  if (split == "random") return random_split(data.size(), train_fraction, val_fraction, seed);
  if (split == "scaffold") return scaffold_split(data.smiles, train_fraction, val_fraction);
  if (!std::filesystem::is_directory(split))
    throw ArgumentError("--split: '" + split + "' is neither random, scaffold nor a folder with train.txt, val.txt, test.txt");
  std::vector<SkippedSplitRow> skipped;
  const Split molecules =
      molecule_split(read_split_directory(split, static_cast<Index>(data.source_rows)), data, &skipped);
  report_skipped_split_rows(skipped, log);
  return molecules;
}

namespace {

void print_row(std::ostream& out, const std::string& name, Index count, std::initializer_list<double> values) {
  char line[256];
  std::snprintf(line, sizeof line, "%-32.32s %7lld", name.c_str(), static_cast<long long>(count));
  out << line;
  for (const double v : values) {
    std::snprintf(line, sizeof line, " %9.4f", v);
    out << line;
  }
  out << '\n';
}

void print_header(std::ostream& out, std::initializer_list<const char*> names) {
  char line[256];
  std::snprintf(line, sizeof line, "%-32s %7s", "task", "count");
  out << line;
  for (const char* name : names) {
    std::snprintf(line, sizeof line, " %9s", name);
    out << line;
  }
  out << '\n';
}

}  // namespace

void print_metrics(std::ostream& out, const std::vector<std::string>& tasks, const RegressionMetrics& metrics) {
  print_header(out, {"rmse", "mae", "r2"});
  Index total = 0;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const RegressionTaskMetrics& m = metrics.tasks[t];
    print_row(out, tasks[t], m.count, {m.rmse, m.mae, m.r2});
    total += m.count;
  }
  if (tasks.size() > 1) print_row(out, "mean", total, {metrics.rmse, metrics.mae, metrics.r2});
}

void print_metrics(std::ostream& out, const std::vector<std::string>& tasks, const ClassificationMetrics& metrics) {
  print_header(out, {"roc_auc", "pr_auc", "accuracy"});
  Index total = 0;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const ClassificationTaskMetrics& m = metrics.tasks[t];
    print_row(out, tasks[t], m.count, {m.roc_auc, m.pr_auc, m.accuracy});
    total += m.count;
  }
  if (tasks.size() > 1) print_row(out, "mean", total, {metrics.roc_auc, metrics.pr_auc, metrics.accuracy});
}

}  // namespace edgewise::cli

#include "molecule_input.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli_support.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/distributed/molecules/molecule_exchange.hpp"
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

bool is_number(std::string_view text) {
  text = trim_whitespace(text);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && std::isfinite(value);
}

bool has_number_field(const std::string& line) {
  return std::ranges::any_of(split_list(line), [](const std::string& field) { return is_number(field); });
}

// The first lines of a CSV file as the reader meets them, blank lines and --comment lines passed over.
struct LeadingLines {
  std::size_t hash_lines = 0;  // lines starting with '#' before the first other one
  std::size_t first = 0;       // the first other line; 0 when there is none
  std::string first_text;
};

LeadingLines leading_lines(const MoleculeInput& input) {
  std::ifstream file(input.data);
  LeadingLines found;
  std::string text;
  for (std::size_t line = 1; std::getline(file, text); ++line) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty() || (!input.comment.empty() && text.starts_with(input.comment))) continue;
    if (!text.starts_with('#')) return {found.hash_lines, line, text};
    ++found.hash_lines;
  }
  return found;
}

// When a failure at `line` likely comes from how the file was read (comment lines taken for the header
// or for rows, a header taken for a row), the options that read it right; else empty.
std::string layout_hint(const MoleculeInput& input, std::size_t line) {
  if (is_sdf_path(input.data)) return {};
  const LeadingLines leading = leading_lines(input);
  if (input.comment.empty() && leading.hash_lines > 0 && (leading.first == 0 || line <= leading.first)) {
    const bool data_first = !input.no_header && leading.first > 0 && has_number_field(leading.first_text);
    return "The file starts with '#' lines: if they are comments, pass --comment \"#\"" +
           (data_first ? " and --no-header (line " + std::to_string(leading.first) + " holds data, not column names)"
                       : std::string());
  }
  if (input.no_header && leading.hash_lines == 0 && line == leading.first && !has_number_field(leading.first_text))
    return "If line " + std::to_string(line) + " is a header, leave out --no-header";
  return {};
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

void warn_of_numeric_header(const MoleculeInput& input, std::ostream& log) {
  if (input.data.empty() || input.no_header || is_sdf_path(input.data)) return;
  CsvOptions options;
  options.comment_prefix = input.comment;
  const CsvReader reader(input.data, options);
  const std::vector<std::string>& header = reader.columns().header;
  const auto number = std::ranges::find_if(header, [](const std::string& name) { return is_number(name); });
  if (number == header.end()) return;
  log << "edgewise: warning: " << input.data << ": the header's column " << number - header.begin() + 1 << " is '"
      << *number << "', a number: if the file has no header, pass --no-header\n";
}

void rethrow_with_hint(const MoleculeInput& input, const ParseError& error) {
  std::string hint = layout_hint(input, error.line());
  if (hint.empty() && dynamic_cast<const InvalidMoleculeError*>(&error))
    hint = "To leave out the molecules RDKit cannot read (and list them in a file), pass --skip-invalid";
  if (hint.empty()) throw;
  throw Error(std::string(error.what()) + ". " + hint);
}

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

namespace {

MoleculeDataset read_molecules(const MoleculeInput& input, const std::vector<std::string>& default_targets,
                               const FeaturizerSpec& featurizer, std::ostream& log) {
  const InvalidMoleculePolicy policy = input.skip_invalid ? InvalidMoleculePolicy::skip : InvalidMoleculePolicy::fail;
  if (is_sdf_path(input.data)) {
    const std::vector<std::string> properties = input.targets.empty() ? default_targets : split_list(input.targets);
    return load_molecule_sdf(input.data, properties, policy, featurizer, input.max_atoms);
  }
  MoleculeCsvOptions options;
  options.smiles_column = smiles_column(input);
  options.target_columns = target_columns(input, default_targets);
  options.has_header = !input.no_header;
  options.comment_prefix = input.comment;
  options.invalid_molecules = policy;
  options.featurizer = featurizer;
  options.max_atoms = input.max_atoms;
  if (input.share_among_processes) options.share_among_processes = distributed::featurize_shared;
  warn_of_numeric_header(input, log);
  return load_molecule_csv(input.data, options);
}

}  // namespace

MoleculeDataset load_molecules(const MoleculeInput& input, const std::vector<std::string>& default_targets,
                               const FeaturizerSpec& featurizer, std::ostream& log) {
  MoleculeDataset data =
      with_input_hints(input, [&] { return read_molecules(input, default_targets, featurizer, log); });
  rename_targets(input, data);
  report_skipped(input, data, log);
  if (data.size() == 0) throw Error(input.data + ": no molecules to use");
  return data;
}

namespace {

void print_row(std::ostream& out, const std::string& name, Index count, const std::vector<double>& values) {
  char line[256];
  std::snprintf(line, sizeof line, "%-32.32s %7lld", name.c_str(), static_cast<long long>(count));
  out << line;
  for (const double v : values) {
    std::snprintf(line, sizeof line, " %9.4f", v);
    out << line;
  }
  out << '\n';
}

void print_header(std::ostream& out, const std::vector<std::string>& names) {
  char line[256];
  std::snprintf(line, sizeof line, "%-32s %7s", "task", "count");
  out << line;
  for (const std::string& name : names) {
    std::snprintf(line, sizeof line, " %9s", name.c_str());
    out << line;
  }
  out << '\n';
}

}  // namespace

void print_metrics(std::ostream& out, const std::vector<std::string>& tasks, const MoleculeMetrics& metrics) {
  print_header(out, metrics.names());
  Index total = 0;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const auto [count, values] = metrics.task(t);
    print_row(out, tasks[t], count, values);
    total += count;
  }
  if (tasks.size() > 1) print_row(out, "mean", total, metrics.mean_values());
}

void print_uncertainty(std::ostream& out, const std::vector<std::string>& tasks,
                       const std::vector<UncertaintyScores>& scores) {
  print_header(out, {"nll", "miscal", "ence", "spearman", "coverage", "width"});
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const UncertaintyScores& s = scores[t];
    print_row(out, tasks[t], s.count, {s.nll, s.miscalibration_area, s.ence, s.spearman, s.coverage, s.mean_width});
  }
}

}  // namespace edgewise::cli

#include "edgewise/chem/molecule_dataset.hpp"

#include <GraphMol/FileParsers/FileParsers.h>
#include <GraphMol/FileParsers/MolSupplier.h>
#include <GraphMol/GraphMol.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>
#include <RDGeneral/BadFileException.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <exception>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

#include "edgewise/chem/molecule_stream.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "edgewise/core/interrupt.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/io/csv.hpp"

namespace edgewise {
namespace {

using ParsedMolecule = FeaturizedMolecule;

// Molecules featurized per parallel loop; between loops the caller may stop the reading
// (poll_interrupt): about 0.3 s of work at 2 threads.
constexpr Index kFeaturizeWindow = 1024;

// body(i) for i in [0, n), in parallel, a window at a time.
template <typename Body>
void featurize_in_windows(Index n, Body&& body) {
  for (Index begin = 0; begin < n; begin += kFeaturizeWindow) {
    poll_interrupt();
    parallel_for_rethrowing(std::min(kFeaturizeWindow, n - begin), [&](Index i) { body(begin + i); });
  }
}

std::vector<ParsedMolecule> featurize_smiles(const std::vector<std::string>& smiles, const FeaturizerSpec& spec,
                                             Index max_atoms) {
  const SmilesFeaturizer featurizer(spec, max_atoms);
  std::vector<ParsedMolecule> parsed(smiles.size());
  featurize_in_windows(static_cast<Index>(smiles.size()), [&](Index i) {
    parsed[static_cast<std::size_t>(i)] = featurizer.graph(smiles[static_cast<std::size_t>(i)]);
  });
  return parsed;
}

// A label as stored: NaN when missing. A value beyond float's range would silently become infinite.
float target_value(std::string_view text, const FieldContext& context) {
  const std::optional<double> value = parse_number(text, context);
  if (!value) return std::numeric_limits<float>::quiet_NaN();
  if (std::abs(*value) > std::numeric_limits<float>::max()) {
    throw ParseError(context.source, context.line, std::string(trim_whitespace(text)),
                     "column '" + context.column + "': number out of range for a float target");
  }
  return static_cast<float>(*value);
}

// values holds `rows` rows of `columns` targets each, row after row.
Matrix<float> target_matrix(const std::vector<float>& values, std::size_t rows, std::size_t columns) {
  Matrix<float> targets(static_cast<Index>(rows), static_cast<Index>(columns));
  std::copy(values.begin(), values.end(), targets.data());
  return targets;
}

std::size_t column_index(const CsvTable& table, const CsvColumn& column) {
  if (const auto* name = std::get_if<std::string>(&column)) return table.column_index(*name);
  const Index index = std::get<Index>(column);
  if (index < 0) throw ArgumentError(table.source + ": column index " + std::to_string(index) + " is negative");
  return table.check_column(static_cast<std::size_t>(index));
}

std::vector<std::size_t> column_indices(const CsvTable& table, const std::vector<CsvColumn>& columns) {
  std::vector<std::size_t> indices;
  for (const CsvColumn& column : columns) indices.push_back(column_index(table, column));
  return indices;
}

std::vector<std::string> trimmed_column(const CsvTable& table, std::size_t column) {
  std::vector<std::string> values;
  values.reserve(table.num_rows());
  for (const auto& row : table.rows) values.emplace_back(trim_whitespace(row[column]));
  return values;
}

CsvOptions csv_options(const MoleculeCsvOptions& options) {
  CsvOptions csv;
  csv.has_header = options.has_header;
  csv.comment_prefix = options.comment_prefix;
  return csv;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::unique_ptr<RDKit::SDMolSupplier> open_sdf(const std::string& path) {
  try {
    return std::make_unique<RDKit::SDMolSupplier>(path);
  } catch (const RDKit::BadFileException& e) {
    throw Error(path + ": cannot read SD file: " + e.what());
  }
}

// SDMolSupplier only logs why a record failed; parsing the record's text again recovers the reason.
std::string unreadable_record_reason(const std::string& record_text) {
  try {
    const std::unique_ptr<RDKit::RWMol> molecule(RDKit::MolBlockToMol(record_text));
    return molecule ? "RDKit could not read the record's data fields" : "the record holds no molecule";
  } catch (const std::exception& e) {
    return e.what();
  }
}

// Why a record read by SDMolSupplier is not a molecule to keep; empty when it is one. An atomless
// record reads as an empty molecule, which is no more a molecule than an empty SMILES.
std::string record_problem(const RDKit::ROMol* molecule, const std::string& record_text) {
  if (!molecule) return unreadable_record_reason(record_text);
  if (molecule->getNumAtoms() == 0) return "molecule has no atoms";
  return "";
}

// The atom count of a record's counts line (V2000: its first three columns; V3000: "M  V30 COUNTS"),
// read before RDKit parses the record; nullopt when the record does not say.
std::optional<Index> declared_atoms(const std::string& record_text) {
  std::istringstream lines(record_text);
  std::string line;
  for (int header_line = 0; header_line < 3; ++header_line) std::getline(lines, line);
  if (!std::getline(lines, line)) return std::nullopt;
  std::string count = line.substr(0, 3);
  if (line.find("V3000") != std::string::npos) {
    constexpr std::string_view tag = "M  V30 COUNTS ";
    while (std::getline(lines, line) && !line.starts_with(tag)) {
    }
    if (!line.starts_with(tag)) return std::nullopt;
    count = line.substr(tag.size());
  }
  Index atoms = 0;
  const std::string_view digits = trim_whitespace(count);
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), atoms);
  if (error != std::errc() || end == digits.data()) return std::nullopt;
  return atoms;
}

// One SD record as read: its molecule, or why it is not one.
struct SdRecord {
  std::size_t line = 0;   // where the record starts
  std::size_t lines = 0;  // how many lines it spans
  std::unique_ptr<RDKit::ROMol> molecule;
  std::string problem;
};

SdRecord read_record(RDKit::SDMolSupplier& supplier, const std::string& source, unsigned int record, std::size_t line,
                     Index max_atoms) {
  const std::string text = supplier.getItemText(record);
  SdRecord result{line, static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), nullptr, ""};
  if (const std::optional<Index> atoms = declared_atoms(text)) {
    result.problem = atom_limit_error(*atoms, max_atoms);
    if (!result.problem.empty()) return result;
  }
  capture_rdkit_logs();
  try {
    result.molecule.reset(supplier[record]);
    result.problem = record_problem(result.molecule.get(), text);
    if (result.problem.empty())
      report_rdkit_warnings(source + " line " + std::to_string(line));
    else
      take_rdkit_log();  // the reason comes from parsing the record's text again
  } catch (const std::exception& e) {
    result.problem = std::string("RDKit: ") + e.what();
  } catch (...) {
    result.problem = "RDKit failed without a reason";
  }
  if (!result.problem.empty()) result.molecule.reset();
  return result;
}

// The record's data field `name` as a target; NaN when the record has no such field.
float property_value(const RDKit::ROMol& molecule, const std::string& name, const FieldContext& context) {
  std::string text;
  if (!molecule.getPropIfPresent(name, text)) return std::numeric_limits<float>::quiet_NaN();
  return target_value(text, context);
}

// A data row that repeats the header is what joining two CSV files with `cat` leaves behind; its
// "SMILES" would otherwise be reported as unreadable, hiding the cause.
void check_not_a_header(const CsvTable& table, std::size_t row) {
  if (table.header.empty() || table.rows[row] != table.header) return;
  throw ParseError(table.source, table.line_numbers[row], table.rows[row].front(),
                   "the header line appears again as a data row (were two files joined?)");
}

constexpr const char* kSmilesListSource = "SMILES list";

void check_in_memory_targets(std::size_t molecules, const Matrix<float>& targets, std::size_t tasks) {
  const bool no_targets = tasks == 0 && targets.size() == 0;
  if (!no_targets && (targets.rows() != static_cast<Index>(molecules) || targets.cols() != static_cast<Index>(tasks)))
    throw ArgumentError("molecules_from_smiles: targets are [" + std::to_string(targets.rows()) + ", " +
                        std::to_string(targets.cols()) + "], expected [" + std::to_string(molecules) + ", " +
                        std::to_string(tasks) + "] for " + std::to_string(molecules) + " SMILES and " +
                        std::to_string(tasks) + " task names");
  for (Index row = 0; row < targets.rows(); ++row)
    for (Index column = 0; column < targets.cols(); ++column)
      if (std::isinf(targets(row, column)))
        throw ArgumentError("molecules_from_smiles: the target of SMILES " + std::to_string(row + 1) + " for task " +
                            std::to_string(column + 1) + " is infinite");
}

void skip_or_fail(MoleculeDataset& dataset, InvalidMoleculePolicy policy, const std::string& source,
                  SkippedMolecule row, const std::string& reason) {
  if (policy == InvalidMoleculePolicy::fail) throw InvalidMoleculeError(source, row.line, row.smiles, reason);
  dataset.skipped.push_back(std::move(row));
}

void add_molecule(MoleculeDataset& dataset, std::string smiles, std::size_t line, std::size_t row,
                  MoleculeGraph molecule) {
  dataset.smiles.push_back(std::move(smiles));
  dataset.lines.push_back(line);
  dataset.rows.push_back(row);
  dataset.molecules.push_back(std::move(molecule));
}

MoleculeDataset molecules_from_table(const CsvTable& table, const MoleculeCsvOptions& options) {
  const std::size_t smiles_column = column_index(table, options.smiles_column);
  const std::vector<std::size_t> target_columns = column_indices(table, options.target_columns);
  std::vector<std::string> smiles = trimmed_column(table, smiles_column);
  const RowFeaturizer featurize_rows = [&](std::size_t first, std::size_t last) {
    const auto at = [&](std::size_t row) { return smiles.begin() + static_cast<std::ptrdiff_t>(row); };
    return featurize_smiles({at(first), at(last)}, options.featurizer, options.max_atoms);
  };
  std::vector<ParsedMolecule> parsed = options.share_among_processes
                                           ? options.share_among_processes(smiles.size(), featurize_rows)
                                           : featurize_smiles(smiles, options.featurizer, options.max_atoms);

  MoleculeDataset dataset;
  for (const std::size_t column : target_columns) dataset.tasks.push_back(table.column_name(column));
  dataset.source_rows = table.num_rows();
  std::vector<float> targets;
  for (std::size_t row = 0; row < table.num_rows(); ++row) {
    const std::size_t line = table.line_numbers[row];
    check_not_a_header(table, row);
    if (!parsed[row].graph) {
      skip_or_fail(dataset, options.invalid_molecules, table.source, {line, row, smiles[row], parsed[row].error},
                   "invalid SMILES: " + parsed[row].error);
      continue;
    }
    for (const std::size_t column : target_columns)
      targets.push_back(target_value(table.rows[row][column], table.context(row, column)));
    add_molecule(dataset, std::move(smiles[row]), line, row, std::move(*parsed[row].graph));
  }
  dataset.targets = target_matrix(targets, dataset.molecules.size(), target_columns.size());
  return dataset;
}

MoleculeDataset molecules_from_sdf(RDKit::SDMolSupplier& supplier, const std::string& source,
                                   const std::vector<std::string>& target_properties,
                                   InvalidMoleculePolicy invalid_molecules, const FeaturizerSpec& featurizer,
                                   Index max_atoms) {
  const unsigned int count = supplier.length();
  if (count == 0)
    throw ParseError(source, 1, "", "no SD records (an SD file holds molecule blocks ending in '$$$$')");
  std::vector<SdRecord> records;
  std::size_t line = 1;
  for (unsigned int record = 0; record < count; ++record) {
    records.push_back(read_record(supplier, source, record, line, max_atoms));
    line += records.back().lines;
  }
  const SmilesFeaturizer smiles_featurizer(featurizer, max_atoms);
  std::vector<ParsedMolecule> parsed(records.size());
  featurize_in_windows(static_cast<Index>(records.size()), [&](Index row) {
    const auto i = static_cast<std::size_t>(row);
    if (records[i].molecule) parsed[i] = smiles_featurizer.graph(*records[i].molecule);
  });

  MoleculeDataset dataset;
  dataset.tasks = target_properties;
  dataset.source_rows = records.size();
  std::vector<float> targets;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const SdRecord& record = records[i];
    const std::string problem = record.molecule ? parsed[i].error : record.problem;
    if (!problem.empty()) {
      skip_or_fail(dataset, invalid_molecules, source, {record.line, i, "", problem},
                   "SD record " + std::to_string(i + 1) + " cannot be read: " + problem);
      continue;
    }
    for (const std::string& name : target_properties)
      targets.push_back(property_value(*record.molecule, name, FieldContext{source, record.line, name}));
    add_molecule(dataset, RDKit::MolToSmiles(*record.molecule), record.line, i, std::move(*parsed[i].graph));
  }
  dataset.targets = target_matrix(targets, dataset.molecules.size(), target_properties.size());
  return dataset;
}

}  // namespace

MoleculeDataset load_molecule_csv(const std::string& path, const MoleculeCsvOptions& options) {
  return molecules_from_table(read_csv(path, csv_options(options)), options);
}

MoleculeDataset parse_molecule_csv(std::string_view text, std::string source, const MoleculeCsvOptions& options) {
  return molecules_from_table(parse_csv(text, std::move(source), csv_options(options)), options);
}

namespace {

// The header column whose name is "smiles" in any case, if any.
std::optional<std::size_t> column_named_smiles(const CsvTable& header) {
  for (std::size_t c = 0; c < header.num_columns(); ++c) {
    std::string name = header.column_name(c);
    std::ranges::transform(name, name.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (name == "smiles") return c;
  }
  return std::nullopt;
}

}  // namespace

MoleculeColumns default_molecule_columns(const std::string& path, const std::string& comment_prefix,
                                         const std::string& smiles) {
  CsvOptions options;
  options.comment_prefix = comment_prefix;
  const CsvReader reader(path, options);
  const CsvTable& header = reader.columns();
  MoleculeColumns columns{.smiles = Index{0}, .targets = {}};
  std::size_t smiles_index = 0;
  if (!smiles.empty()) {
    smiles_index = header.column_index(smiles);
    columns.smiles = smiles;
  } else if (const std::optional<std::size_t> named = column_named_smiles(header)) {
    smiles_index = *named;
    columns.smiles = header.column_name(*named);
  }
  for (std::size_t c = 0; c < header.num_columns(); ++c)
    if (c != smiles_index) columns.targets.push_back(header.column_name(c));
  return columns;
}

bool is_sdf_path(const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  return extension == ".sdf" || extension == ".SDF" || extension == ".sd";
}

MoleculeDataset load_molecule_sdf(const std::string& path, const std::vector<std::string>& target_properties,
                                  InvalidMoleculePolicy invalid_molecules, const FeaturizerSpec& featurizer,
                                  Index max_atoms) {
  const std::unique_ptr<RDKit::SDMolSupplier> supplier = open_sdf(path);
  return molecules_from_sdf(*supplier, path, target_properties, invalid_molecules, featurizer, max_atoms);
}

MoleculeDataset parse_molecule_sdf(const std::string& text, const std::string& source,
                                   const std::vector<std::string>& target_properties,
                                   InvalidMoleculePolicy invalid_molecules, const FeaturizerSpec& featurizer,
                                   Index max_atoms) {
  RDKit::SDMolSupplier supplier;
  supplier.setData(text);
  return molecules_from_sdf(supplier, source, target_properties, invalid_molecules, featurizer, max_atoms);
}

MoleculeDataset molecules_from_smiles(const std::vector<std::string>& smiles, const Matrix<float>& targets,
                                      std::vector<std::string> tasks, InvalidMoleculePolicy invalid_molecules,
                                      const FeaturizerSpec& featurizer, Index max_atoms) {
  check_in_memory_targets(smiles.size(), targets, tasks.size());
  std::vector<std::string> trimmed(smiles.size());
  std::transform(smiles.begin(), smiles.end(), trimmed.begin(),
                 [](const std::string& text) { return std::string(trim_whitespace(text)); });
  std::vector<ParsedMolecule> parsed = featurize_smiles(trimmed, featurizer, max_atoms);

  MoleculeDataset dataset;
  dataset.tasks = std::move(tasks);
  dataset.source_rows = trimmed.size();
  std::vector<Index> kept;
  for (std::size_t i = 0; i < trimmed.size(); ++i) {
    const std::size_t position = i + 1;
    if (!parsed[i].graph) {
      skip_or_fail(dataset, invalid_molecules, kSmilesListSource, {position, i, trimmed[i], parsed[i].error},
                   "invalid SMILES: " + parsed[i].error);
      continue;
    }
    kept.push_back(static_cast<Index>(i));
    add_molecule(dataset, std::move(trimmed[i]), position, i, std::move(*parsed[i].graph));
  }
  dataset.targets.resize(static_cast<Index>(kept.size()), static_cast<Index>(dataset.tasks.size()));
  for (std::size_t row = 0; row < kept.size() && !dataset.tasks.empty(); ++row)
    dataset.targets.row(static_cast<Index>(row)) = targets.row(kept[row]);
  return dataset;
}

Split molecule_split(const Split& rows, const MoleculeDataset& dataset, std::vector<SkippedSplitRow>* skipped) {
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  const auto check_row = [&](std::size_t row) {
    if (row >= dataset.source_rows)
      throw ArgumentError("molecule_split: the dataset's row " + std::to_string(row) + " is not below its source_rows (" +
                          std::to_string(dataset.source_rows) + ")");
    return row;
  };
  std::vector<std::size_t> molecule_of_row(dataset.source_rows, kNone);
  for (std::size_t m = 0; m < dataset.rows.size(); ++m) molecule_of_row[check_row(dataset.rows[m])] = m;
  std::vector<const SkippedMolecule*> skipped_of_row(dataset.source_rows, nullptr);
  for (const SkippedMolecule& molecule : dataset.skipped) skipped_of_row[check_row(molecule.row)] = &molecule;

  const auto positions = [&](const std::vector<Index>& part_rows, const char* part) {
    std::vector<Index> part_molecules;
    for (const Index row : part_rows) {
      if (row < 0 || static_cast<std::size_t>(row) >= dataset.source_rows)
        throw ArgumentError("split row " + std::to_string(row) + " is out of range; the data has " +
                            std::to_string(dataset.source_rows) + " rows");
      const auto r = static_cast<std::size_t>(row);
      if (molecule_of_row[r] != kNone) {
        part_molecules.push_back(static_cast<Index>(molecule_of_row[r]));
      } else if (skipped && skipped_of_row[r]) {
        skipped->push_back({part, *skipped_of_row[r]});
      }
    }
    return part_molecules;
  };
  return {positions(rows.train, "train"), positions(rows.val, "val"), positions(rows.test, "test")};
}

Split row_split(const Split& molecules, const MoleculeDataset& dataset) {
  const auto rows = [&](const std::vector<Index>& part) {
    std::vector<Index> part_rows;
    part_rows.reserve(part.size());
    for (const Index m : part) part_rows.push_back(static_cast<Index>(dataset.rows.at(static_cast<std::size_t>(m))));
    return part_rows;
  };
  return {rows(molecules.train), rows(molecules.val), rows(molecules.test)};
}

void write_skipped(const std::string& path, const MoleculeDataset& dataset, Overwrite overwrite) {
  std::string text = "line,row,smiles,reason\n";
  for (const SkippedMolecule& skipped : dataset.skipped)
    text += std::to_string(skipped.line) + ',' + std::to_string(skipped.row) + ',' + csv_field(skipped.smiles) + ',' +
            csv_field(skipped.reason) + '\n';
  write_file_atomically(path, text, overwrite);
}

}  // namespace edgewise

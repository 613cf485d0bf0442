#include "edgewise/io/molecule_dataset.hpp"

#include <GraphMol/FileParsers/FileParsers.h>
#include <GraphMol/FileParsers/MolSupplier.h>
#include <GraphMol/GraphMol.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>
#include <RDGeneral/BadFileException.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <optional>

#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/io/csv.hpp"

namespace edgewise {
namespace {

// Runs body(i) for every row in parallel. An exception must not leave an OpenMP region, so each row's
// is kept and the first one in row order is rethrown once all rows are done.
template <typename Body>
void for_each_row_in_parallel(std::size_t rows, Body&& body) {
  std::vector<std::exception_ptr> errors(rows);
  parallel_for(static_cast<Index>(rows), [&](Index i) {
    try {
      body(static_cast<std::size_t>(i));
    } catch (...) {
      errors[static_cast<std::size_t>(i)] = std::current_exception();
    }
  });
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

struct ParsedMolecule {
  std::optional<MoleculeGraph> graph;  // empty when RDKit cannot read the SMILES
  std::string error;                   // RDKit's reason
};

std::vector<ParsedMolecule> featurize_smiles(const std::vector<std::string>& smiles, const FeaturizerSpec& spec) {
  const DescriptorCalculator descriptors(spec.descriptors, spec.descriptor_values);
  std::vector<ParsedMolecule> parsed(smiles.size());
  for_each_row_in_parallel(smiles.size(), [&](std::size_t row) {
    SmilesResult result = parse_smiles(smiles[row]);
    if (result.molecule) {
      parsed[row].graph = featurize(*result.molecule, spec, descriptors);
    } else {
      parsed[row].error = std::move(result.error);
    }
  });
  return parsed;
}

std::vector<MoleculeGraph> featurize_molecules(const std::vector<std::unique_ptr<RDKit::ROMol>>& molecules,
                                               const FeaturizerSpec& spec) {
  const DescriptorCalculator descriptors(spec.descriptors, spec.descriptor_values);
  std::vector<MoleculeGraph> graphs(molecules.size());
  for_each_row_in_parallel(molecules.size(),
                           [&](std::size_t i) { graphs[i] = featurize(*molecules[i], spec, descriptors); });
  return graphs;
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


MoleculeDataset molecules_from_table(const CsvTable& table, const MoleculeCsvOptions& options) {
  const std::size_t smiles_column = column_index(table, options.smiles_column);
  const std::vector<std::size_t> target_columns = column_indices(table, options.target_columns);
  std::vector<std::string> smiles = trimmed_column(table, smiles_column);
  std::vector<ParsedMolecule> parsed = featurize_smiles(smiles, options.featurizer);

  MoleculeDataset dataset;
  for (const std::size_t column : target_columns) dataset.tasks.push_back(table.column_name(column));
  std::vector<float> targets;
  for (std::size_t row = 0; row < table.num_rows(); ++row) {
    const std::size_t line = table.line_numbers[row];
    check_not_a_header(table, row);
    if (!parsed[row].graph) {
      if (options.invalid_molecules == InvalidMoleculePolicy::fail) {
        throw ParseError(table.source, line, smiles[row], "invalid SMILES: " + parsed[row].error);
      }
      dataset.skipped.push_back({line, smiles[row], parsed[row].error});
      continue;
    }
    for (const std::size_t column : target_columns)
      targets.push_back(target_value(table.rows[row][column], table.context(row, column)));
    dataset.smiles.push_back(std::move(smiles[row]));
    dataset.lines.push_back(line);
    dataset.molecules.push_back(std::move(*parsed[row].graph));
  }
  dataset.targets = target_matrix(targets, dataset.molecules.size(), target_columns.size());
  return dataset;
}

MoleculeDataset molecules_from_sdf(RDKit::SDMolSupplier& supplier, const std::string& source,
                                   const std::vector<std::string>& target_properties,
                                   InvalidMoleculePolicy invalid_molecules, const FeaturizerSpec& featurizer) {
  MoleculeDataset dataset;
  dataset.tasks = target_properties;
  std::vector<std::unique_ptr<RDKit::ROMol>> molecules;
  std::vector<float> targets;
  std::size_t line = 1;  // where the current record starts
  const unsigned int records = supplier.length();
  if (records == 0)
    throw ParseError(source, 1, "", "no SD records (an SD file holds molecule blocks ending in '$$$$')");
  for (unsigned int record = 0; record < records; ++record) {
    const std::string text = supplier.getItemText(record);
    std::unique_ptr<RDKit::ROMol> molecule(supplier[record]);
    const std::string problem = record_problem(molecule.get(), text);
    if (!problem.empty()) {
      if (invalid_molecules == InvalidMoleculePolicy::fail) {
        throw ParseError(source, line, "", "SD record " + std::to_string(record + 1) + " cannot be read: " + problem);
      }
      dataset.skipped.push_back({line, "", problem});
    } else {
      for (const std::string& name : target_properties) {
        const FieldContext context{source, line, name};
        targets.push_back(property_value(*molecule, name, context));
      }
      dataset.smiles.push_back(RDKit::MolToSmiles(*molecule));
      dataset.lines.push_back(line);
      molecules.push_back(std::move(molecule));
    }
    line += static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  }
  dataset.molecules = featurize_molecules(molecules, featurizer);
  dataset.targets = target_matrix(targets, molecules.size(), target_properties.size());
  return dataset;
}

}  // namespace

MoleculeDataset load_molecule_csv(const std::string& path, const MoleculeCsvOptions& options) {
  return molecules_from_table(read_csv(path, csv_options(options)), options);
}

MoleculeDataset parse_molecule_csv(std::string_view text, std::string source, const MoleculeCsvOptions& options) {
  return molecules_from_table(parse_csv(text, std::move(source), csv_options(options)), options);
}

MoleculeDataset load_molecule_sdf(const std::string& path, const std::vector<std::string>& target_properties,
                                  InvalidMoleculePolicy invalid_molecules, const FeaturizerSpec& featurizer) {
  const std::unique_ptr<RDKit::SDMolSupplier> supplier = open_sdf(path);
  return molecules_from_sdf(*supplier, path, target_properties, invalid_molecules, featurizer);
}

MoleculeDataset parse_molecule_sdf(const std::string& text, const std::string& source,
                                   const std::vector<std::string>& target_properties,
                                   InvalidMoleculePolicy invalid_molecules, const FeaturizerSpec& featurizer) {
  RDKit::SDMolSupplier supplier;
  supplier.setData(text);
  return molecules_from_sdf(supplier, source, target_properties, invalid_molecules, featurizer);
}

MoleculeDataset molecules_from_smiles(const std::vector<std::string>& smiles, const Matrix<float>& targets,
                                      std::vector<std::string> tasks, InvalidMoleculePolicy invalid_molecules,
                                      const FeaturizerSpec& featurizer) {
  check_in_memory_targets(smiles.size(), targets, tasks.size());
  std::vector<std::string> trimmed(smiles.size());
  std::transform(smiles.begin(), smiles.end(), trimmed.begin(),
                 [](const std::string& text) { return std::string(trim_whitespace(text)); });
  std::vector<ParsedMolecule> parsed = featurize_smiles(trimmed, featurizer);

  MoleculeDataset dataset;
  dataset.tasks = std::move(tasks);
  std::vector<Index> kept;
  for (std::size_t i = 0; i < trimmed.size(); ++i) {
    const std::size_t position = i + 1;
    if (!parsed[i].graph) {
      if (invalid_molecules == InvalidMoleculePolicy::fail)
        throw ParseError(kSmilesListSource, position, trimmed[i], "invalid SMILES: " + parsed[i].error);
      dataset.skipped.push_back({position, trimmed[i], parsed[i].error});
      continue;
    }
    kept.push_back(static_cast<Index>(i));
    dataset.smiles.push_back(std::move(trimmed[i]));
    dataset.lines.push_back(position);
    dataset.molecules.push_back(std::move(*parsed[i].graph));
  }
  dataset.targets.resize(static_cast<Index>(kept.size()), static_cast<Index>(dataset.tasks.size()));
  for (std::size_t row = 0; row < kept.size() && !dataset.tasks.empty(); ++row)
    dataset.targets.row(static_cast<Index>(row)) = targets.row(kept[row]);
  return dataset;
}

void write_skipped(const std::string& path, const MoleculeDataset& dataset, Overwrite overwrite) {
  std::string text = "line,smiles,reason\n";
  for (const SkippedMolecule& skipped : dataset.skipped)
    text += std::to_string(skipped.line) + ',' + csv_field(skipped.smiles) + ',' + csv_field(skipped.reason) + '\n';
  write_file_atomically(path, text, overwrite);
}

}  // namespace edgewise

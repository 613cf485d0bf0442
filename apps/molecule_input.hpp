// How the molecule commands read their data: a CSV (or SDF) file, its SMILES and target columns, and
// what to do with molecules RDKit cannot read. Shared by `train`, `eval` and `predict`.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "edgewise/chem/molecule_dataset.hpp"
#include "edgewise/chem/scaffold.hpp"
#include "edgewise/models/molecule_predictor_training.hpp"
#include "edgewise/tasks/molecule/molecule_training.hpp"

namespace edgewise::cli {

struct MoleculeInput {
  std::string data;
  std::string smiles_column;  // name, or a 0-based index with --no-header; empty: the first column
  std::string targets;        // comma-separated names (or indices); empty: see load_molecules
  std::string target_names;   // comma-separated names for the targets of a file without a header
  bool no_header = false;
  std::string comment;
  bool skip_invalid = false;
  std::string skipped_list;   // where --skip-invalid writes the rows it dropped
  Index max_atoms = kDefaultMaxAtoms;  // --max-atoms; 0: no limit
  bool force = false;         // the command's --force: replace an existing skipped list
  bool list_skipped = true;   // false: report skipped molecules on the log only (a second read)
  bool share_among_processes = false;  // under mpirun, each process featurizes a share (MoleculeCsvOptions)
};

// Registers --data, --smiles-column, --no-header, --comment, --skip-invalid, --skipped-list,
// --max-atoms and, if `targets_help` is not empty, --targets.
void add_molecule_input_options(CLI::App& command, MoleculeInput& input, const std::string& targets_help);

// The CSV reader's column choice for this input; default_targets apply when --targets is empty.
CsvColumn smiles_column(const MoleculeInput& input);
std::vector<CsvColumn> target_columns(const MoleculeInput& input, const std::vector<std::string>& default_targets);

// Warns on `log` when a cell of the header of the CSV --data reads as a number: the file likely has no
// header, and its first row would be taken for the column names.
void warn_of_numeric_header(const MoleculeInput& input, std::ostream& log);

// Called while `error`, from reading --data, is being handled: throws Error with a hint added where
// the likely cause is known ('#' comment lines without --comment, a header read as a row with
// --no-header, a molecule RDKit cannot read without --skip-invalid); else rethrows `error`.
[[noreturn]] void rethrow_with_hint(const MoleculeInput& input, const ParseError& error);

// read(), whose ParseError gets rethrow_with_hint's hint.
template <typename Read>
auto with_input_hints(const MoleculeInput& input, Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const ParseError& error) {
    rethrow_with_hint(input, error);
  }
}

// Loads --data (CSV, or SDF when the name ends in .sdf) and reports skipped molecules on `log`,
// warning of a numeric header and adding hints to its errors (with_input_hints). Without --targets
// and default_targets, a CSV with a header uses every column but the SMILES one.
MoleculeDataset load_molecules(const MoleculeInput& input, const std::vector<std::string>& default_targets,
                               const FeaturizerSpec& featurizer, std::ostream& log);

// Prints one row per task and, with several tasks, a mean row.
void print_metrics(std::ostream& out, const std::vector<std::string>& tasks, const MoleculeMetrics& metrics);
// The same table for uncertainty scores: NLL, miscalibration area, ENCE, Spearman(sigma, |error|),
// interval coverage and mean interval width, a row per task.
void print_uncertainty(std::ostream& out, const std::vector<std::string>& tasks,
                       const std::vector<UncertaintyScores>& scores);

}  // namespace edgewise::cli

/// \file
/// Molecule property datasets: a CSV table of SMILES and targets (MoleculeNet / Chemprop files), or an
/// SDF file with targets in its data fields, read into featurized graphs and a target matrix.
///
///   MoleculeCsvOptions options;
///   options.smiles_column = "smiles";
///   options.target_columns = {"p_np"};
///   options.invalid_molecules = InvalidMoleculePolicy::skip;
///   MoleculeDataset data = load_molecule_csv("bbbp.csv", options);
///   write_skipped("bbbp_skipped.csv", data);
///
///   MoleculeDataset mine = molecules_from_smiles({"CCO", "c1ccccc1"}, targets, {"logS"});
///
/// Molecules are parsed and featurized in parallel; the dataset keeps the file's order and does not
/// depend on the thread count.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "edgewise/core/tensor.hpp"
#include "edgewise/chem/molecule.hpp"
#include "edgewise/chem/molecule_stream.hpp"
#include "edgewise/splits/splits.hpp"

namespace edgewise {

/// What to do with a molecule RDKit cannot read. fail: throw InvalidMoleculeError naming the file, the
/// line, the input and RDKit's reason. skip: leave it out and record it in MoleculeDataset::skipped.
enum class InvalidMoleculePolicy { fail, skip };

/// What InvalidMoleculePolicy::fail throws: text() is the SMILES (empty for an SD record), reason()
/// says why RDKit cannot read it.
class InvalidMoleculeError : public ParseError {
 public:
  using ParseError::ParseError;
};

/// A CSV column, by 0-based index or by its name in the header.
using CsvColumn = std::variant<Index, std::string>;

/// The featurized rows first .. last - 1 of a table.
using RowFeaturizer = std::function<std::vector<FeaturizedMolecule>(std::size_t first, std::size_t last)>;

/// How load_molecule_csv reads a table of SMILES and targets.
struct MoleculeCsvOptions {
  CsvColumn smiles_column = Index{0};  ///< The SMILES column; the first by default.
  std::vector<CsvColumn> target_columns;  ///< none: molecules without targets, for prediction
  bool has_header = true;                 ///< false: columns are selected by index only
  std::string comment_prefix;             ///< lines starting with it are skipped; empty: none
  InvalidMoleculePolicy invalid_molecules = InvalidMoleculePolicy::fail;  ///< Fail on the first unreadable SMILES, or skip and record it.
  FeaturizerSpec featurizer;  ///< How the molecules are featurized.
  Index max_atoms = kDefaultMaxAtoms;  ///< A molecule with more atoms is invalid (see SmilesOptions).
  /// The rows [0, n) that a RowFeaturizer gives, as the processes of a run share them (under mpirun,
  /// distributed::featurize_shared: each process featurizes a share of the rows and receives the
  /// others', so every process gets the whole dataset, as one process would read it; every process
  /// must then read the same table with the same options). Empty: this process featurizes every row.
  std::function<std::vector<FeaturizedMolecule>(std::size_t n, const RowFeaturizer&)> share_among_processes;
};

/// A molecule left out by InvalidMoleculePolicy::skip.
struct SkippedMolecule {
  std::size_t line = 0;  ///< 1-based line where its row or SDF record starts
  std::size_t row = 0;   ///< its 0-based data row (SDF record, list position), as split files count
  std::string smiles;    ///< as written, trimmed; empty for an SDF record
  std::string reason;    ///< RDKit's
};

/// Molecules in file order, minus the skipped ones. All vectors have one entry per molecule.
struct MoleculeDataset {
  std::vector<std::string> tasks;        ///< target column (or SDF property) names; "column <i>" without a header
  std::vector<std::string> smiles;       ///< trimmed; for SDF, RDKit's canonical SMILES of the record
  std::vector<std::size_t> lines;        ///< 1-based line where each molecule's row or record starts
  /// Each molecule's 0-based data row: its row among the CSV's data rows (header, comments and blank
  /// lines not counted), its SDF record, its position in a SMILES list. Split files list these.
  std::vector<std::size_t> rows;
  std::vector<MoleculeGraph> molecules;  ///< featurized with the options' FeaturizerSpec
  Matrix<float> targets;                 ///< [molecules, tasks]; NaN where a label is missing
  std::vector<SkippedMolecule> skipped;  ///< in file order
  std::size_t source_rows = 0;           ///< data rows the source holds, skipped ones included

  /// The number of molecules read.
  Index size() const { return static_cast<Index>(molecules.size()); }
};

/// Reads a CSV file (RFC 4180 quoting, LF or CRLF, blank lines ignored). An empty target cell is a
/// missing label (NaN); any other cell that is not a finite number throws ParseError naming the file,
/// line, column and value. Throws ArgumentError for a column that does not exist, and Error when the
/// file cannot be read.
MoleculeDataset load_molecule_csv(const std::string& path, const MoleculeCsvOptions& options = {});
/// The same for CSV text already in memory; `source` names it in errors.
MoleculeDataset parse_molecule_csv(std::string_view text, std::string source, const MoleculeCsvOptions& options = {});

/// The columns a molecule table with a header is read by when they are not named.
struct MoleculeColumns {
  CsvColumn smiles;                  ///< the column named smiles, in any case, else the first (index 0)
  std::vector<std::string> targets;  ///< every other column, by header name
};

/// The default columns of the CSV file `path`, from its header alone (lines starting with
/// comment_prefix skipped); with `smiles` named, that column and every other as targets. Throws
/// ArgumentError when `smiles` names no column, and what CsvReader throws.
MoleculeColumns default_molecule_columns(const std::string& path, const std::string& comment_prefix = {},
                                         const std::string& smiles = {});

/// Whether `path` names an SD file by its extension (.sdf, .SDF or .sd); the readers of molecule
/// files take other files for CSV tables.
bool is_sdf_path(const std::string& path);

/// Reads an SD file with RDKit's SDMolSupplier (sanitized, hydrogens removed). Targets come from the
/// records' data fields named in target_properties: an absent field is a missing label (NaN), a field
/// that is not a finite number throws ParseError. A record RDKit cannot read is handled by the policy,
/// reported at the line where the record starts.
MoleculeDataset load_molecule_sdf(const std::string& path, const std::vector<std::string>& target_properties,
                                  InvalidMoleculePolicy invalid_molecules = InvalidMoleculePolicy::fail,
                                  const FeaturizerSpec& featurizer = {}, Index max_atoms = kDefaultMaxAtoms);
/// The same for SD text already in memory; `source` names it in errors.
MoleculeDataset parse_molecule_sdf(const std::string& text, const std::string& source,
                                   const std::vector<std::string>& target_properties,
                                   InvalidMoleculePolicy invalid_molecules = InvalidMoleculePolicy::fail,
                                   const FeaturizerSpec& featurizer = {}, Index max_atoms = kDefaultMaxAtoms);

/// Molecules held in memory rather than in a file: smiles[i] with row i of `targets` ([smiles, tasks]
/// in original units, NaN for a missing label; with no tasks, an empty matrix will do), parsed and
/// featurized as load_molecule_csv does. The dataset's `lines` are 1-based positions in `smiles`, and
/// with InvalidMoleculePolicy::fail an invalid SMILES throws ParseError naming "SMILES list", that
/// position, the SMILES and RDKit's reason. Throws ArgumentError when the shapes disagree or a target
/// is infinite. Like every reader here, it calls poll_interrupt() (core/interrupt.hpp) on the calling
/// thread between blocks of 1,024 molecules, so that a caller's check can stop a long read.
MoleculeDataset molecules_from_smiles(const std::vector<std::string>& smiles, const Matrix<float>& targets = {},
                                      std::vector<std::string> tasks = {},
                                      InvalidMoleculePolicy invalid_molecules = InvalidMoleculePolicy::fail,
                                      const FeaturizerSpec& featurizer = {}, Index max_atoms = kDefaultMaxAtoms);

/// A row of a split file whose molecule was skipped as invalid.
struct SkippedSplitRow {
  std::string part;          ///< "train", "val" or "test"
  SkippedMolecule molecule;  ///< the skipped row, its line and RDKit's reason
};

/// A split of the data rows (as split files list them, see MoleculeDataset::rows) as positions among
/// the dataset's molecules. Rows whose molecules were skipped are left out and, when `skipped` is
/// given, listed there in part order. Throws ArgumentError for a row at or beyond source_rows, in the
/// split or in the dataset (one assembled by hand without source_rows).
Split molecule_split(const Split& rows, const MoleculeDataset& dataset, std::vector<SkippedSplitRow>* skipped = nullptr);
/// The inverse: a split of molecule positions as data rows, as write_split_directory should write it.
Split row_split(const Split& molecules, const MoleculeDataset& dataset);

/// Writes the dataset's skipped molecules as CSV with the header "line,row,smiles,reason", quoting fields
/// as RFC 4180 requires, atomically (see AtomicFile). Throws Error when the file cannot be written.
void write_skipped(const std::string& path, const MoleculeDataset& dataset, Overwrite overwrite = Overwrite::allow);

}  // namespace edgewise

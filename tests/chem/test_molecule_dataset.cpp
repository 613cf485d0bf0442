// Molecule datasets from CSV and SD files: targets, missing labels, the invalid-molecule policies and
// their reports, on small files written here and on the shared MoleculeNet tables.
#include "edgewise/chem/molecule_dataset.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/interrupt.hpp"
#include "edgewise/io/csv.hpp"
#include "support/shared_data.hpp"
#include "support/thrown.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;
using testing::argument_error_of;
using testing::dataset_csv;
using testing::missing_data_reason;
using testing::thrown_by;

std::size_t missing_labels(const MoleculeDataset& data, Index task) {
  return static_cast<std::size_t>(data.targets.col(task).array().isNaN().count());
}

class MoleculeFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("edgewise_molecule_dataset_" + std::to_string(::getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string write(const std::string& name, const std::string& text) const {
    const fs::path path = folder_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  std::string contents(const std::string& path) const {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path folder_;
};

MoleculeCsvOptions logs_options() {
  MoleculeCsvOptions options;
  options.smiles_column = "smiles";
  options.target_columns = {"logS"};
  return options;
}

TEST_F(MoleculeFileTest, CsvWithQuotedCommasCrlfBlankLinesTrailingSpacesAndMissingLabels) {
  const std::string path = write("small.csv",
                                 "name,smiles,logS,note\r\n"
                                 "\"ethanol, absolute\",CCO ,-0.77,a\r\n"
                                 "\r\n"
                                 "benzene,c1ccccc1,,b\r\n"
                                 "\n"
                                 "\"water \"\"pure\"\"\", O\t,1.5,\"c,d\"\r\n");
  const MoleculeDataset data = load_molecule_csv(path, logs_options());
  ASSERT_EQ(data.size(), 3);
  EXPECT_EQ(data.tasks, (std::vector<std::string>{"logS"}));
  EXPECT_EQ(data.smiles, (std::vector<std::string>{"CCO", "c1ccccc1", "O"}));
  EXPECT_EQ(data.lines, (std::vector<std::size_t>{2, 4, 6}));
  ASSERT_EQ(data.targets.rows(), 3);
  ASSERT_EQ(data.targets.cols(), 1);
  EXPECT_FLOAT_EQ(data.targets(0, 0), -0.77f);
  EXPECT_TRUE(std::isnan(data.targets(1, 0)));
  EXPECT_FLOAT_EQ(data.targets(2, 0), 1.5f);
  EXPECT_EQ(data.molecules[0].node_features.rows(), 3);  // ethanol's heavy atoms
  EXPECT_TRUE(data.skipped.empty());
}

TEST_F(MoleculeFileTest, SeveralTargetsByNameAndIndex) {
  const std::string path = write("two.csv", "smiles,a,b\nC,1,2\nN,,4\n");
  MoleculeCsvOptions options;
  options.target_columns = {"b", Index{1}};
  const MoleculeDataset data = load_molecule_csv(path, options);
  EXPECT_EQ(data.tasks, (std::vector<std::string>{"b", "a"}));
  ASSERT_EQ(data.targets.cols(), 2);
  EXPECT_EQ(data.targets(0, 0), 2.0f);
  EXPECT_EQ(data.targets(0, 1), 1.0f);
  EXPECT_EQ(data.targets(1, 0), 4.0f);
  EXPECT_TRUE(std::isnan(data.targets(1, 1)));
}

TEST_F(MoleculeFileTest, WithoutTargetsForPrediction) {
  const MoleculeDataset data = load_molecule_csv(write("p.csv", "smiles\nC\nCC\n"));
  EXPECT_EQ(data.size(), 2);
  EXPECT_TRUE(data.tasks.empty());
  EXPECT_EQ(data.targets.rows(), 2);
  EXPECT_EQ(data.targets.cols(), 0);
}

TEST_F(MoleculeFileTest, NonNumericTargetNamesLineColumnAndValue) {
  const std::string path = write("bad.csv", "smiles,logS\nCCO,1\n\nCCN,n/a\n");
  const auto error = thrown_by<ParseError>([&] { load_molecule_csv(path, logs_options()); });
  EXPECT_EQ(error.file(), path);
  EXPECT_EQ(error.line(), 4u);
  EXPECT_EQ(error.text(), "n/a");
  EXPECT_NE(error.reason().find("column 'logS'"), std::string::npos) << error.what();
}

TEST_F(MoleculeFileTest, TextInMemoryReadsAsTheFileWould) {
  const std::string text = "smiles,logS\nCCO,1\n\nc1ccccc1,-2.5\n";
  const MoleculeDataset from_file = load_molecule_csv(write("m.csv", text), logs_options());
  const MoleculeDataset from_text = parse_molecule_csv(text, "m.csv", logs_options());
  EXPECT_EQ(from_text.smiles, from_file.smiles);
  EXPECT_EQ(from_text.lines, (std::vector<std::size_t>{2, 4}));
  EXPECT_EQ(from_text.targets, from_file.targets);

  const auto error = thrown_by<ParseError>([&] { parse_molecule_csv("smiles,logS\nCCO,x\n", "memory", logs_options()); });
  EXPECT_EQ(error.file(), "memory");
  EXPECT_EQ(error.line(), 2u);
}

TEST_F(MoleculeFileTest, TargetBeyondFloatRangeIsRejected) {
  const std::string path = write("big.csv", "smiles,logS\nCCO,1e300\n");
  const auto error = thrown_by<ParseError>([&] { load_molecule_csv(path, logs_options()); });
  EXPECT_EQ(error.line(), 2u);
  EXPECT_NE(error.reason().find("out of range"), std::string::npos) << error.what();
}

TEST_F(MoleculeFileTest, UnknownColumnsAreArgumentErrors) {
  const std::string path = write("c.csv", "smiles,logS\nC,1\n");
  MoleculeCsvOptions options = logs_options();
  options.target_columns = {"solubility"};
  const std::string message = argument_error_of([&] { load_molecule_csv(path, options); });
  EXPECT_NE(message.find("'solubility'"), std::string::npos) << message;
  EXPECT_NE(message.find(path), std::string::npos) << message;

  options = logs_options();
  options.smiles_column = "SMILES";
  EXPECT_THROW(load_molecule_csv(path, options), ArgumentError);
  options.smiles_column = Index{2};
  EXPECT_THROW(load_molecule_csv(path, options), ArgumentError);
  options.smiles_column = Index{-1};
  EXPECT_THROW(load_molecule_csv(path, options), ArgumentError);
}

// Featurization polls the caller's interrupt check between windows of molecules: a check that
// throws on its second poll stops the reading after the first window, with its exception.
TEST(MoleculeListTest, AnInterruptCheckStopsFeaturizingBetweenWindows) {
  const std::vector<std::string> smiles(5000, "c1ccccc1O");
  int polls = 0;
  const InterruptCheck stop_on_second([&] {
    if (++polls == 2) throw std::runtime_error("interrupted");
  });
  EXPECT_THROW(molecules_from_smiles(smiles), std::runtime_error);
  EXPECT_EQ(polls, 2);
}

TEST_F(MoleculeFileTest, MissingFileIsAnError) {
  EXPECT_THROW(load_molecule_csv((folder_ / "absent.csv").string()), Error);
}

TEST_F(MoleculeFileTest, InvalidSmilesFailsByDefaultNamingFileLineAndSmiles) {
  const std::string path = write("inv.csv", "smiles,logS\nCCO,1\nC1CC(,2\n");
  const auto error = thrown_by<InvalidMoleculeError>([&] { load_molecule_csv(path, logs_options()); });
  EXPECT_EQ(error.file(), path);
  EXPECT_EQ(error.line(), 3u);
  EXPECT_EQ(error.text(), "C1CC(");
  EXPECT_NE(error.reason().find("invalid SMILES"), std::string::npos) << error.what();
}

TEST_F(MoleculeFileTest, SkipPolicyReportsEveryOutcome) {
  const std::string path = write("inv.csv",
                                 "smiles,logS\n"
                                 "CCO,1\n"
                                 "C1CC(,2\n"          // syntax
                                 "CN(C)(C)(C)C,3\n"   // valence
                                 "c1cccc1,4\n"        // kekulization
                                 " ,5\n"              // empty
                                 "[Na+].[Cl-],6\n");  // a salt is valid
  MoleculeCsvOptions options = logs_options();
  options.invalid_molecules = InvalidMoleculePolicy::skip;
  const MoleculeDataset data = load_molecule_csv(path, options);
  EXPECT_EQ(data.smiles, (std::vector<std::string>{"CCO", "[Na+].[Cl-]"}));
  EXPECT_EQ(data.lines, (std::vector<std::size_t>{2, 7}));
  EXPECT_EQ(data.targets(1, 0), 6.0f);
  ASSERT_EQ(data.skipped.size(), 4u);
  EXPECT_EQ(data.skipped[0].line, 3u);
  EXPECT_EQ(data.skipped[0].smiles, "C1CC(");
  EXPECT_NE(data.skipped[1].reason.find("valence"), std::string::npos) << data.skipped[1].reason;
  EXPECT_NE(data.skipped[2].reason.find("kekulize"), std::string::npos) << data.skipped[2].reason;
  EXPECT_EQ(data.skipped[3].smiles, "");
  EXPECT_EQ(data.skipped[3].reason, "empty SMILES");
}

TEST_F(MoleculeFileTest, WriteSkippedQuotesAsRfc4180Requires) {
  MoleculeDataset data;
  data.skipped = {{3, 1, "C1CC(", "plain reason"},
                  {7, 5, "C,C", "a \"quoted\" word, and a comma"},
                  {9, 6, "", "two\nlines"}};
  const std::string path = (folder_ / "skipped.csv").string();
  write_skipped(path, data);
  EXPECT_EQ(contents(path),
            "line,row,smiles,reason\n"
            "3,1,C1CC(,plain reason\n"
            "7,5,\"C,C\",\"a \"\"quoted\"\" word, and a comma\"\n"
            "9,6,,\"two\nlines\"\n");
  const CsvTable table = read_csv(path);
  ASSERT_EQ(table.num_rows(), 3u);
  EXPECT_EQ(table.rows[1][2], "C,C");
  EXPECT_EQ(table.rows[1][3], "a \"quoted\" word, and a comma");
  EXPECT_EQ(table.rows[2][3], "two\nlines");
}

TEST_F(MoleculeFileTest, WriteSkippedToAnUnwritablePathIsAnError) {
  EXPECT_THROW(write_skipped((folder_ / "no" / "such" / "folder.csv").string(), MoleculeDataset{}), Error);
}

// SD records as RDKit writes them; the data field logS holds the target.
std::string ethanol_record(const std::string& fields) {
  return "ethanol\n"
         "     RDKit          2D\n"
         "\n"
         "  3  2  0  0  0  0  0  0  0  0999 V2000\n"
         "    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
         "    1.2990    0.7500    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
         "    2.5981   -0.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0\n"
         "  1  2  1  0\n"
         "  2  3  1  0\n"
         "M  END\n" +
         fields + "$$$$\n";
}

// A carbon with five bonds: RDKit reads the block but sanitization fails.
std::string pentavalent_carbon_record() {
  std::string record =
      "bad\n"
      "     RDKit          2D\n"
      "\n"
      "  6  5  0  0  0  0  0  0  0  0999 V2000\n"
      "    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n";
  for (int i = 0; i < 5; ++i) record += "    1.0000    0.0000    0.0000 Cl  0  0  0  0  0  0  0  0  0  0  0  0\n";
  for (int i = 2; i <= 6; ++i) record += "  1  " + std::to_string(i) + "  1  0\n";
  return record + "M  END\n>  <logS>\n2.0\n\n$$$$\n";
}

std::string benzene_record(const std::string& fields) {
  return "benzene\n"
         "     RDKit          2D\n"
         "\n"
         "  6  6  0  0  0  0  0  0  0  0999 V2000\n"
         "    1.5000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
         "    0.7500   -1.2990    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
         "   -0.7500   -1.2990    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
         "   -1.5000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
         "   -0.7500    1.2990    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
         "    0.7500    1.2990    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
         "  1  2  2  0\n"
         "  2  3  1  0\n"
         "  3  4  2  0\n"
         "  4  5  1  0\n"
         "  5  6  2  0\n"
         "  6  1  1  0\n"
         "M  END\n" +
         fields + "$$$$\n";
}

constexpr std::size_t ethanol_lines = 14;  // with one data field: its name, value and blank line
constexpr std::size_t bad_lines = 20;

class SdfTest : public MoleculeFileTest {
 protected:
  std::string three_records() const {
    return write("three.sdf", ethanol_record(">  <logS>\n-0.77\n\n") + pentavalent_carbon_record() +
                                  benzene_record(">  <logS>\n-1.64\n\n>  <name>\nbenzene\n\n"));
  }
};

TEST_F(SdfTest, SkipPolicyKeepsReadableRecordsAndTheirTargets) {
  const MoleculeDataset data = load_molecule_sdf(three_records(), {"logS"}, InvalidMoleculePolicy::skip);
  EXPECT_EQ(data.tasks, (std::vector<std::string>{"logS"}));
  EXPECT_EQ(data.smiles, (std::vector<std::string>{"CCO", "c1ccccc1"}));
  EXPECT_EQ(data.lines, (std::vector<std::size_t>{1, 1 + ethanol_lines + bad_lines}));
  ASSERT_EQ(data.targets.rows(), 2);
  EXPECT_FLOAT_EQ(data.targets(0, 0), -0.77f);
  EXPECT_FLOAT_EQ(data.targets(1, 0), -1.64f);
  ASSERT_EQ(data.skipped.size(), 1u);
  EXPECT_EQ(data.skipped[0].line, 1 + ethanol_lines);
  EXPECT_EQ(data.skipped[0].smiles, "");
  EXPECT_NE(data.skipped[0].reason.find("valence"), std::string::npos) << data.skipped[0].reason;
}

TEST_F(SdfTest, FailPolicyNamesTheRecordsLine) {
  const std::string path = three_records();
  const auto error = thrown_by<InvalidMoleculeError>([&] { load_molecule_sdf(path, {"logS"}); });
  EXPECT_EQ(error.file(), path);
  EXPECT_EQ(error.line(), 1 + ethanol_lines);
  EXPECT_NE(error.reason().find("SD record 2"), std::string::npos) << error.what();
  EXPECT_NE(error.reason().find("valence"), std::string::npos) << error.what();
}

TEST_F(SdfTest, RdkitsWarningsOnRecordsItReadsGoToTheSinkWithTheirLine) {
  // A lone hydrogen atom: RDKit reads it and warns that it keeps the hydrogen.
  const std::string hydrogen =
      "hydrogen\n     RDKit          2D\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n"
      "    0.0000    0.0000    0.0000 H   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n>  <logS>\n1.0\n\n$$$$\n";
  const std::string path = write("hydrogen.sdf", ethanol_record(">  <logS>\n-0.77\n\n") + hydrogen);
  std::vector<std::string> lines;
  set_rdkit_warning_sink([&lines](std::string_view line) { lines.emplace_back(line); });
  ::testing::internal::CaptureStderr();
  const MoleculeDataset data = load_molecule_sdf(path, {"logS"});
  const std::string printed = ::testing::internal::GetCapturedStderr();
  set_rdkit_warning_sink({});
  EXPECT_EQ(printed, "");
  EXPECT_EQ(data.smiles.size(), 2u);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].starts_with("RDKit on " + path + " line " + std::to_string(1 + ethanol_lines) + ": "))
      << lines[0];
}

TEST_F(SdfTest, TextInMemoryReadsAsTheFileWould) {
  const std::string path = three_records();
  std::ifstream in(path, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const MoleculeDataset data = parse_molecule_sdf(text, "three.sdf", {"logS"}, InvalidMoleculePolicy::skip);
  EXPECT_EQ(data.smiles, (std::vector<std::string>{"CCO", "c1ccccc1"}));
  EXPECT_EQ(data.lines, (std::vector<std::size_t>{1, 1 + ethanol_lines + bad_lines}));
  EXPECT_FLOAT_EQ(data.targets(1, 0), -1.64f);
  const auto error = thrown_by<ParseError>([&] { parse_molecule_sdf(text, "three.sdf", {"logS"}); });
  EXPECT_EQ(error.file(), "three.sdf");
  EXPECT_EQ(error.line(), 1 + ethanol_lines);
}

TEST_F(SdfTest, AbsentFieldIsAMissingLabelAndTextIsAnError) {
  const std::string path = write("fields.sdf", ethanol_record("") + benzene_record(">  <logS>\n-1.64\n\n"));
  const MoleculeDataset data = load_molecule_sdf(path, {"logS"});
  ASSERT_EQ(data.size(), 2);
  EXPECT_TRUE(std::isnan(data.targets(0, 0)));
  EXPECT_FLOAT_EQ(data.targets(1, 0), -1.64f);

  const std::string bad =
      write("text.sdf", ethanol_record(">  <logS>\n-0.77\n\n") + benzene_record(">  <logS>\nlow\n\n"));
  const auto error = thrown_by<ParseError>([&] { load_molecule_sdf(bad, {"logS"}); });
  EXPECT_EQ(error.line(), 1 + ethanol_lines);
  EXPECT_EQ(error.text(), "low");
  EXPECT_NE(error.reason().find("logS"), std::string::npos) << error.what();
}

TEST_F(SdfTest, RecordWithoutAtomsIsNotAMolecule) {
  const std::string empty = "empty\n     RDKit          2D\n\n  0  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n$$$$\n";
  const std::string path = write("empty.sdf", ethanol_record("") + empty + benzene_record("") + "\n\n");
  const MoleculeDataset data = load_molecule_sdf(path, {}, InvalidMoleculePolicy::skip);
  EXPECT_EQ(data.smiles, (std::vector<std::string>{"CCO", "c1ccccc1"}));
  ASSERT_EQ(data.skipped.size(), 1u);
  EXPECT_EQ(data.skipped[0].line, 12u);
  EXPECT_EQ(data.skipped[0].reason, "molecule has no atoms");
  const auto error = thrown_by<ParseError>([&] { load_molecule_sdf(path, {}); });
  EXPECT_EQ(error.line(), 12u);
  EXPECT_NE(error.reason().find("molecule has no atoms"), std::string::npos) << error.what();
}

TEST_F(SdfTest, RecordsOverTheAtomLimitAreRefusedFromTheirCountsLine) {
  const MoleculeDataset data =
      parse_molecule_sdf(ethanol_record("") + benzene_record(""), "two.sdf", {}, InvalidMoleculePolicy::skip, {}, 5);
  EXPECT_EQ(data.smiles, (std::vector<std::string>{"CCO"}));
  EXPECT_EQ(data.rows, (std::vector<std::size_t>{0}));
  ASSERT_EQ(data.skipped.size(), 1u);
  EXPECT_EQ(data.skipped[0].row, 1u);
  EXPECT_EQ(data.skipped[0].reason, "molecule has 6 atoms, more than the limit of 5");
  // A V3000 record gives its count on "M  V30 COUNTS".
  const std::string v3000 =
      "v3000\n     RDKit          2D\n\n  0  0  0  0  0  0  0  0  0  0999 V3000\n"
      "M  V30 BEGIN CTAB\nM  V30 COUNTS 2000 0 0 0 0\nM  V30 END CTAB\nM  END\n$$$$\n";
  const MoleculeDataset big = parse_molecule_sdf(v3000, "big.sdf", {}, InvalidMoleculePolicy::skip);
  ASSERT_EQ(big.skipped.size(), 1u);
  EXPECT_EQ(big.skipped[0].reason, "molecule has 2000 atoms, more than the limit of 1000");
}

TEST_F(SdfTest, MissingFileIsAnError) {
  EXPECT_THROW(load_molecule_sdf((folder_ / "absent.sdf").string(), {}), Error);
}

TEST(MoleculeDatasets, BbbpSkipsTheMoleculesRdkitCannotRead) {
  const fs::path path = dataset_csv("bbbp");
  if (!fs::exists(path)) GTEST_SKIP() << missing_data_reason(path);
  MoleculeCsvOptions options;
  options.smiles_column = "smiles";
  options.target_columns = {"p_np"};
  options.invalid_molecules = InvalidMoleculePolicy::skip;
  const MoleculeDataset data = load_molecule_csv(path.string(), options);
  EXPECT_EQ(data.skipped.size(), 11u);  // all nitrogens RDKit finds with valence 4
  EXPECT_EQ(data.size() + static_cast<Index>(data.skipped.size()), 2050);
  EXPECT_EQ(missing_labels(data, 0), 0u);
  for (const SkippedMolecule& skipped : data.skipped) {
    EXPECT_GE(skipped.line, 2u);
    EXPECT_FALSE(skipped.smiles.empty());
    EXPECT_FALSE(skipped.reason.empty()) << skipped.line;
  }

  const fs::path report = fs::temp_directory_path() / ("edgewise_bbbp_skipped_" + std::to_string(::getpid()) + ".csv");
  write_skipped(report.string(), data);
  const CsvTable table = read_csv(report);
  fs::remove(report);
  EXPECT_EQ(table.header, (std::vector<std::string>{"line", "row", "smiles", "reason"}));
  ASSERT_EQ(table.num_rows(), data.skipped.size());
  for (std::size_t i = 0; i < table.num_rows(); ++i) {
    EXPECT_EQ(table.rows[i][0], std::to_string(data.skipped[i].line));
    EXPECT_EQ(table.rows[i][1], std::to_string(data.skipped[i].row));
    EXPECT_EQ(table.rows[i][2], data.skipped[i].smiles);
    EXPECT_EQ(table.rows[i][3], data.skipped[i].reason);
  }
  // BBBP has neither comments nor blank lines: a data row is two lines below the header's.
  for (const SkippedMolecule& skipped : data.skipped) EXPECT_EQ(skipped.row, skipped.line - 2);
  for (std::size_t m = 0; m < data.rows.size(); ++m) EXPECT_EQ(data.rows[m], data.lines[m] - 2);
  EXPECT_EQ(data.source_rows, 2050u);
}

TEST(MoleculeDatasets, BbbpFailsAtTheFirstInvalidMolecule) {
  const fs::path path = dataset_csv("bbbp");
  if (!fs::exists(path)) GTEST_SKIP() << missing_data_reason(path);
  MoleculeCsvOptions options;
  options.smiles_column = "smiles";
  options.target_columns = {"p_np"};
  const auto error = thrown_by<ParseError>([&] { load_molecule_csv(path.string(), options); });
  EXPECT_EQ(error.file(), path.string());
  EXPECT_EQ(error.line(), 61u);
  options.invalid_molecules = InvalidMoleculePolicy::skip;
  const SkippedMolecule first = load_molecule_csv(path.string(), options).skipped.at(0);
  EXPECT_EQ(error.line(), first.line);
  EXPECT_EQ(error.text(), first.smiles);
  const std::string message = error.what();
  EXPECT_NE(message.find(path.string() + ":" + std::to_string(first.line) + ":"), std::string::npos) << message;
  EXPECT_NE(message.find(first.smiles), std::string::npos) << message;
}

TEST(MoleculeDatasets, EsolLoadsEveryMolecule) {
  const fs::path path = dataset_csv("esol");
  if (!fs::exists(path)) GTEST_SKIP() << missing_data_reason(path);
  MoleculeCsvOptions options;
  options.smiles_column = "smiles";
  options.target_columns = {"measured log solubility in mols per litre"};
  const MoleculeDataset data = load_molecule_csv(path.string(), options);
  EXPECT_EQ(data.size(), 1128);
  EXPECT_EQ(missing_labels(data, 0), 0u);
  for (const std::string& smiles : data.smiles) EXPECT_FALSE(smiles.ends_with(' ')) << smiles;
}

TEST(MoleculeDatasets, Tox21HasTwelveTasksWithMissingLabels) {
  const fs::path path = dataset_csv("tox21");
  if (!fs::exists(path)) GTEST_SKIP() << missing_data_reason(path);
  MoleculeCsvOptions options;
  options.smiles_column = "smiles";
  for (Index task = 0; task < 12; ++task) options.target_columns.push_back(task);
  const MoleculeDataset data = load_molecule_csv(path.string(), options);
  EXPECT_EQ(data.size(), 7831);
  ASSERT_EQ(data.tasks.size(), 12u);
  EXPECT_EQ(data.tasks.front(), "NR-AR");
  EXPECT_EQ(data.tasks.back(), "SR-p53");
  for (Index task = 0; task < 12; ++task) {
    EXPECT_GT(missing_labels(data, task), 0u) << data.tasks[static_cast<std::size_t>(task)];
  }
  EXPECT_EQ(missing_labels(data, 0), 566u);
  EXPECT_EQ(missing_labels(data, 11), 1057u);
}

TEST(MoleculeDatasets, RdkitTpsaTableWithoutHeader) {
  const fs::path path = "/usr/share/RDKit/Data/NCI/first_5k.tpsa.csv";
  if (!fs::exists(path)) GTEST_SKIP() << path << " not found: install the rdkit-data package";
  MoleculeCsvOptions options;
  options.has_header = false;
  options.comment_prefix = "#";
  options.target_columns = {Index{1}};
  const auto error = thrown_by<ParseError>([&] { load_molecule_csv(path.string(), options); });
  EXPECT_EQ(error.line(), 1827u);

  // 4999 rows; RDKit rejects the valences of 6 of them (Sb, N, Al, C, O and Be).
  options.invalid_molecules = InvalidMoleculePolicy::skip;
  const MoleculeDataset data = load_molecule_csv(path.string(), options);
  EXPECT_EQ(data.size(), 4993);
  ASSERT_EQ(data.skipped.size(), 6u);
  for (const SkippedMolecule& skipped : data.skipped) {
    EXPECT_NE(skipped.reason.find("valence"), std::string::npos) << skipped.line << ": " << skipped.reason;
  }
  EXPECT_EQ(data.tasks, (std::vector<std::string>{"column 1"}));
  EXPECT_EQ(data.smiles.front(), "CC1=CC(=O)C=CC1=O");
  EXPECT_EQ(data.lines.front(), 2u);
  EXPECT_FLOAT_EQ(data.targets(0, 0), 34.14f);
  EXPECT_EQ(missing_labels(data, 0), 0u);
}

// Twelve rows, the second of each group of four unreadable: split files of data rows must reach the
// molecules of those rows, not the molecules at those positions among the readable ones.
MoleculeDataset twelve_rows_three_invalid() {
  std::vector<std::string> smiles;
  for (int row = 0; row < 12; ++row) smiles.push_back(row % 4 == 1 ? "C1CC(" : std::string(static_cast<std::size_t>(row + 1), 'C'));
  return molecules_from_smiles(smiles, {}, {}, InvalidMoleculePolicy::skip);
}

TEST(MoleculeSplits, SplitRowsAreDataRowsAndSkippedOnesAreReported) {
  const MoleculeDataset data = twelve_rows_three_invalid();
  ASSERT_EQ(data.size(), 9);
  ASSERT_EQ(data.source_rows, 12u);
  const Split rows{{0, 1, 2, 3}, {4, 5, 6, 7}, {11, 10, 9, 8}};
  std::vector<SkippedSplitRow> skipped;
  const Split molecules = molecule_split(rows, data, &skipped);
  EXPECT_EQ(molecules.train, (std::vector<Index>{0, 1, 2}));  // rows 0, 2, 3
  EXPECT_EQ(molecules.val, (std::vector<Index>{3, 4, 5}));    // rows 4, 6, 7
  EXPECT_EQ(molecules.test, (std::vector<Index>{8, 7, 6}));   // rows 11, 10, 8
  EXPECT_EQ(data.smiles[8], std::string(12, 'C'));  // row 11's molecule
  ASSERT_EQ(skipped.size(), 3u);
  EXPECT_EQ(skipped[0].part, "train");
  EXPECT_EQ(skipped[0].molecule.row, 1u);
  EXPECT_EQ(skipped[1].part, "val");
  EXPECT_EQ(skipped[1].molecule.row, 5u);
  EXPECT_EQ(skipped[2].part, "test");
  EXPECT_EQ(skipped[2].molecule.row, 9u);
  EXPECT_NE(skipped[2].molecule.reason.find("SMILES Parse Error"), std::string::npos) << skipped[2].molecule.reason;

  const Split written = row_split(molecules, data);
  EXPECT_EQ(written.train, (std::vector<Index>{0, 2, 3}));
  EXPECT_EQ(written.val, (std::vector<Index>{4, 6, 7}));
  EXPECT_EQ(written.test, (std::vector<Index>{11, 10, 8}));
  EXPECT_NO_THROW(molecule_split(rows, data));  // the report is optional
}

TEST(MoleculeSplits, ARowBeyondTheDataIsRefused) {
  const MoleculeDataset data = twelve_rows_three_invalid();
  const std::string message = argument_error_of([&] { molecule_split({{12}, {}, {}}, data); });
  EXPECT_NE(message.find("split row 12 is out of range; the data has 12 rows"), std::string::npos) << message;
  MoleculeDataset without_source_rows = data;
  without_source_rows.source_rows = 0;
  EXPECT_THROW(molecule_split({{0}, {}, {}}, without_source_rows), ArgumentError);
}

}  // namespace
}  // namespace edgewise

// Every reader on the bad-input corpus (tests/data/bad/cases.json): each malformed file must raise
// the typed exception the manifest names, at the line it names, with a message that names the file
// and the problem; and every damaged model file must raise ModelFormatError naming the section.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/io/csv.hpp"
#include "edgewise/io/edge_list.hpp"
#include "edgewise/io/node_features.hpp"
#include "edgewise/io/node_labels.hpp"
#include "edgewise/chem/molecule_dataset.hpp"
#include "edgewise/tasks/molecule/molecule_model.hpp"
#include "edgewise/models/model_file.hpp"
#include "support/damaged_models.hpp"
#include "support/odd_molecules.hpp"
#include "support/untrained_model.hpp"

namespace {

namespace fs = std::filesystem;
using namespace edgewise;

const fs::path kCorpus = fs::path(EDGEWISE_SOURCE_DIR) / "tests" / "data" / "bad";

nlohmann::json manifest() { return nlohmann::json::parse(std::ifstream(kCorpus / "cases.json")); }

// Calls the reader a case names on `path`.
void read_with(const std::string& reader, const fs::path& path) {
  if (reader == "molecule_csv") {
    MoleculeCsvOptions options;
    options.smiles_column = std::string("smiles");
    options.target_columns = {std::string("y")};
    load_molecule_csv(path.string(), options);
  } else if (reader == "molecule_sdf") {
    load_molecule_sdf(path.string(), {"y"});
  } else if (reader == "edge_list") {
    read_edge_list(path);
  } else if (reader == "labels") {
    EdgeList edges = read_edge_list(kCorpus / "edges_good.txt");
    read_node_labels(path, edges.nodes);
  } else if (reader.starts_with("features_")) {
    EdgeList edges = read_edge_list(kCorpus / "edges_good.txt");
    read_node_features(path, edges.nodes, {.format = feature_format_from_name(reader.substr(9))});
  } else {
    FAIL() << "unknown reader " << reader;
  }
}

// The message of the exception `call` throws if it is of the expected type; a test failure otherwise.
std::string message_of(const std::string& type, const std::function<void()>& call, std::size_t expected_line) {
  try {
    call();
  } catch (const ParseError& e) {
    EXPECT_EQ(type, "ParseError") << e.what();
    EXPECT_EQ(e.line(), expected_line) << e.what();
    return e.what();
  } catch (const ArgumentError& e) {
    EXPECT_EQ(type, "ArgumentError") << e.what();
    return e.what();
  } catch (const ModelFormatError& e) {
    EXPECT_EQ(type, "ModelFormatError") << e.what();
    return e.what();
  } catch (const Error& e) {
    EXPECT_EQ(type, "Error") << e.what();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "untyped exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception";
  return "";
}

TEST(BadInputs, TheCorpusHasAtLeastFortyCasesAndEveryFileExists) {
  const nlohmann::json cases = manifest()["cases"];
  EXPECT_GE(cases.size(), 40u);
  for (const auto& c : cases) EXPECT_TRUE(fs::exists(kCorpus / c["file"].get<std::string>())) << c["file"];
}

TEST(BadInputs, EveryReaderRefusesItsCasesWithFileLineAndReason) {
  std::size_t checked = 0;
  const nlohmann::json cases = manifest()["cases"];
  for (const auto& c : cases) {
    const std::string reader = c["reader"];
    if (reader.empty()) continue;
    const std::string file = c["file"];
    SCOPED_TRACE(file + " read as " + reader);
    const std::string message =
        message_of(c["error"], [&] { read_with(reader, kCorpus / file); }, c["line"].get<std::size_t>());
    const std::string place = c["line"].get<std::size_t>() > 0 ? file + ":" + std::to_string(c["line"].get<int>()) : file;
    EXPECT_NE(message.find(place), std::string::npos) << message;
    for (const auto& fragment : c["expect"])
      EXPECT_NE(message.find(fragment.get<std::string>()), std::string::npos) << fragment << " not in: " << message;
    ++checked;
  }
  EXPECT_GE(checked, 40u);
}

TEST(BadInputs, BinaryGarbageIsShownEscapedAndShortened) {
  const std::string garbage = std::string("\x01\xff\x1b[2J", 6) + std::string(200, 'a');
  const ParseError error("f.txt", 7, garbage, "bad");
  const std::string message = error.what();
  EXPECT_NE(message.find("\\x01\\xff\\x1b[2J"), std::string::npos) << message;
  EXPECT_NE(message.find("... (206 bytes)"), std::string::npos) << message;
  EXPECT_EQ(error.text(), garbage);
  EXPECT_NE(std::string(ParseError("f", 1, "Zürich", "bad").what()).find("'Zürich'"), std::string::npos);
}

using edgewise::testing::kOddMolecules;
using edgewise::testing::odd_molecules;
using edgewise::testing::OddMolecule;

MoleculeCsvOptions odd_molecule_options(InvalidMoleculePolicy policy) {
  MoleculeCsvOptions options;
  options.smiles_column = std::string("smiles");
  options.target_columns = {std::string("y")};
  options.invalid_molecules = policy;
  return options;
}

void expect_reason(const OddMolecule& molecule, const std::string& reason) {
  EXPECT_NE(reason.find(molecule.expect), std::string::npos) << molecule.name << ": '" << reason << "'";
}

TEST(OddMolecules, TheFileHoldsEveryKind) {
  const std::vector<OddMolecule> molecules = odd_molecules();
  EXPECT_GE(molecules.size(), 60u);
  const auto count = [&](bool valid) {
    return std::count_if(molecules.begin(), molecules.end(), [&](const OddMolecule& m) { return m.valid() == valid; });
  };
  EXPECT_GE(count(true), 20);
  EXPECT_GE(count(false), 20);
}

TEST(OddMolecules, EachIsSkippedWithItsReasonOrRead) {
  const std::vector<OddMolecule> molecules = odd_molecules();
  const MoleculeDataset data = load_molecule_csv(kOddMolecules.string(), odd_molecule_options(InvalidMoleculePolicy::skip));
  ASSERT_EQ(data.source_rows, molecules.size());
  std::size_t next_valid = 0, next_skipped = 0;
  for (std::size_t row = 0; row < molecules.size(); ++row) {
    const OddMolecule& molecule = molecules[row];
    if (molecule.valid()) {
      ASSERT_LT(next_valid, data.rows.size()) << molecule.name;
      EXPECT_EQ(data.rows[next_valid++], row) << molecule.name;
    } else {
      ASSERT_LT(next_skipped, data.skipped.size()) << molecule.name;
      const SkippedMolecule& skipped = data.skipped[next_skipped++];
      EXPECT_EQ(skipped.row, row) << molecule.name;
      EXPECT_EQ(skipped.line, molecule.line) << molecule.name;
      expect_reason(molecule, skipped.reason);
    }
  }
  EXPECT_EQ(next_valid, data.rows.size());
  EXPECT_EQ(next_skipped, data.skipped.size());
}

TEST(OddMolecules, WithoutSkippingTheFirstInvalidOneIsTheRunsError) {
  const std::vector<OddMolecule> molecules = odd_molecules();
  const auto first = std::find_if(molecules.begin(), molecules.end(), [](const OddMolecule& m) { return !m.valid(); });
  ASSERT_NE(first, molecules.end());
  const std::string message = message_of(
      "ParseError", [&] { load_molecule_csv(kOddMolecules.string(), odd_molecule_options(InvalidMoleculePolicy::fail)); },
      first->line);
  expect_reason(*first, message);
}

TEST(OddMolecules, PredictSmilesGivesEachAValueOrItsReason) {
  const fs::path model_path = fs::temp_directory_path() / ("edgewise_odd_molecules_" + std::to_string(::getpid()) + ".ew");
  edgewise::testing::save_untrained_molecule_model(model_path.string());
  const MoleculeModel model = MoleculeModel::load(model_path.string());
  fs::remove(model_path);
  const std::vector<OddMolecule> molecules = odd_molecules();
  std::vector<std::string> smiles;
  for (const OddMolecule& molecule : molecules) smiles.push_back(molecule.smiles);
  const SmilesPredictions predictions = model.predict_smiles(smiles);
  ASSERT_EQ(predictions.valid.size() + predictions.invalid.size(), molecules.size());
  for (const std::size_t index : predictions.valid) EXPECT_TRUE(molecules[index].valid()) << molecules[index].name;
  for (const auto& [index, reason] : predictions.invalid) expect_reason(molecules[index], reason);
  EXPECT_TRUE(predictions.values.allFinite());
}

TEST(OddMolecules, InMemorySmilesAreSkippedAsTheFileIs) {
  const std::vector<OddMolecule> molecules = odd_molecules();
  std::vector<std::string> smiles;
  for (const OddMolecule& molecule : molecules) smiles.push_back(molecule.smiles);
  const MoleculeDataset data = molecules_from_smiles(smiles, {}, {}, InvalidMoleculePolicy::skip);
  for (const SkippedMolecule& skipped : data.skipped) expect_reason(molecules[skipped.row], skipped.reason);
  for (const std::size_t row : data.rows) EXPECT_TRUE(molecules[row].valid()) << molecules[row].name;
}

class DamagedModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("edgewise_damaged_models_" + std::to_string(::getpid()));
    fs::create_directories(folder_);
    edgewise::testing::save_untrained_molecule_model(path("good.ew"));
    std::ostringstream bytes;
    bytes << std::ifstream(path("good.ew"), std::ios::binary).rdbuf();
    good_ = bytes.str();
  }
  void TearDown() override { fs::remove_all(folder_); }
  std::string path(const std::string& name) const { return (folder_ / name).string(); }

  fs::path folder_;
  std::string good_;
};

TEST_F(DamagedModelTest, EveryDamagedFileIsRefusedNamingTheSection) {
  EXPECT_NO_THROW(MoleculeModel::load(path("good.ew")));
  const std::vector<edgewise::testing::DamagedModel> cases = edgewise::testing::damaged_models(good_);
  EXPECT_GE(cases.size(), 20u);
  for (const edgewise::testing::DamagedModel& damaged : cases) {
    SCOPED_TRACE(damaged.name);
    std::ofstream(path(damaged.name), std::ios::binary) << damaged.bytes;
    const std::string message = message_of("ModelFormatError", [&] { MoleculeModel::load(path(damaged.name)); }, 0);
    EXPECT_NE(message.find(path(damaged.name)), std::string::npos) << message;
    for (const std::string& fragment : damaged.expect)
      EXPECT_NE(message.find(fragment), std::string::npos) << fragment << " not in: " << message;
  }
}

}  // namespace

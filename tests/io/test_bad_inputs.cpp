// Every reader on the bad-input corpus (tests/data/bad/cases.json): each malformed file must raise
// the typed exception the manifest names, at the line it names, with a message that names the file
// and the problem; and every damaged model file must raise ModelFormatError naming the section.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/io/graph_files.hpp"
#include "edgewise/io/molecule_dataset.hpp"
#include "edgewise/io/molecule_model.hpp"
#include "edgewise/models/model_file.hpp"
#include "support/damaged_models.hpp"
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

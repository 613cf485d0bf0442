// Replays the inputs of tests/fuzz/regressions/<target>/ (each once found by fuzzing to crash, hang
// or throw something other than edgewise::Error), the hand-written seeds of tests/fuzz/seeds/<target>/
// and the corpus fuzzing grew, tests/fuzz/corpus/<target>/, through the fuzz targets' entry points in
// the ordinary build: each must be read or refused with an edgewise::Error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz/rdkit_leaks.hpp"
#include "fuzz/targets.hpp"

namespace edgewise::fuzz {
namespace {

const std::filesystem::path fuzz_dir = std::filesystem::path(EDGEWISE_SOURCE_DIR) / "tests" / "fuzz";

std::string contents(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The files of every <kind>/<target>/ folder, failing for a folder that names no target.
std::vector<std::pair<EntryPoint, std::filesystem::path>> inputs(const std::string& kind) {
  std::vector<std::pair<EntryPoint, std::filesystem::path>> found;
  if (!std::filesystem::exists(fuzz_dir / kind)) return found;
  for (const auto& folder : std::filesystem::directory_iterator(fuzz_dir / kind)) {
    const EntryPoint entry = entry_point(folder.path().filename().string());
    EXPECT_NE(entry, nullptr) << folder.path() << " names no fuzz target";
    if (!entry) continue;
    for (const auto& file : std::filesystem::directory_iterator(folder.path()))
      if (file.is_regular_file()) found.emplace_back(entry, file.path());
  }
  return found;
}

TEST(FuzzRegressions, EveryRegressionInputIsReadOrRefusedWithAnError) {
  const auto regressions = inputs("regressions");
  ASSERT_FALSE(regressions.empty()) << "no regression inputs under " << fuzz_dir / "regressions";
  for (const auto& [entry, path] : regressions) {
    SCOPED_TRACE(path.string());
    EXPECT_NO_THROW(run(entry, contents(path)));
  }
}

TEST(FuzzRegressions, EverySeedInputIsReadOrRefusedWithAnError) {
  const auto seeds = inputs("seeds");
  EXPECT_GE(seeds.size(), targets().size() * 4) << "each target has a handful of seeds";
  for (const auto& [entry, path] : seeds) {
    SCOPED_TRACE(path.string());
    EXPECT_NO_THROW(run(entry, contents(path)));
  }
}

TEST(FuzzRegressions, EveryGrownCorpusInputIsReadOrRefusedWithAnError) {
  for (const Target& target : targets()) {
    const std::filesystem::path corpus = fuzz_dir / "corpus" / std::string(target.name);
    EXPECT_TRUE(std::filesystem::is_directory(corpus) && !std::filesystem::is_empty(corpus))
        << corpus << ": every target keeps the corpus its campaigns grew";
  }
  for (const auto& [entry, path] : inputs("corpus")) {
    SCOPED_TRACE(path.string());
    EXPECT_NO_THROW(run(entry, contents(path)));
  }
}

TEST(FuzzRegressions, EachTargetHasSeeds) {
  for (const Target& target : targets())
    EXPECT_TRUE(std::filesystem::is_directory(fuzz_dir / "seeds" / std::string(target.name))) << target.name;
}

TEST(FuzzRegressions, RunTreatsOnlyEdgewiseErrorsAsExpected) {
  EXPECT_NO_THROW(run([](std::string_view) { throw ParseError("f", 1, "x", "bad"); }, ""));
  EXPECT_THROW(run([](std::string_view) { throw std::out_of_range("index"); }, ""), std::out_of_range);
}

// The seeds hold valid files as well as broken ones; the valid ones must get through whole.
TEST(FuzzRegressions, ValidSeedsAreRead) {
  MoleculeCsvOptions first_target;
  first_target.target_columns = {Index{1}};
  const MoleculeDataset esol =
      parse_molecule_csv(contents(fuzz_dir / "seeds/molecule_csv/esol.csv"), "esol.csv", first_target);
  EXPECT_EQ(esol.size(), 2);
  const MoleculeDataset sdf =
      parse_molecule_sdf(contents(fuzz_dir / "seeds/sdf/ethanol_benzene.sdf"), "two.sdf", {"target"});
  EXPECT_EQ(sdf.smiles, (std::vector<std::string>{"CCO", "c1ccccc1"}));
  const ModelFile model = parse_model(contents(fuzz_dir / "seeds/model_file/molecule.ew"), "molecule.ew");
  EXPECT_EQ(model.parameters.slots().size(), 3u);
  EXPECT_EQ(model.config.at("kind"), "molecule-property");
}

// The model target makes any "data_sha256" entry match the data, so mutated files get past the
// checksum; a corrupted data byte is then read, not refused.
TEST(FuzzRegressions, ModelTargetRepairsTheChecksum) {
  const std::string corrupted = contents(fuzz_dir / "seeds/model_file/corrupted_data.ew");
  EXPECT_THROW(parse_model(corrupted, "corrupted.ew"), ModelFormatError);
  EXPECT_EQ(with_valid_checksum(corrupted).size(), corrupted.size());
  EXPECT_NO_THROW(parse_model(with_valid_checksum(corrupted), "corrupted.ew"));
}

}  // namespace
}  // namespace edgewise::fuzz

// Golden numbers, end to end: a tiny molecule model and a tiny node classifier trained for a few epochs
// from fixed seeds on one thread, their per-epoch losses and their predictions compared with the
// files beside this test. A change in the numbers shows here, where a determinism test only compares
// a run with the next run of the same code. The tolerance covers the float rounding of other
// instruction sets (the sanitizer build is not compiled for this machine's); a deliberate change of
// the numbers is committed with files rewritten by running this test with EDGEWISE_UPDATE_GOLDEN=1.
// The same runs with bf16 products must stay within a tolerance that bfloat16's 8-bit operands
// leave, of the same files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "edgewise/core/parallel.hpp"
#include "edgewise/core/products.hpp"
#include "edgewise/datasets/sbm.hpp"
#include "edgewise/chem/molecule_dataset.hpp"
#include "edgewise/tasks/molecule/molecule_model.hpp"
#include "edgewise/tasks/node/node_model.hpp"

namespace edgewise {
namespace {

constexpr int kGoldenVersion = 1;
// Relative to max(1, |golden value|): float32 products, and bf16 ones (which stay within 0.34 % here).
constexpr double kTolerance = 1e-3;
constexpr double kBf16Tolerance = 1e-2;

struct GoldenRun {
  std::vector<double> losses;                    // per epoch
  std::vector<std::vector<double>> predictions;  // per molecule or node
};

std::string golden_path(const std::string& name) {
  return std::string(EDGEWISE_SOURCE_DIR) + "/tests/golden/" + name + ".json";
}

std::vector<std::vector<double>> rows_of(const Matrix<float>& values) {
  std::vector<std::vector<double>> rows(static_cast<std::size_t>(values.rows()));
  for (Index r = 0; r < values.rows(); ++r)
    for (Index c = 0; c < values.cols(); ++c) rows[static_cast<std::size_t>(r)].push_back(values(r, c));
  return rows;
}

void write_golden(const std::string& name, const std::string& what, const GoldenRun& run) {
  const nlohmann::json file = {{"format", "edgewise golden"}, {"version", kGoldenVersion}, {"case", what},
                               {"losses", run.losses},         {"predictions", run.predictions}};
  std::ofstream(golden_path(name)) << file.dump(1) << '\n';
}

void expect_close(const std::string& what, const std::vector<double>& actual, const nlohmann::json& golden,
                  double tolerance) {
  ASSERT_EQ(actual.size(), golden.size()) << what;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double expected = golden[i].get<double>();
    EXPECT_NEAR(actual[i], expected, tolerance * std::max(1.0, std::abs(expected))) << what << " [" << i << "]";
  }
}

// Compares `run` with the golden file `name`; under EDGEWISE_UPDATE_GOLDEN=1 a float32 run rewrites
// the file first, and the comparison then checks what was written.
void check_golden(const std::string& name, const std::string& what, const GoldenRun& run) {
  const bool bf16 = precision() == Precision::bf16;
  if (const char* update = std::getenv("EDGEWISE_UPDATE_GOLDEN");
      update != nullptr && std::string(update) == "1" && !bf16)
    write_golden(name, what, run);
  std::ifstream in(golden_path(name));
  ASSERT_TRUE(in) << "no golden file " << golden_path(name) << " (write it with EDGEWISE_UPDATE_GOLDEN=1)";
  const nlohmann::json golden = nlohmann::json::parse(in);
  ASSERT_EQ(golden.at("format"), "edgewise golden");
  ASSERT_EQ(golden.at("version"), kGoldenVersion);
  ASSERT_EQ(golden.at("case"), what) << "the file was written for another case";
  const double tolerance = bf16 ? kBf16Tolerance : kTolerance;
  expect_close("loss", run.losses, golden.at("losses"), tolerance);
  const nlohmann::json& predictions = golden.at("predictions");
  ASSERT_EQ(run.predictions.size(), predictions.size());
  for (std::size_t i = 0; i < run.predictions.size(); ++i)
    expect_close("prediction " + std::to_string(i), run.predictions[i], predictions[i], tolerance);
}

// Each case runs with float32 products, and again with bf16 ones where the CPU has them.
class GoldenTest : public ::testing::TestWithParam<Precision> {
 protected:
  void SetUp() override {
    if (GetParam() == Precision::bf16 && !bf16_available())
      GTEST_SKIP() << "this CPU has no AVX-512 BF16, so bf16 products run the float32 kernel";
    set_num_threads(1);
    set_precision(GetParam());
  }
  void TearDown() override { set_precision(Precision::float32); }
};

INSTANTIATE_TEST_SUITE_P(Precisions, GoldenTest, ::testing::Values(Precision::float32, Precision::bf16),
                         [](const auto& precision_param) { return std::string(precision_name(precision_param.param)); });

// Twelve ESOL molecules with their log-solubility.
constexpr const char* kMolecules =
    "smiles,logS\n"
    "Cc1occc1C(=O)Nc2ccccc2,-3.30\n"
    "CC(C)=CCCC(C)=CC(=O),-2.06\n"
    "c1ccsc1,-1.33\n"
    "c2ccc1scnc1c2,-1.50\n"
    "CC12CCC3C(CCc4cc(O)ccc34)C2CCC1O,-5.03\n"
    "O=C1CCCN1,1.07\n"
    "Clc1ccc2ccccc2c1,-4.14\n"
    "CCCC=C,-2.68\n"
    "CCCCCCCCCCCCCC,-7.96\n"
    "CC(C)Cl,-1.41\n"
    "CCC(C)CO,-0.47\n"
    "N#Cc1ccccc1,-1.00\n";

TEST_P(GoldenTest, MoleculeModel) {
  MoleculeModelConfig config = default_molecule_config();  // descriptors and Crippen features included
  config.network.hidden = 16;
  config.network.layers = 2;
  config.network.heads = 2;
  config.network.head_hidden = 16;
  config.ensemble = 1;
  config.tasks = {"logS"};
  MoleculeCsvOptions csv;
  csv.target_columns = {Index{1}};
  csv.featurizer = config.featurizer;
  const MoleculeDataset data = parse_molecule_csv(kMolecules, "golden.csv", csv);
  MoleculeModel model(config);
  model.initialize(0);
  TrainingOptions training;
  training.epochs = 6;
  training.batch_size = 4;
  training.learning_rate = 3e-3;
  training.patience = 6;
  training.seed = 0;
  const std::vector<TrainingResult> results = model.fit(molecule_set(data), molecule_set(data), training);
  GoldenRun run;
  for (const EpochReport& epoch : results.at(0).history) run.losses.push_back(epoch.train_loss);
  run.predictions = rows_of(model.predict_smiles(data.smiles).values);
  check_golden("molecule_model", "12 ESOL molecules, hidden 16, 2 blocks of 2 heads, 6 epochs of 3 batches, seed 0",
               run);
}

TEST_P(GoldenTest, NodeModel) {
  const SbmGraph sbm = stochastic_block_model({.nodes = 60, .communities = 3, .p_in = 0.2, .p_out = 0.02,
                                               .feature_dim = 8, .feature_noise = 1.0, .seed = 0});
  const NodeGraph data = make_node_graph(sbm.graph, sbm.features, {.classes = sbm.labels, .class_names = {"a", "b", "c"}});
  const Split split = stratified_split(sbm.labels, 0.5, 0.25, 0);
  NodeModel model({.classes = data.labels.class_names, .input = data.input});  // the GAT recipe, dropout included
  model.initialize(0);
  NodeTrainingOptions training;
  training.epochs = 10;
  training.seed = 0;
  const NodeTrainingResult result = model.fit(data, split, training);
  GoldenRun run;
  for (const NodeEpochReport& epoch : result.history) run.losses.push_back(epoch.train_loss);
  run.predictions = rows_of(model.predict(data));
  check_golden("node_model", "60-node 3-block SBM, 8 features, the GAT recipe, 10 epochs, seed 0", run);
}

}  // namespace
}  // namespace edgewise

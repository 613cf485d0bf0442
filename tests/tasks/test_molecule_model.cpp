// MoleculeModel end to end: target scaling, fitting (overfitting a small set, reproducibility, best
// weights kept), multi-task classification with missing labels, SMILES prediction, and model files.
#include <gtest/gtest.h>
#include <GraphMol/Descriptors/Crippen.h>
#include <GraphMol/Descriptors/MolDescriptors.h>

#include <GraphMol/ROMol.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/core/products.hpp"
#include "edgewise/tasks/molecule/molecule_model.hpp"
#include "edgewise/tasks/molecule/molecule_training.hpp"
#include "edgewise/models/metrics.hpp"
#include "edgewise/models/model_file.hpp"
#include "support/thrown.hpp"
#include "support/matrices.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;
using testing::kMissing;

// Twenty small molecules with their ESOL log-solubility.
const std::vector<std::pair<std::string, float>> kMolecules = {
    {"OCC3OC(OCC2OC(OC(C#N)c1ccccc1)C(O)C(O)C2O)C(O)C(O)C3O", -0.77f},
    {"Cc1occc1C(=O)Nc2ccccc2", -3.30f},
    {"CC(C)=CCCC(C)=CC(=O)", -2.06f},
    {"c1ccc2c(c1)ccc3c2ccc4c5ccccc5ccc43", -7.87f},
    {"c1ccsc1", -1.33f},
    {"c2ccc1scnc1c2", -1.50f},
    {"Clc1cc(Cl)c(c(Cl)c1)c2c(Cl)cccc2Cl", -7.32f},
    {"CC12CCC3C(CCc4cc(O)ccc34)C2CCC1O", -5.03f},
    {"ClC4=C(Cl)C5(Cl)C3C1CC(C2OC12)C3C4(Cl)C5(Cl)Cl", -6.29f},
    {"COc5cc4OCC3Oc2c1CC(Oc1ccc2C(=O)C3c4cc5OC)C(C)=C", -4.42f},
    {"O=C1CCCN1", 1.07f},
    {"Clc1ccc2ccccc2c1", -4.14f},
    {"CCCC=C", -2.68f},
    {"CCC1(C(=O)NCNC1=O)c2ccccc2", -2.64f},
    {"CCCCCCCCCCCCCC", -7.96f},
    {"CC(C)Cl", -1.41f},
    {"CCC(C)CO", -0.47f},
    {"N#Cc1ccccc1", -1.00f},
    {"CCOP(=S)(OCC)Oc1cc(C)nc(n1)C(C)C", -3.64f},
    {"CCCCCCCCCC(C)O", -3.31f},
};

struct Featurized {
  std::vector<MoleculeGraph> graphs;
  MoleculeSet set;
};

Featurized featurize_all(const MoleculeModel& model, const std::vector<std::pair<std::string, float>>& molecules,
                         Index tasks = 1) {
  Featurized data;
  data.graphs.reserve(molecules.size());
  data.set.targets.resize(static_cast<Index>(molecules.size()), tasks);
  for (std::size_t i = 0; i < molecules.size(); ++i) {
    const SmilesResult parsed = parse_smiles(molecules[i].first);
    EXPECT_TRUE(parsed.molecule) << molecules[i].first;
    data.graphs.push_back(model.featurize(*parsed.molecule));
    data.set.targets.row(static_cast<Index>(i)).setConstant(molecules[i].second);
  }
  for (const MoleculeGraph& graph : data.graphs) data.set.molecules.push_back(&graph);
  return data;
}

MoleculeModelConfig small_config(std::vector<std::string> tasks = {"logS"}) {
  MoleculeModelConfig config;
  config.network.hidden = 32;
  config.network.layers = 2;
  config.network.heads = 4;
  config.network.head_hidden = 32;
  config.network.dropout = 0.0;
  config.tasks = std::move(tasks);
  return config;
}

TrainingOptions quick_training(Index epochs) {
  TrainingOptions options;
  options.epochs = epochs;
  options.batch_size = 5;
  options.learning_rate = 3e-3;
  options.patience = epochs;
  options.seed = 7;
  return options;
}

TEST(TargetScalingTest, StandardizesIgnoringMissingLabelsAndRoundTrips) {
  Matrix<float> targets(4, 2);
  targets << 1, 5, 3, 5, kMissing, 5, 5, kMissing;
  const TargetScaling scaling = TargetScaling::standardize(targets);
  EXPECT_DOUBLE_EQ(scaling.shift[0], 3.0);
  EXPECT_NEAR(scaling.scale[0], std::sqrt(8.0 / 3.0), 1e-12);
  EXPECT_DOUBLE_EQ(scaling.shift[1], 5.0);
  EXPECT_DOUBLE_EQ(scaling.scale[1], 1.0) << "a constant column keeps scale 1";

  const Matrix<float> scaled = scaling.to_scaled(targets);
  EXPECT_NEAR(scaled(0, 0), -2.0 / std::sqrt(8.0 / 3.0), 1e-6);
  EXPECT_TRUE(std::isnan(scaled(2, 0))) << "missing labels stay missing";
  const Matrix<float> back = scaling.to_original(scaled);
  for (Index i = 0; i < 4; ++i)
    for (Index t = 0; t < 2; ++t)
      if (!std::isnan(targets(i, t))) {
        EXPECT_NEAR(back(i, t), targets(i, t), 1e-5);
      }

  const TargetScaling restored = nlohmann::json(scaling).get<TargetScaling>();
  EXPECT_EQ(restored.shift, scaling.shift);
  EXPECT_EQ(restored.scale, scaling.scale);
}

TEST(TargetScalingTest, RejectsANonPositiveScale) {
  EXPECT_THROW((nlohmann::json{{"shift", {0.0}}, {"scale", {0.0}}}.get<TargetScaling>()), ArgumentError);
}

TEST(MoleculeDefaultsTest, TheCrossValidatedConfiguration) {
  MoleculeModelConfig config = default_molecule_config();
  EXPECT_EQ(config.network.hidden, 64);
  EXPECT_EQ(config.network.layers, 3);
  EXPECT_EQ(config.network.heads, 4);
  EXPECT_EQ(config.network.score, ScoreFunction::scaled_dot);
  EXPECT_EQ(config.network.readout, ReadoutKind::mean_sum);
  EXPECT_EQ(config.featurizer.descriptors, available_descriptors());
  EXPECT_TRUE(config.featurizer.crippen_contributions);
  config.tasks = {"y"};
  EXPECT_NO_THROW(MoleculeModel{config});
}

TEST(MoleculeDefaultsTest, EpochLimitShrinksInProportionAboveTenThousandMolecules) {
  const auto budget = [](Index molecules) {
    const TrainingBudget b = default_training_budget(molecules);
    return std::pair{b.ensemble, b.epochs};
  };
  EXPECT_EQ(budget(902), std::pair(Index{5}, Index{150}));      // ESOL's training set
  EXPECT_EQ(budget(10'000), std::pair(Index{5}, Index{150}));
  EXPECT_EQ(budget(30'000), std::pair(Index{5}, Index{50}));
  EXPECT_EQ(budget(32'901), std::pair(Index{5}, Index{45}));    // HIV's: 150 * 10000 / 32901 = 45.6
  EXPECT_EQ(budget(1'000'000), std::pair(Index{5}, Index{30}));  // never under 30
}

TEST(MoleculeModelTest, OverfitsTwentyMolecules) {
  set_num_threads(2);
  MoleculeModel model(small_config());
  model.initialize(1);
  const Featurized data = featurize_all(model, kMolecules);
  const TrainingResult result = model.fit(data.set, {}, quick_training(150)).front();
  EXPECT_LT(result.history.back().train_loss, 0.02 * result.history.front().train_loss);
  const RegressionMetrics metrics = regression_metrics(model.predict(data.set.molecules), data.set.targets);
  EXPECT_LT(metrics.rmse, 0.3) << "the standard deviation of the targets is about 2.6";
  EXPECT_GT(metrics.r2, 0.98);
}

TEST(MoleculeModelTest, SameSeedGivesTheSameModel) {
  set_num_threads(2);
  const auto train = [](std::uint64_t seed) {
    MoleculeModel model(small_config());
    model.initialize(seed);
    const Featurized data = featurize_all(model, kMolecules);
    TrainingOptions options = quick_training(3);
    options.seed = seed;
    model.fit(data.set, {}, options);
    return model.predict(data.set.molecules);
  };
  const Matrix<float> first = train(3);
  EXPECT_EQ(first, train(3));
  EXPECT_NE(first, train(4));
}

// Batches of 100 molecules, about 1,450 atoms: the projections are cut into row blocks and the
// weight gradients along the atoms. At either precision of the products (bf16 where the CPU has it).
TEST(MoleculeModelTest, EveryThreadCountTrainsTheSameModel) {
  std::vector<std::pair<std::string, float>> molecules;
  for (int copy = 0; copy < 5; ++copy) molecules.insert(molecules.end(), kMolecules.begin(), kMolecules.end());
  for (const Precision precision : {Precision::float32, Precision::bf16}) {
    set_precision(precision);
    Matrix<float> at_one_thread;
    for (const int threads : {1, 2, 3}) {
      set_num_threads(threads);
      MoleculeModel model(small_config());
      model.initialize(3);
      const Featurized data = featurize_all(model, molecules);
      TrainingOptions options = quick_training(3);
      options.batch_size = 100;
      model.fit(data.set, {}, options);
      const Matrix<float> predictions = model.predict(data.set.molecules);
      if (threads == 1) at_one_thread = predictions;
      EXPECT_EQ(predictions, at_one_thread) << precision_name(edgewise::precision()) << ", " << threads << " threads";
    }
  }
  set_precision(Precision::float32);
  set_num_threads(0);
}

// Members train side by side, one thread each, where there are as many as threads: at 2 threads all
// three in turns of an epoch, two at a time, at 3 all three at once. Each trains what it trains
// alone, and the log shows each member's lines after its own header, in member order.
TEST(MoleculeModelTest, MembersSideBySideTrainWhatTheyTrainInTurn) {
  MoleculeModelConfig config = small_config();
  config.ensemble = 3;
  Matrix<float> in_turn;
  for (const int threads : {1, 2, 3}) {
    set_num_threads(threads);
    MoleculeModel model(config);
    model.initialize(5);
    const Featurized data = featurize_all(model, kMolecules);
    std::vector<std::string> lines;
    TrainingOptions options = quick_training(2);
    options.log = {.level = LogLevel::normal, .sink = [&](const LogMessage& m) { lines.emplace_back(m.text); }};
    model.fit(data.set, {}, options);
    const Matrix<float> predictions = model.predict(data.set.molecules);
    if (threads == 1) in_turn = predictions;
    EXPECT_EQ(predictions, in_turn) << threads << " threads";
    std::vector<std::string> headers;
    for (const std::string& line : lines)
      if (line.starts_with("ensemble member")) headers.push_back(line.substr(0, 22));
    EXPECT_EQ(headers, (std::vector<std::string>{"ensemble member 1 of 3", "ensemble member 2 of 3",
                                                 "ensemble member 3 of 3"}))
        << threads << " threads";
    ASSERT_EQ(lines.size(), 9u) << threads << " threads";  // a header and 2 epochs a member
    EXPECT_TRUE(lines[8].starts_with("epoch    2/2")) << lines[8];
  }
  set_num_threads(0);
}

// Also where a third member waits for its turn at 2 threads: it stops too instead of waiting forever.
TEST(MoleculeModelTest, AFailingMemberBesideOthersStopsThemAll) {
  set_num_threads(2);
  for (const Index members : {2, 3}) {
    MoleculeModelConfig config = small_config();
    config.ensemble = members;
    MoleculeModel model(config);
    model.initialize(5);
    const Featurized data = featurize_all(model, kMolecules);
    std::atomic<Index> last_epoch_of_first = 0;
    const auto on_epoch = [&](Index member, const EpochReport& report) {
      if (member == 0) last_epoch_of_first = report.epoch;
      if (member == 1 && report.epoch == 2) throw std::runtime_error("member 1 failed");
    };
    try {
      model.fit(data.set, {}, quick_training(500), on_epoch);
      ADD_FAILURE() << "the failure was not passed on, " << members << " members";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "member 1 failed");
    }
    EXPECT_LT(last_epoch_of_first, 500) << members << " members";  // stopped, not trained to the end
  }
  set_num_threads(0);
}

TEST(MoleculeModelTest, KeepsTheWeightsOfTheBestValidationEpoch) {
  set_num_threads(2);
  MoleculeModel model(small_config());
  model.initialize(2);
  const std::vector<std::pair<std::string, float>> train_molecules(kMolecules.begin(), kMolecules.begin() + 14);
  const std::vector<std::pair<std::string, float>> val_molecules(kMolecules.begin() + 14, kMolecules.end());
  const Featurized train = featurize_all(model, train_molecules), validation = featurize_all(model, val_molecules);
  TrainingOptions options = quick_training(40);
  options.learning_rate = 1e-2;  // noisy on purpose, so that the last epoch is rarely the best
  const TrainingResult result = model.fit(train.set, validation.set, options).front();
  ASSERT_EQ(result.history.size(), 40u);
  double best = std::numeric_limits<double>::infinity();
  for (const EpochReport& epoch : result.history) best = std::min(best, epoch.validation);
  EXPECT_DOUBLE_EQ(result.best_validation, best);
  const double kept = regression_metrics(model.predict(validation.set.molecules), validation.set.targets).rmse;
  EXPECT_NEAR(kept, best, 1e-9 + 1e-6 * best);
}

TEST(MoleculeModelTest, ClassificationWithMissingLabels) {
  set_num_threads(2);
  MoleculeModelConfig config = small_config({"has_ring", "has_oxygen"});
  config.task_type = TaskType::classification;
  MoleculeModel model(config);
  model.initialize(5);
  Featurized data = featurize_all(model, kMolecules, 2);
  for (std::size_t i = 0; i < kMolecules.size(); ++i) {
    const std::string& smiles = kMolecules[i].first;
    const auto row = static_cast<Index>(i);
    data.set.targets(row, 0) = smiles.find('1') != std::string::npos ? 1.0f : 0.0f;
    data.set.targets(row, 1) = i % 3 == 0 ? kMissing : (smiles.find('O') != std::string::npos ? 1.0f : 0.0f);
  }
  const TrainingResult result = model.fit(data.set, {}, quick_training(60)).front();
  EXPECT_TRUE(std::isfinite(result.history.back().train_loss));
  const Matrix<float> probabilities = model.predict(data.set.molecules);
  EXPECT_GE(probabilities.minCoeff(), 0.0f);
  EXPECT_LE(probabilities.maxCoeff(), 1.0f);
  const ClassificationMetrics metrics = classification_metrics(probabilities, data.set.targets);
  EXPECT_EQ(metrics.tasks[1].count, 13) << "missing labels are left out";
  EXPECT_GT(metrics.roc_auc, 0.95);
}

// An untrained one-task classifier and the molecules, labelled by whether they hold a ring.
struct RingClassifier {
  MoleculeModel model;
  Featurized data;
};

RingClassifier ring_classifier() {
  MoleculeModelConfig config = small_config({"has_ring"});
  config.task_type = TaskType::classification;
  MoleculeModel model(config);
  model.initialize(5);
  Featurized data = featurize_all(model, kMolecules);
  for (std::size_t i = 0; i < kMolecules.size(); ++i)
    data.set.targets(static_cast<Index>(i), 0) = kMolecules[i].first.find('1') != std::string::npos ? 1.0f : 0.0f;
  return {std::move(model), std::move(data)};
}

// Held-out labels that contradict a third of a sure model's predictions: Platt scaling pulls the
// probabilities toward one half, keeps their order, and applies on every path and after loading.
TEST(MoleculeModelTest, PlattScalingCalibratesAClassifiersProbabilities) {
  set_num_threads(2);
  auto [model, data] = ring_classifier();
  model.fit(data.set, {}, quick_training(60));
  const Matrix<float> raw = model.predict(data.set.molecules);
  MoleculeSet contradicted = data.set;
  for (Index m = 0; m < contradicted.targets.rows(); m += 3) contradicted.targets(m, 0) = 1 - contradicted.targets(m, 0);
  model.calibrate_probabilities(contradicted);
  ASSERT_EQ(model.config().probability_calibration.size(), 1u);
  const BinaryCalibration& scaling = model.config().probability_calibration.front();
  EXPECT_LT(scaling.slope, 0.5);
  const Matrix<float> calibrated = model.predict(data.set.molecules);
  for (Index m = 0; m < raw.rows(); ++m) EXPECT_EQ(calibrated(m, 0), scaling.apply(raw(m, 0)));
  EXPECT_LT((calibrated.array() - 0.5f).abs().maxCoeff(), (raw.array() - 0.5f).abs().maxCoeff());
  EXPECT_DOUBLE_EQ(classification_metrics(calibrated, data.set.targets).roc_auc,
                   classification_metrics(raw, data.set.targets).roc_auc);

  std::vector<std::string> smiles;
  for (const auto& [text, value] : kMolecules) smiles.push_back(text);
  const Matrix<float> streamed = model.predict_smiles(smiles).values;
  EXPECT_TRUE(streamed.isApprox(calibrated, 1e-6f));
  const auto file = std::filesystem::temp_directory_path() / ("edgewise_platt_" + std::to_string(::getpid()) + ".ew");
  model.save(file.string());
  const MoleculeModel loaded = MoleculeModel::load(file.string());
  std::filesystem::remove(file);
  ASSERT_EQ(loaded.config().probability_calibration.size(), 1u);
  EXPECT_EQ(loaded.config().probability_calibration.front().slope, scaling.slope);
  EXPECT_EQ(loaded.predict_smiles(smiles).values, streamed);
  EXPECT_THROW(MoleculeModel(small_config()).calibrate_probabilities(data.set), ArgumentError);
}

// A validation set of one class has no ROC-AUC: no epoch is measured, so none may be kept as the best.
TEST(MoleculeModelTest, AValidationSetOfOneClassIsNeverTakenAsMeasured) {
  set_num_threads(2);
  auto [model, data] = ring_classifier();
  MoleculeSet rings;
  for (std::size_t i = 0; i < kMolecules.size(); ++i) {
    if (data.set.targets(static_cast<Index>(i), 0) == 0.0f) continue;
    rings.molecules.push_back(data.set.molecules[i]);
  }
  rings.targets = Matrix<float>::Ones(static_cast<Index>(rings.molecules.size()), 1);
  const std::string error =
      testing::argument_error_of([&, &model = model, &data = data] { model.fit(data.set, rings, quick_training(3)); });
  EXPECT_NE(error.find("validation roc_auc was undefined (nan) in each of the 3 epochs"), std::string::npos) << error;
}

// train_molecule_model checks the split before training: a part whose every task has one class stops
// the run; a task of one class beside others is named in a warning.
TEST(MoleculeModelTest, TrainingRefusesASplitThatCannotBeMeasured) {
  set_num_threads(2);
  std::vector<std::string> smiles;
  Matrix<float> targets(static_cast<Index>(kMolecules.size()), 2);
  for (std::size_t i = 0; i < kMolecules.size(); ++i) {
    smiles.push_back(kMolecules[i].first);
    targets(static_cast<Index>(i), 0) = kMolecules[i].first.find('1') != std::string::npos ? 1.0f : 0.0f;
    targets(static_cast<Index>(i), 1) = i % 2 == 0 ? 1.0f : 0.0f;
  }
  const MoleculeDataset data = molecules_from_smiles(smiles, targets, {"has_ring", "even"});
  Split split;
  for (Index row = 0; row < 20; ++row) {
    const bool ring = targets(row, 0) == 1.0f;
    (ring && split.val.size() < 4 ? split.val : split.train).push_back(row);
  }
  std::string warnings;
  MoleculeTrainingPlan plan{
      .config = small_config(), .training = quick_training(2), .budget_ensemble = false, .budget_epochs = false};
  plan.config.task_type = TaskType::classification;
  plan.training.log.sink = [&](const LogMessage& message) { warnings += std::string(message.text) + "\n"; };
  train_molecule_model(data, split, plan);
  EXPECT_NE(warnings.find("warning: the validation part holds one class only of 'has_ring' (4 labels, all 1)"),
            std::string::npos)
      << warnings;

  const MoleculeDataset one_task = molecules_from_smiles(smiles, targets.leftCols(1), {"has_ring"});
  const std::string error = testing::argument_error_of([&] { train_molecule_model(one_task, split, plan); });
  EXPECT_NE(error.find("the validation part (4 molecules) holds one class only of its task 'has_ring' (4 labels, all 1)"),
            std::string::npos)
      << error;
}

// A validation RMSE curve: `best` at epoch best_epoch, falling to it and rising by `rise` an epoch
// after it, over `epochs` epochs.
TrainingResult rmse_curve(Index epochs, Index best_epoch, double best, double rise) {
  TrainingResult result;
  result.best_epoch = best_epoch;
  result.epochs_run = epochs;
  for (Index epoch = 1; epoch <= epochs; ++epoch) {
    const double distance = static_cast<double>(std::abs(epoch - best_epoch));
    result.history.push_back({.epoch = epoch, .validation = best + (epoch < best_epoch ? 0.5 : rise) * distance});
  }
  return result;
}

TEST(OverfittingTest, AnEarlyBestAndASteadyRiseIsOverfitting) {
  EXPECT_TRUE(overfits(rmse_curve(30, 4, 10.0, 1.0), 30, false));  // the demo's curve before mean_sum
  EXPECT_TRUE(overfits(rmse_curve(45, 15, 0.6, 0.01), 150, false));
  EXPECT_FALSE(overfits(rmse_curve(45, 16, 0.6, 0.01), 150, false)) << "best after the first tenth";
  EXPECT_FALSE(overfits(rmse_curve(30, 4, 10.0, 0.01), 30, false)) << "worse by less than a tenth";
  EXPECT_FALSE(overfits(rmse_curve(13, 4, 10.0, 1.0), 30, false)) << "too few epochs after the best";
  EXPECT_FALSE(overfits(rmse_curve(30, 30, 10.0, 1.0), 30, false)) << "still improving";

  // ROC-AUC: 1 - AUC is the error.
  TrainingResult auc = rmse_curve(40, 3, 0.1, 0.01);
  for (EpochReport& report : auc.history) report.validation = 1.0 - report.validation;
  EXPECT_TRUE(overfits(auc, 150, true));
  EXPECT_FALSE(overfits(auc, 150, false));

  // A curve that worsens, then recovers: the last epochs are no further from the best.
  TrainingResult recovering = rmse_curve(30, 4, 10.0, 1.0);
  for (Index e = 20; e < 30; ++e) recovering.history[static_cast<std::size_t>(e)].validation = 10.5;
  EXPECT_FALSE(overfits(recovering, 30, false));
}

TEST(MoleculeModelTest, PredictSmilesReportsUnreadableMoleculesInPlace) {
  MoleculeModel model(small_config());
  model.initialize(1);
  const SmilesPredictions predictions = model.predict_smiles({"CCO", "C1CC", "c1ccccc1", "c1cccc1", ""});
  EXPECT_EQ(predictions.valid, (std::vector<std::size_t>{0, 2}));
  ASSERT_EQ(predictions.values.rows(), 2);
  ASSERT_EQ(predictions.invalid.size(), 3u);
  EXPECT_EQ(predictions.invalid[0].first, 1u);
  EXPECT_NE(predictions.invalid[0].second.find("unclosed ring"), std::string::npos) << predictions.invalid[0].second;
  EXPECT_NE(predictions.invalid[1].second.find("kekulize"), std::string::npos) << predictions.invalid[1].second;
  EXPECT_EQ(predictions.invalid[2].first, 4u);
}

// predict_smiles streams SMILES through windows and per-thread batches; its values must be predict()'s
// on each window's featurized molecules, bit for bit, whatever the thread count. The input spans
// three windows, with unreadable SMILES sprinkled in and a long unreadable run, so that windows hold
// valid molecules in numbers that are not multiples of the batch size.
TEST(MoleculeModelTest, PredictSmilesGivesPredictsValuesWindowByWindowBitForBit) {
  MoleculeModelConfig config = small_config();
  config.ensemble = 2;
  MoleculeModel model(config);
  model.initialize(3);
  std::vector<std::string> smiles;
  std::vector<std::size_t> expected_valid;
  std::vector<MoleculeGraph> graphs;
  for (std::size_t i = 0; i < 2600; ++i) {
    if (i % 97 == 5) {
      smiles.emplace_back("C1CC");
    } else if (i >= 1100 && i < 2000) {
      smiles.emplace_back("c1cccc1");
    } else {
      smiles.push_back(kMolecules[i % kMolecules.size()].first);
      expected_valid.push_back(i);
      graphs.push_back(model.featurize(*parse_smiles(smiles.back()).molecule));
    }
  }
  set_num_threads(2);
  Matrix<float> expected(static_cast<Index>(graphs.size()), config.network.tasks);
  Index done = 0;
  for (std::size_t window = 0; window * kPredictionWindowRows < smiles.size(); ++window) {
    std::vector<const MoleculeGraph*> pointers;
    for (std::size_t k = static_cast<std::size_t>(done); k < expected_valid.size(); ++k) {
      if (expected_valid[k] >= (window + 1) * kPredictionWindowRows) break;
      pointers.push_back(&graphs[k]);
    }
    if (pointers.empty()) continue;
    expected.middleRows(done, static_cast<Index>(pointers.size())) = model.predict(pointers);
    done += static_cast<Index>(pointers.size());
  }
  ASSERT_EQ(done, expected.rows());

  for (const int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    set_num_threads(threads);
    const SmilesPredictions predictions = model.predict_smiles(smiles);
    EXPECT_EQ(predictions.valid, expected_valid);
    EXPECT_EQ(predictions.invalid.size(), smiles.size() - expected_valid.size());
    ASSERT_EQ(predictions.values.rows(), expected.rows());
    ASSERT_EQ(predictions.values.cols(), expected.cols());
    EXPECT_EQ(std::memcmp(predictions.values.data(), expected.data(), sizeof(float) * expected.size()), 0);
  }
  set_num_threads(0);
  EXPECT_EQ(model.predict_smiles({}).values.rows(), 0);
}

class MoleculeModelFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("edgewise_molecule_model_" + std::to_string(::getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  std::string path(const std::string& name) const { return (folder_ / name).string(); }

  fs::path folder_;
};

TEST_F(MoleculeModelFileTest, SaveAndLoadGiveBitIdenticalPredictions) {
  set_num_threads(2);
  MoleculeModel model(small_config());
  model.initialize(9);
  const Featurized data = featurize_all(model, kMolecules);
  model.fit(data.set, {}, quick_training(3));
  model.save(path("esol.ew"));

  const MoleculeModel loaded = MoleculeModel::load(path("esol.ew"));
  EXPECT_EQ(loaded.config().tasks, model.config().tasks);
  EXPECT_EQ(loaded.config().scaling.shift, model.config().scaling.shift);
  const std::vector<std::string> smiles = {"CCO", "c1ccccc1", "[Na+].[Cl-]", "C"};
  EXPECT_EQ(loaded.predict_smiles(smiles).values, model.predict_smiles(smiles).values);
}

TEST_F(MoleculeModelFileTest, DescriptorsAreStandardizedByTheTrainingSetAndTheScalingIsSaved) {
  set_num_threads(2);
  MoleculeModelConfig config = small_config();
  config.featurizer.descriptors = {"CrippenClogP", "tpsa", "exactmw"};
  config.ensemble = 2;
  MoleculeModel model(config);
  model.initialize(3);
  const Featurized data = featurize_all(model, kMolecules);
  model.fit(data.set, {}, quick_training(2));

  Matrix<float> descriptors(static_cast<Index>(kMolecules.size()), 3);
  for (Index m = 0; m < descriptors.rows(); ++m) {
    const SmilesResult parsed = parse_smiles(kMolecules[static_cast<std::size_t>(m)].first);
    double logp = 0, refractivity = 0;
    RDKit::Descriptors::calcCrippenDescriptors(*parsed.molecule, logp, refractivity);
    descriptors.row(m) << static_cast<float>(logp), static_cast<float>(RDKit::Descriptors::calcTPSA(*parsed.molecule)),
        static_cast<float>(RDKit::Descriptors::calcExactMW(*parsed.molecule));
  }
  const ColumnScaling expected = ColumnScaling::standardize(descriptors);
  const ColumnScaling& fitted = model.config().network.graph_feature_scaling;
  ASSERT_EQ(fitted.columns(), 3);
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_NEAR(fitted.shift[c], expected.shift[c], 1e-4 * expected.scale[c]) << "descriptor " << c;
    EXPECT_NEAR(fitted.scale[c], expected.scale[c], 1e-4 * expected.scale[c]) << "descriptor " << c;
  }
  EXPECT_GT(fitted.scale[2], 50.0) << "exact masses of these molecules spread over hundreds";

  model.save(path("descriptors.ew"));
  const MoleculeModel loaded = MoleculeModel::load(path("descriptors.ew"));
  EXPECT_EQ(loaded.config().network.graph_feature_scaling.shift, fitted.shift);
  EXPECT_EQ(loaded.config().network.graph_feature_scaling.scale, fitted.scale);
  const std::vector<std::string> smiles = {"CCO", "c1ccccc1", "[Na+].[Cl-]", "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCC"};
  EXPECT_EQ(loaded.predict_smiles(smiles).values, model.predict_smiles(smiles).values);

  ModelFile file = load_model(path("descriptors.ew"));
  file.config["network"]["graph_feature_scaling"] = ColumnScaling::identity(2);
  save_model(path("damaged.ew"), file.config, file.parameters);
  try {
    MoleculeModel::load(path("damaged.ew"));
    FAIL() << "loaded a descriptor scaling of the wrong width";
  } catch (const ModelFormatError& e) {
    EXPECT_NE(std::string(e.what()).find(path("damaged.ew") + ": the descriptor scaling has 2 columns for 3"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(MoleculeModelFileTest, EnsembleAveragesItsMembersAndSurvivesSaving) {
  set_num_threads(2);
  MoleculeModelConfig config = small_config();
  config.ensemble = 3;
  MoleculeModel ensemble(config);
  ensemble.initialize(4);
  const Featurized data = featurize_all(ensemble, kMolecules);
  const std::vector<TrainingResult> results = ensemble.fit(data.set, {}, quick_training(2));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(ensemble.num_parameters(), 3 * MoleculeModel(small_config()).num_parameters());
  ensemble.save(path("ensemble.ew"));
  ASSERT_EQ(load_model(path("ensemble.ew")).parameters.find("member2.input.weight").slot >= 0, true);

  const MoleculeModel loaded = MoleculeModel::load(path("ensemble.ew"));
  EXPECT_EQ(loaded.config().ensemble, 3);
  const Matrix<float> predictions = ensemble.predict(data.set.molecules);
  EXPECT_EQ(loaded.predict(data.set.molecules), predictions);

  // The mean of three different networks differs from the first alone.
  MoleculeModelConfig single = config;
  single.ensemble = 1;
  MoleculeModel first(single);
  first.initialize(4);
  first.fit(data.set, {}, quick_training(2));
  EXPECT_FALSE(first.predict(data.set.molecules).isApprox(predictions, 1e-4f));
}

std::vector<std::string> smiles_of(const std::vector<std::pair<std::string, float>>& molecules) {
  std::vector<std::string> smiles;
  for (const auto& [text, value] : molecules) smiles.push_back(text);
  return smiles;
}

// A calibrated model's spread comes out the same streamed from SMILES and after a save and load.
void expect_spread_on_every_path(const MoleculeModel& model, const Featurized& data, const SpreadPredictions& spread,
                                 const std::string& file) {
  const SmilesPredictions streamed = model.predict_smiles(smiles_of(kMolecules));
  EXPECT_EQ(streamed.values, spread.values);
  EXPECT_EQ(streamed.raw_spread, spread.raw_spread);
  model.save(file);
  const MoleculeModel loaded = MoleculeModel::load(file);
  EXPECT_EQ(loaded.config().spread, model.config().spread);
  EXPECT_EQ(loaded.config().calibration.front().scores, model.config().calibration.front().scores);
  EXPECT_EQ(loaded.predict_with_spread(data.set.molecules).raw_spread, spread.raw_spread);
}

// The spread is the members' standard deviation about predict()'s values, bit for bit the same
// values by every path; its calibration survives saving, and a model without one has none.
TEST_F(MoleculeModelFileTest, AnEnsemblesCalibratedSpreadAgreesOnEveryPathAndSurvivesSaving) {
  set_num_threads(2);
  MoleculeModelConfig config = small_config();
  config.ensemble = 2;
  config.spread = SpreadMethod::ensemble;
  MoleculeModel model(config);
  model.initialize(5);
  const Featurized data = featurize_all(model, kMolecules);
  model.fit(data.set, {}, quick_training(2));
  EXPECT_THROW(model.calibrate(MoleculeSet{{data.set.molecules.front()}, data.set.targets.topRows(1)}), ArgumentError);
  model.calibrate(data.set);
  ASSERT_EQ(model.config().calibration.size(), 1u);
  EXPECT_EQ(model.config().calibration.front().scores.size(), kMolecules.size());

  const SpreadPredictions spread = model.predict_with_spread(data.set.molecules);
  EXPECT_EQ(spread.values, model.predict(data.set.molecules));
  EXPECT_TRUE((spread.raw_spread.array() >= 0).all());
  EXPECT_GT(spread.raw_spread.maxCoeff(), 0.0f);

  expect_spread_on_every_path(model, data, spread, path("spread.ew"));
  EXPECT_EQ(MoleculeModel::load(path("spread.ew")).config().spread, SpreadMethod::ensemble);
  ModelFile file = load_model(path("spread.ew"));
  EXPECT_EQ(file.config.at("uncertainty").at("fit"), "crps");
  file.config.at("uncertainty").erase("fit");  // as files were written before the fit was a choice
  save_model(path("older.ew"), file.config, file.parameters);
  EXPECT_EQ(MoleculeModel::load(path("older.ew")).config().spread_fit, SpreadFit::nll);

  MoleculeModel plain(small_config());
  plain.initialize(5);
  EXPECT_THROW(plain.predict_with_spread(data.set.molecules), ArgumentError);
  EXPECT_TRUE(plain.predict_smiles(smiles_of(kMolecules)).raw_spread.size() == 0);
  plain.save(path("plain.ew"));
  EXPECT_FALSE(load_model(path("plain.ew")).config.contains("uncertainty"));
  config.ensemble = 1;
  EXPECT_THROW(MoleculeModel{config}, ArgumentError);
}

// Mean-variance and evidential networks: two and four outputs a target, predictions of the targets'
// width, a spread from the predicted variances even for one network, and the same values by every
// path and after saving.
TEST_F(MoleculeModelFileTest, NetworksThatPredictAVariancePredictASpreadOfTheirOwn) {
  set_num_threads(2);
  for (const auto& [method, outputs] : {std::pair{SpreadMethod::mve, 2}, std::pair{SpreadMethod::evidential, 4}}) {
    SCOPED_TRACE(name_of(kSpreadMethodNames, method));
    MoleculeModelConfig config = small_config();
    config.spread = method;
    MoleculeModel model(config);
    EXPECT_EQ(model.config().network.tasks, outputs);
    model.initialize(6);
    const Featurized data = featurize_all(model, kMolecules);
    const std::vector<TrainingResult> results = model.fit(data.set, data.set, quick_training(3));
    EXPECT_TRUE(std::isfinite(results.front().best_validation));
    model.calibrate(data.set);
    const SpreadPredictions spread = model.predict_with_spread(data.set.molecules);
    ASSERT_EQ(spread.values.cols(), 1);
    EXPECT_EQ(spread.values, model.predict(data.set.molecules));
    EXPECT_TRUE((spread.raw_spread.array() > 0).all());  // one network, yet a variance of its own

    expect_spread_on_every_path(model, data, spread, path("variance.ew"));
    EXPECT_EQ(MoleculeModel::load(path("variance.ew")).config().spread, method);
    config.task_type = TaskType::classification;
    EXPECT_THROW(MoleculeModel{config}, ArgumentError);
  }
}

// Monte-Carlo dropout: one network's predictions with its dropout on spread, by every path alike;
// a molecule's spread does not depend on the molecules batched with it; the values stay predict()'s.
TEST_F(MoleculeModelFileTest, DropoutSamplesGiveASpreadThatFollowsTheMoleculeAlone) {
  set_num_threads(2);
  MoleculeModelConfig config = small_config();
  config.spread = SpreadMethod::dropout;
  EXPECT_THROW(MoleculeModel{config}, ArgumentError);  // no dropout to sample
  config.network.dropout = 0.2;
  MoleculeModel model(config);
  EXPECT_EQ(model.config().network.tasks, 1);
  model.initialize(7);
  const Featurized data = featurize_all(model, kMolecules);
  model.fit(data.set, data.set, quick_training(3));
  model.calibrate(data.set);
  const SpreadPredictions spread = model.predict_with_spread(data.set.molecules);
  EXPECT_EQ(spread.values, model.predict(data.set.molecules));
  EXPECT_TRUE((spread.raw_spread.array() > 0).all());
  EXPECT_EQ(model.predict_with_spread(data.set.molecules).raw_spread, spread.raw_spread);  // the same draws

  const std::vector<const MoleculeGraph*> reversed(data.set.molecules.rbegin(), data.set.molecules.rend());
  const Matrix<float> alone = model.predict_with_spread(reversed).raw_spread;
  for (Index m = 0; m < alone.rows(); ++m)
    EXPECT_NEAR(alone(m, 0), spread.raw_spread(alone.rows() - 1 - m, 0), 1e-5f * spread.raw_spread.maxCoeff());

  expect_spread_on_every_path(model, data, spread, path("dropout.ew"));
  EXPECT_EQ(MoleculeModel::load(path("dropout.ew")).config().spread, SpreadMethod::dropout);
  config.task_type = TaskType::classification;
  EXPECT_THROW(MoleculeModel{config}, ArgumentError);
}

TEST_F(MoleculeModelFileTest, AnEnsembleResumedInItsSecondMemberEndsAtTheSameModel) {
  set_num_threads(2);
  MoleculeModelConfig config = small_config();
  config.ensemble = 2;
  config.network.dropout = 0.1;
  config.featurizer.descriptors = {"CrippenClogP", "exactmw"};  // the checkpoint then records their scaling
  const auto fresh = [&] {
    MoleculeModel model(config);
    model.initialize(4);
    return model;
  };
  MoleculeModel uninterrupted = fresh();
  const Featurized data = featurize_all(uninterrupted, kMolecules);
  // Checkpoints after epochs 2 and 4 of each member: the file left is member 1's, after epoch 4.
  const CheckpointOptions checkpoints{.path = path("ensemble.ckpt"), .every = 2, .resume = ""};
  const std::vector<TrainingResult> expected = uninterrupted.fit(data.set, {}, quick_training(5), {}, checkpoints);
  uninterrupted.save(path("uninterrupted.ew"));
  const nlohmann::json run = load_checkpoint(path("ensemble.ckpt")).run;
  ASSERT_EQ(run.at("member"), 1);
  ASSERT_EQ(run.at("finished").size(), 1u);

  MoleculeModel resumed = fresh();
  const std::vector<TrainingResult> results =
      resumed.fit(data.set, {}, quick_training(5), {}, {.path = "", .every = 0, .resume = path("ensemble.ckpt")});
  resumed.save(path("resumed.ew"));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].best_epoch, expected[0].best_epoch);
  EXPECT_TRUE(results[0].history.empty()) << "member 0 finished before the checkpoint";
  EXPECT_EQ(results[1].history.front().epoch, 5);
  std::ifstream a(path("uninterrupted.ew"), std::ios::binary), b(path("resumed.ew"), std::ios::binary);
  const std::string bytes_a{std::istreambuf_iterator<char>(a), {}}, bytes_b{std::istreambuf_iterator<char>(b), {}};
  EXPECT_TRUE(bytes_a == bytes_b) << "the resumed ensemble's model file differs";

  MoleculeModel other = fresh();
  TrainingOptions faster = quick_training(5);
  faster.learning_rate = 1e-2;
  try {
    other.fit(data.set, {}, faster, {}, {.path = "", .every = 0, .resume = path("ensemble.ckpt")});
    ADD_FAILURE() << "a checkpoint of other options was continued";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("run.training.learning_rate is 0.003 in the checkpoint and 0.01"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(MoleculeModelFileTest, EnsembleLogsEachMembersEpochs) {
  MoleculeModelConfig config = small_config();
  config.ensemble = 2;
  MoleculeModel ensemble(config);
  ensemble.initialize(4);
  const Featurized data = featurize_all(ensemble, kMolecules);
  TrainingOptions options = quick_training(3);
  std::vector<std::string> lines;
  options.log.sink = [&](const LogMessage& m) {
    if (m.progress) {
      EXPECT_EQ(m.progress->metric, "rmse");
    }
    lines.emplace_back(m.text);
  };
  const std::vector<TrainingResult> results = ensemble.fit(data.set, {}, options);
  std::vector<std::string> expected = {"ensemble member 1 of 2"};
  for (const EpochReport& report : results[0].history) expected.push_back(epoch_line(report, 3, "rmse"));
  expected.emplace_back("ensemble member 2 of 2");
  for (const EpochReport& report : results[1].history) expected.push_back(epoch_line(report, 3, "rmse"));
  EXPECT_EQ(lines, expected);
  EXPECT_TRUE(lines[1].starts_with("epoch    1/3  train loss ")) << lines[1];
}

TEST_F(MoleculeModelFileTest, KeepsTheTrainingSummary) {
  MoleculeModel model(small_config());
  model.initialize(1);
  model.save(path("plain.ew"));
  EXPECT_FALSE(MoleculeModel::load(path("plain.ew")).training_summary().has_value());
  model.set_training_summary({.data = "esol.csv", .examples = 20, .metrics = {{"test rmse", 0.5}}});
  model.save(path("summary.ew"));
  const std::optional<TrainingSummary> loaded = MoleculeModel::load(path("summary.ew")).training_summary();
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->data, "esol.csv");
  EXPECT_EQ(loaded->examples, 20);
  EXPECT_EQ(loaded->metrics, (std::vector<std::pair<std::string, double>>{{"test rmse", 0.5}}));
}

TEST_F(MoleculeModelFileTest, RefusesACorruptedFile) {
  MoleculeModel model(small_config());
  model.initialize(1);
  model.save(path("m.ew"));
  std::fstream file(path("m.ew"), std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(-5, std::ios::end);
  file.put('\x7f');
  file.close();
  EXPECT_THROW(MoleculeModel::load(path("m.ew")), ModelFormatError);
}

TEST_F(MoleculeModelFileTest, RefusesAModelOfAnotherKind) {
  Parameters<float> params;
  params.add("w", 1, 1);
  save_model(path("other.ew"), nlohmann::json{{"kind", "node-classification"}}, params);
  try {
    MoleculeModel::load(path("other.ew"));
    FAIL() << "loaded a model of another kind";
  } catch (const ModelFormatError& e) {
    EXPECT_NE(std::string(e.what()).find(path("other.ew")), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a molecule property model"), std::string::npos) << e.what();
  }
}

// attention() reads the weights of a forward pass on the molecule alone: one row per edge in the
// molecule's edge order, and softmax weights that sum to 1 over each atom's in-edges, per head.
TEST(MoleculeModelTest, AttentionWeightsOfOneMoleculeSumToOneOverEachAtomsInEdges) {
  MoleculeModel model(small_config());
  model.initialize(5);
  const MoleculeGraph phenol = model.featurize(*parse_smiles("c1ccccc1O").molecule);
  const Matrix<float> alpha = model.attention(phenol);
  ASSERT_EQ(alpha.rows(), phenol.graph.num_edges());
  ASSERT_EQ(alpha.cols(), model.config().network.heads);
  Matrix<double> sums = Matrix<double>::Zero(phenol.graph.num_nodes(), alpha.cols());
  for (Index e = 0; e < alpha.rows(); ++e) sums.row(phenol.graph.target(e)) += alpha.row(e).cast<double>();
  for (Index atom = 0; atom < sums.rows(); ++atom)
    for (Index h = 0; h < sums.cols(); ++h) EXPECT_NEAR(sums(atom, h), 1.0, 1e-5) << "atom " << atom << ", head " << h;
}

}  // namespace
}  // namespace edgewise

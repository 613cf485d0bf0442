// `train --uncertainty ensemble`, then `predict` with standard deviations and intervals and `eval`
// with the uncertainty scores; the refusals that name their fix; a classifier's calibrated
// probabilities.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli.hpp"

namespace {

using edgewise::testing::CliRun;

constexpr const char* kBriefTraining =
    " --layers 1 --head-hidden 8 --epochs 3 --no-descriptors --batch-size 4 "
    "--split-sizes 0.5,0.25,0.25 --quiet --force";

class CliUncertaintyTest : public edgewise::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_small_molecules("molecules.csv");
  }

  CliRun train(const std::string& options, const std::string& out) const {
    return run_cli("train --task molecule --data " + path("molecules.csv") + kBriefTraining + options + " --out " +
                   path(out));
  }

  static std::vector<double> numbers(const std::string& line) {
    std::vector<double> values;
    std::istringstream fields(line.substr(line.find(',') + 1));
    std::string field;
    while (std::getline(fields, field, ',') && !field.empty()) values.push_back(std::stod(field));
    return values;
  }
};

TEST_F(CliUncertaintyTest, PredictWritesStandardDeviationsAndIntervalsAroundTheSameValues) {
  ASSERT_EQ(train(" --uncertainty ensemble --ensemble 2", "model.ew").status, 0);
  const CliRun plain = run_cli("predict --model " + path("model.ew") + " --smiles CCO");
  const CliRun intervals = run_cli("predict --model " + path("model.ew") + " --smiles CCO --coverage 0.5");
  ASSERT_EQ(intervals.status, 0) << intervals.output;
  std::istringstream plain_rows(plain.output), rows(intervals.output);
  std::string plain_header, plain_line, header, line;
  std::getline(plain_rows, plain_header);
  std::getline(plain_rows, plain_line);
  std::getline(rows, header);
  std::getline(rows, line);
  EXPECT_EQ(plain_header, "smiles,logS,logS_std,error");
  EXPECT_EQ(header, "smiles,logS,logS_std,logS_lower,logS_upper,error");
  const std::vector<double> values = numbers(line);
  ASSERT_EQ(values.size(), 4u) << line;
  EXPECT_EQ(numbers(plain_line), std::vector<double>(values.begin(), values.begin() + 2));
  EXPECT_GT(values[1], 0);                                    // a standard deviation
  EXPECT_LE(values[2], values[0]);                            // lower
  EXPECT_GE(values[3], values[0]);                            // upper
  EXPECT_NEAR(values[0] - values[2], values[3] - values[0], 1e-3);  // symmetric

  const CliRun eval = run_cli("eval --model " + path("model.ew") + " --data " + path("molecules.csv") +
                              " --coverage 0.5");
  ASSERT_EQ(eval.status, 0) << eval.output;
  EXPECT_NE(eval.output.find("intervals meant to hold 50 % of targets"), std::string::npos) << eval.output;
  EXPECT_NE(eval.output.find("nll    miscal      ence  spearman  coverage     width"), std::string::npos)
      << eval.output;
  const CliRun info = run_cli("info " + path("model.ew"), 0);
  EXPECT_NE(info.output.find("the members' spread, calibrated on held-out molecules"), std::string::npos)
      << info.output;
  EXPECT_NE(info.output.find("spread calibration (std = scale * (spread + offset))"), std::string::npos)
      << info.output;
}

TEST_F(CliUncertaintyTest, OneNetworkGivesStandardDeviationsOfItsOwn) {
  for (const std::string method : {"mve", "evidential", "dropout"}) {
    ASSERT_EQ(train(" --uncertainty " + method + " --ensemble 1", method + ".ew").status, 0);
    const CliRun run = run_cli("predict --model " + path(method + ".ew") + " --smiles CCO CCCO --coverage 0.5");
    ASSERT_EQ(run.status, 0) << run.output;
    std::istringstream rows(run.output);
    std::string header, line;
    std::getline(rows, header);
    EXPECT_EQ(header, "smiles,logS,logS_std,logS_lower,logS_upper,error");
    while (std::getline(rows, line)) EXPECT_GT(numbers(line).at(1), 0) << method << ": " << line;
  }
}

// With no --uncertainty, regression networks learn a variance too, calibrated, however many there
// are; with --uncertainty none the model predicts values alone.
TEST_F(CliUncertaintyTest, ARegressionModelHasASpreadByDefault) {
  ASSERT_EQ(train(" --ensemble 2", "default.ew").status, 0);
  ASSERT_EQ(train(" --ensemble 1", "single.ew").status, 0);
  ASSERT_EQ(train(" --ensemble 2 --uncertainty none", "none.ew").status, 0);
  const CliRun info = run_cli("info " + path("default.ew"), 0);
  EXPECT_NE(info.output.find("mve (the members' total spread), calibrated on held-out molecules by crps"),
            std::string::npos)
      << info.output;
  const auto header = [&](const std::string& model) {
    const CliRun run = run_cli("predict --model " + path(model) + " --smiles CCO");
    return run.output.substr(0, run.output.find('\n'));
  };
  EXPECT_EQ(header("default.ew"), "smiles,logS,logS_std,error");
  EXPECT_EQ(header("single.ew"), "smiles,logS,logS_std,error");
  EXPECT_EQ(header("none.ew"), "smiles,logS,error");
}

// The fit sets the standard deviations; the values stay as they were.
TEST_F(CliUncertaintyTest, TheSpreadFitChangesTheStandardDeviationsNotTheValues) {
  ASSERT_EQ(train(" --ensemble 1", "crps.ew").status, 0);
  ASSERT_EQ(train(" --ensemble 1 --spread-fit nll", "nll.ew").status, 0);
  const auto first_row = [&](const std::string& model) {
    const CliRun run = run_cli("predict --model " + path(model) + " --smiles CCO");
    std::istringstream rows(run.output);
    std::string header, line;
    std::getline(rows, header);
    std::getline(rows, line);
    return numbers(line);
  };
  const std::vector<double> crps = first_row("crps.ew"), nll = first_row("nll.ew");
  ASSERT_EQ(crps.size(), 2u);
  ASSERT_EQ(nll.size(), 2u);
  EXPECT_EQ(crps[0], nll[0]);
  EXPECT_NE(crps[1], nll[1]);
  EXPECT_NE(run_cli("info " + path("nll.ew"), 0).output.find("calibrated on held-out molecules by nll"),
            std::string::npos);
  EXPECT_NE(train(" --spread-fit mse", "bad.ew").output.find("crps"), std::string::npos);
}

TEST_F(CliUncertaintyTest, RefusalsNameTheirFix) {
  ASSERT_EQ(train(" --uncertainty ensemble --ensemble 2", "model.ew").status, 0);
  // 4 validation molecules calibrate: 90 % intervals need 9.
  const CliRun too_few = run_cli("predict --model " + path("model.ew") + " --smiles CCO --coverage 0.9");
  EXPECT_EQ(too_few.status, 1);
  EXPECT_NE(too_few.output.find("coverage 0.9 needs at least 9 calibration rows; the model was calibrated on 4"),
            std::string::npos)
      << too_few.output;
  const CliRun outside = run_cli("predict --model " + path("model.ew") + " --smiles CCO --coverage 1");
  EXPECT_NE(outside.output.find("coverage 1 is outside (0, 1)"), std::string::npos) << outside.output;

  ASSERT_EQ(train(" --ensemble 2 --uncertainty none", "plain.ew").status, 0);
  const CliRun uncalibrated = run_cli("predict --model " + path("plain.ew") + " --smiles CCO --coverage 0.5 --out " +
                                      path("out.csv"));
  EXPECT_EQ(uncalibrated.status, 1);
  EXPECT_NE(uncalibrated.output.find("the model has no calibrated spread; train it with --uncertainty ensemble, mve, evidential or dropout"),
            std::string::npos)
      << uncalibrated.output;
  EXPECT_FALSE(std::filesystem::exists(path("out.csv")));

  const CliRun one_member = train(" --uncertainty ensemble --ensemble 1", "one.ew");
  EXPECT_EQ(one_member.status, 1);
  EXPECT_NE(one_member.output.find("needs regression and an ensemble of 2 or more"), std::string::npos)
      << one_member.output;
}

// eval --plot draws the calibration as SVG; a model without a spread has none to draw.
TEST_F(CliUncertaintyTest, EvalPlotsTheCalibration) {
  ASSERT_EQ(train(" --uncertainty ensemble --ensemble 2", "model.ew").status, 0);
  const CliRun eval = run_cli("eval --model " + path("model.ew") + " --data " + path("molecules.csv") + " --plot " +
                              path("calibration.svg"));
  ASSERT_EQ(eval.status, 0) << eval.output;
  const std::string svg = read("calibration.svg");
  EXPECT_TRUE(svg.starts_with("<?xml")) << svg;
  for (const char* text : {">observed fraction inside<", ">|error|<", ">logS: molecules<", ">standard deviation<"})
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  const CliRun again = run_cli("eval --model " + path("model.ew") + " --data " + path("molecules.csv") + " --plot " +
                               path("calibration.svg"));
  EXPECT_NE(again.output.find("pass --force"), std::string::npos) << again.output;

  ASSERT_EQ(train(" --ensemble 2 --uncertainty none", "plain.ew").status, 0);
  const CliRun plain = run_cli("eval --model " + path("plain.ew") + " --data " + path("molecules.csv") + " --plot " +
                               path("plain.svg"));
  EXPECT_NE(plain.status, 0);
  EXPECT_NE(plain.output.find("--plot draws a calibrated spread"), std::string::npos) << plain.output;
  EXPECT_FALSE(std::filesystem::exists(path("plain.svg")));
}

// --calibration: a labelled file calibrates instead of the validation part, whose 4 molecules could
// not give 90 % intervals; its 16 can, which hold 0.05^(1/16) to 0.95^(1/16) of fresh molecules for 9
// calibration files in 10.
TEST_F(CliUncertaintyTest, ACalibrationFileTakesThePlaceOfTheValidationPart) {
  write_small_molecules("calibration.csv");
  const CliRun trained = run_cli("train --task molecule --data " + path("molecules.csv") +
                                 " --layers 1 --head-hidden 8 --epochs 3 --no-descriptors --batch-size 4 "
                                 "--split-sizes 0.5,0.25,0.25 --uncertainty ensemble --ensemble 2 --calibration " +
                                 path("calibration.csv") + " --out " + path("model.ew"));
  ASSERT_EQ(trained.status, 0) << trained.output;
  EXPECT_NE(trained.output.find("spread calibrated on the 16 molecules of the calibration file: 90 % intervals will "
                                "hold 82 to 100 % of molecules like them, 9 times in 10\n"),
            std::string::npos)
      << trained.output;
  const CliRun intervals = run_cli("predict --model " + path("model.ew") + " --smiles CCO --coverage 0.9");
  EXPECT_EQ(intervals.status, 0) << intervals.output;
  const CliRun own = run_cli("train --task molecule --data " + path("molecules.csv") +
                             " --layers 1 --head-hidden 8 --epochs 3 --no-descriptors --batch-size 4 "
                             "--split-sizes 0.5,0.25,0.25 --uncertainty ensemble --ensemble 2 --out " + path("own.ew"));
  EXPECT_NE(own.output.find("spread calibrated on the 4 molecules of the validation part, too few for 90 % intervals, "
                            "which need 9\n"),
            std::string::npos)
      << own.output;

  write("wrong.csv", "smiles,other\nCCO,1\n");
  const CliRun wrong = train(" --uncertainty ensemble --ensemble 2 --calibration " + path("wrong.csv"), "wrong.ew");
  EXPECT_NE(wrong.status, 0);
  EXPECT_NE(wrong.output.find("logS"), std::string::npos) << wrong.output;
}

// A classifier calibrates its probabilities on the validation part: training says how many tasks
// Platt scaling changed, info shows the scalings, eval scores the probabilities.
TEST_F(CliUncertaintyTest, AClassifiersProbabilitiesAreCalibratedAndScored) {
  std::string rows = "smiles,aromatic\n", train_rows, val_rows, test_rows;
  const char* smiles[] = {"CCO", "c1ccccc1", "CCCO", "Cc1ccccc1", "CCN", "c1ccncc1", "CCCN", "Oc1ccccc1",
                          "CC(C)O", "Nc1ccccc1", "OCCO", "Clc1ccccc1", "CCCCCC", "c1ccc2ccccc2c1", "NCCO", "Fc1ccccc1"};
  for (int i = 0; i < 16; ++i) {
    rows += std::string(smiles[i]) + ',' + (i % 2 == 1 ? "1" : "0") + '\n';
    (i < 8 ? train_rows : i < 12 ? val_rows : test_rows) += std::to_string(i) + '\n';
  }
  write("classes.csv", rows);
  std::filesystem::create_directories(path("split"));
  write("split/train.txt", train_rows);
  write("split/val.txt", val_rows);
  write("split/test.txt", test_rows);
  const CliRun trained = run_cli("train --task molecule --task-type classification --data " + path("classes.csv") +
                                 " --split " + path("split") +
                                 " --layers 1 --head-hidden 8 --epochs 3 --no-descriptors --batch-size 4 -v --out " +
                                 path("classes.ew"));
  ASSERT_EQ(trained.status, 0) << trained.output;
  EXPECT_NE(trained.output.find("probabilities calibrated on the validation part: "), std::string::npos)
      << trained.output;
  const CliRun info = run_cli("info " + path("classes.ew"), 0);
  EXPECT_NE(info.output.find("probability calibration"), std::string::npos) << info.output;
  const CliRun eval = run_cli("eval --model " + path("classes.ew") + " --data " + path("classes.csv"));
  ASSERT_EQ(eval.status, 0) << eval.output;
  EXPECT_NE(eval.output.find("brier"), std::string::npos) << eval.output;
  EXPECT_NE(eval.output.find("ece"), std::string::npos) << eval.output;
}

}  // namespace

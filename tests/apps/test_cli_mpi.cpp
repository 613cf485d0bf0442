// `edgewise predict` under mpirun: the processes share the input file's lines, and the output file
// and the messages are the one-process run's, byte for byte, whatever the number of processes.
// `edgewise train --task graph` under mpirun: the processes share every batch and train the
// one-process model, up to the order of float sums. A failing process ends them all with its
// message; commands that do not divide their work refuse to run under mpirun. Skipped in a build
// without MPI.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "edgewise/core/products.hpp"
#include "support/cli.hpp"

namespace edgewise {
namespace {

class CliMpiTest : public testing::CliTest {
 protected:
  void SetUp() override {
    if (std::string(EDGEWISE_MPIEXEC).empty()) GTEST_SKIP() << "built without MPI (EDGEWISE_MPI)";
    CliTest::SetUp();
    write_small_molecules("train.csv");
    const testing::CliRun trained =
        run_cli("train --task graph --data " + path("train.csv") + " --epochs 2 --ensemble 2 --out " + path("m.ew"));
    ASSERT_EQ(trained.status, 0) << trained.output;
  }

  testing::CliRun run_processes(int processes, const std::string& arguments, const std::string& output) const {
    return testing::run_cli_processes(processes, arguments, output);
  }

  // Rows over three prediction windows, with unreadable SMILES, blank lines and quoted fields.
  void write_input(const std::string& name) const {
    std::ofstream csv(path(name));
    csv << "id,smiles\n";
    const char* smiles[] = {"CCO", "c1ccccc1", "CC(=O)O", "C1CC", "CCN", "", "\"CC(C)O\"", "c1cccc1", "OCCO"};
    for (int row = 0; row < 3000; ++row) {
      csv << row << ',' << smiles[row % 9] << '\n';
      if (row % 500 == 7) csv << '\n';
    }
  }
};

// Two targets, a fifth of one missing, over 240 molecules.
void write_two_targets(const std::string& file) {
  std::ofstream csv(file);
  csv << "smiles,a,b\n";
  const char* smiles[] = {"CCO", "CCCO", "CCCCO", "c1ccccc1", "Cc1ccccc1", "CCN", "CCCN", "CC(C)O",
                          "CCOC", "CCCl", "c1ccncc1", "OCCO", "CC(=O)O", "CCCCCC", "CCC(C)O", "NCCO"};
  for (int row = 0; row < 240; ++row) {
    csv << smiles[row % 16] << ',' << 0.1 * (row % 16) + 0.01 * (row % 7) << ',';
    if (row % 5 != 0) csv << 1.0 - 0.05 * (row % 16);
    csv << '\n';
  }
}

// The numbers of a predictions file, row after row.
std::vector<double> predicted_values(const std::string& csv) {
  std::vector<double> values;
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string field;
    std::getline(fields, field, ',');  // the SMILES
    while (std::getline(fields, field, ','))
      if (!field.empty()) values.push_back(std::stod(field));
  }
  return values;
}

TEST_F(CliMpiTest, TrainingOverProcessesGivesTheOneProcessModel) {
  write_two_targets(path("two.csv"));
  // 192 training molecules in batches of 19: the last batch of 2 leaves the third process without one.
  const std::string train = "train --task graph --data " + path("two.csv") +
                            " --targets a,b --epochs 3 --batch-size 19 --ensemble 1 --seed 5 --out ";
  const std::string predict = "predict --data " + path("two.csv") + " --model ";
  ASSERT_EQ(run_cli(train + path("one.ew")).status, 0);
  ASSERT_EQ(run_cli(predict + path("one.ew") + " --out " + path("one.csv")).status, 0);
  const std::vector<double> expected = predicted_values(read("one.csv"));
  ASSERT_EQ(expected.size(), 960U);  // 240 molecules' values and standard deviations of 2 targets
  for (const int processes : {2, 3}) {
    SCOPED_TRACE(std::to_string(processes) + " processes");
    const std::string model = path("shared" + std::to_string(processes) + ".ew");
    const testing::CliRun trained = run_processes(processes, train + model, path("messages.txt"));
    ASSERT_EQ(trained.status, 0) << trained.output;
    EXPECT_EQ(trained.output.find("saved"), trained.output.rfind("saved")) << "one process reports: " << trained.output;
    const std::string predictions = "shared" + std::to_string(processes) + ".csv";
    ASSERT_EQ(run_cli(predict + model + " --out " + path(predictions)).status, 0);
    const std::vector<double> values = predicted_values(read(predictions));
    ASSERT_EQ(values.size(), expected.size());
    // The same model up to the order of float sums, over 30 steps.
    for (std::size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(values[i], expected[i], 1e-3) << "value " << i;
  }
  const std::string again = path("again.ew");
  ASSERT_EQ(run_processes(2, train + again, path("messages.txt")).status, 0);
  EXPECT_TRUE(read("again.ew") == read("shared2.ew")) << "two runs with 2 processes wrote different models";
}

TEST_F(CliMpiTest, SharedPredictionIsTheOneProcessOutputByteForByte) {
  write_input("in.csv");
  const std::string predict = "predict --model " + path("m.ew") + " --data " + path("in.csv") + " --smiles-column smiles";
  const testing::CliRun one = run_cli(predict + " --out " + path("one.csv"), 2);
  ASSERT_EQ(one.status, 0) << one.output;
  ASSERT_NE(one.output.find("in.csv:5: cannot read SMILES 'C1CC'"), std::string::npos) << one.output;
  const std::string expected = read("one.csv");
  for (const int processes : {2, 3}) {
    SCOPED_TRACE(std::to_string(processes) + " processes");
    const std::string out = path("shared" + std::to_string(processes) + ".csv");
    const testing::CliRun shared = run_processes(processes, predict + " --out " + out, path("messages.txt"));
    ASSERT_EQ(shared.status, 0) << shared.output;
    EXPECT_TRUE(read(out) == expected) << "the output differs from the one-process run";
    EXPECT_EQ(shared.output, one.output);
  }
}

// Processes whose CPUs or EDGEWISE_PRECISION would choose different precisions all compute in
// float32, so that the shared output is still one process's.
TEST_F(CliMpiTest, ProcessesThatWouldComputeAtTwoPrecisionsAllComputeInFloat32) {
  if (!bf16_available()) GTEST_SKIP() << "this CPU has no AVX-512 BF16: every process computes in float32 anyway";
  write_input("in.csv");
  const std::string predict = "predict --model " + path("m.ew") + " --data " + path("in.csv") + " --smiles-column smiles";
  ASSERT_EQ(run_cli(predict + " --precision float32 --out " + path("float32.csv"), 2).status, 0);
  ASSERT_EQ(run_cli(predict + " --precision bf16 --out " + path("bf16.csv"), 2).status, 0);
  ASSERT_TRUE(read("bf16.csv") != read("float32.csv")) << "bf16 and float32 predict alike: nothing to tell apart";
  const testing::CliRun mixed = testing::run_cli_processes_with(
      {"EDGEWISE_PRECISION=bf16", "EDGEWISE_PRECISION=float32"}, predict + " --out " + path("mixed.csv"),
      path("messages.txt"));
  ASSERT_EQ(mixed.status, 0) << mixed.output;
  EXPECT_TRUE(read("mixed.csv") == read("float32.csv")) << "the output differs from the float32 run";
  EXPECT_NE(mixed.output.find("note: 1 of the 2 processes would compute in bf16 and the others in float32; all "
                              "compute in float32"),
            std::string::npos)
      << mixed.output;
}

TEST_F(CliMpiTest, AFailingProcessEndsThemAllWithItsMessage) {
  // A quoted line break where the second process's share begins: that process cannot know it is
  // inside a record, and the first one says so.
  std::ofstream csv(path("quoted.csv"));
  csv << "smiles,note\n";
  for (int row = 0; row < 200; ++row) csv << "CCO,plain\n";
  csv << "CCN,\"" << std::string(2000, 'x') << "\n" << std::string(2000, 'y') << "\"\n";
  for (int row = 0; row < 200; ++row) csv << "CCO,plain\n";
  csv.close();
  const testing::CliRun failed = run_processes(
      2, "predict --model " + path("m.ew") + " --data " + path("quoted.csv") + " --out " + path("p.csv"),
      path("messages.txt"));
  EXPECT_NE(failed.status, 0);
  // Either process may fail first (the second reads the record's tail as a row of its own).
  EXPECT_NE(failed.output.find(" of 2): error: " + path("quoted.csv") + ":"), std::string::npos) << failed.output;
  EXPECT_FALSE(std::filesystem::exists(path("p.csv"))) << "no partial output";
}

TEST_F(CliMpiTest, CommandsThatDoNotShareTheirWorkRefuseToRunInSeveralProcesses) {
  const testing::CliRun refused = run_processes(
      2, "eval --model " + path("m.ew") + " --data " + path("train.csv"), path("messages.txt"));
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.output.find("'edgewise eval' runs as one process"), std::string::npos) << refused.output;
  const testing::CliRun no_data = run_processes(2, "predict --model " + path("m.ew") + " --smiles CCO", path("m.txt"));
  EXPECT_NE(no_data.status, 0);
  EXPECT_NE(no_data.output.find("with several processes, give --data"), std::string::npos) << no_data.output;

  // A node classifier on a path of four nodes, alternately labelled.
  std::ofstream(path("edges.txt")) << "0 1\n1 2\n2 3\n";
  std::ofstream(path("labels.txt")) << "0 x\n1 y\n2 x\n3 y\n";
  const std::string edges = " --edges " + path("edges.txt");
  ASSERT_EQ(run_cli("train --task node" + edges + " --labels " + path("labels.txt") +
                    " --split stratified:0.5,0.25,0.25 --epochs 2 --out " + path("node.ew")).status, 0);
  const testing::CliRun nodes =
      run_processes(2, "predict --model " + path("node.ew") + edges + " --out " + path("n.tsv"), path("n.txt"));
  EXPECT_NE(nodes.status, 0);
  EXPECT_NE(nodes.output.find("is a node classification model, whose prediction runs as one process"),
            std::string::npos) << nodes.output;
  EXPECT_FALSE(std::filesystem::exists(path("n.tsv")));
}

}  // namespace
}  // namespace edgewise

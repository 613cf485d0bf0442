// `edgewise predict` under mpirun: the processes share the input file's lines, and the output file
// and the messages are the one-process run's, byte for byte, whatever the number of processes. A
// failing process ends them all with its message; commands that do not divide their work refuse to
// run under mpirun. Skipped in a build without MPI.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

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

  // `edgewise ARGUMENTS` in `processes` processes, 1 thread each, with the output in `output`. Open
  // MPI keeps some of its memory to the end, which LeakSanitizer would report in sanitizer builds.
  testing::CliRun run_processes(int processes, const std::string& arguments, const std::string& output) const {
    const std::string command = "timeout 120 env ASAN_OPTIONS=\"${ASAN_OPTIONS}:detect_leaks=0\" " +
                                std::string(EDGEWISE_MPIEXEC) + " --allow-run-as-root --oversubscribe -np " +
                                std::to_string(processes) + " " + testing::cli_command(arguments, output, 1);
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read(output)};
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
      2, "train --task graph --data " + path("train.csv") + " --epochs 1 --out " + path("other.ew"), path("messages.txt"));
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.output.find("'edgewise train' runs as one process"), std::string::npos) << refused.output;
  EXPECT_FALSE(std::filesystem::exists(path("other.ew")));
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

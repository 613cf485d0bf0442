// Checkpoints and reproducibility of `edgewise train`, run as a user would: a training run killed
// with SIGKILL after its first checkpoint and resumed writes the very bytes of the model an
// uninterrupted run writes, for molecules (--task graph) and for nodes (--task node); a checkpoint
// is not continued by another run; two runs with one seed and thread count give identical files;
// and predictions at 1 and 2 threads agree to float rounding.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "edgewise/core/products.hpp"
#include "edgewise/datasets/sbm.hpp"
#include "support/cli.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;

using edgewise::testing::CliRun;

class CliResumeTest : public edgewise::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_molecules();
    write_blocks();
  }

  // Starts a training run, waits until `checkpoint` appears, kills the run with SIGKILL and returns
  // how it ended (a wait status).
  int kill_after_first_checkpoint(const std::string& arguments, const std::string& checkpoint) const {
    const std::string command = "exec " + edgewise::testing::cli_command(arguments, path("output.txt"));
    const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
    pid_t pid = 0;
    if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) return -1;
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!fs::exists(checkpoint) && std::chrono::steady_clock::now() < deadline) {
      if (::waitpid(pid, &status, WNOHANG) == pid) return status;  // ended on its own
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return status;
  }

  // Small molecules whose target grows with the chain and depends on the end group.
  void write_molecules() const {
    std::ofstream csv(path("molecules.csv"));
    csv << "smiles,y\n";
    const char* ends[] = {"", "O", "N", "Cl"};
    for (int length = 1; length <= 10; ++length)
      for (int end = 0; end < 4; ++end)
        csv << std::string(static_cast<std::size_t>(length), 'C') << ends[end] << ',' << length + 0.5 * end << '\n';
  }

  // A planted partition of 3 blocks of 30 nodes with dense features.
  void write_blocks() const {
    const edgewise::SbmGraph sbm = edgewise::stochastic_block_model(
        {.nodes = 90, .communities = 3, .p_in = 0.2, .p_out = 0.02, .feature_dim = 4, .feature_noise = 1.5, .seed = 3});
    std::ofstream edges(path("edges.txt")), labels(path("labels.txt")), features(path("features.txt"));
    for (const auto& [u, v] : sbm.edges) edges << u << ' ' << v << '\n';
    for (std::size_t node = 0; node < sbm.labels.size(); ++node) {
      labels << node << " c" << sbm.labels[node] << '\n';
      features << node;
      for (edgewise::Index f = 0; f < sbm.features.cols(); ++f)
        features << ' ' << sbm.features(static_cast<edgewise::Index>(node), f);
      features << '\n';
    }
  }

  std::string molecule_training(int epochs) const {
    return "train --task graph --data " + path("molecules.csv") + " --hidden 16 --layers 2 --heads 2 --head-hidden 16 "
           "--dropout 0.2 --attention-dropout 0.1 --batch-size 8 --patience 100000 --seed 4 --epochs " +
           std::to_string(epochs);
  }

  std::string node_training(int epochs) const {
    return "train --task node --edges " + path("edges.txt") + " --labels " + path("labels.txt") + " --features " +
           path("features.txt") + " --feature-format dense --heads 2 --head-dim 4 --patience 100000 --seed 4 "
           "--epochs " + std::to_string(epochs);
  }

  // Kills a run with checkpoints every 5 epochs after its first one, resumes it, and expects the
  // model file of a run never interrupted (and without checkpoints).
  void expect_resume_gives_the_uninterrupted_model(const std::string& training) {
    const std::string checkpointed = training + " --checkpoint-every 5 --out " + path("resumed.ew");
    const int status = kill_after_first_checkpoint(checkpointed, path("resumed.ew.ckpt"));
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the run ended before its first checkpoint could be waited for (status " << status << "); "
        << read("output.txt");
    ASSERT_FALSE(fs::exists(path("resumed.ew"))) << "killed before the end";

    const CliRun resumed = run_cli(checkpointed + " --resume " + path("resumed.ew.ckpt"));
    ASSERT_EQ(resumed.status, 0) << resumed.output;
    const CliRun uninterrupted = run_cli(training + " --out " + path("uninterrupted.ew"));
    ASSERT_EQ(uninterrupted.status, 0) << uninterrupted.output;
    const std::string model = read("uninterrupted.ew");
    ASSERT_FALSE(model.empty());
    EXPECT_TRUE(read("resumed.ew") == model) << "the resumed run's model file differs from the uninterrupted one's";
  }

  // The numbers of a predictions file (CSV or TSV), in order.
  std::vector<double> numbers(const std::string& name) const {
    std::vector<double> values;
    std::string text = read(name);
    for (char& c : text)
      if (c == ',' || c == '\t' || c == '\n') c = ' ';
    std::istringstream fields(text);
    for (std::string field; fields >> field;) {
      char* end = nullptr;
      const double value = std::strtod(field.c_str(), &end);
      if (end == field.c_str() + field.size()) values.push_back(value);
    }
    return values;
  }

  void expect_close(const std::string& a, const std::string& b) const {
    const std::vector<double> x = numbers(a), y = numbers(b);
    ASSERT_EQ(x.size(), y.size());
    ASSERT_FALSE(x.empty());
    for (std::size_t i = 0; i < x.size(); ++i)
      EXPECT_NEAR(x[i], y[i], 1e-5 + 1e-5 * std::abs(x[i])) << "value " << i << " of " << a << " and " << b;
  }
};

// 100 epochs: the 95 after the first checkpoint take some 0.25 s in a Release build, ample time to
// kill the run, while the test's two whole runs stay short under the sanitizers.
TEST_F(CliResumeTest, KilledMoleculeTrainingResumesToTheUninterruptedModel) {
  expect_resume_gives_the_uninterrupted_model(molecule_training(100));
}

TEST_F(CliResumeTest, KilledNodeTrainingResumesToTheUninterruptedModel) {
  expect_resume_gives_the_uninterrupted_model(node_training(1500));
}

TEST_F(CliResumeTest, ACheckpointIsOnlyContinuedByItsOwnRun) {
  const std::string training = node_training(10) + " --checkpoint-every 5 --out " + path("model.ew");
  ASSERT_EQ(run_cli(training).status, 0);
  ASSERT_TRUE(fs::exists(path("model.ew.ckpt")));

  const CliRun other_lr = run_cli(training + " --force --lr 0.01 --resume " + path("model.ew.ckpt"));
  EXPECT_NE(other_lr.status, 0);
  EXPECT_NE(other_lr.output.find("run.training.learning_rate is 0.005 in the checkpoint and 0.01 in this run"),
            std::string::npos)
      << other_lr.output;

  const CliRun other_network = run_cli(training + " --force --output-heads 2 --resume " + path("model.ew.ckpt"));
  EXPECT_NE(other_network.status, 0);
  EXPECT_NE(other_network.output.find("model.network.output_heads is 1 in the checkpoint and 2"), std::string::npos)
      << other_network.output;

  const CliRun other_task = run_cli(molecule_training(10) + " --out " + path("m.ew") + " --resume " +
                                    path("model.ew.ckpt"));
  EXPECT_NE(other_task.status, 0);
  EXPECT_NE(other_task.output.find("model.kind"), std::string::npos) << other_task.output;

  const CliRun model_file = run_cli(training + " --force --resume " + path("model.ew"));
  EXPECT_NE(model_file.status, 0);
  EXPECT_NE(model_file.output.find("not a checkpoint"), std::string::npos) << model_file.output;

  const CliRun overwrite = run_cli(node_training(10) + " --checkpoint-every 5 --out " + path("other.ew") +
                                   " --checkpoint " + path("model.ew.ckpt"));
  EXPECT_NE(overwrite.status, 0);
  EXPECT_NE(overwrite.output.find("pass --force"), std::string::npos) << overwrite.output;
}

// A checkpoint written with bf16 products continues only with bf16 products, and one written with
// float32 only with float32, for both tasks.
TEST_F(CliResumeTest, ACheckpointIsOnlyContinuedAtItsPrecision) {
  if (!edgewise::bf16_available()) GTEST_SKIP() << "this CPU has no AVX-512 BF16, so every run computes in float32";
  for (const std::string& training : {node_training(10), molecule_training(10)}) {
    const std::string bf16 = training + " --checkpoint-every 5 --precision bf16 --force --out " + path("bf16.ew");
    const std::string float32 = training + " --checkpoint-every 5 --force --out " + path("float32.ew");
    ASSERT_EQ(run_cli(bf16).status, 0);
    ASSERT_EQ(run_cli(float32).status, 0);
    const CliRun changed = run_cli(training + " --force --out " + path("bf16.ew") + " --resume " + path("bf16.ew.ckpt"));
    EXPECT_NE(changed.status, 0);
    EXPECT_NE(changed.output.find("written with bf16 products and this run computes in float32 (resume with "
                                  "--precision bf16)"),
              std::string::npos)
        << changed.output;
    const CliRun to_bf16 = run_cli(float32 + " --precision bf16 --resume " + path("float32.ew.ckpt"));
    EXPECT_NE(to_bf16.status, 0);
    EXPECT_NE(to_bf16.output.find("written with float32 products"), std::string::npos) << to_bf16.output;
    EXPECT_EQ(run_cli(bf16 + " --resume " + path("bf16.ew.ckpt")).status, 0);
  }
}

TEST_F(CliResumeTest, DivergenceStopsWithoutAModelAndKeepsTheLastCheckpoint) {
  const CliRun run = run_cli(node_training(200) + " --lr 1e30 --checkpoint-every 1 --out " + path("model.ew"));
  EXPECT_NE(run.status, 0);
  EXPECT_NE(run.output.find("training diverged in epoch "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("No model was written"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(path("model.ew")));
  if (fs::exists(path("model.ew.ckpt"))) {
    EXPECT_NE(run.output.find("the last checkpoint, from which --resume continues, is " + path("model.ew.ckpt")),
              std::string::npos)
        << run.output;
  }
}

TEST_F(CliResumeTest, SameSeedAndThreadsGiveIdenticalModelFiles) {
  for (const int threads : {1, 2}) {
    for (const std::string name : {"a", "b"}) {
      ASSERT_EQ(run_cli(molecule_training(4) + " --out " + path("m" + name + ".ew"), threads).status, 0);
      ASSERT_EQ(run_cli(node_training(20) + " --out " + path("n" + name + ".ew"), threads).status, 0);
    }
    EXPECT_TRUE(read("ma.ew") == read("mb.ew")) << "molecule models at " << threads << " threads";
    EXPECT_TRUE(read("na.ew") == read("nb.ew")) << "node models at " << threads << " threads";
    for (const char* name : {"ma.ew", "mb.ew", "na.ew", "nb.ew"}) fs::remove(path(name));
  }
}

TEST_F(CliResumeTest, PredictionsAtOneAndTwoThreadsAgreeToRounding) {
  ASSERT_EQ(run_cli(molecule_training(4) + " --out " + path("m.ew")).status, 0);
  ASSERT_EQ(run_cli(node_training(20) + " --out " + path("n.ew")).status, 0);
  for (const int threads : {1, 2}) {
    const std::string suffix = std::to_string(threads);
    ASSERT_EQ(run_cli("predict --model " + path("m.ew") + " --data " + path("molecules.csv") + " --out " +
                          path("m" + suffix + ".csv"),
                      threads)
                  .status,
              0);
    ASSERT_EQ(run_cli("predict --model " + path("n.ew") + " --edges " + path("edges.txt") + " --features " +
                          path("features.txt") + " --out " + path("n" + suffix + ".tsv"),
                      threads)
                  .status,
              0);
  }
  expect_close("m1.csv", "m2.csv");
  expect_close("n1.tsv", "n2.tsv");
}

}  // namespace

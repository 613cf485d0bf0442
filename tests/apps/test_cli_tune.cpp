// `edgewise tune` and `edgewise train --options`, run as a user would: the table of candidates, the
// options file of the chosen one (by the mean alone below 4 folds, by the paired t test from 4), train
// reading it with the command line taking precedence, the same table for the same seed, and the errors
// that guard them.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "support/cli.hpp"

namespace {

using edgewise::testing::CliRun;

class CliTuneTest : public edgewise::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    // Ethers and amines of growing chains; the target counts heavy atoms and heteroatoms apart.
    std::ofstream csv(path("molecules.csv"));
    csv << "name,smiles,y\n";
    for (int length = 1; length <= 12; ++length)
      for (const std::string group : {"OC", "N", "S"}) {
        const std::string chain(static_cast<std::size_t>(length), 'C');
        csv << "m" << length << group << ',' << chain << group << ',' << length + 2.0 * (group == "OC") << '\n';
      }
    write_grid(R"([{"hidden": 8}, {"hidden": 16, "readout": "mean"}])");
  }

  void write_grid(const std::string& text) const { std::ofstream(path("grid.json")) << text; }

  // tune on the molecules with the grid, small and fast; `extra` adds or overrides options.
  CliRun tune(const std::string& out, const std::string& extra = "", int folds = 2) const {
    return run_cli("tune --task graph --data " + path("molecules.csv") + " --targets y --grid " + path("grid.json") +
                   " --folds " + std::to_string(folds) + " --epochs 3 --heads 1 --out " + path(out) + " " + extra);
  }

  nlohmann::json json(const std::string& name) const { return nlohmann::json::parse(read(name)); }
};

TEST_F(CliTuneTest, WritesTheBestCandidateAsOptionsThatTrainReads) {
  const CliRun run = tune("best.json");
  ASSERT_EQ(run.status, 0) << run.output;
  // The SMILES column is found by its name, though it is not the first.
  EXPECT_NE(run.output.find("32 training and validation rows in 2 folds (4 test rows left out); 2 candidates"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("--hidden 16 --readout mean"), std::string::npos) << run.output;

  const nlohmann::json file = json("best.json");
  EXPECT_EQ(file["format"], "edgewise options");
  EXPECT_EQ(file["task"], "molecule");
  const nlohmann::json& record = file["cross_validation"];
  ASSERT_EQ(record["candidates"].size(), 2u);
  const std::size_t chosen = record["chosen"];
  EXPECT_EQ(file["options"], record["candidates"][chosen]["options"]);
  EXPECT_EQ(record["candidates"][0]["folds"].size(), 2u);

  // train takes the file's options; the command line's win.
  std::ofstream(path("options.json")) << R"({"format": "edgewise options", "version": 1, "task": "graph",
      "options": {"hidden": 16, "readout": "mean", "heads": 2}})";
  const std::string train = "train --task graph --data " + path("molecules.csv") + " --targets y --epochs 1 --options " +
                            path("options.json") + " --force --out " + path("model.ew");
  ASSERT_EQ(run_cli(train + " --hidden 8").status, 0);
  const CliRun info = run_cli("info " + path("model.ew"), 0);
  EXPECT_NE(info.output.find("hidden               8\n"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("readout              mean\n"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("heads                2\n"), std::string::npos) << info.output;
}

// The candidate with the lowest mean RMSE.
std::size_t best_mean(const nlohmann::json& candidates) {
  std::size_t best = 0;
  for (std::size_t c = 1; c < candidates.size(); ++c)
    if (candidates[c]["mean"] < candidates[best]["mean"]) best = c;
  return best;
}

// The paired t value of a's fold metrics against b's.
double paired_t(const nlohmann::json& a, const nlohmann::json& b) {
  const std::size_t n = a["folds"].size();
  std::vector<double> differences(n);
  for (std::size_t k = 0; k < n; ++k) differences[k] = a["folds"][k].get<double>() - b["folds"][k].get<double>();
  const double mean = std::accumulate(differences.begin(), differences.end(), 0.0) / static_cast<double>(n);
  double sum = 0;
  for (const double d : differences) sum += (d - mean) * (d - mean);
  const double sd = std::sqrt(sum / static_cast<double>(n - 1));
  return sd > 0 ? mean / (sd / std::sqrt(static_cast<double>(n))) : 0.0;
}

// With seed 26 the ensemble of 4 has the better mean at 2, 3 and 4 folds, by too little for |t| to
// reach 2, and the single network trains in a quarter of the time: the paired test takes the single
// network, the mean alone the ensemble.
constexpr const char* kCloseCandidates = R"([{"ensemble": 1}, {"ensemble": 4}])";
constexpr const char* kCloseSeed = "--seed 26";

TEST_F(CliTuneTest, TwoOrThreeFoldsChooseTheBestMeanAlone) {
  write_grid(kCloseCandidates);
  for (const int folds : {2, 3}) {
    const std::string name = "folds" + std::to_string(folds) + ".json";
    const CliRun run = tune(name, kCloseSeed, folds);
    ASSERT_EQ(run.status, 0) << run.output;
    const std::string df = std::to_string(folds - 1);
    EXPECT_NE(run.output.find("t (" + df + " df)"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("with " + std::to_string(folds) + " folds the paired t test has " + df + " degree"),
              std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("too few to tell candidates apart: chosen by the mean alone"), std::string::npos)
        << run.output;
    const nlohmann::json record = json(name)["cross_validation"];
    EXPECT_EQ(record["chosen"], best_mean(record["candidates"])) << record.dump(1);
  }
}

TEST_F(CliTuneTest, FourFoldsChooseTheFastestCandidateThePairedTestCannotTellFromTheBest) {
  write_grid(kCloseCandidates);
  const CliRun run = tune("best.json", kCloseSeed, 4);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("t (3 df)"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("chosen: the fastest candidate whose paired t value against the best mean is under 2"),
            std::string::npos)
      << run.output;
  const nlohmann::json record = json("best.json")["cross_validation"];
  const nlohmann::json& candidates = record["candidates"];
  const std::size_t chosen = record["chosen"];
  const nlohmann::json& best = candidates[best_mean(candidates)];
  EXPECT_LT(std::abs(paired_t(candidates[chosen], best)), 2.0) << record.dump(1);
  for (const nlohmann::json& candidate : candidates)
    if (std::abs(paired_t(candidate, best)) < 2.0) {
      EXPECT_GE(candidate["seconds"].get<double>(), candidates[chosen]["seconds"].get<double>()) << record.dump(1);
    }
}

TEST_F(CliTuneTest, OptionFilesTurnDefaultFlagsOffByEitherName) {
  std::ofstream(path("off.json")) << R"({"format": "edgewise options", "version": 1, "task": "graph",
      "options": {"no-atom-crippen": true, "descriptors": false, "ensemble": 1}})";
  const CliRun train = run_cli("train --task graph --data " + path("molecules.csv") + " --targets y --epochs 1 --options " +
                               path("off.json") + " --out " + path("model.ew"));
  ASSERT_EQ(train.status, 0) << train.output;
  const CliRun info = run_cli("info " + path("model.ew"), 0);
  EXPECT_NE(info.output.find("crippen_contributions false\n"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("graph_dim            0\n"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("ensemble             1 network(s)"), std::string::npos) << info.output;
}

TEST_F(CliTuneTest, SameSeedGivesTheSameTable) {
  ASSERT_EQ(tune("a.json").status, 0);
  ASSERT_EQ(tune("b.json").status, 0);
  ASSERT_EQ(tune("c.json", "--seed 1").status, 0);
  const auto folds = [&](const std::string& name) {
    const nlohmann::json file = json(name);
    nlohmann::json all = nlohmann::json::array();
    for (const nlohmann::json& candidate : file["cross_validation"]["candidates"]) all.push_back(candidate["folds"]);
    return all;
  };
  ASSERT_EQ(folds("a.json").size(), 2u);
  EXPECT_EQ(folds("a.json"), folds("b.json"));
  EXPECT_NE(folds("a.json"), folds("c.json"));
}

TEST_F(CliTuneTest, AGridObjectIsEveryCombinationOfItsValues) {
  write_grid(R"({"hidden": [8, 16], "readout": ["sum", "mean"]})");
  ASSERT_EQ(tune("best.json").status, 0);
  EXPECT_EQ(json("best.json")["cross_validation"]["candidates"].size(), 4u);
}

TEST_F(CliTuneTest, TunesNodeClassifiersOnTheTrainingAndValidationNodes) {
  // Two 6-cliques joined by one edge; each community's nodes share a feature.
  {
    std::ofstream edges(path("edges.txt")), labels(path("labels.txt")), features(path("features.txt"));
    for (int community = 0; community < 2; ++community)
      for (int i = 0; i < 6; ++i) {
        const int node = 6 * community + i;
        for (int j = i + 1; j < 6; ++j) edges << node << ' ' << 6 * community + j << '\n';
        labels << node << ' ' << community << '\n';
        features << node << ' ' << community << '\n';
      }
    edges << "0 6\n";
  }
  write_grid(R"([{}, {"dropout": 0.2, "head-dim": 4}])");
  const std::string graph = " --task node --edges " + path("edges.txt") + " --labels " + path("labels.txt") +
                            " --features " + path("features.txt");
  const CliRun run =
      run_cli("tune" + graph + " --grid " + path("grid.json") + " --folds 2 --epochs 5 --out " + path("nodes.json"));
  ASSERT_EQ(run.status, 0) << run.output;
  // stratified:0.6,0.2,0.2 of 6 nodes a class: 3 + 1 to cross-validate on, 2 left out.
  EXPECT_NE(run.output.find("8 training and validation nodes in 2 folds (4 test nodes left out); 2 candidates, "
                            "accuracy on each held-out fold"),
            std::string::npos)
      << run.output;
  const nlohmann::json file = json("nodes.json");
  EXPECT_EQ(file["task"], "node");
  EXPECT_EQ(file["cross_validation"]["candidates"][1]["folds"].size(), 2u);

  const CliRun train = run_cli("train" + graph + " --epochs 2 --options " + path("nodes.json") + " --out " +
                               path("nodes.ew"));
  EXPECT_EQ(train.status, 0) << train.output;
  const CliRun graph_option = run_cli("tune" + graph + " --preset small --readout sum --out " + path("x.json"));
  EXPECT_EQ(graph_option.status, 1);
  EXPECT_NE(graph_option.output.find("--readout applies to --task molecule only"), std::string::npos)
      << graph_option.output;
  const CliRun node_option = tune("x.json", "--output-heads 2");
  EXPECT_EQ(node_option.status, 1);
  EXPECT_NE(node_option.output.find("--output-heads applies to --task node only"), std::string::npos)
      << node_option.output;
}

TEST_F(CliTuneTest, TunesLinkPredictorsOnTheTrainingAndValidationLinks) {
  // Two 6-cliques joined by one edge, 31 links; each community's nodes share a feature.
  {
    std::ofstream edges(path("edges.txt")), features(path("features.txt"));
    for (int community = 0; community < 2; ++community)
      for (int i = 0; i < 6; ++i) {
        const int node = 6 * community + i;
        for (int j = i + 1; j < 6; ++j) edges << node << ' ' << 6 * community + j << '\n';
        features << node << ' ' << community << '\n';
      }
    edges << "0 6\n";
  }
  write_grid(R"([{}, {"scorer": "mlp"}])");
  const std::string graph = " --task link --edges " + path("edges.txt") + " --features " + path("features.txt") +
                            " --split-sizes 0.7,0.15,0.15";
  const CliRun run = run_cli("tune" + graph + " --grid " + path("grid.json") + " --folds 2 --epochs 5 --embedding-dim 8 "
                             "--out " + path("links.json"));
  ASSERT_EQ(run.status, 0) << run.output;
  // 21 + 5 links to cross-validate on, 5 left out.
  EXPECT_NE(run.output.find("26 training and validation links in 2 folds (5 test links left out); 2 candidates, "
                            "roc_auc on each held-out fold"),
            std::string::npos)
      << run.output;
  // Another metric scores the folds, and chooses each model's epoch.
  const CliRun by_mrr = run_cli("tune" + graph + " --grid " + path("grid.json") + " --folds 2 --epochs 5 --embedding-dim 8 "
                                "--metric mrr --out " + path("mrr.json"));
  ASSERT_EQ(by_mrr.status, 0) << by_mrr.output;
  EXPECT_NE(by_mrr.output.find("2 candidates, mrr on each held-out fold"), std::string::npos) << by_mrr.output;
  EXPECT_EQ(json("mrr.json")["cross_validation"]["metric"], "mrr");
  const nlohmann::json file = json("links.json");
  EXPECT_EQ(file["task"], "link");
  EXPECT_EQ(file["cross_validation"]["candidates"][1]["folds"].size(), 2u);
  const CliRun train = run_cli("train" + graph + " --epochs 2 --embedding-dim 8 --options " + path("links.json") +
                               " --out " + path("links.ew"));
  EXPECT_EQ(train.status, 0) << train.output;
  const CliRun node_option = run_cli("tune" + graph + " --preset small --output-heads 2 --out " + path("x.json"));
  EXPECT_EQ(node_option.status, 1);
  EXPECT_NE(node_option.output.find("--output-heads applies to --task node only"), std::string::npos)
      << node_option.output;
  const CliRun store_option = run_cli("tune" + graph + " --preset small --fanout 3,3 --out " + path("x.json"));
  EXPECT_EQ(store_option.status, 1);
  EXPECT_NE(store_option.output.find("apply to link training on a graph store"), std::string::npos)
      << store_option.output;
}

TEST_F(CliTuneTest, RefusesGridsAndOptionFilesItCannotUse) {
  const CliRun varied = tune("best.json", "--hidden 8");
  EXPECT_EQ(varied.status, 1);
  EXPECT_NE(varied.output.find("--hidden is given on the command line and varied by the grid"), std::string::npos)
      << varied.output;

  write_grid(R"([{"hiden": 8}])");
  const CliRun unknown = tune("best.json");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.output.find("grid.json: 'hiden' is not an option"), std::string::npos) << unknown.output;

  write_grid(R"([{"split-sizes": "0.5,0.25,0.25"}])");  // candidates vary the model, not the data
  EXPECT_NE(tune("best.json").output.find("'split-sizes' is not an option this command takes from a file"),
            std::string::npos);

  write_grid(R"([{"hidden": 0}])");
  EXPECT_NE(tune("best.json").output.find("value 0 is below the minimum of 1"), std::string::npos);

  std::ofstream(path("node.json")) << R"({"format": "edgewise options", "version": 1, "task": "node", "options": {}})";
  const CliRun other_task = run_cli("train --task graph --data " + path("molecules.csv") + " --options " +
                                    path("node.json") + " --out " + path("model.ew"));
  EXPECT_EQ(other_task.status, 1);
  EXPECT_NE(other_task.output.find("node.json: the options are for --task \"node\", not --task molecule"),
            std::string::npos)
      << other_task.output;

  std::ofstream(path("future.json")) << R"({"format": "edgewise options", "version": 9, "task": "graph"})";
  const CliRun future = run_cli("train --task graph --data " + path("molecules.csv") + " --options " +
                                path("future.json") + " --out " + path("model.ew"));
  EXPECT_NE(future.output.find("options file version 9 is not one this edgewise reads"), std::string::npos)
      << future.output;
  EXPECT_FALSE(std::filesystem::exists(path("model.ew")));
}

}  // namespace

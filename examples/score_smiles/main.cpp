// Scores SMILES with a saved molecule model. Each SMILES gets its own row: a prediction, or the
// reason RDKit could not read it, without stopping the others.
//
//   score_smiles MODEL.ew SMILES...   scores the SMILES with a model file (from `edgewise train`)
//   score_smiles [TPSA_CSV]           trains a tiny TPSA model on the first molecules of RDKit's
//                                     first_5k.tpsa.csv, saves it, loads it back and scores a few
//                                     SMILES, one of them invalid
#include <edgewise/edgewise.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr const char* kDefaultTable = "/usr/share/RDKit/Data/NCI/first_5k.tpsa.csv";
constexpr edgewise::Index kTrainingMolecules = 48;

void print_scores(const edgewise::MoleculeModel& model, const std::vector<std::string>& smiles) {
  const edgewise::SmilesPredictions predictions = model.predict_smiles(smiles);
  std::vector<std::string> rows(smiles.size());
  for (std::size_t k = 0; k < predictions.valid.size(); ++k)
    rows[predictions.valid[k]] = std::to_string(predictions.values(static_cast<edgewise::Index>(k), 0));
  for (const auto& [index, reason] : predictions.invalid) rows[index] = "invalid: " + reason;
  std::printf("%-28s %s\n", "SMILES", model.config().tasks.front().c_str());
  for (std::size_t i = 0; i < smiles.size(); ++i) std::printf("%-28s %s\n", smiles[i].c_str(), rows[i].c_str());
}

// RDKit's table has no header, a comment line, then "SMILES,TPSA" rows. A few of its molecules
// fail RDKit's own sanitization today: they are left out, and counted.
edgewise::MoleculeModel train_tiny_model(const std::string& table) {
  edgewise::MoleculeCsvOptions csv;
  csv.has_header = false;
  csv.comment_prefix = "#";
  csv.target_columns = {edgewise::Index{1}};
  csv.invalid_molecules = edgewise::InvalidMoleculePolicy::skip;
  const edgewise::MoleculeDataset data = edgewise::load_molecule_csv(table, csv);
  std::printf("%s: %lld molecules, %zu skipped as unreadable\n", table.c_str(), static_cast<long long>(data.size()),
              data.skipped.size());
  std::vector<edgewise::Index> rows;
  for (edgewise::Index row = 0; row < std::min(kTrainingMolecules, data.size()); ++row) rows.push_back(row);

  edgewise::MoleculeModelConfig config;
  config.tasks = {"TPSA"};
  config.network.hidden = 32;
  config.network.heads = 4;
  config.network.layers = 2;
  config.network.head_hidden = 32;
  edgewise::MoleculeModel model(config);
  model.initialize(/*seed=*/1);
  edgewise::TrainingOptions training;
  training.epochs = 2;
  training.batch_size = 16;
  model.fit(edgewise::molecule_set(data, rows), {}, training,
            [](edgewise::Index, const edgewise::EpochReport& epoch) {
              std::printf("epoch %lld: training loss %.4f\n", static_cast<long long>(epoch.epoch), epoch.train_loss);
            });
  return model;
}

int run(int argc, char** argv) {
  if (argc >= 3) {
    const edgewise::MoleculeModel model = edgewise::MoleculeModel::load(argv[1]);
    print_scores(model, std::vector<std::string>(argv + 2, argv + argc));
    return 0;
  }
  const std::string table = argc == 2 ? argv[1] : kDefaultTable;
  const edgewise::MoleculeModel trained = train_tiny_model(table);
  // A file of our own in the temporary folder: nothing of the user's is overwritten.
  const fs::path path = fs::temp_directory_path() / ("score_smiles_" + std::to_string(::getpid()) + ".ew");
  trained.save(path.string());
  const edgewise::MoleculeModel model = edgewise::MoleculeModel::load(path.string());
  fs::remove(path);
  std::printf("trained on %lld molecules of %s, saved, loaded (%lld parameters)\n\n",
              static_cast<long long>(kTrainingMolecules), table.c_str(),
              static_cast<long long>(model.num_parameters()));
  print_scores(model, {"CCO", "CC(=O)Nc1ccc(O)cc1", "c1ccccc1C(=O)O", "C1CC(", "OCC(O)CO"});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("edgewise %s\n", std::string(edgewise::version()).c_str());
  std::fflush(stdout);
  try {
    return run(argc, argv);
  } catch (const edgewise::Error& error) {
    std::fprintf(stderr, "score_smiles: %s\n", error.what());
    return 1;
  }
}

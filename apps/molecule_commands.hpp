// The molecule side of `train`, `predict` and `eval` (`--task molecule`), and `explain`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "edgewise/tasks/molecule/molecule_model.hpp"
#include "edgewise/tasks/molecule/molecule_training.hpp"
#include "edgewise/tasks/params.hpp"
#include "edgewise/tasks/common/split_spec.hpp"
#include "cli_support.hpp"
#include "molecule_input.hpp"

namespace edgewise::cli {

struct MoleculeTrainArgs {
  MoleculeInput input;
  std::string save_split;  // folder to write the split's index files to
  std::string calibration;  // labelled molecules to calibrate on instead of the validation part
  MoleculeTrainingParams params;  // the training options (tasks/params.hpp)
  CheckpointArgs checkpoints;
  std::string out;
  std::string plot;  // training curve image (SVG); empty: none
  bool force = false;
};

// Registers the input options of `train` that only --task molecule reads in their own group of
// `command` (train_options.hpp adds the training options). Returns the group.
CLI::Option_group* add_molecule_train_options(CLI::App& command, MoleculeTrainArgs& args);
void train_molecules(const MoleculeTrainArgs& args);

// --data read with the model's featurizer, classification targets checked; sets config.tasks.
MoleculeDataset load_training_data(const MoleculeTrainArgs& args, MoleculeModelConfig& config);
// --split and --split-sizes, parsed.
SplitSpec training_split_spec(const MoleculeTrainArgs& args);
// The --split of the data, seeded by --seed; folder rows of skipped molecules are reported.
Split training_split(const MoleculeTrainArgs& args, const MoleculeDataset& data);

struct MoleculePredictArgs {
  std::vector<std::string> smiles;
  MoleculeInput input;  // input.data empty: predict `smiles`
  std::string out;      // empty: standard output
  bool force = false;
  std::optional<double> coverage;  // --coverage: write intervals of this coverage
};

void predict_molecules(const MoleculeModel& model, const MoleculePredictArgs& args);

// Prints the model's metrics on the labelled molecules of `input`; for a model with a calibrated
// spread, also its uncertainty scores with intervals of `coverage`, and with a `plot` path the
// calibration plot (SVG) there.
void eval_molecules(const MoleculeModel& model, const MoleculeInput& input, double coverage = kDefaultCoverage,
                    const std::string& plot = "");

}  // namespace edgewise::cli

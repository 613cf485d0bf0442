// The options of `train` and `tune` that several tasks read, each bound once and with one meaning;
// where one is not given, the task's own default holds.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "link_commands.hpp"
#include "molecule_commands.hpp"
#include "node_commands.hpp"

namespace edgewise::cli {

struct SharedTrainArgs {
  // Bound by each command itself, whose help says what they mean there; tune writes no model.
  bool force = false;
  std::string out;
  std::string plot;        // training curve image (SVG); empty: none
  std::string save_split;  // folder to write the split to
  CheckpointArgs checkpoints;
  // The training options given (tasks/params.hpp), by name; the task's defaults hold for the rest.
  nlohmann::json given = nlohmann::json::object();
};

// The option groups of `train` and `tune`.
struct TaskOptionGroups {
  const CLI::Option_group* several;    // training options of several tasks
  const CLI::Option_group* molecules;  // molecule input and molecule-only training options
  const CLI::Option_group* nodes;      // graph input (--task node, and link but node_only_input_options)
                                       // and node-only training options
  const CLI::Option_group* links;      // link-only training options
};

// Registers the training options of every task's parameter table (tasks/params.hpp): those several
// read in their own group of `command`, each help giving the defaults of each task reading it, then
// each task's own options in its group.
TaskOptionGroups add_train_options(CLI::App& command, SharedTrainArgs& shared, MoleculeTrainArgs& molecules,
                                   NodeTrainArgs& nodes);
// Throws ArgumentError naming the first option given that --task `task` does not read.
void reject_other_task_options(const TaskOptionGroups& groups, const std::string& task);

// Copies the shared options into a task's arguments and sets its training parameters from the
// options given (molecule_training_params, node_training_params, link_training_params):
// ArgumentError for a value an option refuses, or widths that --heads cannot split. Link prediction
// reads its graph as `graph` says.
void apply_shared_options(const SharedTrainArgs& shared, MoleculeTrainArgs& args);
void apply_shared_options(const SharedTrainArgs& shared, NodeTrainArgs& args);
void apply_shared_options(const SharedTrainArgs& shared, const NodeTrainArgs& graph, LinkTrainArgs& args);

}  // namespace edgewise::cli

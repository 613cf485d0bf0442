// The options of `train` and `tune` that both tasks read, each bound once and with one meaning;
// where one is not given, the task's own default holds.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "molecule_commands.hpp"
#include "node_commands.hpp"

namespace edgewise::cli {

struct SharedTrainArgs {
  // Bound by each command itself, whose help says what they mean there; tune writes no model and
  // binds only --seed and --force.
  std::uint64_t seed = 0;
  bool force = false;
  std::string out;
  std::string plot;        // training curve image (SVG); empty: none
  std::string save_split;  // folder to write the split to
  CheckpointArgs checkpoints;
  // Registered by add_shared_train_options.
  std::optional<std::string> split;
  std::optional<Index> epochs;
  std::optional<Index> layers;
  std::optional<Index> heads;     // of each hidden layer
  std::optional<Index> hidden;    // width of a hidden layer: heads * head_dim
  std::optional<Index> head_dim;  // width of one head
  std::optional<std::string> score;
  std::optional<double> dropout;
  std::optional<double> attention_dropout;
  std::optional<double> learning_rate;
  std::optional<double> weight_decay;
  std::optional<Index> patience;
  std::optional<Index> batch_size;  // graph: molecules a step; node: seed nodes of a sampled step
};

// The option groups of `train` and `tune` that only one task reads.
struct TaskOptionGroups {
  const CLI::Option_group* molecules;
  const CLI::Option_group* nodes;
};

// Registers the shared options from --split on in their own group of `command`, each help giving
// the defaults of both tasks, then the groups of each task's own options.
TaskOptionGroups add_train_options(CLI::App& command, SharedTrainArgs& shared, MoleculeTrainArgs& molecules,
                                   NodeTrainArgs& nodes);
// Throws ArgumentError naming the first option given that --task `task` does not read.
void reject_other_task_options(const TaskOptionGroups& groups, const std::string& task);

// Copies the shared options that were given into a task's arguments, whose own defaults stay for
// the rest. --hidden and --head-dim set one width through --heads; ArgumentError when they disagree
// or --hidden is not a multiple of --heads.
void apply_shared_options(const SharedTrainArgs& shared, MoleculeTrainArgs& args);
void apply_shared_options(const SharedTrainArgs& shared, NodeTrainArgs& args);

}  // namespace edgewise::cli

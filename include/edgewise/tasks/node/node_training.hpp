/// \file
/// Training a node classifier as `edgewise train --task node` does, for every front end (the
/// command-line tool, `edgewise tune`, the Python module).
///
///   NodeTrainingSettings settings = node_training_settings(network, training, {}, data, split);
///   TrainedNodeModel trained = train_node_model(data, split, settings);
///   trained.model.set_training_summary(node_training_summary(trained, "my graph", "given"));
#pragma once

#include <functional>
#include <string>

#include "edgewise/tasks/node/node_model.hpp"

namespace edgewise {

/// A trained node classifier and how its training went.
struct TrainedNodeModel {
  NodeModel model;                ///< trained, without a training summary
  NodeTrainingResult result;      ///< its epochs and best validation figures
  NodeTrainingSettings settings;  ///< what it trained with
};

/// Builds the model for data's classes and input, initializes it from settings.training.seed and fits
/// it on split.train, stopping early on split.val. Logs on settings.training.log the defaults the
/// data chose, the parameter count and the best epoch. on_epoch runs after every epoch on the calling
/// thread and may throw to stop training. Throws what NodeModel's constructor and fit throw.
TrainedNodeModel train_node_model(const NodeGraph& data, const Split& split, const NodeTrainingSettings& settings,
                                  const std::function<void(const NodeEpochReport&)>& on_epoch = {},
                                  const CheckpointOptions& checkpoints = {});

/// The same on a graph store (NodeModel::fit's store overload).
TrainedNodeModel train_node_model(const GraphStore& store, const Split& split, const NodeTrainingSettings& settings,
                                  const std::function<void(const NodeEpochReport&)>& on_epoch = {},
                                  const CheckpointOptions& checkpoints = {});

/// The model file's record of the training: the data (named `data_name`) and its size, the split
/// (described by `split`), seed, epochs, best validation accuracy and loss, and the defaults chosen.
TrainingSummary node_training_summary(const TrainedNodeModel& trained, const NodeGraph& data,
                                      const std::string& data_name, const std::string& split);
/// The same for a model trained on a graph of `nodes` nodes held elsewhere (a graph store).
TrainingSummary node_training_summary(const TrainedNodeModel& trained, Index nodes, const std::string& data_name,
                                      const std::string& split);

}  // namespace edgewise

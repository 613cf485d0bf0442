#include "edgewise/tasks/node/node_training.hpp"

#include <cmath>

#include "edgewise/core/log.hpp"
#include "edgewise/core/memory.hpp"
#include "edgewise/models/metrics.hpp"

namespace edgewise {
namespace {

// Calibrates the model's probabilities on the validation nodes, as `calibrate(model)` does, when there
// are at least two; says what it did.
template <typename Calibrate>
void calibrate_logged(NodeModel& model, const Split& split, const Logger& log, Calibrate&& calibrate) {
  if (split.val.size() < 2) {
    log.normal("probabilities not calibrated: calibration needs at least two validation nodes");
    return;
  }
  calibrate(model);
  const ClassCalibration& calibration = *model.config().calibration;
  log.verbose("probabilities calibrated on " + std::to_string(calibration.scores.size()) +
              " validation nodes: temperature " + score_text(calibration.temperature, 3));
}

// Builds and initializes the model, fits it with `fit(model)`, calibrates it with `calibrate(model)`
// and logs around it.
template <typename Fit, typename Calibrate>
TrainedNodeModel train_logged(const NodeModelConfig& config, const Split& split, const NodeTrainingSettings& settings,
                              Fit&& fit, Calibrate&& calibrate) {
  const Logger log(settings.training.log);
  if (!settings.defaults.empty()) log.normal("defaults: " + settings.defaults);
  NodeModel model(config);
  model.initialize(settings.training.seed);
  log.normal("model: " + std::to_string(model.num_parameters()) + " parameters");
  log.verbose(settings.batching.reason);
  NodeTrainingResult result = fit(model);
  log.normal("best epoch " + std::to_string(result.best_epoch) + " (validation accuracy " +
             score_text(result.best_val_accuracy, 4) + ")");
  calibrate_logged(model, split, log, calibrate);
  log.verbose("peak memory of the process after training: " + std::to_string(std::lround(peak_rss_mb())) + " MB");
  return {std::move(model), std::move(result), settings};
}

}  // namespace

TrainedNodeModel train_node_model(const NodeGraph& data, const Split& split, const NodeTrainingSettings& settings,
                                  const std::function<void(const NodeEpochReport&)>& on_epoch,
                                  const CheckpointOptions& checkpoints) {
  return train_logged(
      {.network = settings.network, .classes = data.labels.class_names, .input = data.input}, split, settings,
      [&](NodeModel& model) { return model.fit(data, split, settings.training, on_epoch, checkpoints, settings.batching); },
      [&](NodeModel& model) { model.calibrate(data, split.val); });
}

TrainedNodeModel train_node_model(const GraphStore& store, const Split& split, const NodeTrainingSettings& settings,
                                  const std::function<void(const NodeEpochReport&)>& on_epoch,
                                  const CheckpointOptions& checkpoints) {
  NodeInputOptions input = store.input();
  input.features.dim = store.feature_dim();
  return train_logged(
      {.network = settings.network, .classes = store.class_names(), .input = input}, split, settings,
      [&](NodeModel& model) { return model.fit(store, split, settings.training, on_epoch, checkpoints, settings.batching); },
      [&](NodeModel& model) { model.calibrate(store, split.val); });
}

TrainingSummary node_training_summary(const TrainedNodeModel& trained, const NodeGraph& data,
                                      const std::string& data_name, const std::string& split) {
  return node_training_summary(trained, data.nodes.size(), data_name, split);
}

TrainingSummary node_training_summary(const TrainedNodeModel& trained, Index nodes, const std::string& data_name,
                                      const std::string& split) {
  TrainingSummary summary{.data = data_name,
                          .examples = nodes,
                          .split = split,
                          .seed = trained.settings.training.seed,
                          .max_epochs = trained.settings.training.epochs,
                          .epochs_run = {trained.result.epochs_run},
                          .best_epochs = {trained.result.best_epoch},
                          .metrics = {{"validation accuracy", trained.result.best_val_accuracy},
                                      {"validation loss", trained.result.best_val_loss}}};
  if (!trained.settings.defaults.empty()) summary.defaults = trained.settings.defaults;
  return summary;
}

}  // namespace edgewise

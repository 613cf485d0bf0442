/// \file
/// What a trained model offers whatever its task: save, describe, its training summary and size.
/// MoleculeModel (tasks/molecule), NodeModel (tasks/node) and LinkModel (tasks/link) implement it; each adds train (fit),
/// predict and evaluate for its own kind of data. Loading a model file without knowing which task
/// wrote it is tasks/model.hpp's load_any_model, which returns the model as its own class.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "edgewise/core/files.hpp"
#include "edgewise/core/tensor.hpp"
#include "edgewise/models/model_file.hpp"

namespace edgewise {

/// What a model predicts: properties of whole molecules, the class of each node of a graph, or which
/// pairs of a graph's nodes are linked.
enum class Task { molecule, node, link };

/// The task name `name` as the command line and options files take it: "graph", the molecule task's
/// earlier name, is "molecule"; every other name is returned as it is, for the caller to check.
std::string_view canonical_task_name(std::string_view name);

/// A model described for people, as `edgewise info` prints it.
struct ModelDescription {
  std::string title;  ///< e.g. "molecule property model (train --task molecule)"
  /// Short facts in order, e.g. ("targets", ["logS"]), ("parameters", 37249).
  std::vector<std::pair<std::string, nlohmann::json>> facts;
  /// The configuration's parts in order, each an object, e.g. ("architecture", {"hidden": 64, ...}).
  std::vector<std::pair<std::string, nlohmann::json>> sections;
  std::string examples;  ///< what the training data's examples are: "molecules" or "nodes"
};

/// A trained model of either task. Movable through its concrete class; not copyable.
class Model {
 public:
  virtual ~Model() = default;

  /// Which task the model was built for.
  virtual Task task() const = 0;
  /// Writes the model file atomically (see save_model).
  virtual void save(const std::string& path, Overwrite overwrite = Overwrite::allow) const = 0;
  /// The model for people: its outputs, size and configuration.
  virtual ModelDescription describe() const = 0;
  /// Trainable scalars (per network of an ensemble).
  virtual Index num_parameters() const = 0;

  /// How the model was trained, saved with it and shown by `edgewise info`; absent unless set or
  /// loaded from a file that has one.
  const std::optional<TrainingSummary>& training_summary() const { return training_; }
  /// Sets the summary that save() writes.
  void set_training_summary(TrainingSummary summary) { training_ = std::move(summary); }

 protected:
  /// Only the models of the tasks are Models, and they move as a whole.
  /// @{
  Model() = default;
  Model(Model&&) noexcept = default;
  Model& operator=(Model&&) noexcept = default;
  /// @}

  std::optional<TrainingSummary> training_;  ///< set by load() or set_training_summary(), written by save()
};

}  // namespace edgewise

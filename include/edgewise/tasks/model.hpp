/// \file
/// Loading a model file without knowing which task wrote it, as the Model of its task
/// (tasks/common/model.hpp: save, describe, training summary): a MoleculeModel or a NodeModel.
/// The one part of the task layer that knows both tasks, so a program of one task need not link
/// the other's libraries.
///
///   std::unique_ptr<Model> model = load_any_model("model.ew");
///   if (model->task() == Task::node) {
///     const auto& classifier = static_cast<const NodeModel&>(*model);
///     ...
///   }
///   std::cout << model->describe().title;
#pragma once

#include <memory>
#include <string>

#include "edgewise/tasks/common/model.hpp"

namespace edgewise {

/// The task of the model file at `path`, from its configuration's kind (the file is read and
/// checked whole). Throws ModelFormatError naming the file when it is not a valid model file or
/// its kind is unknown.
Task model_task(const std::string& path);

/// Loads the model file at `path` as the model of its task: a MoleculeModel or a NodeModel.
/// Throws what model_task and the model's load throw.
std::unique_ptr<Model> load_any_model(const std::string& path);

}  // namespace edgewise

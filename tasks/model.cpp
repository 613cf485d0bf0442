#include "edgewise/tasks/model.hpp"

#include "edgewise/core/error.hpp"
#include "edgewise/tasks/molecule_model.hpp"
#include "edgewise/tasks/node_model.hpp"

namespace edgewise {

std::string_view task_option_name(Task task) { return task == Task::node ? "node" : "graph"; }

Task model_task(const std::string& path) {
  const std::string kind = model_kind(load_model(path).config);
  if (kind == kNodeModelKind) return Task::node;
  if (kind == kMoleculeModelKind) return Task::molecule;
  throw ModelFormatError(path + ": not a model edgewise knows (kind '" + kind + "')");
}

std::unique_ptr<Model> load_any_model(const std::string& path) {
  if (model_task(path) == Task::node) return std::make_unique<NodeModel>(NodeModel::load(path));
  return std::make_unique<MoleculeModel>(MoleculeModel::load(path));
}

}  // namespace edgewise

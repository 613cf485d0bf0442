#include "edgewise/tasks/model.hpp"

#include "edgewise/core/error.hpp"
#include "edgewise/tasks/molecule/molecule_model.hpp"
#include "edgewise/tasks/node/node_model.hpp"

namespace edgewise {

namespace {

// The task a read model file's configuration names.
Task task_of(const ModelFile& file, const std::string& path) {
  const std::string kind = model_kind(file.config);
  if (kind == kNodeModelKind) return Task::node;
  if (kind == kMoleculeModelKind) return Task::molecule;
  throw ModelFormatError(path + ": not a model edgewise knows (kind '" + kind + "')");
}

}  // namespace

Task model_task(const std::string& path) { return task_of(load_model(path), path); }

std::unique_ptr<Model> load_any_model(const std::string& path) {
  const ModelFile file = load_model(path);  // read and checked once, whichever task it holds
  if (task_of(file, path) == Task::node) return std::make_unique<NodeModel>(NodeModel::load(file, path));
  return std::make_unique<MoleculeModel>(MoleculeModel::load(file, path));
}

}  // namespace edgewise

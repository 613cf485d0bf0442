#include "edgewise/tasks/model.hpp"

#include "edgewise/core/error.hpp"

namespace edgewise {

namespace {

// The task a read model file's configuration names.
Task task_of(const ModelFile& file, const std::string& path) {
  const std::string kind = model_kind(file.config);
  if (kind == kNodeModelKind) return Task::node;
  if (kind == kMoleculeModelKind) return Task::molecule;
  if (kind == kLinkModelKind) return Task::link;
  throw ModelFormatError(path + ": not a model edgewise knows (kind '" + kind + "')");
}

}  // namespace

AnyModel load_any_model(const std::string& path) {
  const ModelFile file = load_model(path);  // read and checked once, whichever task it holds
  switch (task_of(file, path)) {
    case Task::node:
      return NodeModel::load(file, path);
    case Task::link:
      return LinkModel::load(file, path);
    case Task::molecule:
      break;
  }
  return MoleculeModel::load(file, path);
}

const Model& as_model(const AnyModel& model) {
  return std::visit([](const Model& any) -> const Model& { return any; }, model);
}

}  // namespace edgewise

#include "edgewise/tasks/common/model.hpp"

namespace edgewise {

std::string_view canonical_task_name(std::string_view name) { return name == "graph" ? "molecule" : name; }

}  // namespace edgewise

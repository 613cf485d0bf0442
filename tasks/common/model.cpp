#include "edgewise/tasks/common/model.hpp"

namespace edgewise {

std::string_view task_option_name(Task task) { return task == Task::node ? "node" : "molecule"; }

}  // namespace edgewise

// The training options of Python's train calls, walked from the parameter tables (tasks/params.hpp):
// keyword arguments turned into option values, and the tables themselves for edgewise's own docs.
#pragma once

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>
#include <string>

#include "edgewise/tasks/params.hpp"

namespace edgewise::python {

// How Python names options in messages: head_dim, "MoleculeModel.train's default hidden".
ParamNaming python_naming(const std::string& task);

// The keyword options of a train call as option values by name, each converted to its table type.
// TypeError for an option the table does not offer as a keyword, or a value of another type.
nlohmann::json molecule_keywords(const pybind11::dict& options);
nlohmann::json node_keywords(const pybind11::dict& options);

// Registers edgewise._edgewise.training_options(task).
void bind_params(pybind11::module_& m);

}  // namespace edgewise::python

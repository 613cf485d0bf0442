// The parts of the module edgewise._edgewise, each registered by its own file.
#pragma once

#include <pybind11/pybind11.h>

#include "edgewise/tasks/model.hpp"

namespace edgewise::python {

void bind_molecules(pybind11::module_& m);  // molecules.cpp
void bind_nodes(pybind11::module_& m);      // nodes.cpp
void bind_attention(pybind11::module_& m);  // attention.cpp

// What `edgewise info` prints, as a dict: title, facts, the configuration's sections and the
// training summary.
pybind11::dict describe(const Model& model);

}  // namespace edgewise::python

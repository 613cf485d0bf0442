// The parts of the module edgewise._edgewise, each registered by its own file.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <string>

#include "edgewise/core/files.hpp"
#include "edgewise/tasks/model.hpp"

namespace edgewise::python {

void bind_molecules(pybind11::module_& m);  // molecules.cpp
void bind_nodes(pybind11::module_& m);      // nodes.cpp
void bind_links(pybind11::module_& m);      // links.cpp
void bind_attention(pybind11::module_& m);  // attention.cpp
void bind_params(pybind11::module_& m);     // params.cpp

// What `edgewise info` prints, as a dict: title, facts, the configuration's sections and the
// training summary.
pybind11::dict describe(const Model& model);

// A model of one task and the lock that keeps two Python threads from running its networks at once
// (they hold the state of their last forward).
template <typename TaskModel>
class ModelHandle {
 public:
  explicit ModelHandle(TaskModel trained) : model(std::move(trained)) {}

  // run() with the GIL released and the lock held. A thread holding the lock may take the GIL back
  // (to check for Ctrl-C), so the GIL is let go before the lock is waited for, never after.
  template <typename Run>
  auto locked(Run&& run) {
    pybind11::gil_scoped_release release;
    const std::lock_guard lock(mutex_);
    return run();
  }

  TaskModel model;

 private:
  std::mutex mutex_;
};

// Registers what models of every task have: _load, _save, _describe and _num_parameters.
template <typename TaskModel>
void bind_model_file(pybind11::class_<ModelHandle<TaskModel>>& model_class) {
  using Handle = ModelHandle<TaskModel>;
  model_class
      .def_static("_load",
                  [](const std::string& path) {
                    pybind11::gil_scoped_release release;
                    return std::make_unique<Handle>(TaskModel::load(path));
                  })
      .def("_save",
           [](const Handle& handle, const std::string& path, bool overwrite) {
             pybind11::gil_scoped_release release;
             handle.model.save(path, overwrite ? Overwrite::allow : Overwrite::refuse);
           })
      .def("_describe", [](const Handle& handle) { return describe(handle.model); })
      .def_property_readonly("_num_parameters", [](const Handle& handle) { return handle.model.num_parameters(); });
}

}  // namespace edgewise::python

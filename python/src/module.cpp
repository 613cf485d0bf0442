// edgewise._edgewise: the compiled part of the Python package. Errors of the library become Python
// exceptions carrying its message (file, line and reason where it has them).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <malloc.h>

#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "bindings.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/core/products.hpp"
#include "edgewise/version.hpp"

namespace py = pybind11;

namespace edgewise::python {
namespace {

// A JSON value as the Python object json.loads would give.
py::object from_json(const nlohmann::json& value) {
  return py::module_::import("json").attr("loads")(value.dump());
}

void translate(std::exception_ptr error) {
  try {
    if (error) std::rethrow_exception(error);
  } catch (const DivergenceError& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (const ArgumentError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const ParseError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const ModelFormatError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const MoleculeError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const GraphError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const Error& e) {  // files that cannot be read or written
    PyErr_SetString(PyExc_OSError, e.what());
  }
}

}  // namespace

py::dict describe(const Model& model) {
  const ModelDescription description = model.describe();
  py::dict facts, sections;
  for (const auto& [name, value] : description.facts) facts[py::str(name)] = from_json(value);
  for (const auto& [name, value] : description.sections) sections[py::str(name)] = from_json(value);
  py::dict result;
  result["title"] = description.title;
  result["facts"] = facts;
  result["sections"] = sections;
  if (const std::optional<TrainingSummary>& training = model.training_summary()) {
    nlohmann::json summary;
    to_json(summary, *training);
    result["training"] = from_json(summary);
  }
  return result;
}

}  // namespace edgewise::python

PYBIND11_MODULE(_edgewise, m) {
  m.doc() = "The compiled core of edgewise; use the edgewise package.";
  // The command-line tool allocates through jemalloc; Python uses glibc's malloc, which by default
  // gives the top of its heaps back to the kernel after large frees and touches fresh pages again on
  // the next batch (11 us a page here). So its heaps keep 64 MiB of padding at the top and trim
  // only above 128 MiB free. Setting any of these turns off glibc's sliding mmap threshold, which
  // would leave every block over 128 KiB (a batch's activations) to its own mmap and munmap, each
  // page faulted in again: blocks up to 32 MiB, the most glibc allows, come from the heaps too.
  // The cost: the process may keep up to 128 MiB of freed memory per heap.
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  m.attr("__version__") = std::string(edgewise::version());
  edgewise::set_precision(edgewise::default_precision());
  py::register_exception_translator(&edgewise::python::translate);
  m.def("set_num_threads", &edgewise::set_num_threads, py::arg("threads"),
        "Threads every parallel loop of edgewise uses from now on.");
  m.def("num_threads", &edgewise::num_threads, "Threads the parallel loops use.");
  m.def(
      "set_precision", [](const std::string& name) { edgewise::set_precision(edgewise::precision_of_choice(name)); },
      py::arg("precision"),
      "Arithmetic of every matrix product from now on: 'float32', 'bf16' (operands rounded to bfloat16, "
      "float32 sums), which runs float32 on a CPU without AVX-512 BF16, or 'auto': bf16 on AMD CPUs with "
      "AVX-512 BF16, else float32. The module starts from EDGEWISE_PRECISION's choice, else 'auto', as "
      "the command-line tool does.");
  m.def(
      "precision", [] { return std::string(edgewise::precision_name(edgewise::precision())); },
      "The arithmetic matrix products run at: 'float32' or 'bf16'.");
  m.def("bf16_available", &edgewise::bf16_available, "Whether this CPU runs bf16 products (AVX-512 BF16).");
  edgewise::python::bind_molecules(m);
  edgewise::python::bind_nodes(m);
  edgewise::python::bind_links(m);
  edgewise::python::bind_attention(m);
  edgewise::python::bind_params(m);
}

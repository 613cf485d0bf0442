// What the bindings share: NumPy conversions, progress messages on Python's sys.stderr, Ctrl-C checks
// while the GIL is released.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "edgewise/core/log.hpp"
#include "edgewise/core/tensor.hpp"
#include "edgewise/io/node_index.hpp"
#include "edgewise/splits/splits.hpp"

namespace edgewise::python {

namespace py = pybind11;

// Takes the GIL and runs Python's signal handlers; throws py::error_already_set (KeyboardInterrupt
// after Ctrl-C) when one raised. For loops that run with the GIL released.
void check_interrupt();

// verbose: messages on sys.stderr as the command-line tool prints them, each training epoch
// redrawn on one line; otherwise nothing.
LogSettings python_log(bool verbose);

// A [rows, columns] float32 copy of a 1-D (one column) or 2-D array of any numeric dtype and
// layout, made in one pass from an aligned, C-ordered float32 or float64 array (other arrays are
// converted to float32 first). NaN entries are kept when allow_nan, else ValueError; infinities are always
// refused. `what` names the argument in errors.
Matrix<float> float_matrix(const py::handle& array, const std::string& what, bool allow_nan);
// The rows of a 1-D (one column) or 2-D array with float_matrix's checks (no NaN): an aligned,
// C-ordered float32 array is read in place, kept alive by the rows, and anything else copied as
// float_matrix copies it.
SharedRows<float> float_rows(const py::handle& array, const std::string& what);
// A read-only NumPy view of `rows`, which keeps `owner` (the Python object holding them) alive.
py::array_t<float> read_only_view(const SharedRows<float>& rows, const py::handle& owner);
// A 1-D int64 copy of an integer array; `what` names it in errors.
std::vector<Index> index_vector(const py::handle& array, const std::string& what);
// A NumPy array holding a copy of `matrix`.
py::array_t<float> to_numpy(const Matrix<float>& matrix);
// A NumPy array that takes over `matrix`'s memory, without a copy: results as large as the graph.
py::array_t<float> to_numpy(Matrix<float>&& matrix);

// The items an index array or a boolean mask over n items names; `name` names it in errors.
std::vector<Index> item_list(const py::handle& part, Index n, const std::string& name);
// A split from a (train, val, test) tuple of index arrays or boolean masks over n items.
Split split_from_python(const py::handle& parts, Index n);

// Python's header argument: None detects a header, True and False say whether there is one.
Header header_rule(std::optional<bool> header);

}  // namespace edgewise::python

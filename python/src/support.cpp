#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>

#include "edgewise/core/error.hpp"

namespace edgewise::python {

void check_interrupt() {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

namespace {

// Writes to sys.stderr. On a terminal or in a notebook an epoch line stays open so that the next one
// redraws it, as the command-line tool's progress line does; elsewhere (a file, a pipe) every
// message is a line of its own.
class StderrSink {
 public:
  explicit StderrSink(bool redraw) : redraw_(redraw) {}

  void operator()(const LogMessage& message) {
    py::gil_scoped_acquire gil;
    const py::object write = py::module_::import("sys").attr("stderr").attr("write");
    std::string text(message.text);
    if (message.progress != nullptr && redraw_) {
      write("\r" + text);
      *open_line_ = true;
      return;
    }
    if (*open_line_) text.insert(0, "\n");
    *open_line_ = false;
    write(text + "\n");
  }

 private:
  bool redraw_;
  std::shared_ptr<bool> open_line_ = std::make_shared<bool>(false);
};

bool redraws() {
  const py::object stderr_stream = py::module_::import("sys").attr("stderr");
  const bool terminal = py::hasattr(stderr_stream, "isatty") && stderr_stream.attr("isatty")().cast<bool>();
  return terminal || py::module_::import("sys").attr("modules").contains("ipykernel");
}

}  // namespace

LogSettings python_log(bool verbose) {
  if (!verbose) return {.level = LogLevel::quiet, .sink = {}};
  return {.level = LogLevel::normal, .sink = StderrSink(redraws())};
}

namespace {

// The [rows, columns] shape of a 1-D (one column) or 2-D array; ValueError for other dimensions.
std::pair<Index, Index> matrix_shape(const py::array& values, const std::string& what) {
  if (values.ndim() != 1 && values.ndim() != 2)
    throw py::value_error(what + ": expected a 1-D or 2-D array, got " + std::to_string(values.ndim()) + " dimensions");
  return {values.shape(0), values.ndim() == 2 ? values.shape(1) : 1};
}

// ValueError for an infinite entry, or a NaN one unless allow_nan.
void check_entry(float value, Index row, Index column, const std::string& what, bool allow_nan) {
  if (std::isinf(value) || (std::isnan(value) && !allow_nan))
    throw py::value_error(what + ": entry [" + std::to_string(row) + ", " + std::to_string(column) + "] is " +
                          (std::isnan(value) ? "NaN" : "infinite") + "; only finite numbers are accepted");
}

// Copies a C-ordered array of T into a [rows, columns] float matrix, refusing what float_matrix refuses.
template <typename T, int Flags>
Matrix<float> checked_copy(const py::array_t<T, Flags>& values, const std::string& what, bool allow_nan) {
  const auto [rows, columns] = matrix_shape(values, what);
  Matrix<float> matrix(rows, columns);
  const T* source = values.data();
  for (Index row = 0; row < rows; ++row)
    for (Index column = 0; column < columns; ++column) {
      const auto value = static_cast<float>(source[row * columns + column]);
      check_entry(value, row, column, what, allow_nan);
      matrix(row, column) = value;
    }
  return matrix;
}

// Whether an array's values lie where their type's alignment allows: a view at an odd byte offset
// does not, and C++ reads aligned values only.
bool aligned(const py::handle& array) {
  return py::detail::check_flags(array.ptr(), py::detail::npy_api::NPY_ARRAY_ALIGNED_);
}

// Holds a reference to `object` until the last copy is gone, taking the GIL to drop it: the rows may
// be let go of while the GIL is released.
std::shared_ptr<const void> keep_alive(const py::handle& object) {
  return {object.inc_ref().ptr(), [](PyObject* kept) {
            py::gil_scoped_acquire gil;
            Py_DECREF(kept);
          }};
}

}  // namespace

Matrix<float> float_matrix(const py::handle& array, const std::string& what, bool allow_nan) {
  // A C-ordered array of NumPy's own dtype (float64) is read in place: a float32 copy of it first
  // would double the peak.
  using Doubles = py::array_t<double, py::array::c_style>;
  if (Doubles::check_(array) && aligned(array))
    return checked_copy(py::reinterpret_borrow<Doubles>(array), what, allow_nan);
  // Anything else becomes aligned, C-ordered float32 first; NumPy copies what is not that already.
  constexpr int kAlignedFloats =
      py::array::c_style | py::array::forcecast | static_cast<int>(py::detail::npy_api::NPY_ARRAY_ALIGNED_);
  const auto floats = py::array_t<float, kAlignedFloats>::ensure(array);
  if (!floats) throw py::type_error(what + ": expected an array of numbers");
  return checked_copy(floats, what, allow_nan);
}

SharedRows<float> float_rows(const py::handle& array, const std::string& what) {
  using Floats = py::array_t<float, py::array::c_style>;
  if (!Floats::check_(array) || !aligned(array)) return float_matrix(array, what, false);
  const auto floats = py::reinterpret_borrow<Floats>(array);
  const auto [rows, columns] = matrix_shape(floats, what);
  const float* values = floats.data();
  for (Index row = 0; row < rows; ++row)
    for (Index column = 0; column < columns; ++column)
      check_entry(values[row * columns + column], row, column, what, false);
  return {values, rows, columns, keep_alive(floats)};
}

py::array_t<float> read_only_view(const SharedRows<float>& rows, const py::handle& owner) {
  if (rows.size() == 0) return py::array_t<float>({rows.rows(), rows.cols()});
  py::array_t<float> view({rows.rows(), rows.cols()}, rows.data(), owner);
  view.attr("setflags")(py::arg("write") = false);
  return view;
}

std::vector<Index> index_vector(const py::handle& array, const std::string& what) {
  const py::array given = py::array::ensure(array);
  if (!given) throw py::type_error(what + ": expected an array of integers");
  if (given.size() > 0 && given.dtype().kind() != 'i' && given.dtype().kind() != 'u')
    throw py::type_error(what + ": expected integers, got dtype " + std::string(py::str(given.dtype())));
  const auto values = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(given);
  if (values.ndim() > 1) throw py::value_error(what + ": expected a 1-D array");
  return {values.data(), values.data() + values.size()};
}

py::array_t<float> to_numpy(const Matrix<float>& matrix) {
  py::array_t<float> array({matrix.rows(), matrix.cols()});
  if (matrix.size() > 0)
    std::memcpy(array.mutable_data(), matrix.data(), sizeof(float) * static_cast<std::size_t>(matrix.size()));
  return array;
}

py::array_t<float> to_numpy(Matrix<float>&& matrix) {
  if (matrix.size() == 0) return to_numpy(static_cast<const Matrix<float>&>(matrix));
  auto owned = std::make_unique<Matrix<float>>(std::move(matrix));
  const py::capsule owner(owned.get(), [](void* kept) { delete static_cast<Matrix<float>*>(kept); });
  const Matrix<float>& kept = *owned.release();  // the capsule frees it from now on
  return py::array_t<float>({kept.rows(), kept.cols()}, kept.data(), owner);  // row-major, as NumPy's C order
}

std::vector<Index> item_list(const py::handle& part, Index n, const std::string& name) {
  const py::array given = py::array::ensure(part);
  if (!given) throw py::type_error(name + ": expected an index array or a boolean mask");
  std::vector<Index> indices;
  if (given.dtype().kind() == 'b') {
    const auto mask = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(given);
    if (mask.ndim() != 1 || mask.shape(0) != n)
      throw py::value_error(name + ": a boolean mask needs one entry per item (" + std::to_string(n) + ")");
    for (Index i = 0; i < n; ++i)
      if (mask.data()[i]) indices.push_back(i);
    return indices;
  }
  indices = index_vector(given, name);
  for (const Index i : indices)
    if (i < 0 || i >= n)
      throw py::value_error(name + ": index " + std::to_string(i) + " is outside 0.." + std::to_string(n - 1));
  return indices;
}

Split split_from_python(const py::handle& parts, Index n) {
  const py::tuple tuple = py::reinterpret_borrow<py::object>(parts).cast<py::tuple>();
  if (tuple.size() != 3) throw py::value_error("split: expected (train, val, test)");
  Split split{item_list(tuple[0], n, "split train"), item_list(tuple[1], n, "split val"),
              item_list(tuple[2], n, "split test")};
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (const std::vector<Index>* part : {&split.train, &split.val, &split.test})
    for (const Index i : *part) {
      if (seen[static_cast<std::size_t>(i)]++ != 0)
        throw py::value_error("split: item " + std::to_string(i) + " is in more than one part, or twice in one");
    }
  return split;
}

Header header_rule(std::optional<bool> header) {
  if (!header) return Header::detect;
  return *header ? Header::present : Header::absent;
}

}  // namespace edgewise::python

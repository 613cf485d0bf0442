/// \file
/// NumPy .npy files holding a node feature matrix, memory-mapped so that features of any size are read
/// without parsing text: `np.save("x.npy", features)` with row i the features of node i.
///
///   NpyMatrix x = NpyMatrix::open("x.npy");          // maps it; checks the header against the file size
///   if (auto values = x.view()) use(*values);         // float32 in C order: the file's bytes, no copy
///   x.copy_rows(first, count, out);                   // any supported layout, as float32
///
/// Format versions 1.0, 2.0 and 3.0 of the header are read. The array must be 2-D, of little-endian
/// float32 ('<f4') or float64 ('<f8'), in C or Fortran order. Only float32 in C order is viewed in
/// place; float64 values are rounded to float32 and Fortran-order arrays gathered row by row as
/// copy_rows is asked for them, so a large float64 file is converted a block at a time, never whole.
/// Bytes after the data are ignored, as NumPy does. Every problem is a StoreFormatError whose message
/// starts with the file's name: bad magic, an unsupported version, a malformed header, another dtype
/// (integers, big-endian, structured), another number of dimensions, or data shorter than the shape.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// A 2-D array of a .npy file, mapped read-only. Movable, not copyable; safe to read from many threads.
class NpyMatrix {
 public:
  /// Maps `path` and checks its header. Throws StoreFormatError naming the file and what is wrong
  /// (also when it cannot be read).
  static NpyMatrix open(const std::filesystem::path& path);
  /// A .npy file held in memory (a copy of `bytes`), checked as open does; `name` stands for the file
  /// in messages.
  static NpyMatrix from_bytes(std::string_view bytes, const std::filesystem::path& name);

  NpyMatrix(NpyMatrix&&) noexcept;             ///< Takes over the mapping.
  NpyMatrix& operator=(NpyMatrix&&) noexcept;  ///< Takes over the mapping.
  ~NpyMatrix();                                ///< Unmaps the file.

  /// The file it was opened from.
  const std::filesystem::path& path() const;
  /// The array's shape, [rows(), cols()].
  /// @{
  Index rows() const;
  Index cols() const;
  /// @}
  /// The dtype as the header writes it: "<f4" or "<f8".
  const std::string& dtype() const;
  /// Whether the array is stored column by column.
  bool fortran_order() const;

  /// The array viewing the mapped file: float32 in C order only (and data aligned for floats, as
  /// NumPy writes it); nullopt otherwise, where copy_rows converts.
  std::optional<ConstMatrixMap<float>> view() const;
  /// Rows first .. first + count - 1 as float32 into `out` ([count, cols()], row-major), from any
  /// supported dtype and order. Throws ArgumentError for rows outside [0, rows()).
  void copy_rows(Index first, Index count, float* out) const;

 private:
  struct Mapping;
  explicit NpyMatrix(std::unique_ptr<Mapping> mapping);
  std::unique_ptr<Mapping> mapping_;
};

}  // namespace edgewise

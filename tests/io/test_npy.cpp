// NumPy .npy files: the three header versions, float32 viewed in place, float64 and Fortran order
// converted row by row, and every malformed file a StoreFormatError naming it and the problem.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/io/npy.hpp"

namespace edgewise {
namespace {

// A .npy file as numpy.lib.format writes it: magic, version, header length (2 bytes in 1.0, 4 in
// 2.0 and 3.0), the dictionary padded with spaces and a newline to a multiple of 64 bytes, the data.
std::string npy_file(const std::string& dictionary, const std::string& data, int major = 1) {
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  std::string header = dictionary;
  const std::size_t unpadded = 8 + length_bytes + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string file = "\x93NUMPY";
  file += static_cast<char>(major);
  file += '\0';
  const auto length = static_cast<std::uint32_t>(header.size());
  file.append(reinterpret_cast<const char*>(&length), length_bytes);
  return file + header + data;
}

template <typename T>
std::string bytes_of(const std::vector<T>& values) {
  return {reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)};
}

std::string dictionary(const std::string& descr, bool fortran, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
}

const std::vector<float> kRows = {0, 1, 2, 3, 4, 5};  // [[0, 1, 2], [3, 4, 5]]

std::vector<float> copied(const NpyMatrix& matrix, Index first, Index count) {
  std::vector<float> out(static_cast<std::size_t>(count * matrix.cols()), -1.0f);
  matrix.copy_rows(first, count, out.data());
  return out;
}

// The message of the StoreFormatError that reading `bytes` throws, checked to start with the name.
std::string error_of(const std::string& bytes) {
  try {
    NpyMatrix::from_bytes(bytes, "x.npy");
  } catch (const StoreFormatError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("x.npy: ", 0), 0u) << message;
    return message;
  }
  ADD_FAILURE() << "read";
  return "";
}

TEST(Npy, NumpysOwnBytesMatchTheFormatAsWritten) {
  // np.save(f, np.arange(6, dtype=np.float32).reshape(2, 3)) with NumPy 1.24: 128 bytes of header.
  const std::string file = npy_file(dictionary("<f4", false, "(2, 3)"), bytes_of(kRows));
  ASSERT_EQ(file.size(), 152u);
  EXPECT_EQ(file.substr(0, 10), std::string("\x93NUMPY\x01\x00v\x00", 10));
  const std::string written = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_EQ(file.substr(10, written.size()), written);
  EXPECT_EQ(file.substr(10 + written.size(), 128 - 11 - written.size()), std::string(128 - 11 - written.size(), ' '));
  EXPECT_EQ(file[127], '\n');
}

TEST(Npy, Float32InCOrderIsViewedInPlaceInEachHeaderVersion) {
  for (const int major : {1, 2, 3}) {
    SCOPED_TRACE(major);
    const NpyMatrix matrix =
        NpyMatrix::from_bytes(npy_file(dictionary("<f4", false, "(2, 3)"), bytes_of(kRows), major), "x.npy");
    EXPECT_EQ(matrix.rows(), 2);
    EXPECT_EQ(matrix.cols(), 3);
    EXPECT_EQ(matrix.dtype(), "<f4");
    EXPECT_FALSE(matrix.fortran_order());
    ASSERT_TRUE(matrix.view().has_value());
    EXPECT_EQ((*matrix.view())(1, 0), 3.0f);
    EXPECT_EQ(copied(matrix, 0, 2), kRows);
    EXPECT_EQ(copied(matrix, 1, 1), (std::vector<float>{3, 4, 5}));
  }
}

TEST(Npy, Float64IsRoundedToFloat32AsRowsAreCopied) {
  const std::vector<double> values = {0.5, 1, 2, 3, 4, 1e300};
  const NpyMatrix matrix =
      NpyMatrix::from_bytes(npy_file(dictionary("<f8", false, "(3, 2)"), bytes_of(values)), "x.npy");
  EXPECT_FALSE(matrix.view().has_value());
  EXPECT_EQ(copied(matrix, 0, 2), (std::vector<float>{0.5f, 1, 2, 3}));
  EXPECT_TRUE(std::isinf(copied(matrix, 2, 1)[1]));  // beyond float32: the store's writer refuses it
}

TEST(Npy, FortranOrderIsGatheredIntoRows) {
  const std::vector<float> columns = {0, 3, 1, 4, 2, 5};  // [[0, 1, 2], [3, 4, 5]] column by column
  const NpyMatrix matrix =
      NpyMatrix::from_bytes(npy_file(dictionary("<f4", true, "(2, 3)"), bytes_of(columns)), "x.npy");
  EXPECT_TRUE(matrix.fortran_order());
  EXPECT_FALSE(matrix.view().has_value());
  EXPECT_EQ(copied(matrix, 0, 2), kRows);
  EXPECT_EQ(copied(matrix, 1, 1), (std::vector<float>{3, 4, 5}));
  const std::vector<double> wide = {0, 3, 1, 4, 2, 5};
  EXPECT_EQ(copied(NpyMatrix::from_bytes(npy_file(dictionary("<f8", true, "(2, 3)"), bytes_of(wide)), "x.npy"), 0, 2),
            kRows);
}

TEST(Npy, EmptyArraysAndTrailingBytesAreRead) {
  EXPECT_EQ(NpyMatrix::from_bytes(npy_file(dictionary("<f4", false, "(0, 5)"), ""), "x.npy").rows(), 0);
  const NpyMatrix matrix =
      NpyMatrix::from_bytes(npy_file(dictionary("<f4", false, "(2, 3)"), bytes_of(kRows) + "tail"), "x.npy");
  EXPECT_EQ(copied(matrix, 0, 2), kRows);
  EXPECT_THROW(matrix.copy_rows(1, 2, nullptr), ArgumentError);
}

TEST(Npy, OtherDtypesAreRefusedNamingThem) {
  for (const char* descr : {"<i8", ">f4", "<f2", "|u1", "<c8"}) {
    const std::string message = error_of(npy_file(dictionary(descr, false, "(2, 3)"), std::string(48, '\0')));
    EXPECT_NE(message.find("unsupported dtype '" + std::string(descr) + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("astype(numpy.float32)"), std::string::npos) << message;
  }
  const std::string structured = "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }";
  EXPECT_NE(error_of(npy_file(structured, std::string(8, '\0'))).find("structured"), std::string::npos);
}

TEST(Npy, ShapesOtherThanAMatrixAreRefused) {
  EXPECT_NE(error_of(npy_file(dictionary("<f4", false, "(6,)"), bytes_of(kRows))).find("expected a 2-D array"),
            std::string::npos);
  EXPECT_NE(error_of(npy_file(dictionary("<f4", false, "(1, 2, 3)"), bytes_of(kRows))).find("shape (1, 2, 3)"),
            std::string::npos);
  EXPECT_NE(error_of(npy_file(dictionary("<f4", false, "()"), bytes_of(kRows))).find("shape ()"), std::string::npos);
  EXPECT_NE(error_of(npy_file(dictionary("<f4", false, "(4294967296, 2)"), "")).find("above 2^31 - 1"),
            std::string::npos);
}

TEST(Npy, TruncatedFilesSayWhatIsMissing) {
  const std::string file = npy_file(dictionary("<f4", false, "(2, 3)"), bytes_of(kRows));
  const std::string data = error_of(file.substr(0, file.size() - 4));
  EXPECT_NE(data.find("truncated: the <f4 array of shape (2, 3) needs 24 bytes of data, the file has 20"),
            std::string::npos)
      << data;
  EXPECT_NE(error_of(file.substr(0, 50)).find("truncated in the .npy header"), std::string::npos);
  EXPECT_NE(error_of(file.substr(0, 9)).find("truncated in the .npy preamble"), std::string::npos);
  EXPECT_NE(error_of(file.substr(0, 3)).find("truncated in the .npy preamble"), std::string::npos);
}

TEST(Npy, ForeignFilesAndMalformedHeadersAreRefused) {
  EXPECT_NE(error_of("").find("not a NumPy .npy file"), std::string::npos);
  EXPECT_NE(error_of("node,feature\n1,2\n").find("not a NumPy .npy file"), std::string::npos);
  std::string version = npy_file(dictionary("<f4", false, "(2, 3)"), bytes_of(kRows));
  version[6] = 4;
  EXPECT_NE(error_of(version).find("format version 4.0 is not supported"), std::string::npos);
  for (const char* header : {"{'descr': '<f4', 'fortran_order': False}", "{'descr': '<f4' 'shape': (2, 3)}",
                             "['descr']", "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 3)}",
                             "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}",
                             "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'extra': 1}",
                             "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} tail"}) {
    const std::string message = error_of(npy_file(header, bytes_of(kRows)));
    EXPECT_NE(message.find("malformed .npy header"), std::string::npos) << header << ": " << message;
  }
}

TEST(Npy, OpenMapsAFileAndNamesItInErrors) {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("edgewise_npy_" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "x.npy", std::ios::binary) << npy_file(dictionary("<f4", false, "(2, 3)"), bytes_of(kRows));
  const NpyMatrix matrix = NpyMatrix::open(folder / "x.npy");
  EXPECT_EQ(matrix.path(), folder / "x.npy");
  ASSERT_TRUE(matrix.view().has_value());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(matrix.view()->data()) % 64, 0u);  // NumPy aligns the data to 64 bytes
  EXPECT_EQ(copied(matrix, 0, 2), kRows);
  std::ofstream(folder / "bad.npy", std::ios::binary) << "PK\x03\x04";
  for (const char* name : {"bad.npy", "absent.npy"}) {
    try {
      NpyMatrix::open(folder / name);
      ADD_FAILURE() << name;
    } catch (const StoreFormatError& e) {
      EXPECT_EQ(std::string(e.what()).rfind((folder / name).string() + ": ", 0), 0u) << e.what();
    }
  }
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace edgewise

#include "edgewise/io/npy.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "mapped_file.hpp"

namespace edgewise {
namespace {

static_assert(std::endian::native == std::endian::little, "little-endian arrays are viewed in place");

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr Index kMaxExtent = std::numeric_limits<std::int32_t>::max();

// The header's dictionary, as NumPy's format module writes it: a Python literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }. Only what that needs is parsed.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  struct Fields {
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<std::uint64_t>> shape;
  };

  // nullopt with why() set when the text is not such a dictionary.
  std::optional<Fields> parse() {
    Fields fields;
    if (!take('{')) return refuse("it does not start with '{'");
    while (!take('}')) {
      std::optional<std::string> key = string();
      if (!key) return refuse("expected a quoted key");
      if (!take(':')) return refuse("expected ':' after '" + *key + "'");
      if (!value(*key, fields)) return std::nullopt;
      if (!take(',') && !peek('}')) return refuse("expected ',' or '}' after the value of '" + *key + "'");
    }
    skip_spaces();
    if (position_ != text_.size()) return refuse("text after the closing '}'");
    return fields;
  }

  const std::string& why() const { return why_; }

 private:
  bool value(const std::string& key, Fields& fields) {
    if (key == "descr") {
      if (peek('[')) return reject("a structured dtype (a list of fields) is not a matrix");
      fields.descr = string();
      if (!fields.descr) return reject("'descr' is not a quoted dtype");
    } else if (key == "fortran_order") {
      if (word("True"))
        fields.fortran_order = true;
      else if (word("False"))
        fields.fortran_order = false;
      else
        return reject("'fortran_order' is not True or False");
    } else if (key == "shape") {
      fields.shape = tuple();
      if (!fields.shape) return reject("'shape' is not a tuple of integers");
    } else {
      return reject("unexpected key '" + key + "'");
    }
    return true;
  }

  std::optional<std::vector<std::uint64_t>> tuple() {
    std::vector<std::uint64_t> extents;
    if (!take('(')) return std::nullopt;
    while (!take(')')) {
      skip_spaces();
      std::uint64_t extent = 0;
      const char* begin = text_.data() + position_;
      const auto [end, error] = std::from_chars(begin, text_.data() + text_.size(), extent);
      if (error != std::errc() || end == begin) return std::nullopt;
      position_ += static_cast<std::size_t>(end - begin);
      take('L');  // Python 2's long integers
      extents.push_back(extent);
      if (!take(',') && !peek(')')) return std::nullopt;
    }
    return extents;
  }

  std::optional<std::string> string() {
    skip_spaces();
    if (position_ >= text_.size() || (text_[position_] != '\'' && text_[position_] != '"')) return std::nullopt;
    const char quote = text_[position_];
    const std::size_t end = text_.find(quote, position_ + 1);
    if (end == std::string_view::npos) return std::nullopt;
    std::string found(text_.substr(position_ + 1, end - position_ - 1));
    position_ = end + 1;
    return found;
  }

  bool word(std::string_view expected) {
    skip_spaces();
    if (text_.substr(position_, expected.size()) != expected) return false;
    position_ += expected.size();
    return true;
  }

  bool take(char c) {
    if (!peek(c)) return false;
    ++position_;
    return true;
  }

  bool peek(char c) {
    skip_spaces();
    return position_ < text_.size() && text_[position_] == c;
  }

  void skip_spaces() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_]))) ++position_;
  }

  std::nullopt_t refuse(std::string why) {
    why_ = std::move(why);
    return std::nullopt;
  }

  bool reject(std::string why) {
    why_ = std::move(why);
    return false;
  }

  std::string_view text_;
  std::size_t position_ = 0;
  std::string why_;
};

// An open .npy file: its bytes and what its header says.
struct NpyState {
  std::filesystem::path path;
  detail::MappedFile file;
  const char* data = nullptr;  // the array's first byte
  Index rows = 0, cols = 0;
  std::string dtype;
  std::size_t item_size = 4;
  bool fortran = false;

  [[noreturn]] void fail(const std::string& reason) const { throw StoreFormatError(path.string() + ": " + reason); }
};

using Mapping = NpyState;

std::uint64_t little_endian(const char* bytes, std::size_t count) {
  std::uint64_t value = 0;
  for (std::size_t i = count; i-- > 0;) value = value << 8 | static_cast<unsigned char>(bytes[i]);
  return value;
}

// The header's text, after the magic, the version and the header length.
std::string_view header_text(const Mapping& m, std::uint64_t& data_offset) {
  const char* bytes = m.file.data();
  const std::uint64_t size = m.file.size();
  const std::size_t compared = static_cast<std::size_t>(std::min<std::uint64_t>(size, kMagic.size()));
  if (size == 0 || std::memcmp(bytes, kMagic.data(), compared) != 0)
    m.fail("not a NumPy .npy file (it does not start with \"\\x93NUMPY\")");
  if (size < kMagic.size() + 2)
    m.fail("truncated in the .npy preamble: the file has " + std::to_string(size) + " bytes");
  const int major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    m.fail(".npy format version " + std::to_string(major) + "." + std::to_string(minor) +
           " is not supported (1.0, 2.0 and 3.0 are)");
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::uint64_t prefix = kMagic.size() + 2 + length_bytes;
  if (size < prefix) m.fail("truncated in the .npy preamble: the file has " + std::to_string(size) + " bytes");
  const std::uint64_t length = little_endian(bytes + 8, length_bytes);
  if (size < prefix + length)
    m.fail("truncated in the .npy header: expected at least " + std::to_string(prefix + length) +
           " bytes, the file has " + std::to_string(size));
  data_offset = prefix + length;
  return {bytes + prefix, static_cast<std::size_t>(length)};
}

void check_dtype(Mapping& m, const std::string& descr) {
  if (descr == "<f4") {
    m.item_size = 4;
  } else if (descr == "<f8") {
    m.item_size = 8;
  } else {
    m.fail("unsupported dtype '" + descr +
           "': node features must be little-endian float32 ('<f4') or float64 "
           "('<f8'); save them with array.astype(numpy.float32)");
  }
  m.dtype = descr;
}

// As Python writes a tuple: (), (3,), (3, 4).
std::string tuple_text(const std::vector<std::uint64_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

void check_shape(Mapping& m, const std::vector<std::uint64_t>& shape, std::uint64_t data_offset) {
  const std::string shape_text = tuple_text(shape);
  if (shape.size() != 2)
    m.fail("expected a 2-D array (one row per node, one column per feature), the file holds shape " + shape_text);
  if (shape[0] > static_cast<std::uint64_t>(kMaxExtent) || shape[1] > static_cast<std::uint64_t>(kMaxExtent))
    m.fail("shape " + shape_text + " has an extent above 2^31 - 1");
  m.rows = static_cast<Index>(shape[0]);
  m.cols = static_cast<Index>(shape[1]);
  std::uint64_t needed = 0;
  if (__builtin_mul_overflow(shape[0] * shape[1], std::uint64_t{m.item_size}, &needed))
    m.fail("shape " + shape_text + " is too large");
  const std::uint64_t available = m.file.size() - data_offset;
  if (available < needed)
    m.fail("truncated: the " + m.dtype + " array of shape " + shape_text + " needs " + std::to_string(needed) +
           " bytes of data, the file has " + std::to_string(available) + " after its header");
  m.data = m.file.data() + data_offset;
}

void parse(Mapping& m) {
  std::uint64_t data_offset = 0;
  const std::string_view text = header_text(m, data_offset);
  HeaderParser parser(text);
  const std::optional<HeaderParser::Fields> fields = parser.parse();
  if (!fields) m.fail("malformed .npy header: " + parser.why());
  if (!fields->descr || !fields->fortran_order || !fields->shape)
    m.fail("malformed .npy header: it needs 'descr', 'fortran_order' and 'shape'");
  check_dtype(m, *fields->descr);
  m.fortran = *fields->fortran_order;
  check_shape(m, *fields->shape, data_offset);
}

// Element k of the data as float32, whatever its dtype.
float element(const Mapping& m, std::uint64_t k) {
  if (m.item_size == 4) {
    float value = 0;
    std::memcpy(&value, m.data + k * 4, 4);
    return value;
  }
  double value = 0;
  std::memcpy(&value, m.data + k * 8, 8);
  return static_cast<float>(value);
}

}  // namespace

struct NpyMatrix::Mapping : NpyState {};

NpyMatrix::NpyMatrix(std::unique_ptr<Mapping> mapping) : mapping_(std::move(mapping)) {}
NpyMatrix::NpyMatrix(NpyMatrix&&) noexcept = default;
NpyMatrix& NpyMatrix::operator=(NpyMatrix&&) noexcept = default;
NpyMatrix::~NpyMatrix() = default;

NpyMatrix NpyMatrix::open(const std::filesystem::path& path) {
  auto mapping = std::make_unique<Mapping>();
  mapping->path = path;
  mapping->file = detail::MappedFile::open(path);
  parse(*mapping);
  return NpyMatrix(std::move(mapping));
}

NpyMatrix NpyMatrix::from_bytes(std::string_view bytes, const std::filesystem::path& name) {
  auto mapping = std::make_unique<Mapping>();
  mapping->path = name;
  mapping->file = detail::MappedFile::copy_of(bytes);
  parse(*mapping);
  return NpyMatrix(std::move(mapping));
}

const std::filesystem::path& NpyMatrix::path() const { return mapping_->path; }
Index NpyMatrix::rows() const { return mapping_->rows; }
Index NpyMatrix::cols() const { return mapping_->cols; }
const std::string& NpyMatrix::dtype() const { return mapping_->dtype; }
bool NpyMatrix::fortran_order() const { return mapping_->fortran; }

std::optional<ConstMatrixMap<float>> NpyMatrix::view() const {
  const Mapping& m = *mapping_;
  const bool aligned = reinterpret_cast<std::uintptr_t>(m.data) % alignof(float) == 0;
  if (m.item_size != 4 || (m.fortran && m.rows > 1 && m.cols > 1) || !aligned) return std::nullopt;
  return ConstMatrixMap<float>(reinterpret_cast<const float*>(m.data), m.rows, m.cols);
}

void NpyMatrix::copy_rows(Index first, Index count, float* out) const {
  const Mapping& m = *mapping_;
  if (first < 0 || count < 0 || first > m.rows - count)
    throw ArgumentError(m.path.string() + ": rows " + std::to_string(first) + " to " +
                        std::to_string(first + count - 1) + " are not all in [0, " + std::to_string(m.rows) + ")");
  const auto rows = static_cast<std::uint64_t>(m.rows), cols = static_cast<std::uint64_t>(m.cols);
  if (m.item_size == 4 && !m.fortran) {
    const std::uint64_t values = static_cast<std::uint64_t>(count) * cols;
    if (values > 0) std::memcpy(out, m.data + static_cast<std::uint64_t>(first) * cols * 4, values * 4);
    return;
  }
  const auto begin = static_cast<std::uint64_t>(first), end = begin + static_cast<std::uint64_t>(count);
  if (!m.fortran) {
    for (std::uint64_t row = begin; row < end; ++row)
      for (std::uint64_t c = 0; c < cols; ++c) out[(row - begin) * cols + c] = element(m, row * cols + c);
    return;
  }
  // Column by column, so that each column's stretch of rows is read in order.
  for (std::uint64_t c = 0; c < cols; ++c)
    for (std::uint64_t row = begin; row < end; ++row) out[(row - begin) * cols + c] = element(m, c * rows + row);
}

}  // namespace edgewise

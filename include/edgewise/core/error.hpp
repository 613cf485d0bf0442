/// \file
/// Typed exceptions thrown at the public API, and the always-on invariant check used inside kernels.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace edgewise {

/// Base of every error edgewise reports to its caller.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A graph was built from ids or sizes that do not describe a valid graph.
class GraphError : public Error {
 public:
  using Error::Error;
};

/// Arguments of an operation disagree (shapes, option values).
class ArgumentError : public Error {
 public:
  using Error::Error;
};

/// A model file is truncated, corrupted, foreign or of an unknown version.
class ModelFormatError : public Error {
 public:
  using Error::Error;
};

/// A graph store (.ewg) that cannot be used: not a store, truncated, corrupted, or of a newer format.
class StoreFormatError : public Error {
 public:
  using Error::Error;
};

/// RDKit failed on one molecule while it was featurized (a descriptor, the Crippen contributions):
/// that molecule's error, not the run's.
class MoleculeError : public Error {
 public:
  using Error::Error;
};

/// Training stopped because the loss or a gradient became NaN or infinite.
class DivergenceError : public Error {
 public:
  using Error::Error;
};

namespace detail {
/// The length of the well-formed UTF-8 sequence at text[i], 0 if there is none.
inline std::size_t utf8_sequence_length(const std::string& text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const std::size_t length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3
                             : lead >= 0xf0 && lead <= 0xf4                                 ? 4
                                                                                            : 0;
  if (length == 0 || i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k)
    if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return 0;
  return length;
}

/// The offending text as a message shows it: control characters and bytes that are not UTF-8 (binary
/// garbage) as \xNN, and at most 80 bytes, so that one bad line cannot flood or garble a terminal.
inline std::string printable_excerpt(const std::string& text) {
  constexpr std::size_t kMaxShown = 80;
  std::string shown;
  std::size_t i = 0;
  while (i < text.size() && i < kMaxShown) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f) {
      shown += static_cast<char>(byte);
      ++i;
    } else if (const std::size_t length = utf8_sequence_length(text, i)) {
      shown.append(text, i, length);
      i += length;
    } else {
      constexpr char digits[] = "0123456789abcdef";
      shown += {'\\', 'x', digits[byte >> 4], digits[byte & 15]};
      ++i;
    }
  }
  if (i < text.size()) shown += "... (" + std::to_string(text.size()) + " bytes)";
  return shown;
}
}  // namespace detail

/// Input text could not be read; carries where and what. The message shows the text as
/// detail::printable_excerpt does; text() keeps it as read.
class ParseError : public Error {
 public:
  /// The message reads "file:line: reason ('text')"; `text` is the offending input, may be empty.
  ParseError(std::string file, std::size_t line, std::string text, std::string reason)
      : Error(file + ":" + std::to_string(line) + ": " + reason +
              (text.empty() ? "" : " ('" + detail::printable_excerpt(text) + "')")),
        file_(std::move(file)),
        line_(line),
        text_(std::move(text)),
        reason_(std::move(reason)) {}

  /// The file (or display name) being read.
  const std::string& file() const { return file_; }
  /// The 1-based line.
  std::size_t line() const { return line_; }
  /// The offending token or value, as written.
  const std::string& text() const { return text_; }
  /// What is wrong with it.
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  std::size_t line_;
  std::string text_;
  std::string reason_;
};

namespace detail {
[[noreturn]] inline void invariant_failed(const char* condition, const char* file, int line) {
  throw std::logic_error(std::string(file) + ":" + std::to_string(line) + ": invariant failed: " + condition);
}
}  // namespace detail

}  // namespace edgewise

/// Checked in every build type: kernels use it for conditions whose failure would corrupt memory.
/// Throws std::logic_error naming the condition, file and line; a bug in edgewise, not bad input.
#define EDGEWISE_CHECK(condition) \
  ((condition) ? static_cast<void>(0) : ::edgewise::detail::invariant_failed(#condition, __FILE__, __LINE__))

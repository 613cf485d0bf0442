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

/// Training stopped because the loss or a gradient became NaN or infinite.
class DivergenceError : public Error {
 public:
  using Error::Error;
};

/// Input text could not be read; carries where and what.
class ParseError : public Error {
 public:
  /// The message reads "file:line: reason ('text')"; `text` is the offending input, may be empty.
  ParseError(std::string file, std::size_t line, std::string text, std::string reason)
      : Error(file + ":" + std::to_string(line) + ": " + reason + (text.empty() ? "" : " ('" + text + "')")),
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

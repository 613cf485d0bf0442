// An environment variable set (or removed) for a test's scope, then put back as it was.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace edgewise::testing {

class ScopedEnvironment {
 public:
  // value null: the variable is removed for the scope.
  ScopedEnvironment(std::string name, const char* value) : name_(std::move(name)) {
    if (const char* before = std::getenv(name_.c_str())) before_ = before;
    assign(value);
  }
  ~ScopedEnvironment() { assign(before_ ? before_->c_str() : nullptr); }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

  void assign(const char* value) const {
    if (value != nullptr) {
      ::setenv(name_.c_str(), value, 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> before_;
};

}  // namespace edgewise::testing

// Log settings that print nothing, for tests that train.
#pragma once

#include "edgewise/core/log.hpp"

namespace edgewise::testing {

inline const LogSettings kQuiet = {.level = LogLevel::quiet, .sink = {}};

}  // namespace edgewise::testing

// The name of the entry point of targets.hpp that a fuzz target drives, defined by each executable's
// own target_name.cpp.
#pragma once

namespace edgewise::fuzz {

extern const char* const target_name;

}  // namespace edgewise::fuzz

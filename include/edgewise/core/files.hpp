/// \file
/// Writing files so that a failure never leaves a half-written file in place of a good one.
#pragma once

#include <string>
#include <string_view>

namespace edgewise {

/// Writes `bytes` to a temporary file in the same folder as `path`, flushes it, then renames it over
/// `path`. Throws Error naming the path when any step fails; the temporary file is removed then.
void write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace edgewise

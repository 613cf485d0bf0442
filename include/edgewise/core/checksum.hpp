// SHA-256 digests, for workload fingerprints and model-file integrity.
#pragma once

#include <cstddef>
#include <string>

namespace edgewise {

// Lower-case hex SHA-256 of `size` bytes at `data`.
std::string sha256_hex(const void* data, std::size_t size);

}  // namespace edgewise

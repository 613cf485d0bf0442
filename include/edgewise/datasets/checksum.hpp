/// \file
/// Checksums that identify a data set independently of how it was produced, so a workload built
/// here can be compared with the same workload built by another library.
#pragma once

#include <span>
#include <string>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// Lower-case hex SHA-256 of the little-endian int32 sequence src[0], dst[0], src[1], dst[1], ...
/// Throws ArgumentError if the arrays differ in length or an id does not fit in int32.
std::string edges_sha256(std::span<const Index> sources, std::span<const Index> targets);

}  // namespace edgewise

#include "edgewise/datasets/checksum.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "edgewise/core/checksum.hpp"
#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

void append_int32_le(std::vector<unsigned char>& bytes, Index value) {
  if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max())
    throw ArgumentError("edges_sha256: node id " + std::to_string(value) + " does not fit in int32");
  const auto bits = static_cast<std::uint32_t>(static_cast<std::int32_t>(value));
  for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<unsigned char>(bits >> shift));
}

}  // namespace

std::string edges_sha256(std::span<const Index> sources, std::span<const Index> targets) {
  if (sources.size() != targets.size())
    throw ArgumentError("edges_sha256: " + std::to_string(sources.size()) + " sources but " +
                        std::to_string(targets.size()) + " targets");
  Sha256 sha;

  // Hashed in chunks so that large edge lists need no second full-size copy.
  constexpr std::size_t edges_per_chunk = 1 << 16;
  std::vector<unsigned char> chunk;
  chunk.reserve(edges_per_chunk * 8);
  for (std::size_t first = 0; first < sources.size(); first += edges_per_chunk) {
    chunk.clear();
    const std::size_t last = std::min(sources.size(), first + edges_per_chunk);
    for (std::size_t e = first; e < last; ++e) {
      append_int32_le(chunk, sources[e]);
      append_int32_le(chunk, targets[e]);
    }
    sha.update(chunk.data(), chunk.size());
  }
  return sha.hex_digest();
}

}  // namespace edgewise

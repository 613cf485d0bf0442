#include "edgewise/datasets/checksum.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

void append_int32_le(std::vector<unsigned char>& bytes, Index value) {
  if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max())
    throw ArgumentError("edges_sha256: node id " + std::to_string(value) + " does not fit in int32");
  const auto bits = static_cast<std::uint32_t>(static_cast<std::int32_t>(value));
  for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<unsigned char>(bits >> shift));
}

void check_ok(int status, const char* step) {
  if (status != 1) throw Error(std::string("edges_sha256: OpenSSL ") + step + " failed");
}

std::string to_hex(const unsigned char* bytes, unsigned length) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned b = 0; b < length; ++b) {
    hex.push_back(digits[bytes[b] >> 4]);
    hex.push_back(digits[bytes[b] & 0xF]);
  }
  return hex;
}

}  // namespace

std::string edges_sha256(std::span<const Index> sources, std::span<const Index> targets) {
  if (sources.size() != targets.size())
    throw ArgumentError("edges_sha256: " + std::to_string(sources.size()) + " sources but " +
                        std::to_string(targets.size()) + " targets");
  DigestContext context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!context) throw Error("edges_sha256: OpenSSL could not allocate a digest context");
  check_ok(EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr), "digest init");

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
    check_ok(EVP_DigestUpdate(context.get(), chunk.data(), chunk.size()), "digest update");
  }

  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned length = 0;
  check_ok(EVP_DigestFinal_ex(context.get(), digest.data(), &length), "digest final");
  return to_hex(digest.data(), length);
}

}  // namespace edgewise

#include "edgewise/core/checksum.hpp"

#include <openssl/evp.h>

#include <array>
#include <cstdio>

namespace edgewise {

std::string sha256_hex(const void* data, std::size_t size) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_Digest(data, size, digest.data(), &length, EVP_sha256(), nullptr);
  std::string hex(2 * length, '0');
  for (unsigned int k = 0; k < length; ++k) std::snprintf(&hex[2 * k], 3, "%02x", digest[k]);
  return hex;
}

}  // namespace edgewise

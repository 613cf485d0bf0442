#include "edgewise/core/checksum.hpp"

#include <openssl/evp.h>

// The whole of xxHash is compiled in from Debian's header (libxxhash-dev), so nothing links to it.
#define XXH_INLINE_ALL
// GCC 12's AVX-512 intrinsics, which xxHash uses on AVX-512 machines, start some results from a
// self-initialized `__Y` (GCC bug 105593, fixed in GCC 13), which -Wuninitialized reports.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <xxhash.h>
#pragma GCC diagnostic pop

#include <array>
#include <new>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

void check_ok(int status, const char* step) {
  if (status != 1) throw Error(std::string("SHA-256: OpenSSL ") + step + " failed");
}

}  // namespace

std::string to_hex(const void* data, std::size_t size) {
  static constexpr char digits[] = "0123456789abcdef";
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::string hex;
  hex.reserve(2 * size);
  for (std::size_t b = 0; b < size; ++b) {
    hex.push_back(digits[bytes[b] >> 4]);
    hex.push_back(digits[bytes[b] & 0xF]);
  }
  return hex;
}

struct Sha256::Context {
  EVP_MD_CTX* digest = EVP_MD_CTX_new();
  ~Context() { EVP_MD_CTX_free(digest); }
};

Sha256::Sha256() : context_(std::make_unique<Context>()) {
  if (!context_->digest) throw Error("SHA-256: OpenSSL could not allocate a digest context");
  check_ok(EVP_DigestInit_ex(context_->digest, EVP_sha256(), nullptr), "digest init");
}

Sha256::~Sha256() = default;

void Sha256::update(const void* data, std::size_t size) {
  check_ok(EVP_DigestUpdate(context_->digest, data, size), "digest update");
}

std::string Sha256::hex_digest() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned length = 0;
  check_ok(EVP_DigestFinal_ex(context_->digest, digest.data(), &length), "digest final");
  return to_hex(digest.data(), length);
}

std::string sha256_hex(const void* data, std::size_t size) {
  Sha256 sha;
  sha.update(data, size);
  return sha.hex_digest();
}

struct Xxh3Digest::State {
  XXH3_state_t* state = XXH3_createState();
  ~State() { XXH3_freeState(state); }
};

Xxh3Digest::Xxh3Digest() : state_(std::make_unique<State>()) {
  if (!state_->state) throw std::bad_alloc();
  XXH3_128bits_reset(state_->state);
}

Xxh3Digest::~Xxh3Digest() = default;

void Xxh3Digest::update(const void* data, std::size_t size) {
  if (size > 0) XXH3_128bits_update(state_->state, data, size);
}

std::string Xxh3Digest::hex_digest() const {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state_->state));
  return to_hex(canonical.digest, sizeof canonical.digest);
}

std::string xxh3_hex(const void* data, std::size_t size) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits(data, size));
  return to_hex(canonical.digest, sizeof canonical.digest);
}

std::uint64_t xxh3_64(const void* data, std::size_t size, std::uint64_t seed) {
  return XXH3_64bits_withSeed(data, size, seed);
}

}  // namespace edgewise

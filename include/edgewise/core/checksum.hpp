/// \file
/// Checksums: SHA-256 for workload fingerprints and model-file integrity; XXH3-128 for files of
/// gigabytes (graph stores), where SHA-256 would take most of the time to open them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace edgewise {

/// Lower-case hex of `size` bytes at `data`, two digits a byte in their order.
std::string to_hex(const void* data, std::size_t size);

/// A SHA-256 digest fed in pieces, for data too large to copy into one buffer first.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  /// Feeds `size` bytes at `data`. Throws Error if OpenSSL fails.
  void update(const void* data, std::size_t size);
  /// Lower-case hex digest of everything fed so far; the object is spent afterwards.
  std::string hex_digest();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

/// Lower-case hex SHA-256 of `size` bytes at `data`.
std::string sha256_hex(const void* data, std::size_t size);

/// xxHash's XXH3 128-bit hash fed in pieces: a non-cryptographic checksum that runs at memory
/// speed (about ten times SHA-256's with the CPU's SHA instructions). It detects corrupted and
/// truncated bytes, not deliberate tampering.
class Xxh3Digest {
 public:
  Xxh3Digest();
  ~Xxh3Digest();
  Xxh3Digest(const Xxh3Digest&) = delete;
  Xxh3Digest& operator=(const Xxh3Digest&) = delete;

  /// Feeds `size` bytes at `data`.
  void update(const void* data, std::size_t size);
  /// Lower-case hex digest (32 digits, the canonical big-endian form) of everything fed so far.
  std::string hex_digest() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Lower-case hex XXH3-128 of `size` bytes at `data`.
std::string xxh3_hex(const void* data, std::size_t size);

/// XXH3's 64-bit hash of `size` bytes at `data`, with a seed: a fingerprint for keying random draws
/// by content.
std::uint64_t xxh3_64(const void* data, std::size_t size, std::uint64_t seed = 0);

}  // namespace edgewise

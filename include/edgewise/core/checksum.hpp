/// \file
/// SHA-256 digests, for workload fingerprints and model-file integrity.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace edgewise {

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

}  // namespace edgewise

// SHA-256 against the FIPS 180-2 test vectors, XXH3-128 against xxHash's own sanity vector, both whole
// and fed in pieces.
#include "edgewise/core/checksum.hpp"

#include <gtest/gtest.h>

#include <string>

namespace edgewise {
namespace {

TEST(Sha256Test, MatchesTheStandardsTestVectors) {
  EXPECT_EQ(sha256_hex("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  EXPECT_EQ(sha256_hex(two_blocks.data(), two_blocks.size()),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, PiecesGiveTheDigestOfTheWhole) {
  const std::string text = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  Sha256 pieces;
  for (std::size_t begin = 0; begin < text.size(); begin += 7)
    pieces.update(text.data() + begin, std::min<std::size_t>(7, text.size() - begin));
  EXPECT_EQ(pieces.hex_digest(), sha256_hex(text.data(), text.size()));
}

TEST(Xxh3DigestTest, MatchesTheReferenceAndPiecesGiveTheDigestOfTheWhole) {
  EXPECT_EQ(xxh3_hex("", 0), "99aa06d3014798d86001c324468d497f");  // xxHash's sanity check, canonical order
  std::string text;
  for (int i = 0; i < 5000; ++i) text.push_back(static_cast<char>(i * 131 % 251));
  Xxh3Digest pieces;
  for (std::size_t begin = 0; begin < text.size(); begin += 333)
    pieces.update(text.data() + begin, std::min<std::size_t>(333, text.size() - begin));
  EXPECT_EQ(pieces.hex_digest(), xxh3_hex(text.data(), text.size()));
  EXPECT_NE(xxh3_hex(text.data(), text.size() - 1), xxh3_hex(text.data(), text.size()));
  EXPECT_EQ(xxh3_hex(text.data(), text.size()).size(), 32u);
}

}  // namespace
}  // namespace edgewise

// SHA-256 against the FIPS 180-2 test vectors, whole and fed in pieces.
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

}  // namespace
}  // namespace edgewise

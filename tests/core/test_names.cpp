// Enum name tables: both directions, the list of names, and the errors for an unknown name or value.
#include "edgewise/core/names.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

enum class Colour { red, green, blue };

constexpr std::pair<Colour, std::string_view> kColourNames[] = {{Colour::red, "red"}, {Colour::green, "green"}};

TEST(NamesTest, NamesAndValuesRoundTrip) {
  EXPECT_EQ(name_of(kColourNames, Colour::green), "green");
  EXPECT_EQ(value_named(kColourNames, "red", "colour"), Colour::red);
  EXPECT_EQ(names_in(kColourNames), (std::vector<std::string>{"red", "green"}));
}

TEST(NamesTest, AnUnknownNameListsTheKnownOnes) {
  try {
    value_named(kColourNames, "mauve", "colour");
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_STREQ(e.what(), "unknown colour 'mauve' (expected one of red, green)");
  }
}

TEST(NamesTest, AValueWithoutANameIsABug) {
  EXPECT_THROW(name_of(kColourNames, Colour::blue), std::logic_error);
}

}  // namespace
}  // namespace edgewise

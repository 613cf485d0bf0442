// Enum name tables: both directions, the list of names, and the errors for an unknown name or value;
// comma-separated lists split and joined.
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

TEST(NamesTest, ListsSplitOnCommasWithoutBlankItemsAndJoinBack) {
  EXPECT_EQ(split_list("a, b,,\tc ,"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split_list("one item"), (std::vector<std::string>{"one item"}));
  EXPECT_TRUE(split_list("").empty());
  EXPECT_TRUE(split_list(" ,\t").empty());
  EXPECT_EQ(join(split_list("x , y"), "|"), "x|y");
  EXPECT_EQ(join(std::vector<int>{1, 2, 3}, ","), "1,2,3");
}

}  // namespace
}  // namespace edgewise

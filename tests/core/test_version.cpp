// The umbrella header compiles on its own (it is included first, before anything else), and the
// version it reports is the one project() sets in CMakeLists.txt.
#include "edgewise/edgewise.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>

namespace edgewise {
namespace {

std::string project_version() {
  std::ifstream file(std::string(EDGEWISE_SOURCE_DIR) + "/CMakeLists.txt");
  std::ostringstream text;
  text << file.rdbuf();
  std::smatch match;
  const std::string contents = text.str();
  if (!std::regex_search(contents, match, std::regex(R"(project\(edgewise VERSION ([0-9]+\.[0-9]+\.[0-9]+))")))
    return "";
  return match[1];
}

TEST(Version, IsTheProjectVersionOfCMakeLists) {
  const std::string expected = project_version();
  ASSERT_FALSE(expected.empty()) << "no project(edgewise VERSION x.y.z) in CMakeLists.txt";
  EXPECT_EQ(std::string(version()), expected);
  EXPECT_EQ(std::to_string(version_major) + "." + std::to_string(version_minor) + "." + std::to_string(version_patch),
            expected);
}

// version() is constexpr: usable at compile time, and the same string at run time.
TEST(Version, IsAvailableAtCompileTime) {
  static_assert(!version().empty());
  constexpr std::string_view at_compile_time = version();
  EXPECT_EQ(at_compile_time, version());
  EXPECT_EQ(std::count(at_compile_time.begin(), at_compile_time.end(), '.'), 2);
}

}  // namespace
}  // namespace edgewise

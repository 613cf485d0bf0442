// The umbrella header compiles on its own (it is included first, before anything else), and the
// version it reports is the one project() sets in CMakeLists.txt.
#include "edgewise/edgewise.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

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

TEST(Version, IsAvailableAtCompileTime) {
  static_assert(!version().empty());
  static_assert(version_major >= 0 && version_minor >= 0 && version_patch >= 0);
  SUCCEED();
}

}  // namespace
}  // namespace edgewise

// `edgewise --version` prints the library's version and exits successfully.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "edgewise/version.hpp"

namespace {

TEST(CliVersion, PrintsTheLibraryVersion) {
  const std::string command = std::string(EDGEWISE_CLI) + " --version";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  ASSERT_NE(pipe, nullptr);
  std::string output;
  std::array<char, 256> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe.get()) != nullptr) output += buffer.data();
  const int status = pclose(pipe.release());
  EXPECT_EQ(status, 0);
  EXPECT_EQ(output, std::string(edgewise::version()) + "\n");
}

}  // namespace

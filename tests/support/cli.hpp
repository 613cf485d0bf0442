// Runs the edgewise command-line tool from a test. EDGEWISE_CLI, the built tool's path, is defined
// for every test target by tests/CMakeLists.txt.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace edgewise::testing {

struct CliRun {
  int status = -1;     // the exit status; -1 when the process did not exit normally (a signal)
  std::string output;  // stdout and stderr
};

// The shell command that runs `edgewise ARGUMENTS --threads THREADS` with both output streams sent
// to output_file.
inline std::string cli_command(const std::string& arguments, const std::string& output_file, int threads = 1) {
  return std::string(EDGEWISE_CLI) + " " + arguments + " --threads " + std::to_string(threads) + " > " +
         output_file + " 2>&1";
}

inline CliRun run_cli(const std::string& arguments, const std::string& output_file, int threads = 1) {
  const int status = std::system(cli_command(arguments, output_file, threads).c_str());
  std::ostringstream output;
  output << std::ifstream(output_file, std::ios::binary).rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output.str()};
}

}  // namespace edgewise::testing

// The processes of an mpirun (distributed/processes): a call that gets no answer from the other processes
// gives up after EDGEWISE_MPI_TIMEOUT seconds with a message, and the run ends instead of hanging.
// Skipped in a build without MPI.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "edgewise/distributed/processes.hpp"

namespace edgewise {
namespace {

TEST(DistributedTest, OneProcessSumsAndBroadcastsItsOwn) {
  EXPECT_FALSE(distributed::active());
  EXPECT_EQ(distributed::sum(std::uint64_t{7}), 7U);
  EXPECT_EQ(distributed::sum_before(std::uint64_t{7}), 0U);
  const Collectives& processes = distributed::run_collectives();
  EXPECT_EQ(processes.size(), 1);
  EXPECT_EQ(processes.sum(2.5), 2.5);
  EXPECT_EQ(processes.from_rank_0(std::uint64_t{9}), 9U);
  std::string bytes = "kept";
  distributed::broadcast(bytes, 0);
  EXPECT_EQ(bytes, "kept");
}

TEST(DistributedTest, AProcessThatNeverAnswersEndsTheRunAfterTheTimeout) {
  if (std::string(EDGEWISE_MPIEXEC).empty()) GTEST_SKIP() << "built without MPI (EDGEWISE_MPI)";
  const std::string output = testing::TempDir() + "stalled_process.txt";
  // Open MPI keeps some of its memory to the end, which LeakSanitizer would report.
  const std::string command = "timeout 100 " + std::string(EDGEWISE_MPIEXEC) +
                              " --allow-run-as-root --oversubscribe -np 2 env EDGEWISE_MPI_TIMEOUT=2 "
                              "ASAN_OPTIONS=\"${ASAN_OPTIONS}:detect_leaks=0\" " EDGEWISE_STALLED_PROCESS " > " +
                              output + " 2>&1";
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ostringstream text;
  text << std::ifstream(output).rdbuf();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 0) << text.str();
  EXPECT_NE(WEXITSTATUS(status), 124) << "the run hung until the test's own timeout: " << text.str();
  EXPECT_LT(seconds, 60.0) << "process 1 sleeps 120 s: the run must not wait for it";
  EXPECT_NE(text.str().find("process 0: MPI_Iallreduce: no answer from the other processes in 2 s"), std::string::npos)
      << text.str();
}

}  // namespace
}  // namespace edgewise

// InterruptCheck and poll_interrupt: the check runs where work polls, on the thread that installed
// it only, and the guard restores the check it replaced.
#include "edgewise/core/interrupt.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

namespace edgewise {
namespace {

TEST(InterruptTest, PollRunsTheInstalledCheckAndNothingWithoutOne) {
  EXPECT_NO_THROW(poll_interrupt());
  int polls = 0;
  {
    const InterruptCheck counting([&] { ++polls; });
    poll_interrupt();
    poll_interrupt();
  }
  poll_interrupt();
  EXPECT_EQ(polls, 2);
}

TEST(InterruptTest, WhatTheCheckThrowsReachesThePoller) {
  const InterruptCheck stop([] { throw std::runtime_error("stopped"); });
  EXPECT_THROW(poll_interrupt(), std::runtime_error);
}

TEST(InterruptTest, NestedGuardsRestoreTheOuterCheck) {
  int outer = 0, inner = 0;
  const InterruptCheck first([&] { ++outer; });
  {
    const InterruptCheck second([&] { ++inner; });
    poll_interrupt();
  }
  poll_interrupt();
  EXPECT_EQ(inner, 1);
  EXPECT_EQ(outer, 1);
}

TEST(InterruptTest, OtherThreadsDoNotRunTheCheck) {
  int polls = 0;
  const InterruptCheck counting([&] { ++polls; });
  std::thread([] { poll_interrupt(); }).join();
  EXPECT_EQ(polls, 0);
}

}  // namespace
}  // namespace edgewise

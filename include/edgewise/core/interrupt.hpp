/// \file
/// Stopping long work from the caller's side. A program that must answer its user while edgewise
/// works (an interpreter's Ctrl-C) installs a check on its thread; work that runs long calls
/// poll_interrupt() between blocks, on the thread that started it, and what the check throws ends
/// the work there.
#pragma once

#include <functional>

namespace edgewise {

/// Installs a check on the calling thread for the guard's lifetime, then restores the one before.
class InterruptCheck {
 public:
  /// `check` runs at each poll_interrupt() on this thread; what it throws stops the work.
  explicit InterruptCheck(std::function<void()> check);
  ~InterruptCheck();
  InterruptCheck(const InterruptCheck&) = delete;
  InterruptCheck& operator=(const InterruptCheck&) = delete;

 private:
  std::function<void()> previous_;
};

/// Runs the calling thread's check, which may throw; nothing when none is installed.
void poll_interrupt();

}  // namespace edgewise

#include "edgewise/core/interrupt.hpp"

#include <utility>

namespace edgewise {
namespace {

std::function<void()>& installed_check() {
  thread_local std::function<void()> check;
  return check;
}

}  // namespace

InterruptCheck::InterruptCheck(std::function<void()> check)
    : previous_(std::exchange(installed_check(), std::move(check))) {}

InterruptCheck::~InterruptCheck() { installed_check() = std::move(previous_); }

void poll_interrupt() {
  if (const std::function<void()>& check = installed_check()) check();
}

}  // namespace edgewise

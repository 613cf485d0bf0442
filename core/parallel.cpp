#include "edgewise/core/parallel.hpp"

#include <omp.h>

#include <cstdlib>
#include <string>
#include <thread>

namespace edgewise {
namespace {

int default_threads() {
  if (const char* env = std::getenv("EDGEWISE_NUM_THREADS")) {
    try {
      const int n = std::stoi(env);
      if (n > 0) return n;
    } catch (const std::exception&) {
      // An unreadable value falls through to the hardware default.
    }
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int& requested_threads() {
  static int n = 0;
  return n;
}

}  // namespace

void set_num_threads(int n) {
  requested_threads() = n > 0 ? n : 0;
  omp_set_num_threads(num_threads());
}

int num_threads() {
  static const int fallback = default_threads();
  return requested_threads() > 0 ? requested_threads() : fallback;
}

int thread_index() { return omp_get_thread_num(); }

bool in_parallel_region() { return omp_in_parallel() != 0; }

}  // namespace edgewise

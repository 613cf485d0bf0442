#include "edgewise/core/memory.hpp"

#include <cstddef>
#include <fstream>
#include <string>

#ifdef __GLIBC__
#include <malloc.h>
#endif

// jemalloc's control interface, where the program links jemalloc (the edgewise tool does); null
// otherwise, as a weak reference that nothing defines.
extern "C" int mallctl(const char* name, void* old_value, std::size_t* old_length, void* new_value,
                       std::size_t new_length) __attribute__((weak));

namespace edgewise {

double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return static_cast<double>(std::stoll(line.substr(6))) * 1024.0 / 1e6;
  return 0.0;
}

void return_freed_memory() {
  if (mallctl != nullptr) {
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);  // 4096: MALLCTL_ARENAS_ALL
    return;
  }
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

}  // namespace edgewise

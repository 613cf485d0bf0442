#include "edgewise/core/memory.hpp"

#include <fstream>
#include <string>

namespace edgewise {

double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return static_cast<double>(std::stoll(line.substr(6))) * 1024.0 / 1e6;
  return 0.0;
}

}  // namespace edgewise

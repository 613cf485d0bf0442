/// \file
/// How much memory this process has used, for benchmarks and reports.
#pragma once

namespace edgewise {

/// The process's peak resident set so far (VmHWM of /proc/self/status), in MB of 10^6 bytes; 0 where
/// /proc is missing.
double peak_rss_mb();

}  // namespace edgewise

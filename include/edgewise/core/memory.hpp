/// \file
/// How much memory this process has used, for benchmarks and reports.
#pragma once

namespace edgewise {

/// The process's peak resident set so far (VmHWM of /proc/self/status), in MB of 10^6 bytes; 0 where
/// /proc is missing.
double peak_rss_mb();

/// Hands the memory that the allocator holds for blocks already freed back to the system (jemalloc's
/// purge of every arena where the program links jemalloc, else glibc's malloc_trim). Call it once
/// between a phase whose temporaries are done and one that holds its buffers for long: the edgewise
/// tool keeps freed pages for reuse, so without this they count towards the peak until the end.
void return_freed_memory();

}  // namespace edgewise

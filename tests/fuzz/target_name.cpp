// One fuzz target's name, EDGEWISE_FUZZ_TARGET, set per executable in CMakeLists.txt: the only
// file compiled once per target.
#include "fuzz/target_name.hpp"

#ifdef EDGEWISE_FUZZ_READS_SD_RECORDS
#include "fuzz/rdkit_leaks.hpp"
#endif

#ifndef EDGEWISE_FUZZ_TARGET
#error "EDGEWISE_FUZZ_TARGET must name an entry point of targets.hpp"
#endif

const char* const edgewise::fuzz::target_name = EDGEWISE_FUZZ_TARGET;

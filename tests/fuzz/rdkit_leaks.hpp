// Sanitizer settings for programs that feed malformed SD records to RDKit: include in exactly one
// source file of the program.
//
// RDKit 2022.09 (Debian bookworm) leaks the molecule it is building when a mol block's property
// lines are malformed ("M  CHG  1      -1"): MolDataStreamToMol throws without freeing it. That is
// not edgewise's to fix, so LeakSanitizer is told to ignore allocations made inside that function.
// Suppressions match frames of the allocation's stack, which the default fast unwinder cannot walk
// through RDKit (built without frame pointers); the slower unwinder can.
#pragma once

extern "C" const char* __lsan_default_suppressions() { return "leak:RDKit::MolDataStreamToMol\n"; }
extern "C" const char* __asan_default_options() { return "fast_unwind_on_malloc=0"; }

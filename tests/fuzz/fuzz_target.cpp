// A libFuzzer target for one entry point of targets.hpp, chosen at build time by
// EDGEWISE_FUZZ_TARGET (its name). tests/fuzz/run builds one executable per target.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/targets.hpp"
#ifdef EDGEWISE_FUZZ_READS_SD_RECORDS
#include "fuzz/rdkit_leaks.hpp"
#endif

#ifndef EDGEWISE_FUZZ_TARGET
#error "EDGEWISE_FUZZ_TARGET must name an entry point of targets.hpp"
#endif

namespace {

const edgewise::fuzz::EntryPoint entry = [] {
  const edgewise::fuzz::EntryPoint found = edgewise::fuzz::entry_point(EDGEWISE_FUZZ_TARGET);
  if (!found) __builtin_trap();  // a misspelt target name in CMakeLists.txt
  return found;
}();

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  edgewise::fuzz::run(entry, std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

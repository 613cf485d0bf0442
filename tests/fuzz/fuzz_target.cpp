// libFuzzer's entry point, shared by every fuzz target: it drives the entry point of targets.hpp
// that the executable names in target_name.cpp. Compiled once for all the targets, since
// targets.hpp brings in every reader's headers.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/target_name.hpp"
#include "fuzz/targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const edgewise::fuzz::EntryPoint entry = [] {
    const edgewise::fuzz::EntryPoint found = edgewise::fuzz::entry_point(edgewise::fuzz::target_name);
    if (!found) __builtin_trap();  // a misspelt target name in CMakeLists.txt
    return found;
  }();
  edgewise::fuzz::run(entry, std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

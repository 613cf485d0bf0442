// The shared benchmark data used by tests: $EDGEWISE_DATA if set, else ../shared/datasets beside the
// checkout. Tests that need a file skip, naming it, when it is absent.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace edgewise::testing {

inline std::filesystem::path data_dir() {
  if (const char* env = std::getenv("EDGEWISE_DATA")) return env;
  return std::filesystem::path(EDGEWISE_SOURCE_DIR) / ".." / "shared" / "datasets";
}

// <data>/<name>/<name>.csv, the layout of the molecule datasets.
inline std::filesystem::path dataset_csv(const std::string& name) { return data_dir() / name / (name + ".csv"); }

inline std::string missing_data_reason(const std::filesystem::path& path) {
  return path.string() + " not found: set EDGEWISE_DATA to the datasets folder";
}

}  // namespace edgewise::testing

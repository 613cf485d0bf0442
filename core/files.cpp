#include "edgewise/core/files.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "edgewise/core/error.hpp"

namespace edgewise {

void write_file_atomically(const std::string& path, std::string_view bytes) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path + ": cannot write (cannot create " + temporary + ")");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      out.close();
      std::filesystem::remove(temporary);
      throw Error(path + ": write failed (disk full?)");
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary);
    throw Error(path + ": cannot move the written file into place: " + error.message());
  }
}

}  // namespace edgewise

// A file mapped into memory read-only, or a copy of bytes held in memory aligned as a mapping is:
// the binary readers (graph stores, .npy files) view their arrays in it without copying. Private to io.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace edgewise::detail {

class MappedFile {
 public:
  // Maps `path` (MAP_SHARED, read-only). Throws StoreFormatError "<path>: <reason>" when it cannot be
  // opened, is not a regular file or cannot be mapped.
  static MappedFile open(const std::filesystem::path& path);
  // A copy of `bytes` at a page-aligned address.
  static MappedFile copy_of(std::string_view bytes);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // Page-aligned; null when empty.
  const char* data() const { return data_; }
  std::uint64_t size() const { return size_; }
  // Asks the kernel to read the whole file ahead, for a reader about to touch every page.
  void will_need() const;
  // Lets the kernel take the whole pages of [begin, begin + bytes), a range of the mapping, out of
  // this process's memory; they stay in the page cache and are read again when next touched.
  // Nothing for a copy.
  void dont_need(const void* begin, std::uint64_t bytes) const;

 private:
  void release() noexcept;

  const char* data_ = nullptr;
  std::uint64_t size_ = 0;
  bool mapped_ = false;  // from mmap, else allocated by copy_of
};

}  // namespace edgewise::detail

#include "mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <system_error>
#include <utility>

#include "edgewise/core/error.hpp"

namespace edgewise::detail {
namespace {

constexpr std::size_t kPage = 4096;

std::string errno_text(int error) { return std::generic_category().message(error); }

}  // namespace

MappedFile MappedFile::open(const std::filesystem::path& path) {
  const auto fail = [&](const std::string& reason) { throw StoreFormatError(path.string() + ": " + reason); };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open for reading: " + errno_text(errno));
  struct stat status {};
  const bool stated = ::fstat(fd, &status) == 0;
  const int stat_error = errno;
  if (!stated || !S_ISREG(status.st_mode)) {
    ::close(fd);
    fail(stated ? "not a regular file" : "cannot read: " + errno_text(stat_error));
  }
  MappedFile file;
  file.size_ = static_cast<std::uint64_t>(status.st_size);
  if (file.size_ > 0) {
    void* mapped = ::mmap(nullptr, file.size_, PROT_READ, MAP_SHARED, fd, 0);
    const int error = errno;
    ::close(fd);
    if (mapped == MAP_FAILED) fail("cannot map into memory: " + errno_text(error));
    file.data_ = static_cast<const char*>(mapped);
    file.mapped_ = true;
  } else {
    ::close(fd);
  }
  return file;
}

MappedFile MappedFile::copy_of(std::string_view bytes) {
  MappedFile file;
  if (bytes.empty()) return file;
  auto* copy = static_cast<char*>(::operator new[](bytes.size(), std::align_val_t(kPage)));
  std::memcpy(copy, bytes.data(), bytes.size());
  file.data_ = copy;
  file.size_ = bytes.size();
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)), mapped_(other.mapped_) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = other.mapped_;
  }
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::release() noexcept {
  if (!data_) return;
  if (mapped_) {
    ::munmap(const_cast<char*>(data_), size_);
  } else {
    ::operator delete[](const_cast<char*>(data_), std::align_val_t(kPage));
  }
  data_ = nullptr;
}

void MappedFile::will_need() const {
  if (mapped_ && data_) ::madvise(const_cast<char*>(data_), size_, MADV_WILLNEED);
}

void MappedFile::dont_need(const void* begin, std::uint64_t bytes) const {
  if (!mapped_ || bytes == 0) return;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto first = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) / page * page;
  const auto last = (reinterpret_cast<std::uintptr_t>(begin) + bytes) / page * page;
  if (first < last) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace edgewise::detail

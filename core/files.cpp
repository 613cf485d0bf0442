#include "edgewise/core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kBufferBytes = 1 << 20;

std::string errno_text(int error) { return std::generic_category().message(error); }

// The temporary files of live AtomicFiles, for the signal handler: it may only read what it finds
// here and call unlink(), so the paths are published as plain pointers to strings that outlive
// their slot.
std::array<std::atomic<const char*>, 64> temporary_registry{};

int register_temporary(const char* path) {
  for (std::size_t slot = 0; slot < temporary_registry.size(); ++slot) {
    const char* expected = nullptr;
    if (temporary_registry[slot].compare_exchange_strong(expected, path)) return static_cast<int>(slot);
  }
  return -1;  // more files open than slots: this one is not removed on a signal, only on errors
}

void unregister_temporary(int slot) {
  if (slot >= 0) temporary_registry[static_cast<std::size_t>(slot)].store(nullptr);
}

void remove_temporaries_and_reraise(int signal_number) {
  for (std::atomic<const char*>& slot : temporary_registry)
    if (const char* path = slot.load()) ::unlink(path);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

fs::path folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// Creates "<folder>/.<name>.tmp.<pid>.<n>" exclusively, so that two writers never share one, with the
// permissions a new file gets from the umask.
int create_temporary(const std::string& path, std::string& temporary) {
  static std::atomic<unsigned> counter{0};
  std::string name = ".";  // hidden, so that listings and globs of the folder skip it
  name += fs::path(path).filename().string();
  name += ".tmp.";
  name += std::to_string(::getpid());
  name += '.';
  const std::string stem = (folder_of(path) / name).string();
  while (true) {
    temporary = stem + std::to_string(counter++);
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
}

void write_all(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) throw Error(path + ": write failed: " + errno_text(errno));
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
}

// rename() that, for Overwrite::refuse, fails with EEXIST rather than replace an existing target.
int move_into_place(const std::string& from, const std::string& to, Overwrite overwrite) {
  if (overwrite == Overwrite::allow) return ::rename(from.c_str(), to.c_str());
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
  // The file system has no RENAME_NOREPLACE: link() refuses an existing target as well.
  if (::link(from.c_str(), to.c_str()) != 0) return -1;
  ::unlink(from.c_str());
  return 0;
}

// A rename is durable once the folder holding it is written back.
void sync_folder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void refuse_existing(const std::string& path) {
  std::error_code error;
  if (fs::exists(path, error)) throw Error(path + ": already exists; pass --force to replace it");
}

}  // namespace

AtomicFile::AtomicFile(std::string path, Overwrite overwrite) : path_(std::move(path)), overwrite_(overwrite) {
  if (overwrite_ == Overwrite::refuse) refuse_existing(path_);
  fd_ = create_temporary(path_, temporary_);
  if (fd_ < 0) {
    const int error = errno;
    throw Error(path_ + ": cannot write (cannot create a file in " + folder_of(path_).string() +
                "): " + errno_text(error));
  }
  pending_ = true;
  registry_slot_ = register_temporary(temporary_.c_str());
  buffer_.reserve(kBufferBytes);
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() noexcept {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (!pending_) return;
  pending_ = false;
  ::unlink(temporary_.c_str());
  unregister_temporary(std::exchange(registry_slot_, -1));
}

void AtomicFile::flush_buffer() {
  write_all(fd_, buffer_, path_);
  buffer_.clear();
}

void AtomicFile::write(std::string_view bytes) {
  if (!pending_) throw Error(path_ + ": write after the file was committed or discarded");
  try {
    if (buffer_.size() + bytes.size() > kBufferBytes) flush_buffer();
    if (bytes.size() >= kBufferBytes) {
      write_all(fd_, bytes, path_);
    } else {
      buffer_.append(bytes);
    }
  } catch (...) {
    discard();
    throw;
  }
}

void AtomicFile::commit() {
  if (!pending_) throw Error(path_ + ": commit after the file was committed or discarded");
  try {
    flush_buffer();
    if (::fsync(fd_) != 0) throw Error(path_ + ": cannot write the file to disk: " + errno_text(errno));
    // close() can report a write error that earlier calls did not (network file systems).
    if (::close(std::exchange(fd_, -1)) != 0) throw Error(path_ + ": write failed: " + errno_text(errno));
    if (move_into_place(temporary_, path_, overwrite_) != 0) {
      const int error = errno;
      if (error == EEXIST) throw Error(path_ + ": already exists; pass --force to replace it");
      throw Error(path_ + ": cannot move the written file into place: " + errno_text(error));
    }
  } catch (...) {
    discard();
    throw;
  }
  pending_ = false;
  unregister_temporary(std::exchange(registry_slot_, -1));
  sync_folder(folder_of(path_));
}

void write_file_atomically(const std::string& path, std::string_view bytes, Overwrite overwrite) {
  AtomicFile file(path, overwrite);
  file.write(bytes);
  file.commit();
}

void remove_temporary_files_on_signal() {
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) std::signal(signal_number, remove_temporaries_and_reraise);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open for reading: " + std::generic_category().message(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(path + ": read error");
  return std::move(buffer).str();
}

}  // namespace edgewise

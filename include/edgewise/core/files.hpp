/// \file
/// Reading a file whole, and writing files so that a failure never leaves a half-written file in place of a good one. Every
/// output edgewise writes (model files, predictions, embeddings, split and skip lists, drawings) goes
/// through AtomicFile: the bytes go to a temporary file in the target's folder, which is flushed,
/// fsync'd and then renamed over the target, so the target holds the old contents or the complete new
/// ones, never a part, whatever fails or interrupts the write.
#pragma once

#include <string>
#include <string_view>

namespace edgewise {

/// What committing does when the target already exists.
enum class Overwrite {
  allow,   ///< replace it
  refuse,  ///< throw Error and keep it (the command line's default, without --force)
};

/// An output file being written. The temporary "<folder>/.<name>.tmp.XXXXXX" is removed when the
/// object is destroyed without commit() (an exception, a failed write), and by the handler that
/// remove_temporary_files_on_signal installs when the process is interrupted.
class AtomicFile {
 public:
  /// Creates the temporary file; throws Error naming `path` when it cannot be created (no such
  /// folder, no permission) or, with Overwrite::refuse, when `path` exists already.
  explicit AtomicFile(std::string path, Overwrite overwrite = Overwrite::allow);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  /// Appends bytes (buffered); throws Error naming the path when the disk refuses them.
  void write(std::string_view bytes);
  /// Flushes, fsyncs and renames the temporary file to the target, then fsyncs the folder so the
  /// rename itself survives a power loss. Throws Error (removing the temporary file) on failure,
  /// including an existing target under Overwrite::refuse.
  void commit();

  /// The file that commit() puts in place.
  const std::string& path() const { return path_; }
  /// The temporary file beside it that receives the bytes until then.
  const std::string& temporary_path() const { return temporary_; }

 private:
  void flush_buffer();
  void discard() noexcept;

  std::string path_;
  std::string temporary_;
  Overwrite overwrite_;
  int fd_ = -1;
  bool pending_ = false;  ///< the temporary file exists and is not yet renamed
  int registry_slot_ = -1;
  std::string buffer_;
};

/// Writes `bytes` to `path` through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view bytes, Overwrite overwrite = Overwrite::allow);

/// The whole file's bytes. Throws Error "<path>: cannot open for reading: <reason>" or "<path>: read
/// error".
std::string read_file(const std::string& path);

/// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove the temporary files of every live
/// AtomicFile, then let the signal end the process as it would have. For programs (the command-line
/// tool); a library leaves signal handling to its host.
void remove_temporary_files_on_signal();

}  // namespace edgewise

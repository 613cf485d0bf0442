// AtomicFile: an output appears complete or not at all. A failed or interrupted write keeps the old
// file and leaves no temporary file; an existing file is kept under Overwrite::refuse. read_file
// gives a file's bytes or an error naming it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"

namespace {

namespace fs = std::filesystem;
using edgewise::AtomicFile;
using edgewise::Overwrite;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("edgewise_files_" + std::to_string(::getpid()));
    fs::create_directories(folder_);
    std::ofstream(target()) << "old contents";
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string target() const { return (folder_ / "out.txt").string(); }
  std::string contents() const {
    std::ostringstream text;
    text << std::ifstream(target()).rdbuf();
    return text.str();
  }
  // The names in the folder: only out.txt when nothing was left behind.
  std::vector<std::string> names() const {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(folder_)) found.push_back(entry.path().filename().string());
    return found;
  }

  fs::path folder_;
};

TEST_F(AtomicFileTest, CommitReplacesTheFileAndRemovesTheTemporary) {
  AtomicFile file(target());
  file.write("new ");
  file.write(std::string(3 << 20, 'x'));  // beyond the buffer: written straight through
  EXPECT_TRUE(fs::exists(file.temporary_path()));
  EXPECT_EQ(fs::path(file.temporary_path()).parent_path(), folder_);
  EXPECT_EQ(contents(), "old contents") << "nothing replaced before commit";
  file.commit();
  EXPECT_EQ(contents().substr(0, 5), "new x");
  EXPECT_EQ(contents().size(), 4u + (3u << 20));
  EXPECT_EQ(names(), std::vector<std::string>{"out.txt"});
}

TEST_F(AtomicFileTest, AFailureBeforeCommitKeepsTheOldFileAndLeavesNoTemporary) {
  try {
    AtomicFile file(target());
    file.write("half a file");
    throw std::runtime_error("the computation failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(contents(), "old contents");
  EXPECT_EQ(names(), std::vector<std::string>{"out.txt"});
}

TEST_F(AtomicFileTest, RefuseKeepsAnExistingFile) {
  EXPECT_THROW(AtomicFile(target(), Overwrite::refuse), edgewise::Error);
  // A file that appears while the output is written is kept as well.
  const std::string later = (folder_ / "later.txt").string();
  AtomicFile file(later, Overwrite::refuse);
  file.write("mine");
  std::ofstream(later) << "theirs";
  try {
    file.commit();
    ADD_FAILURE() << "commit replaced a file that appeared meanwhile";
  } catch (const edgewise::Error& e) {
    EXPECT_NE(std::string(e.what()).find("pass --force"), std::string::npos) << e.what();
  }
  std::ostringstream text;
  text << std::ifstream(later).rdbuf();
  EXPECT_EQ(text.str(), "theirs");
  EXPECT_EQ(names().size(), 2u) << "no temporary file left";
}

TEST_F(AtomicFileTest, AMissingFolderIsNamed) {
  const std::string path = (folder_ / "no" / "such" / "out.txt").string();
  try {
    edgewise::write_file_atomically(path, "x");
    ADD_FAILURE() << "no error";
  } catch (const edgewise::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

// A process interrupted while writing (Ctrl-C, kill) removes its temporary file and keeps the old one.
TEST_F(AtomicFileTest, AnInterruptedWriteLeavesTheOldFileAndNoTemporary) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    edgewise::remove_temporary_files_on_signal();
    AtomicFile file(target(), Overwrite::allow);
    file.write(std::string(3 << 20, 'x'));
    std::raise(SIGTERM);
    ::_exit(0);  // not reached: SIGTERM ends the process
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the signal still ends the process";
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(contents(), "old contents");
  EXPECT_EQ(names(), std::vector<std::string>{"out.txt"});
}

TEST_F(AtomicFileTest, ReadFileGivesTheBytesOrNamesTheFile) {
  EXPECT_EQ(edgewise::read_file(target()), "old contents");
  try {
    edgewise::read_file((folder_ / "missing.txt").string());
    FAIL() << "expected edgewise::Error";
  } catch (const edgewise::Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.txt: cannot open for reading: No such file"), std::string::npos)
        << e.what();
  }
}

}  // namespace

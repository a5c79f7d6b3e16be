// The safe file layer: files named by a model stay inside its folder (no symlink, hard link, '..', absolute path),
// only regular files are read, and a FIFO never blocks the reader.
#include "core/safe_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/mapped_file.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;

class SafeFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("onyx_safe_file_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "model" / "sub");
    fs::create_directories(root_ / "outside");
    Write(root_ / "model" / "weights.bin", "0123456789");
    Write(root_ / "model" / "sub" / "nested.bin", "abc");
    Write(root_ / "outside" / "secret.bin", "secret");
  }
  void TearDown() override { fs::remove_all(root_); }

  static void Write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
  std::string Model() const { return (root_ / "model").string(); }

  static void ExpectRefused(const Result<ReadOnlyFile>& r, const std::string& fragment) {
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().message();
  }

  fs::path root_;
};

TEST_F(SafeFileTest, ReadsFilesInsideTheFolder) {
  auto f = ReadOnlyFile::OpenInside(Model(), "weights.bin", "external data");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->size(), 10u);
  auto all = f->ReadAll();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, "0123456789");
  char buf[3];
  ASSERT_TRUE(f->ReadAt(7, 3, buf).ok());
  EXPECT_EQ(std::string(buf, 3), "789");
  EXPECT_FALSE(f->ReadAt(8, 3, buf).ok());  // past the end: an error, not a short read

  auto nested = ReadOnlyFile::OpenInside(Model(), "./sub/nested.bin", "external data");
  ASSERT_TRUE(nested.ok()) << nested.status().message();
  auto mapped = MappedFile::Map(*nested);
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ(std::string((*mapped)->data(), (*mapped)->size()), "abc");
}

TEST_F(SafeFileTest, RefusesPathsLeavingTheFolder) {
  ExpectRefused(ReadOnlyFile::OpenInside(Model(), "/etc/passwd", "external data"), "absolute path");
  ExpectRefused(ReadOnlyFile::OpenInside(Model(), "../outside/secret.bin", "external data"),
                "leaves the model's folder");
  ExpectRefused(ReadOnlyFile::OpenInside(Model(), "sub/../../outside/secret.bin", "external data"), "'..'");
  ExpectRefused(ReadOnlyFile::OpenInside(Model(), "", "external data"), "empty");
}

TEST_F(SafeFileTest, RefusesSymlinksAtAnyComponent) {
  fs::create_symlink(root_ / "outside" / "secret.bin", root_ / "model" / "link.bin");
  ExpectRefused(ReadOnlyFile::OpenInside(Model(), "link.bin", "external data"), "symlink");
  fs::create_directory_symlink(root_ / "outside", root_ / "model" / "linkdir");
  ExpectRefused(ReadOnlyFile::OpenInside(Model(), "linkdir/secret.bin", "external data"), "symlink");
  // Even a link that stays inside: what it points at can change between a check and a read.
  fs::create_symlink("weights.bin", root_ / "model" / "inner.bin");
  ExpectRefused(ReadOnlyFile::OpenInside(Model(), "inner.bin", "external data"), "symlink");
}

TEST_F(SafeFileTest, RefusesHardLinks) {
  fs::create_hard_link(root_ / "outside" / "secret.bin", root_ / "model" / "hard.bin");
  ExpectRefused(ReadOnlyFile::OpenInside(Model(), "hard.bin", "external data"), "hard links");
}

TEST_F(SafeFileTest, RefusesFifosFoldersAndDevicesWithoutBlocking) {
  ASSERT_EQ(::mkfifo((root_ / "model" / "fifo.bin").c_str(), 0600), 0);
  ExpectRefused(ReadOnlyFile::OpenInside(Model(), "fifo.bin", "external data"), "FIFO");
  ExpectRefused(ReadOnlyFile::Open((root_ / "model" / "fifo.bin").string()), "FIFO");
  ExpectRefused(ReadOnlyFile::OpenInside(Model(), "sub", "external data"), "folder");
  ExpectRefused(ReadOnlyFile::Open(Model()), "folder");
  ExpectRefused(ReadOnlyFile::Open("/dev/zero"), "device");
  auto text = ReadFileToString(Model());
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("folder"), std::string::npos);
}

}  // namespace
}  // namespace onyx

// Opening files named by untrusted input (a model's external-data locations, a TF.js manifest's shard paths, a
// SavedModel's variables) without the classic holes: a FIFO or device named as data (the open would block, or read
// for ever), a symlink or hard link that leads outside the model's folder, a folder swapped for a symlink between a
// check and the open (the path is walked with openat, one component at a time, O_NOFOLLOW), files too large to read.
// Every reader of files named by a file goes through here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace onyx {

// Sizes above this are refused before anything is allocated (override: ONYX_MAX_FILE_BYTES in the environment).
uint64_t MaxReadFileBytes();

// A read-only, regular file (RAII over the descriptor). Move-only.
class ReadOnlyFile {
 public:
  // Opens `path` (symlinks in it are followed: the user named it). Refuses anything but a regular file, without
  // blocking on FIFOs.
  static Result<ReadOnlyFile> Open(const std::string& path);
  // Opens `relative` inside the folder `base_dir`: refuses absolute paths, "..", a symlink at any component, a file
  // with more than one hard link, and anything but a regular file. The check and the open are one operation (openat
  // from the folder's descriptor), so nothing can be swapped in between. `what` names the file in errors
  // ("external data", "weight shard").
  static Result<ReadOnlyFile> OpenInside(const std::string& base_dir, const std::string& relative,
                                         const std::string& what);

  ReadOnlyFile(ReadOnlyFile&& other) noexcept;
  ReadOnlyFile& operator=(ReadOnlyFile&& other) noexcept;
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  ~ReadOnlyFile();

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // The whole file (refused above MaxReadFileBytes()).
  Result<std::string> ReadAll() const;
  // `n` bytes at `offset`; an error if the file is shorter.
  Status ReadAt(uint64_t offset, size_t n, char* out) const;

 private:
  ReadOnlyFile(int fd, uint64_t size, std::string path) : fd_(fd), size_(size), path_(std::move(path)) {}
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_;
};

}  // namespace onyx

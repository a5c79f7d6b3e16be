// Writing a file so that readers never see half of it and nothing outside the chosen folder is touched: the bytes go
// to a fresh temporary file in the destination folder (O_EXCL, O_NOFOLLOW: never through a planted symlink), and
// Commit() renames it over the destination in one step. Renaming also keeps a file that is memory-mapped (a model's
// own external data being rewritten) intact for whoever maps it: the old inode lives until it is unmapped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace onyx {

// Whether `name` may name a file written beside a model: one plain component (no '/', not "." or "..", no NUL).
bool IsPlainFileName(std::string_view name);

class AtomicFileWriter {
 public:
  // Starts writing `dir`/`name` (`name` must be a plain file name; `what` names the file in errors, e.g. "external
  // data"). Nothing appears under `name` until Commit().
  static Result<AtomicFileWriter> Create(const std::string& dir, const std::string& name, const std::string& what);

  AtomicFileWriter(AtomicFileWriter&& other) noexcept;
  AtomicFileWriter& operator=(AtomicFileWriter&& other) noexcept;
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();  // removes the temporary file unless committed

  // Writes `n` bytes at `offset` (gaps read as zeros).
  Status WriteAt(uint64_t offset, const void* data, size_t n);
  Status Append(std::string_view bytes);
  // Renames the temporary file to its name; afterwards the writer is empty.
  Status Commit();

  const std::string& path() const { return path_; }  // the final path

 private:
  AtomicFileWriter() = default;
  void Discard();
  int dir_fd_ = -1;
  int fd_ = -1;
  std::string temp_name_;
  std::string name_;
  std::string path_;
  std::string what_;
  uint64_t end_ = 0;  // Append's offset
};

}  // namespace onyx

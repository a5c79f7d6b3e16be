// A read-only memory map of a whole file (RAII). Tensors borrow from it for external data.
#pragma once

#include <memory>
#include <string>

#include "core/safe_file.h"
#include "core/status.h"

namespace onyx {

class MappedFile {
 public:
  // A file the user named (ReadOnlyFile::Open's rules: regular files only, size limit).
  static Result<std::shared_ptr<MappedFile>> Open(const std::string& path);
  // A file opened through the safe layer (ReadOnlyFile::OpenInside for files named by a model).
  static Result<std::shared_ptr<MappedFile>> Map(const ReadOnlyFile& file);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return static_cast<const char*>(data_); }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  MappedFile() = default;
  void* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
};

// Reads a whole file into a string (ReadOnlyFile::Open's rules); error naming the file.
Result<std::string> ReadFileToString(const std::string& path);
Status WriteStringToFile(const std::string& path, std::string_view data);

}  // namespace onyx

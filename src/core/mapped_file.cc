#include "core/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace onyx {

Result<std::shared_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  ONYX_ASSIGN_OR_RETURN(ReadOnlyFile file, ReadOnlyFile::Open(path));
  return Map(file);
}

Result<std::shared_ptr<MappedFile>> MappedFile::Map(const ReadOnlyFile& file) {
  std::shared_ptr<MappedFile> m(new MappedFile());
  m->path_ = file.path();
  m->size_ = static_cast<size_t>(file.size());
  if (m->size_ > 0) {
    void* p = ::mmap(nullptr, m->size_, PROT_READ, MAP_PRIVATE, file.fd(), 0);
    if (p == MAP_FAILED) return IoError("cannot map '" + file.path() + "': " + std::strerror(errno));
    m->data_ = p;
  }
  return m;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

Result<std::string> ReadFileToString(const std::string& path) {
  ONYX_ASSIGN_OR_RETURN(ReadOnlyFile file, ReadOnlyFile::Open(path));
  return file.ReadAll();
}

Status WriteStringToFile(const std::string& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return IoError("cannot write '" + path + "': " + std::strerror(errno));
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) return IoError("cannot write '" + path + "'");
  return Status::Ok();
}

}  // namespace onyx

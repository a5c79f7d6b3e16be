#include "core/safe_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

namespace onyx {

bool IsPlainFileName(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

Result<AtomicFileWriter> AtomicFileWriter::Create(const std::string& dir, const std::string& name,
                                                  const std::string& what) {
  if (!IsPlainFileName(name)) {
    return InvalidArgument(what + " '" + name + "' must be a plain file name beside the model (no folders, no '..')");
  }
  AtomicFileWriter w;
  w.name_ = name;
  w.what_ = what;
  w.path_ = (dir.empty() ? std::string(".") : dir) + "/" + name;
  w.dir_fd_ = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (w.dir_fd_ < 0) return IoError("cannot open the folder of '" + w.path_ + "': " + std::strerror(errno));
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    w.temp_name_ = "." + name + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    w.fd_ = ::openat(w.dir_fd_, w.temp_name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (w.fd_ >= 0 || errno != EEXIST) break;
  }
  if (w.fd_ < 0) return IoError("cannot create " + what + " '" + w.path_ + "': " + std::strerror(errno));
  return w;
}

AtomicFileWriter::AtomicFileWriter(AtomicFileWriter&& other) noexcept { *this = std::move(other); }

AtomicFileWriter& AtomicFileWriter::operator=(AtomicFileWriter&& other) noexcept {
  if (this != &other) {
    Discard();
    dir_fd_ = std::exchange(other.dir_fd_, -1);
    fd_ = std::exchange(other.fd_, -1);
    temp_name_ = std::move(other.temp_name_);
    name_ = std::move(other.name_);
    path_ = std::move(other.path_);
    what_ = std::move(other.what_);
    end_ = other.end_;
  }
  return *this;
}

AtomicFileWriter::~AtomicFileWriter() { Discard(); }

void AtomicFileWriter::Discard() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
    ::unlinkat(dir_fd_, temp_name_.c_str(), 0);
  }
  if (dir_fd_ >= 0) {
    ::close(dir_fd_);
    dir_fd_ = -1;
  }
}

Status AtomicFileWriter::WriteAt(uint64_t offset, const void* data, size_t n) {
  if (fd_ < 0) return IoError("cannot write " + what_ + " '" + path_ + "': already committed");
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const size_t chunk = n < (size_t{1} << 30) ? n : (size_t{1} << 30);
    const ssize_t w = ::pwrite(fd_, p, chunk, static_cast<off_t>(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      return IoError("cannot write " + what_ + " '" + path_ + "': " + std::strerror(errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  if (offset > end_) end_ = offset;
  return Status::Ok();
}

Status AtomicFileWriter::Append(std::string_view bytes) { return WriteAt(end_, bytes.data(), bytes.size()); }

Status AtomicFileWriter::Commit() {
  if (fd_ < 0) return IoError("cannot write " + what_ + " '" + path_ + "': already committed");
  // A gap at the end (alignment) must still count in the size.
  if (::ftruncate(fd_, static_cast<off_t>(end_)) != 0 || ::close(fd_) != 0) {
    const int err = errno;
    fd_ = -1;
    ::unlinkat(dir_fd_, temp_name_.c_str(), 0);
    return IoError("cannot write " + what_ + " '" + path_ + "': " + std::strerror(err));
  }
  fd_ = -1;
  if (::renameat(dir_fd_, temp_name_.c_str(), dir_fd_, name_.c_str()) != 0) {
    const int err = errno;
    ::unlinkat(dir_fd_, temp_name_.c_str(), 0);
    return IoError("cannot write " + what_ + " '" + path_ + "': " + std::strerror(err));
  }
  return Status::Ok();
}

}  // namespace onyx

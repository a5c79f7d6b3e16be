#include "core/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace onyx {
namespace {

// A descriptor closed on scope exit unless released.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

std::string KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

Status CheckSize(const std::string& path, uint64_t size) {
  if (size > MaxReadFileBytes()) {
    return InvalidArgument("'" + path + "' has " + std::to_string(size) + " bytes, more than the limit of " +
                           std::to_string(MaxReadFileBytes()) + " (raise it with ONYX_MAX_FILE_BYTES)");
  }
  return Status::Ok();
}

}  // namespace

uint64_t MaxReadFileBytes() {
  static const uint64_t limit = [] {
    const char* env = std::getenv("ONYX_MAX_FILE_BYTES");
    if (env != nullptr && *env != '\0') {
      char* end = nullptr;
      const unsigned long long v = std::strtoull(env, &end, 10);
      if (end != nullptr && *end == '\0' && v > 0) return static_cast<uint64_t>(v);
    }
    return uint64_t{64} << 30;  // 64 GiB: above any model this machine class runs, below what a hostile size claims
  }();
  return limit;
}

Result<ReadOnlyFile> ReadOnlyFile::Open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer for ever.
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) return IoError("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return IoError("cannot stat '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return InvalidArgument("'" + path + "' is " + KindOf(st.st_mode) + ", not a file");
  ONYX_RETURN_IF_ERROR(CheckSize(path, static_cast<uint64_t>(st.st_size)));
  return ReadOnlyFile(fd.release(), static_cast<uint64_t>(st.st_size), path);
}

Result<ReadOnlyFile> ReadOnlyFile::OpenInside(const std::string& base_dir, const std::string& relative,
                                              const std::string& what) {
  const std::string quoted = what + " '" + relative + "'";
  if (relative.empty()) return InvalidArgument(what + ": empty path");
  if (relative.find('\0') != std::string::npos) return InvalidArgument(quoted + " contains a NUL byte");
  if (relative[0] == '/' || relative[0] == '\\') {
    return InvalidArgument(quoted + " is an absolute path (only paths inside the model's folder are allowed)");
  }
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string::npos) end = relative.size();
    std::string part = relative.substr(start, end - start);
    if (part == "..") return InvalidArgument(quoted + " leaves the model's folder ('..')");
    if (!part.empty() && part != ".") parts.push_back(std::move(part));
    start = end + 1;
  }
  if (parts.empty()) return InvalidArgument(quoted + " names no file");

  const std::string base = base_dir.empty() ? "." : base_dir;
  Fd dir(::open(base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return IoError("cannot open the folder '" + base + "': " + std::strerror(errno));
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    Fd next(::openat(dir.get(), parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next.get() < 0) {
      if (errno == ELOOP || errno == ENOTDIR) {
        return InvalidArgument(quoted + ": '" + parts[i] +
                               "' is a symlink or not a folder (refused: it could lead "
                               "outside the model's folder)");
      }
      return IoError("cannot open " + quoted + ": " + std::strerror(errno));
    }
    dir.reset(next.release());
  }
  const std::string full = base + "/" + relative;
  Fd fd(::openat(dir.get(), parts.back().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ELOOP)
      return InvalidArgument(quoted + " is a symlink (refused: it could lead outside the model's folder)");
    return IoError("cannot open " + quoted + " in '" + base + "': " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return IoError("cannot stat " + quoted + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return InvalidArgument(quoted + " is " + KindOf(st.st_mode) + ", not a file");
  if (st.st_nlink != 1) {
    return InvalidArgument(quoted + " has " + std::to_string(st.st_nlink) +
                           " hard links (refused: a hard link can reach a file outside the model's folder)");
  }
  ONYX_RETURN_IF_ERROR(CheckSize(full, static_cast<uint64_t>(st.st_size)));
  return ReadOnlyFile(fd.release(), static_cast<uint64_t>(st.st_size), full);
}

ReadOnlyFile::ReadOnlyFile(ReadOnlyFile&& other) noexcept
    : fd_(other.fd_), size_(other.size_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

ReadOnlyFile& ReadOnlyFile::operator=(ReadOnlyFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    size_ = other.size_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

ReadOnlyFile::~ReadOnlyFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status ReadOnlyFile::ReadAt(uint64_t offset, size_t n, char* out) const {
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return IoError("cannot read '" + path_ + "': " + std::strerror(errno));
    }
    if (got == 0) {
      return InvalidArgument("'" + path_ + "' ends after " + std::to_string(offset + done) + " bytes, " +
                             std::to_string(offset + n) + " needed");
    }
    done += static_cast<size_t>(got);
  }
  return Status::Ok();
}

Result<std::string> ReadOnlyFile::ReadAll() const {
  ONYX_RETURN_IF_ERROR(CheckSize(path_, size_));
  std::string data(static_cast<size_t>(size_), '\0');
  ONYX_RETURN_IF_ERROR(ReadAt(0, data.size(), data.data()));
  return data;
}

}  // namespace onyx

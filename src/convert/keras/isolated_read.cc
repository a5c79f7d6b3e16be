#include "convert/keras/isolated_read.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>

#include "core/limits.h"
#include "format/tensor_proto.h"

namespace onyx::convert::keras {
namespace {

// The child's answer: u8 status code, then for an error its message; for a model the format, keras_version, the
// config JSON and the weights (layer count; per layer its name and weight count; per weight its name and a
// serialized TensorProto). Integers are u64 little-endian, strings length-prefixed.
void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void PutString(std::string* out, const std::string& s) {
  PutU64(out, s.size());
  out->append(s);
}

std::string Encode(const Result<KerasModelFile>& r) {
  std::string out;
  out.push_back(static_cast<char>(r.ok() ? StatusCode::kOk : r.status().code()));
  if (!r.ok()) {
    PutString(&out, r.status().message());
    return out;
  }
  PutU64(&out, static_cast<uint64_t>(r->format));
  PutString(&out, r->keras_version);
  PutString(&out, r->model.dump());
  PutU64(&out, r->weights.size());
  for (const auto& [layer, ws] : r->weights) {
    PutString(&out, layer);
    PutU64(&out, ws.size());
    for (const auto& w : ws) {
      PutString(&out, w.name);
      pb::TensorProto proto;
      format::TensorToProto(w.tensor, &proto);
      std::string bytes;
      proto.SerializeToString(&bytes);
      PutString(&out, bytes);
    }
  }
  return out;
}

// Reads the answer back; every length is checked against the bytes received.
class Reader {
 public:
  explicit Reader(const std::string& data) : data_(data) {}
  bool U64(uint64_t* v) {
    if (data_.size() - pos_ < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; ++i) *v |= static_cast<uint64_t>(static_cast<unsigned char>(data_[pos_ + i])) << (8 * i);
    pos_ += 8;
    return true;
  }
  bool String(std::string* s) {
    uint64_t n = 0;
    if (!U64(&n) || data_.size() - pos_ < n) return false;
    s->assign(data_, pos_, n);
    pos_ += n;
    return true;
  }
  bool Byte(unsigned char* b) {
    if (pos_ >= data_.size()) return false;
    *b = static_cast<unsigned char>(data_[pos_++]);
    return true;
  }
  bool AtEnd() const { return pos_ == data_.size(); }

 private:
  const std::string& data_;
  size_t pos_ = 0;
};

Result<KerasModelFile> Decode(const std::string& data, const std::string& path) {
  const Status garbled = Internal(path + ": the HDF5 reader's answer is garbled");
  Reader in(data);
  unsigned char code = 0;
  if (!in.Byte(&code)) return garbled;
  if (code != static_cast<unsigned char>(StatusCode::kOk)) {
    std::string message;
    if (code > static_cast<unsigned char>(StatusCode::kFailedCheck) || !in.String(&message)) return garbled;
    return Status(static_cast<StatusCode>(code), message);
  }
  KerasModelFile out;
  out.path = path;
  uint64_t format = 0, layers = 0;
  std::string config;
  if (!in.U64(&format) || format > static_cast<uint64_t>(SourceFormat::kTfjs) || !in.String(&out.keras_version) ||
      !in.String(&config) || !in.U64(&layers)) {
    return garbled;
  }
  out.format = static_cast<SourceFormat>(format);
  out.model = nlohmann::json::parse(config, nullptr, /*allow_exceptions=*/false);
  if (out.model.is_discarded()) return garbled;
  for (uint64_t l = 0; l < layers; ++l) {
    std::string layer;
    uint64_t count = 0;
    if (!in.String(&layer) || !in.U64(&count)) return garbled;
    auto& ws = out.weights[layer];
    for (uint64_t k = 0; k < count; ++k) {
      Weight w;
      std::string bytes;
      pb::TensorProto proto;
      if (!in.String(&w.name) || !in.String(&bytes) || !proto.ParseFromString(bytes)) return garbled;
      ONYX_ASSIGN_OR_RETURN(w.tensor, format::TensorFromProto(proto, nullptr));
      ws.push_back(std::move(w));
    }
  }
  if (!in.AtEnd()) return garbled;
  return out;
}

bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

[[noreturn]] void RunChild(int fd, const std::string& path, KerasReader reader) {
  // The library may print on its way down (glibc's heap checks do): only the parent's one-line error is shown.
  const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) dup2(null, STDERR_FILENO);
  std::string answer;
  try {
    answer = Encode(reader(path));
  } catch (const std::bad_alloc&) {
    answer = Encode(Result<KerasModelFile>(InvalidArgument(path + ": out of memory while reading the model")));
  } catch (...) {
    _exit(3);  // no exception may unwind into the parent's copy of the stack
  }
  _exit(WriteAll(fd, answer) ? 0 : 4);
}

// Whether this process runs one thread (the entries of /proc/self/task). fork() is only safe then: a lock another
// thread holds at the fork (malloc's, HDF5's) would stay held in the child for ever.
bool SingleThreaded() {
  std::error_code ec;
  size_t threads = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++threads;
  }
  return !ec && threads == 1;
}

// How long the HDF5 reader child may take (ONYX_MAX_HDF5_READ_SECONDS, default 600: reading a multi-gigabyte
// model takes seconds; a corrupt file can loop for ever).
int64_t MaxHdf5ReadSeconds() { return EnvLimit("ONYX_MAX_HDF5_READ_SECONDS", 600); }

}  // namespace

Result<KerasModelFile> ReadInChildProcess(const std::string& path, KerasReader reader) {
  const char* in_process = std::getenv("ONYX_HDF5_IN_PROCESS");
  if (in_process != nullptr && std::strcmp(in_process, "1") == 0) return reader(path);
  // In a multithreaded process (Python, onyx serve) the read stays in this process: safe, though not shielded from
  // libhdf5's own crashes on corrupt files.
  if (!SingleThreaded()) return reader(path);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return IoError(path + ": cannot create a pipe: " + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return IoError(path + ": cannot fork the HDF5 reader: " + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    RunChild(fds[1], path, reader);
  }
  close(fds[1]);
  // A corrupt file can also send libhdf5 into an endless loop: the child gets a deadline, then is killed.
  const int64_t limit_s = MaxHdf5ReadSeconds();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
  std::string answer;
  char buf[1 << 16];
  bool timed_out = false;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), INT32_MAX)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // the deadline check above ends the wait
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return InvalidArgument(path + ": corrupt HDF5 data (reading it took longer than " + std::to_string(limit_s) +
                           " s; raise the limit with ONYX_MAX_HDF5_READ_SECONDS)");
  }
  if (WIFSIGNALED(status)) {
    return InvalidArgument(
        path + ": corrupt HDF5 data (the HDF5 library failed reading it: " + strsignal(WTERMSIG(status)) + ")");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return InvalidArgument(path + ": corrupt HDF5 data (the HDF5 reader ended with status " +
                           std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  }
  return Decode(answer, path);
}

}  // namespace onyx::convert::keras

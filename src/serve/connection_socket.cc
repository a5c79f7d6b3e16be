#include "serve/connection_socket.h"

#include <dirent.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace onyx::serve {
namespace {

// Whether one end of a socket (getsockname/getpeername's address) is `host`:`port`, the host written as httplib
// writes it (getnameinfo, numeric).
bool EndIs(const sockaddr_storage& addr, socklen_t length, const std::string& host, int port) {
  int actual_port = -1;
  if (addr.ss_family == AF_INET) {
    actual_port = ntohs(reinterpret_cast<const sockaddr_in&>(addr).sin_port);
  } else if (addr.ss_family == AF_INET6) {
    actual_port = ntohs(reinterpret_cast<const sockaddr_in6&>(addr).sin6_port);
  } else {
    return false;
  }
  if (actual_port != port) return false;
  char name[NI_MAXHOST];
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&addr), length, name, sizeof name, nullptr, 0, NI_NUMERICHOST) !=
      0) {
    return false;
  }
  return host == name;
}

bool IsConnectionOf(int fd, const httplib::Request& req) {
  sockaddr_storage addr{};
  socklen_t length = sizeof addr;
  // The ports first: the cheap test rules out every other connection.
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0 ||
      !EndIs(addr, length, req.remote_addr, req.remote_port)) {
    return false;
  }
  length = sizeof addr;
  return getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) == 0 &&
         EndIs(addr, length, req.local_addr, req.local_port);
}

}  // namespace

std::optional<int> ConnectionSocket(const httplib::Request& req) {
  if (req.remote_port < 0 || req.local_port < 0) return std::nullopt;
  // One connection is served by one thread at a time, for many requests (keep-alive): remember it per thread.
  thread_local int last = -1;
  if (last >= 0 && IsConnectionOf(last, req)) return last;
  last = -1;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return std::nullopt;
  while (const dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == dirfd(dir)) continue;
    struct stat st {};
    if (fstat(static_cast<int>(fd), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    if (IsConnectionOf(static_cast<int>(fd), req)) {
      last = static_cast<int>(fd);
      break;
    }
  }
  closedir(dir);
  if (last < 0) return std::nullopt;
  return last;
}

SocketRead ReadSocket(int socket, char* buffer, size_t size, std::chrono::steady_clock::time_point deadline) {
  size_t got = 0;
  while (got < size) {
    const ssize_t n = recv(socket, buffer + got, size - got, MSG_DONTWAIT);
    if (n > 0) {
      got += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) return SocketRead::kClosed;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return SocketRead::kClosed;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return SocketRead::kTimedOut;
    pollfd p{socket, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 60'000)));
    if (ready < 0 && errno != EINTR) return SocketRead::kClosed;
  }
  return SocketRead::kComplete;
}

bool WaitAwakeForNextRequest(int socket, std::chrono::microseconds spin, const std::function<bool()>& keep_going) {
  const auto until = std::chrono::steady_clock::now() + spin;
  do {
    char byte;
    const ssize_t n = recv(socket, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n >= 0) return true;  // a byte, or the peer closed: httplib's own poll sees either at once
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return true;
  } while (keep_going() && std::chrono::steady_clock::now() < until);
  return false;
}

}  // namespace onyx::serve

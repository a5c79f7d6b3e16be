// The socket of the HTTP connection a request arrived on, so that a large request body is read in large pieces.
//
// Why: Debian's cpp-httplib (0.11) hands a body to a content reader in 4 KB pieces, each after a poll() of its
// own: a 196 KB image costs ~100 system calls, a fifth of what serving adds to a run at concurrency 1. httplib does
// not expose the socket, but a request carries its connection's local and remote address and port, and among the
// process's open sockets exactly one connection has those two ends (TCP allows no two open connections with the
// same four). The socket found is checked against the request's ends at every use, so a closed and reused
// descriptor is never read by mistake.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>

namespace onyx::serve {

// The descriptor of the plain TCP connection `req` arrived on; nullopt when none of the process's sockets has its
// two ends (e.g. a Unix socket, or an address httplib wrote differently).
std::optional<int> ConnectionSocket(const httplib::Request& req);

enum class SocketRead { kComplete, kTimedOut, kClosed };

// Reads exactly `size` bytes of `socket` into `buffer` before `deadline`, as many as the kernel has per recv() and a
// poll() only when it has none; never more than `size` (a pipelined next request stays unread).
SocketRead ReadSocket(int socket, char* buffer, size_t size, std::chrono::steady_clock::time_point deadline);

// Polls `socket` without sleeping until it has bytes to read, is closed or fails, `spin` has passed, or
// `keep_going` returns false; reads nothing. False when it gave up (spin over, or keep_going said stop): the caller
// then sleeps in poll() as before; true when the socket needs attention at once.
bool WaitAwakeForNextRequest(int socket, std::chrono::microseconds spin, const std::function<bool()>& keep_going);

}  // namespace onyx::serve

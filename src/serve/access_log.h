// The structured access log of `onyx serve` (--access-log FILE|-): one JSON object a line per request, written
// whole under a lock so concurrent requests never interleave:
//   {"time": "2024-05-01T12:00:00.123Z", "request_id": "...", "remote": "127.0.0.1", "method": "POST",
//    "path": "/v2/models/m/infer", "status": 200, "bytes_in": 1234, "bytes_out": 567, "duration_ms": 1.9}
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "core/status.h"

namespace onyx::serve {

struct AccessRecord {
  std::string request_id, remote, method, path;
  int status = 0;
  size_t bytes_in = 0, bytes_out = 0;
  double duration_ms = 0;
};

class AccessLog {
 public:
  // "-": standard output; else the file, appended to.
  static Result<std::unique_ptr<AccessLog>> Open(const std::string& target);
  ~AccessLog();
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;

  void Write(const AccessRecord& record);

 private:
  AccessLog(std::FILE* file, bool owned) : file_(file), owned_(owned) {}
  std::mutex mutex_;
  std::FILE* file_;
  bool owned_;
};

}  // namespace onyx::serve

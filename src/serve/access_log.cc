#include "serve/access_log.h"

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>

namespace onyx::serve {
namespace {

// UTC, millisecond resolution, ISO 8601.
std::string Now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

Result<std::unique_ptr<AccessLog>> AccessLog::Open(const std::string& target) {
  if (target == "-") return std::unique_ptr<AccessLog>(new AccessLog(stdout, false));
  std::FILE* f = std::fopen(target.c_str(), "a");
  if (f == nullptr) return IoError("cannot open the access log " + target);
  return std::unique_ptr<AccessLog>(new AccessLog(f, true));
}

AccessLog::~AccessLog() {
  if (owned_) std::fclose(file_);
}

void AccessLog::Write(const AccessRecord& r) {
  const nlohmann::json line = {{"time", Now()},
                               {"request_id", r.request_id},
                               {"remote", r.remote},
                               {"method", r.method},
                               {"path", r.path},
                               {"status", r.status},
                               {"bytes_in", r.bytes_in},
                               {"bytes_out", r.bytes_out},
                               {"duration_ms", r.duration_ms}};
  const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  std::fwrite(text.data(), 1, text.size(), file_);
  std::fflush(file_);
}

}  // namespace onyx::serve

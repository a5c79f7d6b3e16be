#include "serve/http_util.h"

#include <cstring>

namespace onyx::serve {

void SendJson(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json");
}

void SendError(httplib::Response& res, int status, const std::string& message) {
  SendJson(res, status, {{"error", message}});
}

int HttpStatusOf(const Status& st) {
  switch (st.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:  // from Session::Run: a feed or output the model lacks
    case StatusCode::kUnsupported:
      return 400;
    default:
      return 500;
  }
}

namespace {

// Reads the body through `read` into `sink` (false from it: more bytes than announced), with ReadBody's errors.
template <typename Sink>
bool ReadBodyWith(const httplib::ContentReader& read, std::chrono::seconds timeout, httplib::Response& res, Sink sink) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool too_slow = false, too_long = false;
  const bool ok = read([&](const char* data, size_t length) {
    if (!sink(data, length)) {
      too_long = true;
      return false;
    }
    if (std::chrono::steady_clock::now() > deadline) too_slow = true;
    return !too_slow;
  });
  if (ok && !too_slow && !too_long) return true;
  // The rest of the body is unread: the connection cannot carry another request.
  res.set_header("Connection", "close");
  if (too_slow) {
    SendError(res, 408, "the request body took longer than " + std::to_string(timeout.count()) + " s to arrive");
  } else if (res.status == 413) {
    SendError(res, 413, "the request body is larger than the server's limit (--max-request-mb)");
  } else {
    SendError(res, 400, "the request body could not be read (cut short, or a Content-Length it does not match)");
  }
  return false;
}

}  // namespace

bool ReadBody(const httplib::ContentReader& read, std::chrono::seconds timeout, httplib::Response& res,
              std::string* body) {
  return ReadBodyWith(read, timeout, res, [&](const char* data, size_t length) {
    body->append(data, length);
    return true;
  });
}

bool ReadBodyInto(const httplib::ContentReader& read, std::chrono::seconds timeout, httplib::Response& res,
                  char* buffer, size_t capacity, size_t* size) {
  *size = 0;
  if (!ReadBodyWith(read, timeout, res, [&](const char* data, size_t length) {
        if (length > capacity - *size) return false;
        std::memcpy(buffer + *size, data, length);
        *size += length;
        return true;
      })) {
    return false;
  }
  if (*size == capacity) return true;
  res.set_header("Connection", "close");
  SendError(res, 400, "the request body could not be read (cut short, or a Content-Length it does not match)");
  return false;
}

}  // namespace onyx::serve

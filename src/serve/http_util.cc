#include "serve/http_util.h"

#include <cstring>

#include "serve/connection_socket.h"

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

enum class BodyError { kNone, kTooSlow, kTooLong, kUnreadable };

// The answer for a body that could not be read. The rest of it is unread: the connection cannot carry another
// request.
bool FailBody(BodyError error, std::chrono::seconds timeout, httplib::Response& res) {
  res.set_header("Connection", "close");
  if (error == BodyError::kTooSlow) {
    SendError(res, 408, "the request body took longer than " + std::to_string(timeout.count()) + " s to arrive");
  } else if (error == BodyError::kTooLong && res.status == 413) {
    SendError(res, 413, "the request body is larger than the server's limit (--max-request-mb)");
  } else {
    SendError(res, 400, "the request body could not be read (cut short, or a Content-Length it does not match)");
  }
  return false;
}

// Reads the body through `read` into `sink` (false from it: more bytes than announced) until `sink` says to stop
// (`stop` set true by it: not an error).
template <typename Sink>
BodyError ReadBodyWith(const httplib::ContentReader& read, std::chrono::steady_clock::time_point deadline,
                       httplib::Response& res, Sink sink, const bool* stop = nullptr) {
  BodyError error = BodyError::kNone;
  const bool ok = read([&](const char* data, size_t length) {
    if (!sink(data, length)) {
      error = BodyError::kTooLong;
      return false;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      error = BodyError::kTooSlow;
      return false;
    }
    return stop == nullptr || !*stop;
  });
  if (error != BodyError::kNone) return error;
  if (stop != nullptr && *stop) return BodyError::kNone;
  // httplib's own limit (--max-request-mb) answers 413 before our sink sees a byte.
  if (!ok) return res.status == 413 ? BodyError::kTooLong : BodyError::kUnreadable;
  return BodyError::kNone;
}

}  // namespace

bool ReadBody(const httplib::ContentReader& read, std::chrono::seconds timeout, httplib::Response& res,
              std::string* body) {
  const BodyError error =
      ReadBodyWith(read, std::chrono::steady_clock::now() + timeout, res, [&](const char* data, size_t length) {
        body->append(data, length);
        return true;
      });
  return error == BodyError::kNone || FailBody(error, timeout, res);
}

bool ReadBodyInto(const httplib::ContentReader& read, std::chrono::seconds timeout, httplib::Response& res,
                  char* buffer, size_t capacity, size_t* size, std::optional<int> socket) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  *size = 0;
  // httplib's first piece is what it read with the headers; after it, its buffer holds nothing of this body (it
  // reads a piece of 4 KB straight into the caller's buffer), so the rest can come from the socket directly.
  bool direct = false;
  const BodyError error = ReadBodyWith(
      read, deadline, res,
      [&](const char* data, size_t length) {
        if (length > capacity - *size) return false;
        std::memcpy(buffer + *size, data, length);
        *size += length;
        direct = socket.has_value() && *size < capacity;
        return true;
      },
      &direct);
  if (error != BodyError::kNone) return FailBody(error, timeout, res);
  if (direct) {
    switch (ReadSocket(*socket, buffer + *size, capacity - *size, deadline)) {
      case SocketRead::kComplete:
        *size = capacity;
        res.status = -1;  // httplib marked the read it did not finish as failed (400)
        return true;
      case SocketRead::kTimedOut:
        return FailBody(BodyError::kTooSlow, timeout, res);
      case SocketRead::kClosed:
        return FailBody(BodyError::kUnreadable, timeout, res);
    }
  }
  if (*size == capacity) return true;
  return FailBody(BodyError::kUnreadable, timeout, res);
}

}  // namespace onyx::serve

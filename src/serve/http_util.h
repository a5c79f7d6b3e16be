// Helpers the HTTP routes of `onyx serve` share: JSON answers, {"error"} answers, reading a body within limits.
#pragma once

#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/status.h"

namespace onyx::serve {

void SendJson(httplib::Response& res, int status, const nlohmann::json& body);
void SendError(httplib::Response& res, int status, const std::string& message);
// The HTTP status of a failed inference Status: the request's fault (bad input, a name the model lacks) 400, the
// rest 500.
int HttpStatusOf(const Status& st);

// Reads the whole body through `read`, giving up (false, with an error answer in `res`: 408, 413 or 400) when it
// takes longer than `timeout` in all or the client breaks off. httplib enforces the size limit and sets 413.
bool ReadBody(const httplib::ContentReader& read, std::chrono::seconds timeout, httplib::Response& res,
              std::string* body);
// The same into `buffer`, whose `capacity` is the announced Content-Length: a body of another size is a 400.
// With `socket` (the request's connection, see connection_socket.h; only for a body httplib would pass on as it
// comes: no TLS, no Content-Encoding, no chunks), what httplib has not buffered yet is read from it directly.
bool ReadBodyInto(const httplib::ContentReader& read, std::chrono::seconds timeout, httplib::Response& res,
                  char* buffer, size_t capacity, size_t* size, std::optional<int> socket = std::nullopt);

}  // namespace onyx::serve

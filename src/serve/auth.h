// Optional bearer-token authentication of `onyx serve` (--auth-token-file): every route but /v2/health/* needs
// "Authorization: Bearer <token>". The comparison takes the same time wherever the tokens differ, so that response
// times do not reveal a token's prefix.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace onyx::serve {

// The token in `path`: its first line, surrounding whitespace removed; an empty token is an error.
Result<std::string> ReadTokenFile(const std::string& path);

// Whether `a` equals `b`, in time that depends on their lengths only.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// Whether an Authorization header value carries `token` ("Bearer <token>", scheme case-insensitive).
bool BearerTokenMatches(std::string_view authorization, std::string_view token);

}  // namespace onyx::serve

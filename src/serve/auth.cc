#include "serve/auth.h"

#include <fstream>

namespace onyx::serve {

Result<std::string> ReadTokenFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return IoError("cannot read the token file " + path);
  std::string token;
  std::getline(in, token);
  const auto first = token.find_first_not_of(" \t\r\n");
  const auto last = token.find_last_not_of(" \t\r\n");
  if (first == std::string::npos) return InvalidArgument("the token file " + path + " is empty");
  return token.substr(first, last - first + 1);
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // Every byte of `a` is compared (against b's byte, or against itself when b is shorter) and the differences are
  // OR-ed: no early exit. The volatile accumulator keeps the compiler from adding one.
  volatile unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    const unsigned char other = i < b.size() ? static_cast<unsigned char>(b[i]) : static_cast<unsigned char>(~a[i]);
    diff = diff | (static_cast<unsigned char>(a[i]) ^ other);
  }
  return diff == 0;
}

bool BearerTokenMatches(std::string_view authorization, std::string_view token) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() < kScheme.size()) return false;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    const char c = authorization[i];
    if ((c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != kScheme[i]) return false;
  }
  std::string_view given = authorization.substr(kScheme.size());
  while (!given.empty() && given.front() == ' ') given.remove_prefix(1);
  // Compared over the server's token length: the time depends on it, never on the client's guess.
  return ConstantTimeEquals(token, given);
}

}  // namespace onyx::serve

#include "visualize/dot_text.h"

#include <cstdint>

#include "core/utf8.h"

namespace onyx::visualize {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::string SanitizeUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    char32_t cp;
    size_t len = DecodeUtf8(s, i, &cp);
    if (len == 0) {
      out += kReplacement;
      ++i;
    } else if (len == 1) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      out += (c < 0x20 || c == 0x7F) ? ' ' : s[i];
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::string Truncate(std::string_view s, size_t max_chars) {
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<uint8_t>(s[i]) & 0xC0) == 0x80) continue;  // continuation byte
    if (chars == max_chars) return std::string(s.substr(0, i)) + "…";
    ++chars;
  }
  return std::string(s);
}

std::string HtmlText(std::string_view s, size_t max_chars) {
  std::string clean = Truncate(SanitizeUtf8(s), max_chars);
  std::string out;
  out.reserve(clean.size());
  for (char c : clean) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Quoted(std::string_view s) {
  std::string out = "\"";
  size_t start = 0;
  while (true) {
    size_t end = s.find('\n', start);
    for (char c : SanitizeUtf8(s.substr(start, end == std::string_view::npos ? end : end - start))) {
      if (c == '\\' || c == '"') out += '\\';
      out += c;
    }
    if (end == std::string_view::npos) break;
    out += "\\n";
    start = end + 1;
  }
  out += '"';
  return out;
}

}  // namespace onyx::visualize

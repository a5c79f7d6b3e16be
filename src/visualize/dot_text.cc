#include "visualize/dot_text.h"

#include <cstdint>

namespace onyx::visualize {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence starting at s[i] (overlongs, surrogates and values past U+10FFFF
// count as malformed), or 0.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t b0 = byte(i);
  if (b0 < 0x80) return 1;
  size_t len = 0;
  uint32_t cp = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    cp = b0 & 0x0F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    uint8_t b = byte(i + k);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return len;
}

}  // namespace

std::string SanitizeUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t len = Utf8SequenceLength(s, i);
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

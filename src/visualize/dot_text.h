// Text that goes into DOT: escaping for Graphviz's HTML-like labels and double-quoted strings, and the
// clean-up that model strings need first (names come from arbitrary files: invalid UTF-8, control characters).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace onyx::visualize {

// Valid UTF-8 without control characters: invalid bytes become U+FFFD, controls become spaces. Graphviz feeds
// HTML-like labels to an XML parser and writes SVG as XML, and both reject such bytes.
std::string SanitizeUtf8(std::string_view s);

// At most `max_chars` code points of (valid UTF-8) `s`, the cut marked with "…".
std::string Truncate(std::string_view s, size_t max_chars);

// Sanitized, truncated and escaped for the inside of an HTML-like label (&, <, >, ").
std::string HtmlText(std::string_view s, size_t max_chars = 48);

// A DOT double-quoted string, quotes included: backslashes doubled (Graphviz reads \N, \G, \l... in labels
// and tooltips), quotes escaped, newlines written as \n.
std::string Quoted(std::string_view s);

}  // namespace onyx::visualize

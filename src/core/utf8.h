// UTF-8 decoding and encoding of single code points, shared by the string operators and the text outputs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace onyx {

// Decodes the well-formed UTF-8 sequence at s[i] (i < s.size()) into *cp and returns its length; 0 when malformed:
// a stray continuation byte, a truncated or overlong sequence, a surrogate or a value past U+10FFFF.
size_t DecodeUtf8(std::string_view s, size_t i, char32_t* cp);

// Appends the UTF-8 encoding of `cp` (<= U+10FFFF) to *out.
void EncodeUtf8(char32_t cp, std::string* out);

}  // namespace onyx

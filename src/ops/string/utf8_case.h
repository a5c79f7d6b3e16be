// Locale-independent lower/upper casing of UTF-8 text for StringNormalizer. Simple (one code point to one code
// point) mappings of ASCII, Latin-1 Supplement, Latin Extended-A, basic Greek and basic Cyrillic; every other code
// point, and every byte that is not part of a well-formed UTF-8 sequence, is copied unchanged. Full mappings that
// change the length (German sharp s to "SS") are not applied, as std::towupper does not apply them either.
#pragma once

#include <string>
#include <string_view>

namespace onyx::ops::string_ops {

std::string Utf8ToLower(std::string_view s);
std::string Utf8ToUpper(std::string_view s);

}  // namespace onyx::ops::string_ops

#include "ops/string/utf8_case.h"

#include <cstdint>

#include "core/utf8.h"

namespace onyx::ops::string_ops {
namespace {

bool In(char32_t cp, char32_t lo, char32_t hi) { return cp >= lo && cp <= hi; }

// Latin Extended-A pairs capital and small letters as neighbours; `upper_parity` is the parity of the capitals.
bool IsExtendedAPair(char32_t cp, char32_t lo, char32_t hi, unsigned upper_parity, bool want_upper) {
  return In(cp, lo, hi) && ((cp & 1u) == upper_parity) == want_upper;
}

char32_t ToLower(char32_t cp) {
  if (In(cp, 'A', 'Z')) return cp + 32;
  if (cp < 0x80) return cp;
  if (In(cp, 0xC0, 0xDE) && cp != 0xD7) return cp + 32;
  if (cp == 0x130) return 'i';  // capital I with dot above
  if (cp == 0x178) return 0xFF;  // capital Y with diaeresis
  if (IsExtendedAPair(cp, 0x100, 0x12F, 0, true) || IsExtendedAPair(cp, 0x132, 0x137, 0, true) ||
      IsExtendedAPair(cp, 0x139, 0x148, 1, true) || IsExtendedAPair(cp, 0x14A, 0x177, 0, true) ||
      IsExtendedAPair(cp, 0x179, 0x17E, 1, true)) {
    return cp + 1;
  }
  if (cp == 0x386) return 0x3AC;
  if (In(cp, 0x388, 0x38A)) return cp + 37;
  if (cp == 0x38C) return 0x3CC;
  if (In(cp, 0x38E, 0x38F)) return cp + 63;
  if (In(cp, 0x391, 0x3A9) && cp != 0x3A2) return cp + 32;
  if (In(cp, 0x400, 0x40F)) return cp + 80;
  if (In(cp, 0x410, 0x42F)) return cp + 32;
  return cp;
}

char32_t ToUpper(char32_t cp) {
  if (In(cp, 'a', 'z')) return cp - 32;
  if (cp < 0x80) return cp;
  if (cp == 0xB5) return 0x39C;  // micro sign -> capital mu
  if (In(cp, 0xE0, 0xFE) && cp != 0xF7) return cp - 32;
  if (cp == 0xFF) return 0x178;
  if (cp == 0x131) return 'I';  // dotless i
  if (cp == 0x17F) return 'S';  // long s
  if (IsExtendedAPair(cp, 0x100, 0x12F, 0, false) || IsExtendedAPair(cp, 0x132, 0x137, 0, false) ||
      IsExtendedAPair(cp, 0x139, 0x148, 1, false) || IsExtendedAPair(cp, 0x14A, 0x177, 0, false) ||
      IsExtendedAPair(cp, 0x179, 0x17E, 1, false)) {
    return cp - 1;
  }
  if (cp == 0x3AC) return 0x386;
  if (In(cp, 0x3AD, 0x3AF)) return cp - 37;
  if (cp == 0x3CC) return 0x38C;
  if (In(cp, 0x3CD, 0x3CE)) return cp - 63;
  if (cp == 0x3C2) return 0x3A3;  // final sigma
  if (In(cp, 0x3B1, 0x3C9)) return cp - 32;
  if (In(cp, 0x430, 0x44F)) return cp - 32;
  if (In(cp, 0x450, 0x45F)) return cp - 80;
  return cp;
}

template <typename F>
std::string MapCodePoints(std::string_view s, F&& map) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    char32_t cp;
    const size_t len = DecodeUtf8(s, i, &cp);
    if (len == 0) {
      out.push_back(s[i++]);
      continue;
    }
    EncodeUtf8(map(cp), &out);
    i += len;
  }
  return out;
}

}  // namespace

std::string Utf8ToLower(std::string_view s) { return MapCodePoints(s, ToLower); }
std::string Utf8ToUpper(std::string_view s) { return MapCodePoints(s, ToUpper); }

}  // namespace onyx::ops::string_ops

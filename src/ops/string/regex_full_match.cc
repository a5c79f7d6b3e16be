// RegexFullMatch: whether each string of X matches `pattern` as a whole.
// ONNX specifies RE2 syntax. std::regex is used with its ECMAScript grammar, the one closest to RE2's Perl-style
// syntax: \d \w \s \b and their negations, non-greedy quantifiers and (?:...) groups, none of which POSIX extended
// has, and leftmost-first alternation like RE2's (POSIX takes the longest). To close the remaining gaps:
//   - a leading (?i) (RE2's case-insensitive flag) becomes std::regex::icase;
//   - named groups (?P<name>...) and (?<name>...) become plain groups;
//   - \A and \z become ^ and $ (the match is anchored at both ends anyway);
//   - a ']' first in a bracket class (a literal in RE2, an empty class in ECMAScript) is escaped;
//   - \Q...\E (literal text) is escaped character by character.
// Still different: RE2's other inline flags ((?s), (?m), (?U)) and Unicode classes (\pL, \p{Greek}) are
// rejected as invalid patterns; '.' and classes see bytes, not UTF-8 code points; ECMAScript's lookahead (?=...)
// is accepted although RE2 has none. Back-references, which RE2 rejects, are rejected too: with libstdc++ the
// pattern is compiled in its polynomial (breadth-first) mode, which refuses them and, like RE2, runs in time
// linear in the input without recursing once per character (the default depth-first matcher overflows the stack
// on inputs of a few hundred kilobytes).
#include <cctype>
#include <regex>
#include <string>

#include "ops/string/string_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::string_ops {
namespace {

// Rewrites the RE2-only constructs listed above; sets *icase for a leading (?i).
Result<std::string> TranslateRe2(const std::string& pattern, bool* icase) {
  std::string p = pattern;
  *icase = false;
  if (p.rfind("(?i)", 0) == 0) {
    *icase = true;
    p = p.substr(4);
  }
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      const char e = p[i + 1];
      if (e == 'p' || e == 'P') {
        // std::regex would take \pL as the letters "pL" and silently match something else.
        return Unsupported("Unicode character classes (\\p, \\P) are not supported");
      }
      if (!in_class && e == 'Q') {
        // \Q...\E quotes literally.
        const size_t end = p.find("\\E", i + 2);
        const size_t stop = end == std::string::npos ? p.size() : end;
        for (size_t k = i + 2; k < stop; ++k) {
          if (std::ispunct(static_cast<unsigned char>(p[k]))) out += '\\';
          out += p[k];
        }
        i = end == std::string::npos ? p.size() : end + 1;
        continue;
      }
      if (!in_class && e == 'A') {
        out += '^';
      } else if (!in_class && e == 'z') {
        out += '$';
      } else {
        out += c;
        out += e;
      }
      ++i;
      continue;
    }
    if (in_class) {
      if (c == '[' && i + 1 < p.size() && p[i + 1] == ':') {  // [:alpha:] inside a class
        const size_t close = p.find(":]", i + 2);
        if (close != std::string::npos) {
          out += p.substr(i, close + 2 - i);
          i = close + 1;
          continue;
        }
      }
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      // In RE2 a ']' right after the opening bracket (or after '^') is a literal; in ECMAScript "[]" is an empty
      // class, so escape it.
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') {
        out += "\\]";
        ++i;
      }
      continue;
    }
    if (c == '(' && p.compare(i, 2, "(?") == 0) {
      size_t name_start = std::string::npos;
      if (p.compare(i, 4, "(?P<") == 0) {
        name_start = i + 4;
      } else if (p.compare(i, 3, "(?<") == 0 && i + 3 < p.size() && p[i + 3] != '=' && p[i + 3] != '!') {
        name_start = i + 3;
      }
      if (name_start != std::string::npos) {
        const size_t close = p.find('>', name_start);
        if (close != std::string::npos) {
          out += '(';
          i = close;
          continue;
        }
      }
    }
    out += c;
  }
  return out;
}

class RegexFullMatchKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(const std::string pattern, info.GetRequiredString("pattern"));
    bool icase = false;
    auto translated = TranslateRe2(pattern, &icase);
    if (!translated.ok()) {
      return info.Error("attribute 'pattern' '" + pattern + "': " + translated.status().message());
    }
    auto flags = std::regex::ECMAScript;
    if (icase) flags |= std::regex::icase;
#if defined(__GLIBCXX__)
    flags |= std::regex_constants::__polynomial;
#endif
    // std::regex reports a bad pattern only by throwing; keep that inside this function.
    try {
      regex_.assign(*translated, flags);
    } catch (const std::regex_error& e) {
      return info.Error("attribute 'pattern' '" + pattern + "' is not a supported regular expression: " + e.what());
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->type() != DataType::kString) {
      return InvalidArgument("input 'X' (0) has element type " + std::string(DataTypeName(x->type())) +
                             ", expected string");
    }
    Tensor& out = ctx.AllocateOutput(0, DataType::kBool, x->shape());
    const std::string* in = x->data<std::string>();
    bool* o = out.data<bool>();
    for (int64_t i = 0; i < x->size(); ++i) {
      try {
        o[i] = std::regex_match(in[i], regex_);
      } catch (const std::regex_error& e) {
        return InvalidArgument("matching element " + std::to_string(i) + " of input 'X' (0) failed: " + e.what());
      }
    }
    return Status::Ok();
  }

 private:
  std::regex regex_;
};

}  // namespace

void RegisterRegexFullMatchOps(KernelRegistry& registry) {
  registry.Add("", "RegexFullMatch", 20, kLatestVersion, MakeFactory<RegexFullMatchKernel>());
}

}  // namespace onyx::ops::string_ops

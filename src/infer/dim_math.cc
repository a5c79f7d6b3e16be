#include "infer/dim_math.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace onyx::infer {
namespace {

using ir::Dim;

// Lower binds looser; an operand is parenthesized when it binds looser than the operator that uses it.
enum Precedence { kAdditive = 1, kMultiplicative = 2, kAtom = 3 };

Precedence PrecedenceOf(const Dim& d) {
  if (!d.is_param()) return kAtom;
  int depth = 0;
  Precedence lowest = kAtom;
  for (char c : d.param) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth != 0) continue;
    if (c == '+' || c == '-') return kAdditive;
    if (c == '*' || c == '/') lowest = kMultiplicative;
  }
  return lowest;
}

std::string Operand(const Dim& d, Precedence needed) {
  std::string s = d.ToString();
  if (d.is_value() && d.value < 0) return "(" + s + ")";
  return PrecedenceOf(d) < needed ? "(" + s + ")" : s;
}

Dim Expression(const Dim& a, const char* op, const Dim& b, Precedence p) {
  // The right operand of '-' and '/' needs parentheses at equal precedence too ("N-(M-1)").
  Precedence right_needed = (op[0] == '-' || op[0] == '/') ? static_cast<Precedence>(p + 1) : p;
  return Dim::Param(Operand(a, p) + op + Operand(b, right_needed));
}

// A dim as coefficient * symbol factors when it is a plain product ("N", "N*C*2"); nullopt otherwise.
struct Factors {
  int64_t coefficient = 1;
  std::vector<std::string> symbols;
};
std::optional<Factors> AsFactors(const Dim& d) {
  Factors f;
  if (d.is_value()) {
    f.coefficient = d.value;
    return f;
  }
  if (!d.is_param() || d.param.find_first_of("+-/()") != std::string::npos) return std::nullopt;
  size_t pos = 0;
  while (pos <= d.param.size()) {
    size_t star = d.param.find('*', pos);
    std::string part = d.param.substr(pos, star == std::string::npos ? std::string::npos : star - pos);
    if (part.empty()) return std::nullopt;
    if (part.find_first_not_of("0123456789") == std::string::npos)
      f.coefficient *= std::stoll(part);
    else
      f.symbols.push_back(part);
    if (star == std::string::npos) break;
    pos = star + 1;
  }
  return f;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

bool SameDim(const Dim& a, const Dim& b) {
  if (a.is_value() && b.is_value()) return a.value == b.value;
  if (a.is_param() && b.is_param()) return a.param == b.param;
  return false;
}

namespace {

// "E+k" / "E-k" at the top level: E and the signed k.
std::optional<std::pair<Dim, int64_t>> SplitOffset(const Dim& d) {
  if (!d.is_param()) return std::nullopt;
  int depth = 0;
  for (size_t i = d.param.size(); i-- > 0;) {
    char c = d.param[i];
    if (c == ')') ++depth;
    if (c == '(') --depth;
    if (depth != 0 || (c != '+' && c != '-') || i == 0) continue;
    std::string tail = d.param.substr(i + 1);
    if (tail.empty() || tail.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    std::string head = d.param.substr(0, i);
    Dim h = Dim::Param(head);
    if (head.size() > 2 && head.front() == '(' && head.back() == ')' && head.find('(', 1) == std::string::npos) {
      h = Dim::Param(head.substr(1, head.size() - 2));
    }
    int64_t k = std::stoll(tail);
    return std::make_pair(h, c == '+' ? k : -k);
  }
  return std::nullopt;
}

// A dim computed with overflow checks: unknown where int64 overflowed (only hostile files hold such dims; the
// arithmetic must not be undefined behaviour on them).
Dim CheckedValue(bool overflowed, int64_t value) { return overflowed ? UnknownDim() : Dim::Value(value); }

}  // namespace

Dim DimAdd(const Dim& a, const Dim& b) {
  if (a.is_value() && b.is_value()) {
    int64_t sum = 0;
    const bool overflowed = __builtin_add_overflow(a.value, b.value, &sum);  // before sum is read
    return CheckedValue(overflowed, sum);
  }
  if (b.is_value()) {
    int64_t offset = 0;
    if (auto split = SplitOffset(a); split && !__builtin_add_overflow(split->second, b.value, &offset)) {
      return DimAdd(split->first, Dim::Value(offset));
    }
  }
  if (a.kind == Dim::Kind::kUnknown || b.kind == Dim::Kind::kUnknown) return UnknownDim();
  if (b.is_value() && b.value == 0) return a;
  if (a.is_value() && a.value == 0) return b;
  if (b.is_value() && b.value < 0 && b.value != INT64_MIN) return Expression(a, "-", Dim::Value(-b.value), kAdditive);
  if (SameDim(a, b)) return DimMul(a, Dim::Value(2));  // N+N reads better as N*2
  return Expression(a, "+", b, kAdditive);
}

Dim DimSub(const Dim& a, const Dim& b) {
  if (a.is_value() && b.is_value()) {
    int64_t diff = 0;
    const bool overflowed = __builtin_sub_overflow(a.value, b.value, &diff);  // before diff is read
    return CheckedValue(overflowed, diff);
  }
  if (b.is_value() && a.is_param() && b.value != INT64_MIN) return DimAdd(a, Dim::Value(-b.value));
  if (a.kind == Dim::Kind::kUnknown || b.kind == Dim::Kind::kUnknown) return UnknownDim();
  if (b.is_value() && b.value == 0) return a;
  if (SameDim(a, b)) return Dim::Value(0);
  if (b.is_value() && b.value < 0 && b.value != INT64_MIN) return Expression(a, "+", Dim::Value(-b.value), kAdditive);
  return Expression(a, "-", b, kAdditive);
}

Dim DimMul(const Dim& a, const Dim& b) {
  if (a.is_value() && b.is_value()) {
    int64_t product = 0;
    const bool overflowed = __builtin_mul_overflow(a.value, b.value, &product);  // before product is read
    return CheckedValue(overflowed, product);
  }
  if ((a.is_value() && a.value == 0) || (b.is_value() && b.value == 0)) return Dim::Value(0);
  if (a.kind == Dim::Kind::kUnknown || b.kind == Dim::Kind::kUnknown) return UnknownDim();
  if (b.is_value() && b.value == 1) return a;
  if (a.is_value() && a.value == 1) return b;
  return Expression(a, "*", b, kMultiplicative);
}

Dim DimFloorDiv(const Dim& a, const Dim& b) {
  if (b.is_value() && b.value == 0) return UnknownDim();
  if (a.is_value() && b.is_value()) return Dim::Value(FloorDiv(a.value, b.value));
  if (a.kind == Dim::Kind::kUnknown || b.kind == Dim::Kind::kUnknown) return UnknownDim();
  if (b.is_value() && b.value == 1) return a;
  if (SameDim(a, b)) return Dim::Value(1);
  // Cancel common symbols: N*C*H/N = C*H (a size divided by a factor of it, as in Reshape's -1).
  auto fa = AsFactors(a), fb = AsFactors(b);
  if (fa && fb && fb->coefficient > 0) {
    bool cancels = true;
    for (const auto& s : fb->symbols) {
      auto it = std::find(fa->symbols.begin(), fa->symbols.end(), s);
      if (it == fa->symbols.end()) {
        cancels = false;
        break;
      }
      fa->symbols.erase(it);
    }
    if (cancels) {
      Dim rest = Dim::Value(1);
      for (const auto& s : fa->symbols) rest = DimMul(rest, Dim::Param(s));
      if (fa->coefficient % fb->coefficient == 0) return DimMul(Dim::Value(fa->coefficient / fb->coefficient), rest);
      return Expression(DimMul(Dim::Value(fa->coefficient), rest), "/", Dim::Value(fb->coefficient), kMultiplicative);
    }
  }
  return Expression(a, "/", b, kMultiplicative);
}

Dim DimCeilDiv(const Dim& a, const Dim& b) {
  if (b.is_value() && b.value == 0) return UnknownDim();
  if (a.is_value() && b.is_value()) return Dim::Value(-FloorDiv(-a.value, b.value));
  if (a.kind == Dim::Kind::kUnknown || b.kind == Dim::Kind::kUnknown) return UnknownDim();
  if (b.is_value() && b.value == 1) return a;
  if (SameDim(a, b)) return Dim::Value(1);
  return Dim::Param("ceil(" + a.ToString() + "/" + Operand(b, kAtom) + ")");
}

Dim DimMin(const Dim& a, const Dim& b) {
  if (a.is_value() && b.is_value()) return Dim::Value(std::min(a.value, b.value));
  if (SameDim(a, b)) return a;
  return UnknownDim();
}

Dim DimMax(const Dim& a, const Dim& b) {
  if (a.is_value() && b.is_value()) return Dim::Value(std::max(a.value, b.value));
  if (SameDim(a, b)) return a;
  return UnknownDim();
}

Dim DimProduct(const std::vector<Dim>& dims) {
  Dim p = Dim::Value(1);
  for (const auto& d : dims) p = DimMul(p, d);
  return p;
}

}  // namespace onyx::infer

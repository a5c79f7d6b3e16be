#include "infer/dim_math.h"

#include <algorithm>

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

Dim DimAdd(const Dim& a, const Dim& b) {
  if (a.is_value() && b.is_value()) return Dim::Value(a.value + b.value);
  if (a.kind == Dim::Kind::kUnknown || b.kind == Dim::Kind::kUnknown) return UnknownDim();
  if (b.is_value() && b.value == 0) return a;
  if (a.is_value() && a.value == 0) return b;
  if (b.is_value() && b.value < 0) return Expression(a, "-", Dim::Value(-b.value), kAdditive);
  return Expression(a, "+", b, kAdditive);
}

Dim DimSub(const Dim& a, const Dim& b) {
  if (a.is_value() && b.is_value()) return Dim::Value(a.value - b.value);
  if (a.kind == Dim::Kind::kUnknown || b.kind == Dim::Kind::kUnknown) return UnknownDim();
  if (b.is_value() && b.value == 0) return a;
  if (SameDim(a, b)) return Dim::Value(0);
  if (b.is_value() && b.value < 0) return Expression(a, "+", Dim::Value(-b.value), kAdditive);
  return Expression(a, "-", b, kAdditive);
}

Dim DimMul(const Dim& a, const Dim& b) {
  if (a.is_value() && b.is_value()) return Dim::Value(a.value * b.value);
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

// Arithmetic on symbolic dimensions: numbers stay numbers, symbols become readable expressions ("N*2",
// "seq_len-1", "(H+1)/2"), and anything involving an unknown dim stays unknown. Expressions are kept as
// dim_param strings, so a model written after inference carries them like any other symbolic dim.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/model.h"

namespace onyx::infer {

ir::Dim DimAdd(const ir::Dim& a, const ir::Dim& b);
ir::Dim DimSub(const ir::Dim& a, const ir::Dim& b);
ir::Dim DimMul(const ir::Dim& a, const ir::Dim& b);
ir::Dim DimFloorDiv(const ir::Dim& a, const ir::Dim& b);  // floor(a / b); unknown when b is 0
ir::Dim DimCeilDiv(const ir::Dim& a, const ir::Dim& b);
ir::Dim DimMin(const ir::Dim& a, const ir::Dim& b);  // only when both are numbers (else unknown)
ir::Dim DimMax(const ir::Dim& a, const ir::Dim& b);

inline ir::Dim DimOf(int64_t v) { return ir::Dim::Value(v); }
inline ir::Dim UnknownDim() { return ir::Dim{}; }

// Two dims that certainly denote the same size: equal numbers or the same symbol.
bool SameDim(const ir::Dim& a, const ir::Dim& b);
// The product of dims (a number, an expression, or unknown).
ir::Dim DimProduct(const std::vector<ir::Dim>& dims);

}  // namespace onyx::infer

// Element type conversion between every pair of ONNX non-complex types, as Cast and CastLike define it.
//
// Choices where the specification leaves the result open (documented here once):
// - float -> integer truncates toward zero through int64, then keeps the low bits of the destination type
//   (two's complement wrap, like integer -> integer). NaN, infinities and values outside int64 become INT64_MIN
//   first (what x86's conversion instruction gives); float -> uint64 converts [2^63, 2^64) exactly.
// - Any value -> int4/uint4/int2/uint2 keeps the low 4 or 2 bits (wraps), which is what the ONNX reference and
//   the official test data do (e.g. float -9 -> int4 7).
// - float -> float16/bfloat16/float8/float4 rounds once, to nearest even, directly from the source value (no
//   double rounding through float). float4e2m1 always saturates; float8 types follow `saturate`.
// - number -> string follows the reference (numpy's / ml_dtypes' str() of a scalar): float, double and float16
//   print the shortest digits that read back to the same value, positional from 1e-4 up to 1e6 (float), 1e16
//   (double) or 1e3 (float16) ("1.0", "0.039187793"), scientific outside ("1e-05", "1.2345679e+08");
//   bfloat16, float8 and float4e2m1 print as "%g" of their float value ("1", "0.100098"); "nan", "inf",
//   "-inf"; bool as "True"/"False"; integers in decimal.
// - string -> number accepts surrounding whitespace, a leading '+', decimal and scientific notation and the
//   case-insensitive literals "inf", "infinity", "nan" (so "INF", "+INF", "-INF", "NaN"). string -> integer
//   reads an integer, or else a number truncated toward zero ("100.5" -> 100); string -> bool also accepts
//   "true"/"false" (any case). Anything else is an error naming the element.
#pragma once

#include <string>

#include "core/low_precision.h"
#include "core/status.h"
#include "core/tensor.h"

namespace onyx::ops {

struct CastOptions {
  bool saturate = true;                         // float8 destinations only
  E8M0Rounding round_mode = E8M0Rounding::kUp;  // float8e8m0 destination only
};

// Converts `in` into `out`, which the caller has allocated with the destination type and the shape of `in`.
// Complex types are not supported (error).
Status CastInto(const Tensor& in, const CastOptions& options, Tensor& out);

// Allocates and returns the converted tensor.
Result<Tensor> CastTensor(const Tensor& in, DataType to, const CastOptions& options = {});

// Element i of `t` as Cast writes it into a string tensor.
std::string FormatElement(const Tensor& t, int64_t i);

// Whether Cast supports `t` as a source or destination (every defined, non-complex type).
bool IsCastableType(DataType t);

}  // namespace onyx::ops

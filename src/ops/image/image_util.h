// Helpers shared by the Image family's kernels: element copies that work for every element type (the
// resampling operators that only move elements accept all of them), and numeric tensors read and written as
// double (the interpolating kernels compute in double, as the ONNX reference does).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx::ops::image {

// out[i] = in[src[i]], or the zero element (0, false, "") where src[i] < 0. `out` is already allocated with
// in's element type; every element type is supported, the packed sub-byte ones included.
void GatherElements(const Tensor& in, const std::vector<int64_t>& src, Tensor& out);

// Whether ReadAsDoubles / WriteFromDoubles support the element type (integers, bool, every float type, float8).
bool IsRealNumberType(DataType t);

// The elements of a real-number tensor as double. `what` names the input in the error for other types.
Result<std::vector<double>> ReadAsDoubles(const Tensor& t, const std::string& what);

// Stores values into `out` (same element count): floats convert (float8 saturating), integers round half to even
// and saturate (NaN becomes 0), bool is value != 0.
Status WriteFromDoubles(const std::vector<double>& values, Tensor& out);

// An error naming `what` when an output shape computed from input values is too large to allocate.
Status CheckOutputShape(const Shape& shape, const std::string& what);

// Product of shape[begin..end).
int64_t ShapeProduct(const Shape& shape, size_t begin, size_t end);

}  // namespace onyx::ops::image

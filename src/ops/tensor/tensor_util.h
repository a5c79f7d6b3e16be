// Helpers shared by the TensorOps family (shape and data movement): moving elements without interpreting them
// (any element type: strings as std::string, sub-byte types bit by bit), reading shape-like inputs, and the
// per-file registration functions called from register.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/data_type.h"
#include "core/status.h"
#include "core/tensor.h"
#include "runtime/kernel.h"

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::movement {

// A 16-byte element (complex128) moved as raw bytes.
struct Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

// Calls f(TypeTag<C>{}) with a type C that moves elements of type `t` exactly: std::string for strings, an
// unsigned integer (or Bytes16) of the element's size otherwise. Sub-byte types are not handled here (their
// elements are not addressable); see the *SubByte helpers.
template <typename F>
Status DispatchCopy(DataType t, F&& f) {
  if (t == DataType::kString) return f(TypeTag<std::string>{});
  if (IsSubByte(t)) {
    return Unsupported("element type " + std::string(DataTypeName(t)) + " is not supported here");
  }
  switch (DataTypeBits(t)) {
    case 8: return f(TypeTag<uint8_t>{});
    case 16: return f(TypeTag<uint16_t>{});
    case 32: return f(TypeTag<uint32_t>{});
    case 64: return f(TypeTag<uint64_t>{});
    case 128: return f(TypeTag<Bytes16>{});
    default: return Unsupported("element type " + std::string(DataTypeName(t)) + " is not supported here");
  }
}

// Element i of a packed sub-byte buffer (first element in the lowest bits, as ONNX packs them), as raw bits.
inline uint8_t GetSubByte(const void* data, int bits, int64_t i) {
  const int64_t per_byte = 8 / bits;
  const uint8_t byte = static_cast<const uint8_t*>(data)[i / per_byte];
  const int shift = static_cast<int>(i % per_byte) * bits;
  return static_cast<uint8_t>((byte >> shift) & ((1u << bits) - 1u));
}
inline void SetSubByte(void* data, int bits, int64_t i, uint8_t v) {
  const int64_t per_byte = 8 / bits;
  uint8_t& byte = static_cast<uint8_t*>(data)[i / per_byte];
  const int shift = static_cast<int>(i % per_byte) * bits;
  const uint8_t mask = static_cast<uint8_t>(((1u << bits) - 1u) << shift);
  byte = static_cast<uint8_t>((byte & ~mask) | ((v << shift) & mask));
}

// A uint8 tensor holding one sub-byte element's raw bits per byte, and back.
Tensor UnpackSubByte(const Tensor& t);
Tensor PackSubByte(const Tensor& bytes, DataType type);

// For every index of `shape`: dst[dst_offset + index . dst_strides] = src[src_offset + index . src_strides].
// Works for every element type (sub-byte included). Strides are in elements and may be negative or zero.
void StridedCopy(const Tensor& src, int64_t src_offset, const std::vector<int64_t>& src_strides, Tensor& dst,
                 int64_t dst_offset, const std::vector<int64_t>& dst_strides, const Shape& shape);

// `in` viewed as `view_shape` (same element count), with its axes permuted: output axis i is view axis perm[i].
// When the permutation only moves axes of size 1 (the others keep their order) the elements stay where they are,
// and the result shares `in`'s storage under the new shape instead of being copied.
Tensor Permute(const Tensor& in, const Shape& view_shape, const std::vector<int64_t>& perm);

// The walk of GatherElements and ScatterElements: calls f(i, at) for every element i of `indices` (I: int32_t or
// int64_t; row-major order, so that duplicate scatter indices apply in order) with `at` its position in a tensor of
// `strides` (row-major, of the indices' rank) whose coordinate along `axis` is the index's value (negative counts from
// `dim`); stops with an error naming the first index outside [-dim, dim). Rows (every axis but the last) advance their
// coordinates by counting: no division or list of positions per element (a Faster R-CNN's ScatterElements of
// [proposals, 256, 7, 7] took 20 ms through one).
template <typename I, typename F>
Status ForEachElementIndex(const Tensor& indices, const std::vector<int64_t>& strides, int64_t axis, int64_t dim,
                           F&& f) {
  const Shape& shape = indices.shape();
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t cols = shape.back(), axis_stride = strides[static_cast<size_t>(axis)];
  const int64_t col_stride = axis == rank - 1 ? 0 : 1;
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d) rows *= shape[static_cast<size_t>(d)];
  if (cols == 0 || rows == 0) return Status::Ok();
  const I* idx = indices.data<I>();
  std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t base = 0;  // the row's position, without the axis' coordinate
    for (int64_t d = 0; d + 1 < rank; ++d) {
      if (d != axis) base += coord[static_cast<size_t>(d)] * strides[static_cast<size_t>(d)];
    }
    const I* ri = idx + r * cols;
    for (int64_t j = 0; j < cols; ++j) {
      int64_t v = static_cast<int64_t>(ri[j]);
      if (v < -dim || v >= dim) {
        return InvalidArgument("index " + std::to_string(v) + " in 'indices' is out of range for axis " +
                               std::to_string(axis) + " of dimension " + std::to_string(dim));
      }
      if (v < 0) v += dim;
      f(r * cols + j, base + v * axis_stride + j * col_stride);
    }
    for (int64_t d = rank - 2; d >= 0; --d) {  // the next row's coordinates
      if (++coord[static_cast<size_t>(d)] < shape[static_cast<size_t>(d)]) break;
      coord[static_cast<size_t>(d)] = 0;
    }
  }
  return Status::Ok();
}

// Every element of `out` a copy of element 0 of `value` (which has the same type).
Status FillWith(const Tensor& value, Tensor& out);

// Input i as int64 values (0-D or 1-D integer tensor); `what` names it in errors.
Result<std::vector<int64_t>> IntsInput(const KernelContext& ctx, size_t i, const std::string& what);

// Whether `t` is a 0-D or 1-D integer tensor holding exactly `values`, read without a copy: kernels keep what they
// derived from the last run's shape-like inputs and check it this way (no allocation per run).
bool HoldsInts(const Tensor& t, const std::vector<int64_t>& values);

// Product of shape[begin, end).
int64_t DimProduct(const Shape& shape, size_t begin, size_t end);

// Registration of each file's operators.
void RegisterReshapeOps(KernelRegistry& registry);    // Reshape, Squeeze, Unsqueeze, Flatten, Identity, Shape, Size
void RegisterTransposeOps(KernelRegistry& registry);  // Transpose, DepthToSpace, SpaceToDepth
void RegisterConcatSplitOps(KernelRegistry& registry);
void RegisterSliceOps(KernelRegistry& registry);
void RegisterGatherOps(KernelRegistry& registry);   // Gather, GatherElements, GatherND
void RegisterScatterOps(KernelRegistry& registry);  // Scatter, ScatterElements, ScatterND
void RegisterExpandTileOps(KernelRegistry& registry);
void RegisterPadOps(KernelRegistry& registry);
void RegisterConstantOps(KernelRegistry& registry);  // Constant, ConstantOfShape, Range, EyeLike, OneHot
void RegisterTriluOps(KernelRegistry& registry);
void RegisterDropoutOps(KernelRegistry& registry);
void RegisterSelectOps(KernelRegistry& registry);  // NonZero, Compress, ReverseSequence
void RegisterUniqueOps(KernelRegistry& registry);

}  // namespace onyx::ops::movement

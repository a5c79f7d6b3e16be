// Small helpers shared by the NeuralNet kernels: computing 16-bit float tensors in float, reading small
// parameter tensors of any float type, and the rounding/saturation rules of the quantized operators.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/data_type.h"
#include "core/tensor.h"
#include "runtime/kernel.h"

namespace onyx::ops::nn {

// The elements of a tensor as ComputeType<T>: the tensor's own data when T is already the compute type,
// otherwise (Float16, BFloat16) a converted copy.
template <typename T>
class ComputeView {
 public:
  using CT = ComputeType<T>;
  explicit ComputeView(const Tensor& t) {
    if constexpr (std::is_same_v<T, CT>) {
      data_ = t.data<T>();
    } else {
      copy_.resize(static_cast<size_t>(t.size()));
      const T* src = t.data<T>();
      for (size_t i = 0; i < copy_.size(); ++i) copy_[i] = static_cast<CT>(src[i]);
      data_ = copy_.data();
    }
  }
  ComputeView(const ComputeView&) = delete;
  ComputeView& operator=(const ComputeView&) = delete;
  const CT* data() const { return data_; }

 private:
  std::vector<CT> copy_;
  const CT* data_ = nullptr;
};

// An output tensor written as ComputeType<T>: straight into the tensor, or into a buffer that Finish() converts.
template <typename T>
class ComputeOutput {
 public:
  using CT = ComputeType<T>;
  explicit ComputeOutput(Tensor& t) : tensor_(t) {
    if constexpr (std::is_same_v<T, CT>) {
      data_ = t.data<T>();
    } else {
      buffer_.resize(static_cast<size_t>(t.size()));
      data_ = buffer_.data();
    }
  }
  ComputeOutput(const ComputeOutput&) = delete;
  ComputeOutput& operator=(const ComputeOutput&) = delete;
  CT* data() { return data_; }
  void Finish() {
    if constexpr (!std::is_same_v<T, CT>) {
      T* dst = tensor_.data<T>();
      for (size_t i = 0; i < buffer_.size(); ++i) dst[i] = T(buffer_[i]);
    }
  }

 private:
  Tensor& tensor_;
  std::vector<CT> buffer_;
  CT* data_ = nullptr;
};

// The elements of a numeric tensor (any float or integer type) as double.
std::vector<double> ToDoubleVector(const Tensor& t);

// Product of dims [begin, end) of a shape.
int64_t ShapeProduct(const Shape& shape, size_t begin, size_t end);

// Rounds half to even (as ONNX quantization specifies) and saturates into Q's range; NaN maps to 0.
template <typename Q>
Q SaturateRound(double v) {
  if (std::isnan(v)) return Q(0);
  const double r = std::nearbyint(v);
  constexpr double lo = static_cast<double>(std::numeric_limits<Q>::lowest());
  constexpr double hi = static_cast<double>(std::numeric_limits<Q>::max());
  if (r <= lo) return std::numeric_limits<Q>::lowest();
  if (r >= hi) return std::numeric_limits<Q>::max();
  return static_cast<Q>(r);
}

// Checks that an optional per-tensor parameter (scale, zero point) holds exactly one element.
Status CheckScalarParam(const Tensor& t, const std::string& what);

}  // namespace onyx::ops::nn

namespace onyx::ops::nn {

using Quant8Types = TypeList<uint8_t, int8_t>;

// The int32 values q[i] - zero_point[(i / block) % zero_point.size()] of an 8-bit quantized tensor (int8 or
// uint8); `block` is how many consecutive elements share one zero point.
Result<std::vector<int32_t>> CenteredInt32(const Tensor& q, const std::vector<int32_t>& zero_point, int64_t block);

// The int32 values q - zero_point of an 8-bit quantized tensor, where zero_point (null: 0) has the same element
// type as q and `zp_shape` (the zero point's shape as the caller interprets it) broadcasts to q's shape.
Result<std::vector<int32_t>> CenteredInt32Broadcast(const Tensor& q, const Tensor* zero_point, const Shape& zp_shape,
                                                    const std::string& zp_name);

// Input i as a tensor, or null when that optional input is omitted.
Result<const Tensor*> OptionalTensorInput(const KernelContext& ctx, size_t i);

// The values of an integer tensor as int32 (zero points).
std::vector<int32_t> Int32Values(const Tensor& t);

}  // namespace onyx::ops::nn

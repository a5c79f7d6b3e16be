#include "quantize/weights.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/low_precision.h"

namespace onyx::quantize {

namespace {

Status ExpectFloat(const Tensor& t, const char* what) {
  if (t.type() != DataType::kFloat) {
    return Unsupported(std::string(what) + " of type " + std::string(DataTypeName(t.type())) +
                       ": only float32 tensors are quantized");
  }
  return Status::Ok();
}

// max|x| / qmax, or 1 for an all-zero slice.
float SymmetricScale(float absmax, float qmax) { return absmax > 0 ? absmax / qmax : 1.0f; }

}  // namespace

void ErrorAccumulator::Add(std::span<const float> reference, std::span<const float> approximation) {
  const size_t n = std::min(reference.size(), approximation.size());
  for (size_t i = 0; i < n; ++i) {
    const double r = reference[i], a = approximation[i];
    dot_ += r * a;
    ref_norm_ += r * r;
    approx_norm_ += a * a;
    worst_ = std::max(worst_, std::fabs(r - a));
  }
  any_ = true;
}

ErrorStats ErrorAccumulator::Get() const {
  ErrorStats e;
  if (ref_norm_ == 0 && approx_norm_ == 0) {
    e.cosine = 1;
  } else if (ref_norm_ == 0 || approx_norm_ == 0) {
    e.cosine = 0;
  } else {
    e.cosine = dot_ / (std::sqrt(ref_norm_) * std::sqrt(approx_norm_));
  }
  e.max_abs_error = worst_;
  return e;
}

ErrorStats CompareValues(std::span<const float> reference, std::span<const float> approximation) {
  ErrorAccumulator acc;
  acc.Add(reference, approximation);
  return acc.Get();
}

Result<QuantizedTensor> QuantizeSymmetric(const Tensor& w, int64_t axis, bool reduce_range) {
  ONYX_RETURN_IF_ERROR(ExpectFloat(w, "weight"));
  if (axis >= w.rank()) {
    return InvalidArgument("per-channel axis " + std::to_string(axis) + " is out of range for a weight of shape " +
                           ShapeToString(w.shape()));
  }
  const float qmax = reduce_range ? 64.0f : 127.0f;
  const int64_t channels = axis < 0 ? 1 : w.dim(axis);
  int64_t inner = 1;
  for (int64_t d = axis + 1; axis >= 0 && d < w.rank(); ++d) inner *= w.dim(d);
  if (axis < 0) inner = w.size();
  const int64_t outer = channels == 0 ? 0 : w.size() / (channels * inner == 0 ? 1 : channels * inner);
  const float* src = w.data<float>();

  std::vector<float> absmax(static_cast<size_t>(channels), 0.0f);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      const float* p = src + (o * channels + c) * inner;
      float m = absmax[static_cast<size_t>(c)];
      for (int64_t i = 0; i < inner; ++i) m = std::max(m, std::fabs(p[i]));
      absmax[static_cast<size_t>(c)] = m;
    }
  }
  QuantizedTensor qt;
  qt.axis = axis;
  std::vector<float> scales(absmax.size());
  for (size_t c = 0; c < absmax.size(); ++c) scales[c] = SymmetricScale(absmax[c], qmax);
  qt.scale = axis < 0 ? Tensor::Scalar<float>(scales[0]) : Tensor::FromVector<float>(scales, {channels});
  qt.zero_point = axis < 0 ? Tensor::Scalar<int8_t>(0)
                           : Tensor::FromVector<int8_t>(std::vector<int8_t>(scales.size(), 0), {channels});
  qt.q = Tensor::Allocate(DataType::kInt8, w.shape());
  int8_t* dst = qt.q.data<int8_t>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t base = (o * channels + c) * inner;
      const float s = scales[static_cast<size_t>(c)];
      for (int64_t i = 0; i < inner; ++i) {
        dst[base + i] = static_cast<int8_t>(std::clamp(std::nearbyint(src[base + i] / s), -qmax, qmax));
      }
    }
  }
  ONYX_ASSIGN_OR_RETURN(Tensor back, Dequantize(qt));
  qt.error = CompareValues(w.values<float>(), back.values<float>());
  return qt;
}

Result<QuantizedTensor> QuantizeBlockwise(const Tensor& w, int64_t block, int bits) {
  ONYX_RETURN_IF_ERROR(ExpectFloat(w, "weight"));
  if (w.rank() != 2)
    return InvalidArgument("blockwise quantization needs a 2-D weight, got " + ShapeToString(w.shape()));
  if (bits != 4 && bits != 8)
    return InvalidArgument("blockwise quantization takes 4 or 8 bits, got " + std::to_string(bits));
  if (block < 1) return InvalidArgument("block size must be positive, got " + std::to_string(block));
  const int64_t k = w.dim(0), n = w.dim(1);
  const int64_t blocks = (k + block - 1) / block;
  const float qmax = bits == 4 ? 7.0f : 127.0f;
  const float qmin = bits == 4 ? -8.0f : -128.0f;
  const float* src = w.data<float>();
  std::vector<float> scales(static_cast<size_t>(blocks * n), 0.0f);
  for (int64_t r = 0; r < k; ++r) {
    float* s = scales.data() + (r / block) * n;
    for (int64_t c = 0; c < n; ++c) s[c] = std::max(s[c], std::fabs(src[r * n + c]));
  }
  for (float& s : scales) s = SymmetricScale(s, qmax);
  QuantizedTensor qt;
  qt.axis = 0;
  qt.block_size = block;
  qt.scale = Tensor::FromVector<float>(scales, {blocks, n});
  qt.q = Tensor::Allocate(bits == 4 ? DataType::kInt4 : DataType::kInt8, w.shape(), /*zero=*/true);
  for (int64_t r = 0; r < k; ++r) {
    const float* s = scales.data() + (r / block) * n;
    for (int64_t c = 0; c < n; ++c) {
      const float v = std::clamp(std::nearbyint(src[r * n + c] / s[c]), qmin, qmax);
      if (bits == 4) {
        SetInt4(qt.q.raw(), r * n + c, static_cast<int64_t>(v));
      } else {
        qt.q.data<int8_t>()[r * n + c] = static_cast<int8_t>(v);
      }
    }
  }
  ONYX_ASSIGN_OR_RETURN(Tensor back, Dequantize(qt));
  qt.error = CompareValues(w.values<float>(), back.values<float>());
  return qt;
}

Result<QuantizedTensor> QuantizeBias(const Tensor& bias, std::span<const float> scales) {
  ONYX_RETURN_IF_ERROR(ExpectFloat(bias, "bias"));
  if (bias.rank() != 1 || (scales.size() != 1 && static_cast<int64_t>(scales.size()) != bias.size())) {
    return InvalidArgument("bias of shape " + ShapeToString(bias.shape()) + " cannot take " +
                           std::to_string(scales.size()) + " scales");
  }
  QuantizedTensor qt;
  qt.axis = scales.size() == 1 ? -1 : 0;
  std::vector<float> s(scales.begin(), scales.end());
  for (float& v : s) v = v > 0 ? v : 1.0f;
  qt.scale = qt.axis < 0 ? Tensor::Scalar<float>(s[0]) : Tensor::FromVector<float>(s, {bias.size()});
  qt.q = Tensor::Allocate(DataType::kInt32, bias.shape());
  const float* src = bias.data<float>();
  constexpr double kMin = std::numeric_limits<int32_t>::min(), kMax = std::numeric_limits<int32_t>::max();
  for (int64_t i = 0; i < bias.size(); ++i) {
    const double v = std::nearbyint(static_cast<double>(src[i]) / s[s.size() == 1 ? 0 : static_cast<size_t>(i)]);
    qt.q.data<int32_t>()[i] = static_cast<int32_t>(std::clamp(v, kMin, kMax));
  }
  ONYX_ASSIGN_OR_RETURN(Tensor back, Dequantize(qt));
  qt.error = CompareValues(bias.values<float>(), back.values<float>());
  return qt;
}

std::pair<float, int32_t> ActivationParams(float rmin, float rmax, DataType type) {
  const int32_t qmin = type == DataType::kInt8 ? -128 : 0;
  const int32_t qmax = type == DataType::kInt8 ? 127 : 255;
  rmin = std::min(rmin, 0.0f);
  rmax = std::max(rmax, 0.0f);
  if (!(rmax > rmin)) return {1.0f, 0};
  const float scale = (rmax - rmin) / static_cast<float>(qmax - qmin);
  const float zp = std::nearbyint(static_cast<float>(qmin) - rmin / scale);
  return {scale, static_cast<int32_t>(std::clamp(zp, static_cast<float>(qmin), static_cast<float>(qmax)))};
}

Result<Tensor> Dequantize(const QuantizedTensor& qt) {
  const Tensor& q = qt.q;
  Tensor out = Tensor::Allocate(DataType::kFloat, q.shape());
  float* dst = out.data<float>();
  const float* scale = qt.scale.data<float>();
  const int64_t n = q.size();
  auto value = [&](int64_t i) -> float {
    switch (q.type()) {
      case DataType::kInt8:
        return q.data<int8_t>()[i];
      case DataType::kUint8:
        return q.data<uint8_t>()[i];
      case DataType::kInt32:
        return static_cast<float>(q.data<int32_t>()[i]);
      case DataType::kInt4:
        return GetInt4(q.raw(), i);
      default:
        return 0;
    }
  };
  auto zero = [&](int64_t si) -> float {
    return qt.zero_point.defined() ? static_cast<float>(qt.zero_point.DoubleAt(si)) : 0;
  };
  if (q.type() != DataType::kInt8 && q.type() != DataType::kUint8 && q.type() != DataType::kInt32 &&
      q.type() != DataType::kInt4) {
    return Unsupported("dequantizing " + std::string(DataTypeName(q.type())));
  }
  if (qt.axis < 0) {
    for (int64_t i = 0; i < n; ++i) dst[i] = (value(i) - zero(0)) * scale[0];
    return out;
  }
  const int64_t axis_dim = q.dim(qt.axis);
  int64_t inner = 1;
  for (int64_t d = qt.axis + 1; d < q.rank(); ++d) inner *= q.dim(d);
  const int64_t block = qt.block_size > 0 ? qt.block_size : 0;
  const int64_t scale_axis_dim = block > 0 ? (axis_dim + block - 1) / block : axis_dim;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t o = i / (axis_dim * inner), a = (i / inner) % axis_dim, r = i % inner;
    const int64_t si = block > 0 ? (o * scale_axis_dim + a / block) * inner + r : a;
    dst[i] = (value(i) - zero(si)) * scale[si];
  }
  return out;
}

}  // namespace onyx::quantize

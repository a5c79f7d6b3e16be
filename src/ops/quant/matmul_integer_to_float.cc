// ai.onyx.internal.MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias): the float tail of
// a dynamically quantized MatMul in one kernel (optimizer/dynamic_quant_fusion.cc emits it; the inputs are ONNX
// Runtime's com.microsoft.MatMulIntegerToFloat's):
//
//   Y = float(sum_k (A[.., k] - a_zero_point) * B[k, n]) * (a_scale * b_scale[n]) [+ bias[n]]
//
// exactly the float operations of the chain it replaces, in the same order (Cast, then Mul by the scale product
// formed in float, then Add), so the result is the unfused graph's bit for bit. b_scale may be omitted: a_scale is
// then the whole multiplier (one value or one per column). B must be a constant int8 [K, N] matrix whose zero point,
// if given, is constant zeros; A is uint8 or int8 [..., K] with a one-value zero point.
//
// The int32 sums come from oneDNN's prepacked int8 matmul (kernels/int8_matmul.h, weights reordered once per row
// count, or onyx's VNNI product), written straight into Y's buffer (int32 and float have the same size); each block of
// sums, as soon as the product has finished it and while it is in cache, then turns into floats in place (and, with
// attribute activation "Gelu", which the MatMul + Add fusion sets when a Gelu reads the product alone, gets
// kernels::Gelu, the Gelu kernel's own function): no pass of its own over Y.
// Where oneDNN's int8 products are not exact (no VNNI, or ONYX_INT8_REFERENCE=1) or it offers only its reference
// kernel, plain loops compute the same sums.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/cpu_isa.h"
#include "kernels/dnnl_util.h"
#include "kernels/int8_gemm.h"
#include "kernels/int8_gemv.h"
#include "kernels/int8_matmul.h"
#include "kernels/int8_quantize.h"
#include "kernels/vector_math.h"
#include "ops/common/parallel.h"
#include "ops/nn/nn_util.h"
#include "ops/quant/quant_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::quant {
namespace {

// row[j] (int32 bits) becomes float(row[j]) * scale[per_column ? j : 0] + bias[j] (bias may be null), 8 columns at a
// time; returns how many columns it did. Built for AVX2 without FMA on purpose: a fused multiply-add would round once
// where the unfused Mul and Add round twice.
__attribute__((target("avx2"))) int64_t ScaleBiasAvx2(float* row, int64_t n, const float* scale, bool per_column,
                                                      const float* bias) {
  const __m256 s = _mm256_set1_ps(per_column ? 0.0f : scale[0]);  // per column: scale[0] may be past the end
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256 v = _mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + j)));
    v = _mm256_mul_ps(v, per_column ? _mm256_loadu_ps(scale + j) : s);
    if (bias != nullptr) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + j));
    _mm256_storeu_ps(row + j, v);
  }
  return j;
}

// The same 16 columns at a time. The multiply and add use the explicit-rounding intrinsics (round to nearest, the
// default mode), which the compiler never contracts into a fused multiply-add.
__attribute__((target("avx512f"))) int64_t ScaleBiasAvx512(float* row, int64_t n, const float* scale, bool per_column,
                                                           const float* bias) {
  constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  const __m512 s = _mm512_set1_ps(per_column ? 0.0f : scale[0]);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m512 v = _mm512_cvtepi32_ps(_mm512_loadu_si512(row + j));
    v = _mm512_mul_round_ps(v, per_column ? _mm512_loadu_ps(scale + j) : s, kRound);
    if (bias != nullptr) v = _mm512_add_round_ps(v, _mm512_loadu_ps(bias + j), kRound);
    _mm512_storeu_ps(row + j, v);
  }
  return j;
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

// AVX-512 where the CPU has it and ONYX_MAX_ISA does not cap it (kernels/cpu_isa.h).
bool HasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f") && kernels::EffectiveIsa() == kernels::Isa::kAvx512;
  return has;
}

void ScaleBiasRow(float* row, int64_t n, const float* scale, bool per_column, const float* bias) {
  int64_t done = HasAvx512() ? ScaleBiasAvx512(row, n, scale, per_column, bias) : 0;
  // Only with columns left: per column, `scale + done` points past the end of the scales once all are done (ASan).
  if (done < n && HasAvx2())
    done += ScaleBiasAvx2(row + done, n - done, scale + (per_column ? done : 0), per_column,
                          bias != nullptr ? bias + done : nullptr);
  // The library is built for baseline x86-64 (no FMA), so this stays a multiply and an add too.
  for (int64_t j = done; j < n; ++j) {
    int32_t acc;
    std::memcpy(&acc, row + j, sizeof acc);
    float v = static_cast<float>(acc) * scale[per_column ? j : 0];
    if (bias != nullptr) v = v + bias[j];
    row[j] = v;
  }
}

// ---- A's dynamic quantization (DynamicQuantizeLinear, bit for bit: ops/nn/quantize.cc, kernels/int8_quantize.h) ----

struct DynamicQuantized {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

DynamicQuantized QuantizeDynamic(const float* x, int64_t n, uint8_t* y) {
  // Min and max per chunk, then over the chunks (exact, so the split does not matter), as the operator does.
  constexpr int64_t kChunks = 64;
  float los[kChunks], his[kChunks];
  const int64_t chunks = std::clamp<int64_t>(n / 4096, 1, kChunks);
  ParallelFor(chunks, n / chunks, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      kernels::MinMaxWithZero(x + n * c / chunks, n * (c + 1) / chunks - n * c / chunks, &los[c], &his[c]);
    }
  });
  float lo = 0.0f, hi = 0.0f;
  for (int64_t c = 0; c < chunks; ++c) {
    lo = std::min(lo, los[c]);
    hi = std::max(hi, his[c]);
  }
  DynamicQuantized q;
  q.scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  q.zero_point = nn::SaturateRound<uint8_t>(std::clamp(0.0f - lo / q.scale, 0.0f, 255.0f));
  ParallelFor(n, 4, [&](int64_t b, int64_t e) {
    kernels::QuantizeFloat<uint8_t>(x + b, e - b, q.scale, q.zero_point, uint8_t{0}, y + b);
  });
  return q;
}

// sum_k (a[r, k] - a_zero_point) * b[k, j] for the rows [lo, hi), as int32 bits in y: where oneDNN does not apply.
template <typename A>
void ReferenceSums(const A* a, int32_t a_zero_point, const int8_t* b, int64_t lo, int64_t hi, int64_t k, int64_t n,
                   float* y) {
  std::vector<uint32_t> acc(static_cast<size_t>(n));  // unsigned: wraps like the int32 reference loops
  for (int64_t r = lo; r < hi; ++r) {
    std::fill(acc.begin(), acc.end(), 0u);
    for (int64_t p = 0; p < k; ++p) {
      const auto x = static_cast<uint32_t>(static_cast<int32_t>(a[r * k + p]) - a_zero_point);
      const int8_t* brow = b + p * n;
      for (int64_t j = 0; j < n; ++j) acc[static_cast<size_t>(j)] += x * static_cast<uint32_t>(brow[j]);
    }
    std::memcpy(y + r * n, acc.data(), acc.size() * sizeof(uint32_t));
  }
}

class MatMulIntegerToFloatKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    quantize_a_ = info.op_type() == "DynamicQuantizeMatMul";
    const std::string activation = info.GetString("activation", "");
    if (!activation.empty() && activation != "Gelu") {
      return info.Error("attribute 'activation' is '" + activation + "', expected '' or 'Gelu'");
    }
    gelu_ = activation == "Gelu";
    const size_t b_zp_index = quantize_a_ ? 3 : 5;
    const Tensor* b = info.ConstantInput(1);
    if (b == nullptr || b->type() != DataType::kInt8 || b->rank() != 2) {
      return info.Error("input 'B' (1) must be a constant int8 [K, N] matrix");
    }
    if (info.has_input(b_zp_index)) {
      const Tensor* z = info.ConstantInput(b_zp_index);
      const std::string what = "input 'b_zero_point' (" + std::to_string(b_zp_index) + ")";
      if (z == nullptr || z->type() != DataType::kInt8) return info.Error(what + " must be a constant int8 tensor");
      for (int64_t i = 0; i < z->size(); ++i) {
        if (z->data<int8_t>()[i] != 0) return info.Error(what + " must be all zeros");
      }
    }
    weights_ = *b;
    gemv_.Set(weights_.dim(0), weights_.dim(1), weights_.data<int8_t>());
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    const size_t b_scale_index = quantize_a_ ? 2 : 3, bias_index = quantize_a_ ? 4 : 6;
    ONYX_ASSIGN_OR_RETURN(const Tensor* a, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* b_scale, nn::OptionalTensorInput(ctx, b_scale_index));
    ONYX_ASSIGN_OR_RETURN(const Tensor* bias, nn::OptionalTensorInput(ctx, bias_index));
    const int64_t k = weights_.dim(0), n = weights_.dim(1);
    const DataType a_type = quantize_a_ ? DataType::kFloat : a->type();
    if ((a->type() != a_type ||
         (a_type != DataType::kFloat && a_type != DataType::kUint8 && a_type != DataType::kInt8)) ||
        a->rank() < 1 || a->shape().back() != k) {
      return InvalidArgument(std::string("input 'A' (0) must be ") + (quantize_a_ ? "float" : "uint8 or int8") +
                             " [..., " + std::to_string(k) + "], got " + std::string(DataTypeName(a->type())) + " " +
                             ShapeToString(a->shape()));
    }
    if (bias != nullptr && (bias->type() != DataType::kFloat || bias->size() != n)) {
      return InvalidArgument("input 'bias' (" + std::to_string(bias_index) + ") must be " + std::to_string(n) +
                             " float values");
    }
    const int64_t m = a->size() / k;
    // A's 8-bit values, zero point and scale: DynamicQuantizeLinear's, computed here, or the inputs.
    const void* a_data = a->raw();
    int32_t az = 0;
    // Per-thread buffers, reused from run to run (no heap traffic in steady state); Session::Run may be called from
    // several threads, each with its own.
    thread_local std::vector<float> scale_of_thread;
    thread_local std::vector<uint8_t> quantized_of_thread;
    std::vector<float>& scale = scale_of_thread;
    if (quantize_a_) {
      std::vector<uint8_t>& quantized = quantized_of_thread;
      if (quantized.size() < static_cast<size_t>(a->size())) quantized.resize(static_cast<size_t>(a->size()));
      const DynamicQuantized q = QuantizeDynamic(a->data<float>(), a->size(), quantized.data());
      ONYX_RETURN_IF_ERROR(Multiplier(&q.scale, 1, b_scale, b_scale_index, n, scale));
      a_data = quantized.data();
      az = q.zero_point;
    } else {
      ONYX_ASSIGN_OR_RETURN(const Tensor* a_scale, ctx.TensorInput(2));
      ONYX_ASSIGN_OR_RETURN(const Tensor* a_zp, nn::OptionalTensorInput(ctx, 4));
      if (a_zp != nullptr) {
        ONYX_RETURN_IF_ERROR(nn::CheckScalarParam(*a_zp, "input 'a_zero_point' (4)"));
        if (a_zp->type() != a->type()) return InvalidArgument("input 'a_zero_point' (4) has a different type than A");
        az = nn::Int32Values(*a_zp)[0];
      }
      if (a_scale->type() != DataType::kFloat) return InvalidArgument("input 'a_scale' (2) must be float");
      ONYX_RETURN_IF_ERROR(Multiplier(a_scale->data<float>(), a_scale->size(), b_scale, b_scale_index, n, scale));
    }
    const DataType q_type = quantize_a_ ? DataType::kUint8 : a_type;
    // A's shape with the last dim N, in a vector of the calling thread: no allocation per run.
    thread_local Shape out_shape_of_thread;
    Shape& out_shape = out_shape_of_thread;
    out_shape.assign(a->shape().begin(), a->shape().end());
    out_shape.back() = n;
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, out_shape);
    if (m == 0 || n == 0) return Status::Ok();
    float* out = y.data<float>();
    const bool per_column = scale.size() > 1;
    const float* b = bias != nullptr ? bias->data<float>() : nullptr;
    // The float tail on columns [n0, n1) of rows [m0, m1), their int32 sums in place: per element, so blocks give the
    // whole rows' values.
    auto tail = [&](int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
      for (int64_t r = m0; r < m1; ++r) {
        float* row = out + r * n + n0;
        ScaleBiasRow(row, n1 - n0, scale.data() + (per_column ? n0 : 0), per_column, b != nullptr ? b + n0 : nullptr);
        if (gelu_) kernels::Gelu(row, row, n1 - n0);
      }
    };
    if (k == 0) {
      std::memset(out, 0, static_cast<size_t>(m * n) * sizeof(float));  // int32 zeros
    } else if (const kernels::Int8Gemv* gemv = q_type == DataType::kUint8 ? gemv_.For(m) : nullptr) {
      // A decoder's step: one row (kernels/int8_gemv.h; the same sums as the primitive's).
      gemv->Run(m, static_cast<const uint8_t*>(a_data), k, az, reinterpret_cast<int32_t*>(out), ctx.num_threads());
    } else if (const std::shared_ptr<kernels::Int8MatMul> mm = Primitive(m, q_type, ctx.num_threads())) {
      // The tail on each block of sums as soon as it is final, while it is in cache (not a pass of its own over Y).
      const kernels::Int8BlockEpilogue epilogue = [&](int32_t*, int64_t, int64_t m0, int64_t m1, int64_t n0,
                                                      int64_t n1) { tail(m0, m1, n0, n1); };
      return mm->Run(m, a_data, az, reinterpret_cast<int32_t*>(out), &epilogue);
    } else {
      ParallelFor(m, k * n, [&](int64_t lo, int64_t hi) {
        if (q_type == DataType::kUint8) {
          ReferenceSums(static_cast<const uint8_t*>(a_data), az, weights_.data<int8_t>(), lo, hi, k, n, out);
        } else {
          ReferenceSums(static_cast<const int8_t*>(a_data), az, weights_.data<int8_t>(), lo, hi, k, n, out);
        }
      });
    }
    ParallelFor(m, n, [&](int64_t lo, int64_t hi) { tail(lo, hi, 0, n); });
    return Status::Ok();
  }

 private:
  // a_scale * b_scale[j] in float (as the Mul node of the unfused graph forms it), or a_scale alone without b_scale.
  // Into `scale`: a_scale * b_scale[j] in float (as the Mul node of the unfused graph forms it), or a_scale's values
  // alone without b_scale (then 1 or n of them).
  static Status Multiplier(const float* a_scale, int64_t a_count, const Tensor* b_scale, size_t b_scale_index,
                           int64_t n, std::vector<float>& scale) {
    if (b_scale == nullptr) {
      if (a_count != 1 && a_count != n) {
        return InvalidArgument("input 'a_scale' (2) without b_scale must hold 1 or " + std::to_string(n) +
                               " values, got " + std::to_string(a_count));
      }
      scale.assign(a_scale, a_scale + a_count);
      return Status::Ok();
    }
    if (a_count != 1) return InvalidArgument("input 'a_scale' (2) must hold one value");
    if (b_scale->type() != DataType::kFloat || (b_scale->size() != 1 && b_scale->size() != n)) {
      return InvalidArgument("input 'b_scale' (" + std::to_string(b_scale_index) + ") must be 1 or " +
                             std::to_string(n) + " float values, got " + ShapeToString(b_scale->shape()));
    }
    scale.resize(static_cast<size_t>(b_scale->size()));
    for (size_t j = 0; j < scale.size(); ++j) scale[j] = a_scale[0] * b_scale->data<float>()[j];
    return Status::Ok();
  }

  // The prepacked oneDNN product for `m` rows, or null where it does not apply.
  std::shared_ptr<kernels::Int8MatMul> Primitive(int64_t m, DataType a_type, int threads) {
    if (!kernels::Int8GemmUsable(a_type == DataType::kInt8)) return nullptr;
    return products_.Get(m, weights_.dim(0), weights_.dim(1), a_type == DataType::kInt8, weights_.data<int8_t>(),
                         threads);
  }

  bool quantize_a_ = false;  // DynamicQuantizeMatMul: A is float, quantized here as DynamicQuantizeLinear does
  bool gelu_ = false;        // activation "Gelu": the erf GELU on each output row
  Tensor weights_;
  kernels::Int8MatMulCache products_;
  kernels::LazyInt8Gemv gemv_;  // few-row products (kernels/int8_gemv.h)
};

}  // namespace

void RegisterMatMulIntegerToFloatOps(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, "MatMulIntegerToFloat", 1, kLatestVersion,
               MakeFactory<MatMulIntegerToFloatKernel>());
  registry.Add(ir::kInternalDomain, "DynamicQuantizeMatMul", 1, kLatestVersion,
               MakeFactory<MatMulIntegerToFloatKernel>());
  // ONNX Runtime's own names for the same operators (same inputs, same results): models it optimized carry them.
  registry.Add("com.microsoft", "MatMulIntegerToFloat", 1, kLatestVersion, MakeFactory<MatMulIntegerToFloatKernel>());
  registry.Add("com.microsoft", "DynamicQuantizeMatMul", 1, kLatestVersion,
               MakeFactory<MatMulIntegerToFloatKernel>());
}

}  // namespace onyx::ops::quant

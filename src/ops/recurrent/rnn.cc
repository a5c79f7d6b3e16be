// RNN, GRU and LSTM: one kernel whose driver (shapes, layout, directions, sequence_lens, optional inputs and
// outputs) is shared and whose per-step cell differs. Every version is covered: layout (batch-major X, initial
// states and outputs) exists from version 14 on; the version-1 `output_sequence` attribute is ignored because an
// omitted Y is already expressed by an empty output name.
//
// Gate pre-activations are computed as X*W^T (once for the whole sequence) + H*R^T (per step) + Wb + Rb, then
// clipped (when `clip` is set) and activated; LSTM also clips the cell state where it enters h(), as ONNX Runtime
// does, but keeps the state itself unclipped. Steps at or past a batch entry's sequence length leave its state
// unchanged and write zeros to Y, so Y_h / Y_c hold the state after the last valid step; for a zero length that is
// initial_h / initial_c, as in the ONNX reference implementation (ONNX Runtime writes zeros there). The reverse
// direction starts at each entry's own last valid step.
//
// com.microsoft DynamicQuantizeLSTM (ONNX Runtime's quantize_dynamic output for an LSTM) runs the same LSTM with its
// two products quantized as ONNX Runtime quantizes them: W [D, I, 4H] and R [D, H, 4H] (transposed against ONNX's)
// in 8 bits with W_scale/R_scale and zero points per direction or per column; each product's float operand (all of
// X once, H at each step) quantized to uint8 with the range of its values (0 included: scale (max - min) / 255, the
// zero point rounded), the exact int32 sums, each times a_scale * w_scale[j]. The gates then add in onyx's order
// (ONNX Runtime adds both biases first): within float rounding of ONNX Runtime, not bit for bit.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu_isa.h"
#include "kernels/dnnl_util.h"
#include "kernels/int8_gemm.h"
#include "kernels/int8_quantize.h"
#include "kernels/parallel_tasks.h"
#include "kernels/sgemm_packed.h"
#include "kernels/vector_math.h"
#include "ops/nn/gemm_kernel.h"
#include "ops/recurrent/recurrent_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::recurrent {
namespace {

enum class CellKind { kRnn, kGru, kLstm };

// Gates per cell (rows of W and R are num_gates * hidden_size) and activation functions per direction.
int NumGates(CellKind k) { return k == CellKind::kRnn ? 1 : (k == CellKind::kGru ? 3 : 4); }
int NumActivations(CellKind k) { return k == CellKind::kRnn ? 1 : (k == CellKind::kGru ? 2 : 3); }

enum class ActKind {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus
};

// One direction's 8-bit weight matrix of DynamicQuantizeLSTM: [k, n] row-major (n = 4 * hidden).
struct QuantMatrix {
  const void* data = nullptr;
  bool is_signed = true;
  int64_t k = 0, n = 0;
  std::vector<float> scales;  // 1 or n
  int32_t zero_point = 0;     // one value (ONNX Runtime requires int8 zero points 0 and uint8 ones constant)
};

// out[m, n] = dequantized(quantize(a[m, k])) x w as ONNX Runtime's quantized RNN products compute it (see the top).
void QuantizedProduct(const float* a, int64_t m, const QuantMatrix& w, float* out, int threads) {
  const int64_t k = w.k, n = w.n;
  float lo = 0, hi = 0;
  kernels::MinMaxWithZero(a, m * k, &lo, &hi);
  const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  const float zp_f = std::max(0.0f, std::min(255.0f, 0.0f - lo / scale));
  const auto zp = static_cast<uint8_t>(std::nearbyint(zp_f));
  std::vector<uint8_t> aq(static_cast<size_t>(m * k));
  kernels::QuantizeFloat<uint8_t>(a, m * k, scale, zp, zp, aq.data());
  auto* acc = reinterpret_cast<int32_t*>(out);  // int32 and float have the same size: the sums in place
  kernels::GemmU8ByWeights(m, n, k, aq.data(), zp, w.data, w.is_signed, w.zero_point, acc, threads);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const float mult = scale * w.scales[w.scales.size() == 1 ? 0 : static_cast<size_t>(j)];
      out[i * n + j] = static_cast<float>(acc[i * n + j]) * mult;
    }
  }
}

struct Activation {
  ActKind kind = ActKind::kTanh;
  float alpha = 0.0f;
  float beta = 0.0f;

  template <typename CT>
  CT operator()(CT x) const {
    const CT a = static_cast<CT>(alpha);
    const CT b = static_cast<CT>(beta);
    switch (kind) {
      case ActKind::kRelu:
        return x > CT(0) ? x : CT(0);
      case ActKind::kTanh:
        return std::tanh(x);
      case ActKind::kSigmoid:
        return CT(1) / (CT(1) + std::exp(-x));
      case ActKind::kAffine:
        return a * x + b;
      case ActKind::kLeakyRelu:
        return x >= CT(0) ? x : a * x;
      case ActKind::kThresholdedRelu:
        return x > a ? x : CT(0);
      case ActKind::kScaledTanh:
        return a * std::tanh(b * x);
      case ActKind::kHardSigmoid:
        return std::max(CT(0), std::min(CT(1), a * x + b));
      case ActKind::kElu:
        return x >= CT(0) ? x : a * (std::exp(x) - CT(1));
      case ActKind::kSoftsign:
        return x / (CT(1) + std::abs(x));
      case ActKind::kSoftplus:
        return x > CT(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    }
    return x;
  }

  // The function over a contiguous span, in place: vector_math's array kernels where one exists for it.
  template <typename CT>
  void Apply(CT* v, int64_t n) const {
    if constexpr (std::is_same_v<CT, float>) {
      switch (kind) {
        case ActKind::kSigmoid:
          kernels::Sigmoid(v, v, n);
          return;
        case ActKind::kTanh:
          kernels::Tanh(v, v, n);
          return;
        case ActKind::kLeakyRelu:  // x >= 0 ? x : alpha x, the same values (-0 and NaN included)
          kernels::LeakyRelu(v, v, n, alpha);
          return;
        case ActKind::kScaledTanh:
          for (int64_t i = 0; i < n; ++i) v[i] *= beta;
          kernels::Tanh(v, v, n);
          for (int64_t i = 0; i < n; ++i) v[i] *= alpha;
          return;
        default:
          break;
      }
    }
    for (int64_t i = 0; i < n; ++i) v[i] = (*this)(v[i]);
  }
};

struct ActSpec {
  const char* name;  // lower case
  ActKind kind;
  int num_params;  // 0: none, 1: alpha, 2: alpha and beta
  float default_alpha;
  float default_beta;
};

// Defaults are those of the ONNX operators of the same names.
constexpr ActSpec kActSpecs[] = {
    {"relu", ActKind::kRelu, 0, 0.0f, 0.0f},
    {"tanh", ActKind::kTanh, 0, 0.0f, 0.0f},
    {"sigmoid", ActKind::kSigmoid, 0, 0.0f, 0.0f},
    {"affine", ActKind::kAffine, 2, 1.0f, 0.0f},
    {"leakyrelu", ActKind::kLeakyRelu, 1, 0.01f, 0.0f},
    {"thresholdedrelu", ActKind::kThresholdedRelu, 1, 1.0f, 0.0f},
    {"scaledtanh", ActKind::kScaledTanh, 2, 1.0f, 1.0f},
    {"hardsigmoid", ActKind::kHardSigmoid, 2, 0.2f, 0.5f},
    {"elu", ActKind::kElu, 1, 1.0f, 0.0f},
    {"softsign", ActKind::kSoftsign, 0, 0.0f, 0.0f},
    {"softplus", ActKind::kSoftplus, 0, 0.0f, 0.0f},
};

const char* CellName(CellKind k) { return k == CellKind::kRnn ? "RNN" : (k == CellKind::kGru ? "GRU" : "LSTM"); }

template <typename T>
std::vector<ComputeType<T>> ToCompute(const Tensor& t) {
  std::vector<ComputeType<T>> out(static_cast<size_t>(t.size()));
  const T* p = t.data<T>();
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<ComputeType<T>>(p[i]);
  return out;
}

template <typename T>
T FromCompute(ComputeType<T> v) {
  if constexpr (std::is_same_v<T, ComputeType<T>>) {
    return v;
  } else {
    return T(v);
  }
}

// The sizes of one run, in time-major terms.
struct Dims {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 0, gates = 0;
};

// One direction's prepacked products (RecurrentKernel::PackConstantWeights): W^T [I, G*H], R^T [H, G*H], and GRU's
// R_h^T [H, H] where linear_before_reset is 0.
struct PackedDirection {
  std::unique_ptr<kernels::PackedSgemm> w, r, r_hidden;
};

class RecurrentKernel : public OpKernel {
 public:
  explicit RecurrentKernel(CellKind kind, bool quantized = false) : kind_(kind), quantized_(quantized) {}

  Status Init(const KernelInfo& info) override {
    const std::string direction = info.GetString("direction", "forward");
    if (direction == "forward") {
      num_dirs_ = 1;
    } else if (direction == "reverse") {
      num_dirs_ = 1;
      reverse_first_ = true;
    } else if (direction == "bidirectional") {
      num_dirs_ = 2;
    } else {
      return info.Error("attribute 'direction' is '" + direction + "', expected forward, reverse or bidirectional");
    }
    hidden_size_ = info.GetInt("hidden_size", -1);
    if (info.HasAttribute("hidden_size") && hidden_size_ <= 0) {
      return info.Error("attribute 'hidden_size' is " + std::to_string(hidden_size_) + ", expected > 0");
    }
    if (info.HasAttribute("clip")) {
      clip_ = info.GetFloat("clip", 0.0f);
      if (!(clip_ > 0.0f)) return info.Error("attribute 'clip' is " + std::to_string(clip_) + ", expected > 0");
      has_clip_ = true;
    }
    layout_ = info.since_version() >= 14 ? info.GetInt("layout", 0) : 0;
    if (layout_ != 0 && layout_ != 1) {
      return info.Error("attribute 'layout' is " + std::to_string(layout_) + ", expected 0 or 1");
    }
    linear_before_reset_ = kind_ == CellKind::kGru && info.GetInt("linear_before_reset", 0) != 0;
    input_forget_ = kind_ == CellKind::kLstm && info.GetInt("input_forget", 0) != 0;
    ONYX_RETURN_IF_ERROR(ParseActivations(info));
    if (!quantized_) PackConstantWeights(info);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    if (quantized_) return ComputeQuantized(ctx);
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* r, ctx.TensorInput(2));
    const Tensor* b = nullptr;
    const Tensor* seq_lens = nullptr;
    const Tensor* init_h = nullptr;
    const Tensor* init_c = nullptr;
    const Tensor* p = nullptr;
    ONYX_RETURN_IF_ERROR(Optional(ctx, 3, &b));
    ONYX_RETURN_IF_ERROR(Optional(ctx, 4, &seq_lens));
    ONYX_RETURN_IF_ERROR(Optional(ctx, 5, &init_h));
    if (kind_ == CellKind::kLstm) {
      ONYX_RETURN_IF_ERROR(Optional(ctx, 6, &init_c));
      ONYX_RETURN_IF_ERROR(Optional(ctx, 7, &p));
    }

    Dims d;
    if (x->rank() != 3) return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected rank 3");
    d.seq = layout_ == 0 ? x->dim(0) : x->dim(1);
    d.batch = layout_ == 0 ? x->dim(1) : x->dim(0);
    d.input = x->dim(2);
    d.dirs = num_dirs_;
    d.gates = NumGates(kind_);
    if (r->rank() != 3) return InvalidArgument("input 'R' (2) has shape " + ShapeToString(r->shape()) + ", expected rank 3");
    d.hidden = r->dim(2);
    if (hidden_size_ > 0 && hidden_size_ != d.hidden) {
      return InvalidArgument("attribute 'hidden_size' is " + std::to_string(hidden_size_) + " but input 'R' (2) has shape " +
                             ShapeToString(r->shape()));
    }
    const int64_t gh = d.gates * d.hidden;
    ONYX_RETURN_IF_ERROR(CheckShape(*w, "W", 1, {d.dirs, gh, d.input}, x->type()));
    ONYX_RETURN_IF_ERROR(CheckShape(*r, "R", 2, {d.dirs, gh, d.hidden}, x->type()));
    if (b != nullptr) ONYX_RETURN_IF_ERROR(CheckShape(*b, "B", 3, {d.dirs, 2 * gh}, x->type()));
    const Shape state_shape = layout_ == 0 ? Shape{d.dirs, d.batch, d.hidden} : Shape{d.batch, d.dirs, d.hidden};
    if (init_h != nullptr) ONYX_RETURN_IF_ERROR(CheckShape(*init_h, "initial_h", 5, state_shape, x->type()));
    if (init_c != nullptr) ONYX_RETURN_IF_ERROR(CheckShape(*init_c, "initial_c", 6, state_shape, x->type()));
    if (p != nullptr) ONYX_RETURN_IF_ERROR(CheckShape(*p, "P", 7, {d.dirs, 3 * d.hidden}, x->type()));
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> lens, SequenceLens(seq_lens, d));

    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      return Run<T>(ctx, d, lens, *x, *w, *r, b, init_h, init_c, p);
    });
  }

  // DynamicQuantizeLSTM: inputs X, W [D, I, 4H] and R [D, H, 4H] (uint8 or int8), B, sequence_lens, initial_h,
  // initial_c, P as LSTM's, then W_scale, W_zero_point, R_scale, R_zero_point ([D] or [D, 4H]).
  Status ComputeQuantized(KernelContext& ctx) {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* r, ctx.TensorInput(2));
    const Tensor *b = nullptr, *seq_lens = nullptr, *init_h = nullptr, *init_c = nullptr, *p = nullptr;
    ONYX_RETURN_IF_ERROR(Optional(ctx, 3, &b));
    ONYX_RETURN_IF_ERROR(Optional(ctx, 4, &seq_lens));
    ONYX_RETURN_IF_ERROR(Optional(ctx, 5, &init_h));
    ONYX_RETURN_IF_ERROR(Optional(ctx, 6, &init_c));
    ONYX_RETURN_IF_ERROR(Optional(ctx, 7, &p));
    if (x->type() != DataType::kFloat || x->rank() != 3) {
      return InvalidArgument("input 'X' (0) must be float [S, B, I], got " + std::string(DataTypeName(x->type())) +
                             " " + ShapeToString(x->shape()));
    }
    Dims d;
    d.seq = x->dim(0);
    d.batch = x->dim(1);
    d.input = x->dim(2);
    d.dirs = num_dirs_;
    d.gates = 4;
    if (r->rank() != 3)
      return InvalidArgument("input 'R' (2) has shape " + ShapeToString(r->shape()) + ", expected rank 3");
    d.hidden = r->dim(1);
    const int64_t gh = 4 * d.hidden;
    std::vector<QuantMatrix> qw(static_cast<size_t>(d.dirs)), qr(static_cast<size_t>(d.dirs));
    for (int which = 0; which < 2; ++which) {
      const Tensor& m = which == 0 ? *w : *r;
      const char* name = which == 0 ? "W" : "R";
      const int64_t k = which == 0 ? d.input : d.hidden;
      if ((m.type() != DataType::kInt8 && m.type() != DataType::kUint8) || m.shape() != Shape{d.dirs, k, gh}) {
        return InvalidArgument("input '" + std::string(name) + "' (" + std::to_string(which + 1) + ") is " +
                               std::string(DataTypeName(m.type())) + " " + ShapeToString(m.shape()) +
                               ", expected uint8 or int8 " + ShapeToString(Shape{d.dirs, k, gh}));
      }
      ONYX_ASSIGN_OR_RETURN(const Tensor* scale, ctx.TensorInput(8 + 2 * which));
      ONYX_ASSIGN_OR_RETURN(const Tensor* zp, ctx.TensorInput(9 + 2 * which));
      const bool per_column = scale->rank() == 2;
      if (scale->type() != DataType::kFloat ||
          (scale->shape() != Shape{d.dirs} && scale->shape() != Shape{d.dirs, gh})) {
        return InvalidArgument("input '" + std::string(name) + "_scale' (" + std::to_string(8 + 2 * which) +
                               ") has shape " + ShapeToString(scale->shape()) + ", expected [" +
                               std::to_string(d.dirs) + "] or [" + std::to_string(d.dirs) + ", " + std::to_string(gh) +
                               "]");
      }
      if (zp->type() != m.type() || zp->size() != scale->size()) {
        return InvalidArgument("input '" + std::string(name) + "_zero_point' (" + std::to_string(9 + 2 * which) +
                               ") must have the weights' type and the scale's shape");
      }
      const int64_t per_dir = per_column ? gh : 1;
      for (int64_t dir = 0; dir < d.dirs; ++dir) {
        QuantMatrix& q = (which == 0 ? qw : qr)[static_cast<size_t>(dir)];
        q.is_signed = m.type() == DataType::kInt8;
        q.k = k;
        q.n = gh;
        q.data = static_cast<const uint8_t*>(m.raw()) + dir * k * gh;
        q.scales.assign(scale->data<float>() + dir * per_dir, scale->data<float>() + (dir + 1) * per_dir);
        const int64_t z0 = zp->IntAt(dir * per_dir);
        for (int64_t j = 1; j < per_dir; ++j) {
          if (zp->IntAt(dir * per_dir + j) != z0) {
            return InvalidArgument("input '" + std::string(name) + "_zero_point' (" + std::to_string(9 + 2 * which) +
                                   ") must be one value per direction (ONNX Runtime's kernel requires it too)");
          }
        }
        q.zero_point = static_cast<int32_t>(z0);
      }
    }
    if (b != nullptr) ONYX_RETURN_IF_ERROR(CheckShape(*b, "B", 3, {d.dirs, 2 * gh}, DataType::kFloat));
    const Shape state_shape{d.dirs, d.batch, d.hidden};
    if (init_h != nullptr) ONYX_RETURN_IF_ERROR(CheckShape(*init_h, "initial_h", 5, state_shape, DataType::kFloat));
    if (init_c != nullptr) ONYX_RETURN_IF_ERROR(CheckShape(*init_c, "initial_c", 6, state_shape, DataType::kFloat));
    if (p != nullptr) ONYX_RETURN_IF_ERROR(CheckShape(*p, "P", 7, {d.dirs, 3 * d.hidden}, DataType::kFloat));
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> lens, SequenceLens(seq_lens, d));
    return Run<float>(ctx, d, lens, *x, *w, *r, b, init_h, init_c, p, &qw, &qr);
  }

 private:
  static Status Optional(const KernelContext& ctx, size_t i, const Tensor** out) {
    *out = nullptr;
    if (!ctx.has_input(i)) return Status::Ok();
    ONYX_ASSIGN_OR_RETURN(*out, ctx.TensorInput(i));
    return Status::Ok();
  }

  // Each batch entry's length: sequence_lens' values (checked to lie in [0, seq]) or the whole sequence.
  static Result<std::vector<int64_t>> SequenceLens(const Tensor* seq_lens, const Dims& d) {
    std::vector<int64_t> lens(static_cast<size_t>(d.batch), d.seq);
    if (seq_lens == nullptr) return lens;
    if (!IsInteger(seq_lens->type()) || seq_lens->shape() != Shape{d.batch}) {
      return InvalidArgument("input 'sequence_lens' (4) is " + std::string(DataTypeName(seq_lens->type())) + " " +
                             ShapeToString(seq_lens->shape()) + ", expected an integer tensor of shape [" +
                             std::to_string(d.batch) + "]");
    }
    for (int64_t i = 0; i < d.batch; ++i) {
      lens[static_cast<size_t>(i)] = seq_lens->IntAt(i);
      if (lens[static_cast<size_t>(i)] < 0 || lens[static_cast<size_t>(i)] > d.seq) {
        return InvalidArgument("input 'sequence_lens' (4) holds " + std::to_string(lens[static_cast<size_t>(i)]) +
                               " at " + std::to_string(i) + ", outside [0, " + std::to_string(d.seq) + "]");
      }
    }
    return lens;
  }

  static Status CheckShape(const Tensor& t, const char* name, int index, const Shape& expected, DataType type) {
    if (t.type() != type) {
      return InvalidArgument("input '" + std::string(name) + "' (" + std::to_string(index) + ") is " +
                             std::string(DataTypeName(t.type())) + ", expected " + std::string(DataTypeName(type)) +
                             " like X");
    }
    if (t.shape() != expected) {
      return InvalidArgument("input '" + std::string(name) + "' (" + std::to_string(index) + ") has shape " +
                             ShapeToString(t.shape()) + ", expected " + ShapeToString(expected));
    }
    return Status::Ok();
  }

  // The per-direction products X * W^T and H * R^T (and GRU's (r . H) * R_h^T) on weights packed once, where W and R
  // are float session constants (initializers, as exported models have them): the per-step product is small (batch
  // rows) and oneDNN's sgemm packed R again at every step of the sequence.
  void PackConstantWeights(const KernelInfo& info) {
    const Tensor* w = info.ConstantInput(1);
    const Tensor* r = info.ConstantInput(2);
    if (w == nullptr || r == nullptr || w->type() != DataType::kFloat || r->type() != DataType::kFloat ||
        w->rank() != 3 || r->rank() != 3 || w->dim(0) != num_dirs_ || r->dim(0) != num_dirs_) {
      return;
    }
    const int64_t H = r->dim(2), GH = NumGates(kind_) * H, I = w->dim(2);
    if (H <= 0 || I <= 0 || r->dim(1) != GH || w->dim(1) != GH) return;
    std::vector<float> t;
    auto transposed = [&t](const float* m, int64_t rows, int64_t cols) {  // [rows, cols] -> [cols, rows]
      t.resize(static_cast<size_t>(rows * cols));
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) t[static_cast<size_t>(j * rows + i)] = m[i * cols + j];
      return t.data();
    };
    constexpr auto kNone = kernels::MatMulActivation::kNone;
    for (int64_t dir = 0; dir < num_dirs_; ++dir) {
      const float* wd = w->data<float>() + dir * GH * I;
      const float* rd = r->data<float>() + dir * GH * H;
      packed_.push_back(PackedDirection{
          std::make_unique<kernels::PackedSgemm>(I, GH, transposed(wd, GH, I), nullptr, kNone),
          std::make_unique<kernels::PackedSgemm>(H, RecurrentColumns(H), transposed(rd, RecurrentColumns(H), H),
                                                 nullptr, kNone),
          SeparateHiddenProduct()
              ? std::make_unique<kernels::PackedSgemm>(H, H, transposed(rd + 2 * H * H, H, H), nullptr, kNone)
              : nullptr});
    }
  }

  Status ParseActivations(const KernelInfo& info) {
    const int per_dir = NumActivations(kind_);
    std::vector<std::string> names = info.GetStrings("activations");
    if (names.empty()) {
      if (kind_ == CellKind::kRnn) names = {"Tanh"};
      if (kind_ == CellKind::kGru) names = {"Sigmoid", "Tanh"};
      if (kind_ == CellKind::kLstm) names = {"Sigmoid", "Tanh", "Tanh"};
    }
    // One direction's list for a bidirectional node applies to both, as in ONNX Runtime.
    if (num_dirs_ == 2 && static_cast<int>(names.size()) == per_dir) {
      for (int i = 0; i < per_dir; ++i) names.push_back(names[static_cast<size_t>(i)]);
    }
    if (static_cast<int>(names.size()) != per_dir * num_dirs_) {
      return info.Error("attribute 'activations' has " + std::to_string(names.size()) + " entries, expected " +
                        std::to_string(per_dir * num_dirs_) + " (" + std::to_string(per_dir) + " per direction for " +
                        CellName(kind_) + ")");
    }
    const std::vector<float> alphas = info.GetFloats("activation_alpha");
    const std::vector<float> betas = info.GetFloats("activation_beta");
    size_t next_alpha = 0;
    size_t next_beta = 0;
    // Alphas and betas are consumed in order by the functions that take them (as ONNX Runtime reads them).
    for (const std::string& name : names) {
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const ActSpec* spec = nullptr;
      for (const ActSpec& s : kActSpecs) {
        if (lower == s.name) spec = &s;
      }
      if (spec == nullptr) return info.Error("attribute 'activations' names unknown function '" + name + "'");
      Activation act;
      act.kind = spec->kind;
      act.alpha = spec->default_alpha;
      act.beta = spec->default_beta;
      if (spec->num_params >= 1 && next_alpha < alphas.size()) act.alpha = alphas[next_alpha++];
      if (spec->num_params >= 2 && next_beta < betas.size()) act.beta = betas[next_beta++];
      activations_.push_back(act);
    }
    return Status::Ok();
  }

  // qw, qr (DynamicQuantizeLSTM): each direction's 8-bit W and R, which then replace w and r.
  template <typename T>
  Status Run(KernelContext& ctx, const Dims& d, const std::vector<int64_t>& lens, const Tensor& x, const Tensor& w,
             const Tensor& r, const Tensor* b, const Tensor* init_h, const Tensor* init_c, const Tensor* p,
             const std::vector<QuantMatrix>* qw = nullptr, const std::vector<QuantMatrix>* qr = nullptr) const {
    using CT = ComputeType<T>;
    const int64_t S = d.seq, B = d.batch, I = d.input, H = d.hidden, D = d.dirs, G = d.gates;
    const bool batch_major = layout_ == 1;

    // Time-major copies: x_tm [S, B, I]; states [D, B, H].
    std::vector<CT> x_tm(static_cast<size_t>(S * B * I));
    {
      const T* px = x.data<T>();
      for (int64_t s = 0; s < S; ++s)
        for (int64_t n = 0; n < B; ++n)
          for (int64_t i = 0; i < I; ++i)
            x_tm[static_cast<size_t>((s * B + n) * I + i)] =
                static_cast<CT>(px[batch_major ? (n * S + s) * I + i : (s * B + n) * I + i]);
    }
    auto load_state = [&](const Tensor* t) {
      std::vector<CT> out(static_cast<size_t>(D * B * H), CT(0));
      if (t == nullptr) return out;
      const T* pt = t->data<T>();
      for (int64_t dir = 0; dir < D; ++dir)
        for (int64_t n = 0; n < B; ++n)
          for (int64_t h = 0; h < H; ++h)
            out[static_cast<size_t>((dir * B + n) * H + h)] =
                static_cast<CT>(pt[batch_major ? (n * D + dir) * H + h : (dir * B + n) * H + h]);
      return out;
    };
    std::vector<CT> h_state = load_state(init_h);
    std::vector<CT> c_state = load_state(init_c);
    // W, R, B and P as CT: the tensors' own data where T is CT, else converted copies (the 8-bit W and R of
    // DynamicQuantizeLSTM are read through qw / qr instead).
    std::vector<CT> w_copy, r_copy, b_copy, p_copy;
    auto as_compute = [](const Tensor& t, std::vector<CT>& copy) -> const CT* {
      if constexpr (std::is_same_v<T, CT>) {
        return t.data<T>();
      } else {
        copy = ToCompute<T>(t);
        return copy.data();
      }
    };
    const CT* wv = qw != nullptr ? nullptr : as_compute(w, w_copy);
    const CT* rv = qr != nullptr ? nullptr : as_compute(r, r_copy);
    if (b == nullptr) b_copy.assign(static_cast<size_t>(D * 2 * G * H), CT(0));
    const CT* bv = b != nullptr ? as_compute(*b, b_copy) : b_copy.data();
    const CT* pv = p != nullptr ? as_compute(*p, p_copy) : nullptr;

    std::vector<CT> y(static_cast<size_t>(S * D * B * H), CT(0));  // time-major [S, D, B, H]
    // The two directions of a bidirectional layer never interact: with two threads or more each runs its whole
    // sequence on its own share of them, with no fork and join per step (each direction's state, its rows of y).
    const int threads = ctx.num_threads();
    const int direction_teams = D == 2 && threads >= 2 ? 2 : 1;
    kernels::RunTasks(D, direction_teams, [&](int64_t dir) {
      const bool reverse = dir == 1 || reverse_first_;
      RunDirection<CT>(d, lens, reverse, dir, x_tm, wv != nullptr ? wv + dir * G * H * I : nullptr,
                       rv != nullptr ? rv + dir * G * H * H : nullptr, bv + dir * 2 * G * H,
                       pv != nullptr ? pv + dir * 3 * H : nullptr, h_state.data() + dir * B * H,
                       c_state.data() + dir * B * H, y, qw != nullptr ? &(*qw)[static_cast<size_t>(dir)] : nullptr,
                       qr != nullptr ? &(*qr)[static_cast<size_t>(dir)] : nullptr, threads / direction_teams,
                       Packed<CT>(dir, d));
    });

    const size_t num_out = ctx.num_outputs();
    if (num_out > 0) {
      const Shape y_shape = batch_major ? Shape{B, S, D, H} : Shape{S, D, B, H};
      T* py = ctx.AllocateOutput(0, x.type(), y_shape).template data<T>();
      for (int64_t s = 0; s < S; ++s)
        for (int64_t dir = 0; dir < D; ++dir)
          for (int64_t n = 0; n < B; ++n)
            for (int64_t h = 0; h < H; ++h) {
              const int64_t dst = batch_major ? ((n * S + s) * D + dir) * H + h : ((s * D + dir) * B + n) * H + h;
              py[dst] = FromCompute<T>(y[static_cast<size_t>(((s * D + dir) * B + n) * H + h)]);
            }
    }
    auto store_state = [&](size_t index, const std::vector<CT>& state) {
      const Shape shape = batch_major ? Shape{B, D, H} : Shape{D, B, H};
      T* po = ctx.AllocateOutput(index, x.type(), shape).template data<T>();
      for (int64_t dir = 0; dir < D; ++dir)
        for (int64_t n = 0; n < B; ++n)
          for (int64_t h = 0; h < H; ++h)
            po[batch_major ? (n * D + dir) * H + h : (dir * B + n) * H + h] =
                FromCompute<T>(state[static_cast<size_t>((dir * B + n) * H + h)]);
    };
    if (num_out > 1) store_state(1, h_state);
    if (num_out > 2 && kind_ == CellKind::kLstm) store_state(2, c_state);
    return Status::Ok();
  }

  // GRU without linear_before_reset multiplies R_h by r . H_{t-1}, a product of its own after the gates z and r.
  bool SeparateHiddenProduct() const { return kind_ == CellKind::kGru && !linear_before_reset_; }
  // Columns of the packed per-step product H * R^T: every gate's, except R_h's where that product is separate.
  int64_t RecurrentColumns(int64_t hidden) const { return (SeparateHiddenProduct() ? 2 : NumGates(kind_)) * hidden; }

  // Direction dir's prepacked products where they exist for this run's sizes (float, constant W and R), else null.
  template <typename CT>
  const PackedDirection* Packed(int64_t dir, const Dims& d) const {
    if (!std::is_same_v<CT, float> || packed_.size() != static_cast<size_t>(d.dirs)) return nullptr;
    const PackedDirection& p = packed_[static_cast<size_t>(dir)];
    const bool fits = p.w->k() == d.input && p.r->k() == d.hidden && p.r->n() == RecurrentColumns(d.hidden);
    return fits ? &p : nullptr;
  }

  // Runs one direction over the whole sequence, updating h / c ([B, H], initial states on entry) in place and
  // writing its slice of y ([S, D, B, H]).
  template <typename CT>
  void RunDirection(const Dims& d, const std::vector<int64_t>& lens, bool reverse, int64_t dir,
                    const std::vector<CT>& x_tm, const CT* w, const CT* r, const CT* bias, const CT* peep, CT* h, CT* c,
                    std::vector<CT>& y, const QuantMatrix* qw, const QuantMatrix* qr, int threads,
                    const PackedDirection* packed) const {
    const int64_t S = d.seq, B = d.batch, I = d.input, H = d.hidden, GH = d.gates * d.hidden;
    if (S == 0 || B == 0 || H == 0) return;
    // X * W^T for every step at once: [S*B, G*H].
    std::vector<CT> xw(static_cast<size_t>(S * B * GH));
    if constexpr (std::is_same_v<CT, float>) {  // 8-bit W (DynamicQuantizeLSTM), else W packed at creation
      if (qw != nullptr) {
        QuantizedProduct(x_tm.data(), S * B, *qw, xw.data(), threads);
      } else if (packed != nullptr) {
        packed->w->Run(S * B, x_tm.data(), xw.data(), kernels::PrimitiveThreads(2 * S * B * GH * I, threads));
      }
    }
    if (qw == nullptr && packed == nullptr) {
      nn::Gemm<CT>(false, true, S * B, GH, I, CT(1), x_tm.data(), I, w, I, CT(0), xw.data(), GH);
    }
    // Batch entries never interact: each thread can run the whole sequence for a group of them, with no fork and
    // join per step, where every group's pass over R stays in its core's L2 (each group reads all of R at every
    // step). Not for DynamicQuantizeLSTM: its per-step quantization takes the range of the whole batch's H.
    const int64_t r_bytes = GH * H * static_cast<int64_t>(sizeof(CT));
    const int64_t groups = qr == nullptr && B >= 2 && r_bytes <= kernels::L2CacheBytes() / 2 &&
                                   kernels::PrimitiveThreads(2 * S * B * GH * H, threads) > 1
                               ? std::min<int64_t>(threads, B)
                               : 1;
    // Otherwise the per-step products take the threads where a step has the work (or streams the weights) for it.
    const int step_threads = groups > 1 ? 1 : kernels::PrimitiveThreads(2 * B * GH * H, threads, r_bytes);
    kernels::RunTasks(groups, static_cast<int>(groups), [&](int64_t group) {
      const int64_t n0 = group * B / groups, n1 = (group + 1) * B / groups;
      RunRows<CT>(d, lens, reverse, dir, n0, n1, xw, r, bias, peep, h, c, y, qr, threads, step_threads, packed);
    });
  }

  // Steps of one direction for batch entries [n0, n1), given X * W^T for all steps (xw, [S, B, G*H]): updates their
  // h / c rows and writes their rows of y.
  template <typename CT>
  void RunRows(const Dims& d, const std::vector<int64_t>& lens, bool reverse, int64_t dir, int64_t n0, int64_t n1,
               const std::vector<CT>& xw, const CT* r, const CT* bias, const CT* peep, CT* h_all, CT* c_all,
               std::vector<CT>& y, const QuantMatrix* qr, int threads, int step_threads,
               const PackedDirection* packed) const {
    const int64_t S = d.seq, H = d.hidden, D = d.dirs, GH = d.gates * H, B = n1 - n0, batch = d.batch;
    const Activation* act = activations_.data() + dir * NumActivations(kind_);
    auto ClipSpan = [&](CT* v, int64_t count) {
      if (!has_clip_) return;
      const CT lim = static_cast<CT>(clip_);
      for (int64_t j = 0; j < count; ++j) v[j] = std::max(-lim, std::min(lim, v[j]));
    };
    const CT* wb = bias;       // [G*H]
    const CT* rb = bias + GH;  // [G*H]
    CT* h = h_all + n0 * H;    // this group's rows of the states
    CT* c = c_all + n0 * H;
    std::vector<CT> hr(static_cast<size_t>(B * GH));  // H_{t-1} * R^T
    // hr's row stride: the packed product's columns (GRU's separate R_h product leaves its gate out), else G * H.
    const int64_t hr_ld = packed != nullptr ? packed->r->n() : GH;
    std::vector<CT> h_new(static_cast<size_t>(B * H));
    std::vector<CT> c_new(static_cast<size_t>(B * H));
    std::vector<CT> rh, rh_r;  // GRU scratch
    if (kind_ == CellKind::kGru) {
      rh.resize(static_cast<size_t>(B * H));
      rh_r.resize(static_cast<size_t>(B * H));
    }

    // One batch entry with the packed product and several threads for it: the steps run inside one parallel region,
    // each thread computing its share of the product's columns (RunRowPart) and the gates of its share of the hidden
    // units, with barriers between the phases, instead of a fork and join around every step's product and the gates
    // on one thread. The same sums and per-element operations (vector_math's results do not depend on where a value
    // lies in its span), so the same bits.
    bool in_region = false;
    if constexpr (std::is_same_v<CT, float>) {
      in_region = packed != nullptr && qr == nullptr && B == 1 && step_threads > 1 && !omp_in_parallel();
    }
    auto steps = [&](int part, int parts, const auto& barrier) {
      const int64_t j0 = part * H / parts, j1 = (part + 1) * H / parts, units = j1 - j0;
      for (int64_t step = 0; step < S; ++step) {
        const int64_t t = reverse ? S - 1 - step : step;
        const CT* xw_t = xw.data() + (t * batch + n0) * GH;
        if constexpr (std::is_same_v<CT, float>) {  // as X * W^T above
          if (qr != nullptr) {
            QuantizedProduct(h, B, *qr, hr.data(), threads);
          } else if (packed != nullptr && parts > 1) {
            packed->r->RunRowPart(h, hr.data(), part, parts);
            barrier();
          } else if (packed != nullptr) {
            packed->r->Run(B, h, hr.data(), step_threads);
          }
        }
        if (qr == nullptr && packed == nullptr)
          nn::Gemm<CT>(false, true, B, GH, H, CT(1), h, H, r, H, CT(0), hr.data(), GH);
        // Pre-activations in place of hr, row by row, summed as xw + hr + wb + rb; then each gate's span of this
        // thread's units (contiguous per row) is clipped and activated at once: the array kernels of vector_math for
        // the usual sigmoid and tanh, where a call per value cost ~10x the products of a step.
        auto sum_gate = [&](CT* g, const CT* xg, int64_t gate) {
          const int64_t o = gate * H;
          for (int64_t j = j0; j < j1; ++j) g[o + j] = xg[o + j] + g[o + j] + wb[o + j] + rb[o + j];
        };
        auto activate = [&](CT* v, const Activation& a) {
          ClipSpan(v + j0, units);
          a.Apply(v + j0, units);
        };
        switch (kind_) {
          case CellKind::kRnn:
            for (int64_t n = 0; n < B; ++n) {
              CT* g = hr.data() + n * hr_ld;
              sum_gate(g, xw_t + n * GH, 0);
              activate(g, act[0]);
              std::copy(g + j0, g + j1, h_new.data() + n * H + j0);
            }
            break;
          case CellKind::kGru: {
            // Gate order in W, R and B: z (update), r (reset), h (hidden); z and r are adjacent in each row.
            for (int64_t n = 0; n < B; ++n) {
              CT* g = hr.data() + n * hr_ld;
              const CT* xg = xw_t + n * GH;
              sum_gate(g, xg, 0);
              sum_gate(g, xg, 1);
              activate(g, act[0]);
              activate(g + H, act[0]);
              if (!linear_before_reset_) {
                const CT* hn = h + n * H;
                for (int64_t j = j0; j < j1; ++j) rh[static_cast<size_t>(n * H + j)] = g[H + j] * hn[j];
              }
            }
            if (!linear_before_reset_) {
              if constexpr (std::is_same_v<CT, float>) {
                if (packed != nullptr && parts > 1) {
                  barrier();  // every unit's r . H_{t-1} before the product reads them
                  packed->r_hidden->RunRowPart(rh.data(), rh_r.data(), part, parts);
                  barrier();
                } else if (packed != nullptr) {
                  packed->r_hidden->Run(B, rh.data(), rh_r.data(), step_threads);
                }
              }
              if (packed == nullptr) {
                nn::Gemm<CT>(false, true, B, H, H, CT(1), rh.data(), H, r + 2 * H * H, H, CT(0), rh_r.data(), H);
              }
            }
            for (int64_t n = 0; n < B; ++n) {
              const CT* g = hr.data() + n * hr_ld;
              const CT* z = g;
              const CT* gate_r = g + H;
              const CT* xh = xw_t + n * GH + 2 * H;
              const CT* hh = g + 2 * H;  // H_{t-1} * R_h^T
              CT* pre = h_new.data() + n * H;
              if (linear_before_reset_) {
                for (int64_t j = j0; j < j1; ++j) {
                  pre[j] = xh[j] + wb[2 * H + j] + gate_r[j] * (hh[j] + rb[2 * H + j]);
                }
              } else {
                const CT* rr = rh_r.data() + n * H;
                for (int64_t j = j0; j < j1; ++j) pre[j] = xh[j] + rr[j] + wb[2 * H + j] + rb[2 * H + j];
              }
              activate(pre, act[1]);
              const CT* hn = h + n * H;
              for (int64_t j = j0; j < j1; ++j) pre[j] = (CT(1) - z[j]) * pre[j] + z[j] * hn[j];
            }
            break;
          }
          case CellKind::kLstm: {
            // Gate order in W, R and B: i (input), o (output), f (forget), c (cell); peepholes: i, o, f.
            const CT* pi = peep;  // null without P
            const CT* po = peep != nullptr ? peep + H : nullptr;
            const CT* pf = peep != nullptr ? peep + 2 * H : nullptr;
            for (int64_t n = 0; n < B; ++n) {
              CT* g = hr.data() + n * hr_ld;
              const CT* xg = xw_t + n * GH;
              for (int64_t gate = 0; gate < 4; ++gate) sum_gate(g, xg, gate);
              CT* gi = g;
              CT* go = g + H;
              CT* gf = g + 2 * H;
              CT* gc = g + 3 * H;
              const CT* c_prev = c + n * H;
              if (peep != nullptr) {
                for (int64_t j = j0; j < j1; ++j) gi[j] += pi[j] * c_prev[j];
                if (!input_forget_) {
                  for (int64_t j = j0; j < j1; ++j) gf[j] += pf[j] * c_prev[j];
                }
              }
              activate(gi, act[0]);
              if (input_forget_) {
                for (int64_t j = j0; j < j1; ++j) gf[j] = CT(1) - gi[j];
              } else {
                activate(gf, act[0]);
              }
              activate(gc, act[1]);
              CT* ct = c_new.data() + n * H;
              for (int64_t j = j0; j < j1; ++j) ct[j] = gf[j] * c_prev[j] + gi[j] * gc[j];
              if (peep != nullptr) {
                for (int64_t j = j0; j < j1; ++j) go[j] += po[j] * ct[j];
              }
              activate(go, act[0]);
              CT* hn = h_new.data() + n * H;
              std::copy(ct + j0, ct + j1, hn + j0);
              activate(hn, act[2]);  // the state itself stays unclipped
              for (int64_t j = j0; j < j1; ++j) hn[j] *= go[j];
            }
            break;
          }
        }
        const bool has_cell = kind_ == CellKind::kLstm;
        for (int64_t n = 0; n < B; ++n) {
          if (t >= lens[static_cast<size_t>(n0 + n)]) continue;  // padding: state kept, Y stays zero
          CT* y_t = y.data() + ((t * D + dir) * batch + n0 + n) * H;
          for (int64_t j = j0; j < j1; ++j) {
            const size_t o = static_cast<size_t>(n * H + j);
            h[o] = h_new[o];
            if (has_cell) c[o] = c_new[o];
            y_t[j] = h_new[o];
          }
        }
        barrier();  // every unit's new state before the next step's product reads H
      }
    };
    if (in_region) {
#pragma omp parallel num_threads(step_threads)
      steps(omp_get_thread_num(), omp_get_num_threads(), [] {
#pragma omp barrier
      });
    } else {
      steps(0, 1, [] {});
    }
  }

  CellKind kind_;
  bool quantized_ = false;  // DynamicQuantizeLSTM
  std::vector<PackedDirection> packed_;  // per direction; empty where W and R are not float constants
  int num_dirs_ = 1;
  bool reverse_first_ = false;
  int64_t hidden_size_ = -1;
  bool has_clip_ = false;
  float clip_ = 0.0f;
  int64_t layout_ = 0;
  bool linear_before_reset_ = false;
  bool input_forget_ = false;
  std::vector<Activation> activations_;
};

KernelFactory CellFactory(CellKind kind) {
  return [kind](const KernelInfo& info) -> Result<std::unique_ptr<OpKernel>> {
    auto k = std::make_unique<RecurrentKernel>(kind);
    ONYX_RETURN_IF_ERROR(k->Init(info));
    return std::unique_ptr<OpKernel>(std::move(k));
  };
}

}  // namespace

void RegisterRnnOps(KernelRegistry& registry) {
  registry.Add("com.microsoft", "DynamicQuantizeLSTM", 1, kLatestVersion,
               [](const KernelInfo& info) -> Result<std::unique_ptr<OpKernel>> {
                 auto k = std::make_unique<RecurrentKernel>(CellKind::kLstm, true);
                 ONYX_RETURN_IF_ERROR(k->Init(info));
                 return std::unique_ptr<OpKernel>(std::move(k));
               });
  registry.Add("", "RNN", 1, kLatestVersion, CellFactory(CellKind::kRnn));
  registry.Add("", "GRU", 1, kLatestVersion, CellFactory(CellKind::kGru));
  registry.Add("", "LSTM", 1, kLatestVersion, CellFactory(CellKind::kLstm));
}

}  // namespace onyx::ops::recurrent

// FlexAttention (ai.onnx.preview, version 1): scaled dot-product attention over 4-D (B, H, S, D) inputs whose
// scores and probabilities can be rewritten by user subgraphs:
//   scores = (Q K^T) * scale; scores = score_mod(scores); probs = softmax(scores); probs = prob_mod(probs);
//   Y = probs V
// Each subgraph takes and returns one (B, q_heads, L, S) tensor of the softmax precision (float, or double for
// double inputs, unless softmax_precision says otherwise). Query head h reads kv head h / (q_heads / kv_heads).
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "ops/nn/gemm_kernel.h"
#include "ops/transformer/transformer_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::transformer {
namespace {

class FlexAttentionKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    has_scale_ = info.HasAttribute("scale");
    scale_ = info.GetFloat("scale", 1.0f);
    if (info.HasAttribute("softmax_precision")) {
      const int64_t p = info.GetInt("softmax_precision", 1);
      if (p != static_cast<int64_t>(DataType::kFloat) && p != static_cast<int64_t>(DataType::kDouble)) {
        return info.Error("attribute 'softmax_precision' is " + std::to_string(p) +
                          ", expected 1 (float) or 11 (double)");
      }
      precision_ = static_cast<DataType>(p);
    }
    for (const char* name : {"score_mod", "prob_mod"}) {
      const ir::Graph* g = info.GetGraph(name);
      if (g == nullptr) continue;
      if (g->inputs.size() != 1 || g->outputs.size() != 1) {
        return info.Error(std::string("attribute '") + name + "' must take one input and return one output");
      }
      ONYX_ASSIGN_OR_RETURN(auto plan, info.CompileSubgraph(name));
      (std::string(name) == "score_mod" ? score_mod_ : prob_mod_) = std::move(plan);
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* q, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* k, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* v, ctx.TensorInput(2));
    if (q->rank() != 4 || k->rank() != 4 || v->rank() != 4) {
      return InvalidArgument("inputs 'Q', 'K', 'V' must be 4-D, got " + ShapeToString(q->shape()) + ", " +
                             ShapeToString(k->shape()) + ", " + ShapeToString(v->shape()));
    }
    if (k->type() != q->type() || v->type() != q->type() || !IsFloatingPoint(q->type())) {
      return InvalidArgument("inputs 'Q', 'K', 'V' must share one float element type");
    }
    const int64_t batch = q->dim(0), q_heads = q->dim(1), q_len = q->dim(2), head = q->dim(3);
    const int64_t kv_heads = k->dim(1), kv_len = k->dim(2), v_head = v->dim(3);
    if (k->dim(0) != batch || v->dim(0) != batch || k->dim(3) != head || v->dim(1) != kv_heads || v->dim(2) != kv_len) {
      return InvalidArgument("inputs 'Q' " + ShapeToString(q->shape()) + ", 'K' " + ShapeToString(k->shape()) +
                             ", 'V' " + ShapeToString(v->shape()) + " have inconsistent shapes");
    }
    if (kv_heads <= 0 || q_heads % kv_heads != 0) {
      return InvalidArgument("the number of query heads (" + std::to_string(q_heads) +
                             ") is not a multiple of the number of key/value heads (" + std::to_string(kv_heads) + ")");
    }
    const DataType precision = precision_ != DataType::kUndefined ? precision_
                               : q->type() == DataType::kDouble   ? DataType::kDouble
                                                                  : DataType::kFloat;
    const Shape score_shape{batch, q_heads, q_len, kv_len};
    const int64_t rows = batch * q_heads * q_len;
    std::vector<double> scores(static_cast<size_t>(rows * kv_len));

    ONYX_RETURN_IF_ERROR(Dispatch<FloatTypes>(q->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using CT = ComputeType<T>;
      const double scale = has_scale_ ? static_cast<double>(scale_) : 1.0 / std::sqrt(static_cast<double>(head));
      const double sqrt_scale = RoundThrough<T>(std::sqrt(scale));
      std::vector<CT> qbuf(static_cast<size_t>(q_len * head)), kbuf(static_cast<size_t>(kv_len * head));
      std::vector<CT> sbuf(static_cast<size_t>(q_len * kv_len));
      const T* qd = q->data<T>();
      const T* kd = k->data<T>();
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t h = 0; h < q_heads; ++h) {
          const int64_t kvh = h / (q_heads / kv_heads);
          const int64_t qoff = (b * q_heads + h) * q_len * head;
          const int64_t koff = (b * kv_heads + kvh) * kv_len * head;
          for (size_t i = 0; i < qbuf.size(); ++i) {
            qbuf[i] = static_cast<CT>(RoundThrough<T>(Load(qd, qoff + static_cast<int64_t>(i)) * sqrt_scale));
          }
          for (size_t i = 0; i < kbuf.size(); ++i) {
            kbuf[i] = static_cast<CT>(RoundThrough<T>(Load(kd, koff + static_cast<int64_t>(i)) * sqrt_scale));
          }
          nn::Gemm<CT>(false, true, q_len, kv_len, head, CT(1), qbuf.data(), head, kbuf.data(), head, CT(0),
                       sbuf.data(), kv_len);
          double* dst = scores.data() + (b * q_heads + h) * q_len * kv_len;
          for (size_t i = 0; i < sbuf.size(); ++i) dst[i] = RoundThrough<T>(static_cast<double>(sbuf[i]));
        }
      }
      return Status::Ok();
    }));

    if (score_mod_) ONYX_RETURN_IF_ERROR(ApplyMod(ctx, *score_mod_, "score_mod", precision, score_shape, &scores));
    for (int64_t r = 0; r < rows; ++r) {
      double* row = scores.data() + r * kv_len;
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < kv_len; ++j) mx = std::max(mx, row[j]);
      double sum = 0;
      for (int64_t j = 0; j < kv_len; ++j) {
        row[j] = Round(precision, std::exp(row[j] - mx));
        sum += row[j];
      }
      for (int64_t j = 0; j < kv_len; ++j) row[j] = Round(precision, row[j] / sum);
    }
    if (prob_mod_) ONYX_RETURN_IF_ERROR(ApplyMod(ctx, *prob_mod_, "prob_mod", precision, score_shape, &scores));

    Tensor& y = ctx.AllocateOutput(0, q->type(), {batch, q_heads, q_len, v_head});
    return Dispatch<FloatTypes>(q->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* vd = v->data<T>();
      T* yd = y.data<T>();
      const bool in_double = precision == DataType::kDouble;
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t h = 0; h < q_heads; ++h) {
          const int64_t kvh = h / (q_heads / kv_heads);
          const double* p = scores.data() + (b * q_heads + h) * q_len * kv_len;
          const T* vh = vd + (b * kv_heads + kvh) * kv_len * v_head;
          for (int64_t i = 0; i < q_len; ++i) {
            for (int64_t e = 0; e < v_head; ++e) {
              double acc = 0;
              float facc = 0;
              for (int64_t j = 0; j < kv_len; ++j) {
                if (in_double) {
                  acc += p[i * kv_len + j] * Load(vh, j * v_head + e);
                } else {
                  facc += static_cast<float>(p[i * kv_len + j]) * static_cast<float>(Load(vh, j * v_head + e));
                }
              }
              yd[((b * q_heads + h) * q_len + i) * v_head + e] = FromDouble<T>(in_double ? acc : facc);
            }
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  static double Round(DataType precision, double v) {
    return precision == DataType::kDouble ? v : static_cast<double>(static_cast<float>(v));
  }

  // Runs a score_mod/prob_mod subgraph over the whole (B, H, L, S) tensor held in `values`.
  static Status ApplyMod(KernelContext& ctx, const GraphPlan& plan, const char* name, DataType precision,
                         const Shape& shape, std::vector<double>* values) {
    Tensor in = Tensor::Allocate(precision, shape);
    if (precision == DataType::kDouble) {
      for (size_t i = 0; i < values->size(); ++i) in.data<double>()[i] = (*values)[i];
    } else {
      for (size_t i = 0; i < values->size(); ++i) in.data<float>()[i] = static_cast<float>((*values)[i]);
    }
    std::vector<Value> outs;
    Status st = ctx.RunSubgraph(plan, {Value(std::move(in))}, &outs);
    if (!st.ok()) return st.WithContext(std::string("in subgraph '") + name + "'");
    if (outs.size() != 1 || !outs[0].is_tensor()) {
      return InvalidArgument(std::string("subgraph '") + name + "' must return one tensor");
    }
    const Tensor& out = outs[0].tensor();
    if (out.shape() != shape || !IsFloatingPoint(out.type())) {
      return InvalidArgument(std::string("subgraph '") + name + "' returned " + std::string(DataTypeName(out.type())) +
                             ShapeToString(out.shape()) + ", expected a float tensor " + ShapeToString(shape));
    }
    *values = FloatTensorToDoubles(out);
    return Status::Ok();
  }

  bool has_scale_ = false;
  float scale_ = 1.0f;
  DataType precision_ = DataType::kUndefined;
  std::shared_ptr<const GraphPlan> score_mod_;
  std::shared_ptr<const GraphPlan> prob_mod_;
};

}  // namespace

void RegisterFlexAttentionOps(KernelRegistry& registry) {
  registry.Add("ai.onnx.preview", "FlexAttention", 1, kLatestVersion, MakeFactory<FlexAttentionKernel>());
}

}  // namespace onyx::ops::transformer

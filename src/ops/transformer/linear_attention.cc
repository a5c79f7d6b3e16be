// LinearAttention (opset 27): a recurrent state S (B, kv_heads, d_k, d_v) is updated token by token and read by
// the queries. Inputs are packed (B, T, heads * size). Update rules, with g the (log-space) decay and beta the
// write strength:
//   linear:      S = S + k v^T
//   gated:       S = exp(g) S + k v^T
//   delta:       S = S + k (beta (v - S^T k))^T
//   gated_delta: S' = exp(g) S; S = S' + k (beta (v - S'^T k))^T
// and o = scale * S^T q, where query head h reads the state of kv head h / (q_heads / kv_heads).
// decay is (B, T, kv_heads * d_k) or (B, T, kv_heads) (one decay per head); beta is (B, T, kv_heads) or (B, T, 1).
// The function body computes in float whatever the input type; so does this kernel (double stays double).
#include <cmath>
#include <string>

#include "ops/transformer/transformer_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::transformer {
namespace {

class LinearAttentionKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    q_heads_ = info.GetInt("q_num_heads", 0);
    kv_heads_ = info.GetInt("kv_num_heads", 0);
    if (q_heads_ <= 0 || kv_heads_ <= 0 || q_heads_ % kv_heads_ != 0) {
      return info.Error("attributes 'q_num_heads' (" + std::to_string(q_heads_) + ") and 'kv_num_heads' (" +
                        std::to_string(kv_heads_) + ") must be positive, q_num_heads a multiple of kv_num_heads");
    }
    const std::string rule = info.GetString("update_rule", "gated_delta");
    if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta") {
      return info.Error("attribute 'update_rule' is '" + rule + "', expected linear, gated, delta or gated_delta");
    }
    gated_ = rule == "gated" || rule == "gated_delta";
    delta_ = rule == "delta" || rule == "gated_delta";
    has_scale_ = info.HasAttribute("scale");
    scale_ = info.GetFloat("scale", 0.0f);
    if (gated_ && !info.has_input(4)) return info.Error("update_rule '" + rule + "' needs the input 'decay'");
    if (delta_ && !info.has_input(5)) return info.Error("update_rule '" + rule + "' needs the input 'beta'");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* q, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* k, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* v, ctx.TensorInput(2));
    const Tensor* past = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* decay = gated_ ? &ctx.input(4) : nullptr;
    const Tensor* beta = delta_ ? &ctx.input(5) : nullptr;
    if (q->rank() != 3 || k->rank() != 3 || v->rank() != 3) {
      return InvalidArgument("inputs 'query', 'key', 'value' must be 3-D (B, T, heads * size), got " +
                             ShapeToString(q->shape()) + ", " + ShapeToString(k->shape()) + ", " +
                             ShapeToString(v->shape()));
    }
    const int64_t batch = q->dim(0), steps = q->dim(1);
    if (q->dim(2) % q_heads_ != 0 || v->dim(2) % kv_heads_ != 0) {
      return InvalidArgument("hidden sizes of query " + ShapeToString(q->shape()) + " and value " +
                             ShapeToString(v->shape()) + " are not multiples of the head counts");
    }
    const int64_t dk = q->dim(2) / q_heads_;
    const int64_t dv = v->dim(2) / kv_heads_;
    const Shape want_k{batch, steps, kv_heads_ * dk};
    if (k->shape() != want_k || v->dim(0) != batch || v->dim(1) != steps) {
      return InvalidArgument(DescribeInput("key", 1, *k) + ", expected " + ShapeToString(want_k) +
                             " (and value with the same batch and length)");
    }
    for (const Tensor* t : {k, v, past, decay, beta}) {
      if (t != nullptr && t->type() != q->type()) {
        return InvalidArgument("all inputs must have the element type of 'query' (" +
                               std::string(DataTypeName(q->type())) + ")");
      }
    }
    const Shape state_shape{batch, kv_heads_, dk, dv};
    if (past != nullptr && past->shape() != state_shape) {
      return InvalidArgument(DescribeInput("past_state", 3, *past) + ", expected " + ShapeToString(state_shape));
    }
    int64_t decay_width = 0;  // per kv head: d_k or 1
    if (decay != nullptr) {
      if (decay->rank() != 3 || decay->dim(0) != batch || decay->dim(1) != steps ||
          (decay->dim(2) != kv_heads_ * dk && decay->dim(2) != kv_heads_)) {
        return InvalidArgument(DescribeInput("decay", 4, *decay) + ", expected [" + std::to_string(batch) + ", " +
                               std::to_string(steps) + ", " + std::to_string(kv_heads_ * dk) + " or " +
                               std::to_string(kv_heads_) + "]");
      }
      decay_width = decay->dim(2) / kv_heads_;
    }
    bool beta_shared = false;
    if (beta != nullptr) {
      if (beta->rank() != 3 || beta->dim(0) != batch || beta->dim(1) != steps ||
          (beta->dim(2) != kv_heads_ && beta->dim(2) != 1)) {
        return InvalidArgument(DescribeInput("beta", 5, *beta) + ", expected [" + std::to_string(batch) + ", " +
                               std::to_string(steps) + ", " + std::to_string(kv_heads_) + " or 1]");
      }
      beta_shared = beta->dim(2) == 1 && kv_heads_ != 1;
    }
    if (!IsFloatingPoint(q->type())) {
      return Unsupported("input 'query' (0) has element type " + std::string(DataTypeName(q->type())));
    }

    return Dispatch<FloatTypes>(q->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using CT = ComputeType<T>;
      const CT scale = has_scale_ ? static_cast<CT>(scale_) : static_cast<CT>(1.0 / std::sqrt(static_cast<double>(dk)));
      const int64_t group = q_heads_ / kv_heads_;
      std::vector<CT> state(static_cast<size_t>(batch * kv_heads_ * dk * dv), CT(0));
      if (past != nullptr) {
        const T* p = past->data<T>();
        for (size_t i = 0; i < state.size(); ++i) state[i] = static_cast<CT>(p[i]);
      }
      Tensor& out = ctx.AllocateOutput(0, q->type(), {batch, steps, q_heads_ * dv});
      T* o = out.data<T>();
      const T* qd = q->data<T>();
      const T* kd = k->data<T>();
      const T* vd = v->data<T>();
      const T* gd = decay != nullptr ? decay->data<T>() : nullptr;
      const T* bd = beta != nullptr ? beta->data<T>() : nullptr;
      std::vector<CT> delta(static_cast<size_t>(dv));
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t t = 0; t < steps; ++t) {
          const int64_t tok = b * steps + t;
          for (int64_t g = 0; g < kv_heads_; ++g) {
            CT* s = state.data() + (b * kv_heads_ + g) * dk * dv;
            const T* kt = kd + (tok * kv_heads_ + g) * dk;
            const T* vt = vd + (tok * kv_heads_ + g) * dv;
            if (gd != nullptr) {
              for (int64_t i = 0; i < dk; ++i) {
                const CT f =
                    std::exp(static_cast<CT>(gd[(tok * kv_heads_ + g) * decay_width + (decay_width == 1 ? 0 : i)]));
                for (int64_t j = 0; j < dv; ++j) s[i * dv + j] *= f;
              }
            }
            if (bd != nullptr) {
              const CT bt = static_cast<CT>(bd[tok * beta->dim(2) + (beta_shared ? 0 : g)]);
              for (int64_t j = 0; j < dv; ++j) {
                CT retrieved = 0;
                for (int64_t i = 0; i < dk; ++i) retrieved += s[i * dv + j] * static_cast<CT>(kt[i]);
                delta[static_cast<size_t>(j)] = bt * (static_cast<CT>(vt[j]) - retrieved);
              }
            } else {
              for (int64_t j = 0; j < dv; ++j) delta[static_cast<size_t>(j)] = static_cast<CT>(vt[j]);
            }
            for (int64_t i = 0; i < dk; ++i) {
              const CT ki = static_cast<CT>(kt[i]);
              for (int64_t j = 0; j < dv; ++j) s[i * dv + j] += ki * delta[static_cast<size_t>(j)];
            }
            for (int64_t h = g * group; h < (g + 1) * group; ++h) {
              const T* qt = qd + (tok * q_heads_ + h) * dk;
              T* ot = o + (tok * q_heads_ + h) * dv;
              for (int64_t j = 0; j < dv; ++j) {
                CT acc = 0;
                for (int64_t i = 0; i < dk; ++i) acc += static_cast<CT>(qt[i]) * s[i * dv + j];
                ot[j] = static_cast<T>(scale * acc);
              }
            }
          }
        }
      }
      if (ctx.num_outputs() > 1) {
        Tensor& present = ctx.AllocateOutput(1, q->type(), state_shape);
        T* p = present.data<T>();
        for (size_t i = 0; i < state.size(); ++i) p[i] = static_cast<T>(state[i]);
      }
      return Status::Ok();
    });
  }

 private:
  int64_t q_heads_ = 0;
  int64_t kv_heads_ = 0;
  bool gated_ = true;
  bool delta_ = true;
  bool has_scale_ = false;
  float scale_ = 0.0f;
};

}  // namespace

void RegisterLinearAttentionOps(KernelRegistry& registry) {
  registry.Add("", "LinearAttention", 27, kLatestVersion, MakeFactory<LinearAttentionKernel>());
}

}  // namespace onyx::ops::transformer

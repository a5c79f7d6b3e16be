// RotaryEmbedding (opset 23): rotates pairs of features of each head by position-dependent angles given as cos and
// sin caches. Input is (B, H, S, D) or (B, S, H*D) with num_heads. With position_ids (B, S) the caches are
// (max_position, rotary_dim / 2) tables indexed by position; without, they are (B, S, rotary_dim / 2). Only the
// first rotary_dim features of a head rotate: pairs (i, i + rotary_dim/2), or (2i, 2i+1) when interleaved.
#include <string>

#include "ops/transformer/transformer_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::transformer {
namespace {

class RotaryEmbeddingKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    interleaved_ = info.GetInt("interleaved", 0) != 0;
    num_heads_ = info.GetInt("num_heads", 0);
    rotary_dim_ = info.GetInt("rotary_embedding_dim", 0);
    if (num_heads_ < 0) return info.Error("attribute 'num_heads' must be >= 0");
    if (rotary_dim_ < 0 || rotary_dim_ % 2 != 0) {
      return info.Error("attribute 'rotary_embedding_dim' is " + std::to_string(rotary_dim_) +
                        ", expected an even number >= 0");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* cos_cache, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* sin_cache, ctx.TensorInput(2));
    const Tensor* position_ids = ctx.has_input(3) ? &ctx.input(3) : nullptr;

    int64_t batch = 0, heads = 0, seq = 0, head_size = 0;
    const bool packed = x->rank() == 3;
    if (x->rank() == 4) {
      batch = x->dim(0);
      heads = x->dim(1);
      seq = x->dim(2);
      head_size = x->dim(3);
    } else if (packed) {
      if (num_heads_ <= 0) return InvalidArgument("3-D input needs the attribute 'num_heads'");
      batch = x->dim(0);
      seq = x->dim(1);
      heads = num_heads_;
      if (x->dim(2) % heads != 0) {
        return InvalidArgument(DescribeInput("X", 0, *x) + ", hidden size not a multiple of num_heads " +
                               std::to_string(heads));
      }
      head_size = x->dim(2) / heads;
    } else {
      return InvalidArgument(DescribeInput("X", 0, *x) + ", expected rank 3 or 4");
    }
    const int64_t rot = rotary_dim_ == 0 ? head_size : rotary_dim_;
    if (rot > head_size || rot % 2 != 0) {
      return InvalidArgument("rotary dim " + std::to_string(rot) + " must be even and at most the head size " +
                             std::to_string(head_size));
    }
    const int64_t half = rot / 2;
    if (cos_cache->type() != x->type() || sin_cache->type() != x->type() || cos_cache->shape() != sin_cache->shape()) {
      return InvalidArgument("cos_cache " + ShapeToString(cos_cache->shape()) + " and sin_cache " +
                             ShapeToString(sin_cache->shape()) + " must share shape and the type of X");
    }
    const int64_t cache_width = cos_cache->rank() > 0 ? cos_cache->dim(cos_cache->rank() - 1) : 0;
    std::vector<int64_t> positions;
    if (position_ids != nullptr) {
      if (!IsInteger(position_ids->type()) || position_ids->shape() != Shape{batch, seq}) {
        return InvalidArgument(DescribeInput("position_ids", 3, *position_ids) + ", expected integers [" +
                               std::to_string(batch) + ", " + std::to_string(seq) + "]");
      }
      if (cos_cache->rank() != 2 || cache_width < half) {
        return InvalidArgument(DescribeInput("cos_cache", 1, *cos_cache) + ", expected [max_position, " +
                               std::to_string(half) + "]");
      }
      const int64_t max_pos = cos_cache->dim(0);
      positions.resize(static_cast<size_t>(batch * seq));
      for (int64_t i = 0; i < batch * seq; ++i) {
        const int64_t p = position_ids->IntAt(i);
        if (p < 0 || p >= max_pos) {
          return InvalidArgument("position_ids element " + std::to_string(i) + " is " + std::to_string(p) +
                                 ", outside [0, " + std::to_string(max_pos) + ")");
        }
        positions[static_cast<size_t>(i)] = p;
      }
    } else {
      if (cos_cache->rank() != 3 || cos_cache->dim(0) != batch || cos_cache->dim(1) != seq || cache_width < half) {
        return InvalidArgument(DescribeInput("cos_cache", 1, *cos_cache) + ", expected [" + std::to_string(batch) +
                               ", " + std::to_string(seq) + ", " + std::to_string(half) + "] without position_ids");
      }
    }

    Tensor& y = ctx.AllocateOutput(0, x->type(), x->shape());
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x->data<T>();
      T* out = y.data<T>();
      const T* cs = cos_cache->data<T>();
      const T* sn = sin_cache->data<T>();
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t s = 0; s < seq; ++s) {
          const int64_t cache_row = positions.empty() ? (b * seq + s) : positions[static_cast<size_t>(b * seq + s)];
          const int64_t cbase = cache_row * cache_width;
          for (int64_t h = 0; h < heads; ++h) {
            const int64_t base =
                packed ? ((b * seq + s) * heads + h) * head_size : ((b * heads + h) * seq + s) * head_size;
            for (int64_t i = 0; i < half; ++i) {
              const int64_t i1 = interleaved_ ? 2 * i : i;
              const int64_t i2 = interleaved_ ? 2 * i + 1 : i + half;
              const double c = Load(cs, cbase + i);
              const double sv = Load(sn, cbase + i);
              const double x1 = Load(in, base + i1);
              const double x2 = Load(in, base + i2);
              out[base + i1] = FromDouble<T>(RoundThrough<T>(c * x1) - RoundThrough<T>(sv * x2));
              out[base + i2] = FromDouble<T>(RoundThrough<T>(sv * x1) + RoundThrough<T>(c * x2));
            }
            for (int64_t i = rot; i < head_size; ++i) out[base + i] = in[base + i];
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  bool interleaved_ = false;
  int64_t num_heads_ = 0;
  int64_t rotary_dim_ = 0;
};

}  // namespace

void RegisterRotaryEmbeddingOps(KernelRegistry& registry) {
  registry.Add("", "RotaryEmbedding", 23, kLatestVersion, MakeFactory<RotaryEmbeddingKernel>());
}

}  // namespace onyx::ops::transformer

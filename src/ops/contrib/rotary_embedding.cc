// com.microsoft RotaryEmbedding: rotates each head's first rotary_dim = 2 * cos_cache.dim(1) values by the angle
// table row of the token's position: position_ids (B, S), or one start offset [1] (position = offset + s).
// input (B, S, N * H) (head size from num_heads, else the rotary dim) or (B, N, S, H); interleaved picks pairs
// (x[2i], x[2i+1]) instead of halves.
#include <string>

#include "ops/contrib/contrib_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::contrib {
namespace {

class RotaryEmbeddingKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    interleaved_ = info.GetInt("interleaved", 0) != 0;
    num_heads_ = info.GetInt("num_heads", 0);
    rotary_dim_ = info.GetInt("rotary_embedding_dim", 0);
    if (info.GetInt("is_packed_batching", 0) != 0)
      return info.UnsupportedError("is_packed_batching is not implemented");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* pos_ids, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* cos_t, ctx.TensorInput(2));
    ONYX_ASSIGN_OR_RETURN(const Tensor* sin_t, ctx.TensorInput(3));
    ONYX_RETURN_IF_ERROR(RequireFloat("input", 0, *x));
    ONYX_RETURN_IF_ERROR(RequireFloat("cos_cache", 2, *cos_t));
    ONYX_RETURN_IF_ERROR(RequireFloat("sin_cache", 3, *sin_t));
    if (cos_t->rank() != 2 || sin_t->shape() != cos_t->shape()) {
      return InvalidArgument(DescribeInput("cos_cache", 2, *cos_t) + ", expected (max_position, rotary_dim / 2) " +
                             "like sin_cache");
    }
    const int64_t half = cos_t->dim(1), max_pos = cos_t->dim(0);
    if (rotary_dim_ > 0 && rotary_dim_ != 2 * half) {
      return InvalidArgument("attribute 'rotary_embedding_dim' " + std::to_string(rotary_dim_) +
                             " disagrees with cos_cache " + ShapeToString(cos_t->shape()));
    }
    int64_t batch = 0, seq = 0, heads = 0, hs = 0;
    int64_t sb = 0, ss = 0, sh = 0;  // strides of (batch, position, head)
    if (x->rank() == 3) {
      batch = x->dim(0);
      seq = x->dim(1);
      hs = num_heads_ > 0 ? x->dim(2) / num_heads_ : 2 * half;
      if (hs <= 0 || x->dim(2) % hs != 0) {
        return InvalidArgument(DescribeInput("input", 0, *x) + ": hidden size not divisible by the head size " +
                               std::to_string(hs));
      }
      heads = x->dim(2) / hs;
      sb = seq * x->dim(2);
      ss = x->dim(2);
      sh = hs;
    } else if (x->rank() == 4) {
      batch = x->dim(0);
      heads = x->dim(1);
      seq = x->dim(2);
      hs = x->dim(3);
      sb = heads * seq * hs;
      sh = seq * hs;
      ss = hs;
    } else {
      return InvalidArgument(DescribeInput("input", 0, *x) + ", expected (B, S, D) or (B, N, S, H)");
    }
    if (2 * half > hs) {
      return InvalidArgument("rotary dim " + std::to_string(2 * half) + " exceeds the head size " + std::to_string(hs));
    }
    const bool offset_form = pos_ids->size() == 1;
    if (!offset_form && pos_ids->size() != batch * seq) {
      return InvalidArgument(DescribeInput("position_ids", 1, *pos_ids) + ", expected (B, S) or [1]");
    }
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, x->shape());
    std::copy_n(x->data<float>(), x->size(), y.data<float>());
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t s = 0; s < seq; ++s) {
        const int64_t pos = offset_form ? pos_ids->IntAt(0) + s : pos_ids->IntAt(b * seq + s);
        if (pos < 0 || pos >= max_pos) {
          return InvalidArgument("position " + std::to_string(pos) + " is outside cos_cache's " +
                                 std::to_string(max_pos) + " rows");
        }
        for (int64_t h = 0; h < heads; ++h) {
          ApplyRotary(y.data<float>() + b * sb + s * ss + h * sh, cos_t->data<float>() + pos * half,
                      sin_t->data<float>() + pos * half, half, interleaved_);
        }
      }
    }
    return Status::Ok();
  }

 private:
  bool interleaved_ = false;
  int64_t num_heads_ = 0;
  int64_t rotary_dim_ = 0;
};

}  // namespace

void RegisterRotaryEmbeddingOps(KernelRegistry& registry) {
  registry.Add(kMsDomain, "RotaryEmbedding", 1, kLatestVersion, MakeFactory<RotaryEmbeddingKernel>());
}

}  // namespace onyx::ops::contrib

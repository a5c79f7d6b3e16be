// TensorScatter (opset 24): the functional form of an in-place KV-cache write. present_cache is past_cache with,
// for every batch entry b, the update's slices along `axis` written starting at write_indices[b] (0 when absent);
// in "circular" mode positions wrap around modulo the cache length, in "linear" mode they must fit.
#include <string>

#include "ops/common/op_util.h"
#include "ops/transformer/transformer_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::transformer {
namespace {

class TensorScatterKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", -2);
    const std::string mode = info.GetString("mode", "linear");
    if (mode != "linear" && mode != "circular") {
      return info.Error("attribute 'mode' is '" + mode + "', expected 'linear' or 'circular'");
    }
    circular_ = mode == "circular";
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* past, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* update, ctx.TensorInput(1));
    if (update->type() != past->type()) {
      return InvalidArgument("inputs 'past_cache' and 'update' must have the same element type");
    }
    if (IsSubByte(past->type())) {
      return Unsupported("element type " + std::string(DataTypeName(past->type())) + " is not supported here");
    }
    if (past->rank() < 2) return InvalidArgument(DescribeInput("past_cache", 0, *past) + ", expected rank >= 2");
    ONYX_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(axis_, past->rank()));
    if (axis == 0) return InvalidArgument("attribute 'axis' must not be the batch axis 0");
    bool shapes_ok = update->rank() == past->rank();
    for (int64_t i = 0; shapes_ok && i < past->rank(); ++i) {
      shapes_ok = i == axis ? update->dim(i) <= past->dim(i) : update->dim(i) == past->dim(i);
    }
    if (!shapes_ok) {
      return InvalidArgument(DescribeInput("update", 1, *update) + ", expected the shape of 'past_cache' " +
                             ShapeToString(past->shape()) + " except a shorter or equal dim " + std::to_string(axis));
    }
    const int64_t batch = past->dim(0);
    const int64_t max_len = past->dim(axis);
    const int64_t len = update->dim(axis);
    std::vector<int64_t> write(static_cast<size_t>(batch), 0);
    if (ctx.has_input(2)) {
      const Tensor& wi = ctx.input(2);
      if (!IsInteger(wi.type()) || wi.rank() != 1 || wi.dim(0) != batch) {
        return InvalidArgument(DescribeInput("write_indices", 2, wi) + ", expected integers [" + std::to_string(batch) +
                               "]");
      }
      write = wi.ToInt64Vector();
    }
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t w = write[static_cast<size_t>(b)];
      if (w < 0 || (!circular_ && w + len > max_len) || (circular_ && max_len == 0 && len > 0)) {
        return InvalidArgument("write_indices[" + std::to_string(b) + "] = " + std::to_string(w) + " with " +
                               std::to_string(len) + " updates does not fit a cache of length " +
                               std::to_string(max_len));
      }
    }

    Tensor out = past->Clone();
    int64_t inner = 1;
    for (int64_t i = axis + 1; i < past->rank(); ++i) inner *= past->dim(i);
    int64_t per_batch = 1;  // prefix positions (dims 1..axis-1) per batch entry
    for (int64_t i = 1; i < axis; ++i) per_batch *= past->dim(i);
    auto copy = [&](auto* dst, const auto* src) {
      for (int64_t b = 0; b < batch; ++b) {
        const int64_t w = write[static_cast<size_t>(b)];
        for (int64_t p = 0; p < per_batch; ++p) {
          const int64_t prefix = b * per_batch + p;
          for (int64_t s = 0; s < len; ++s) {
            const int64_t pos = circular_ ? (w + s) % max_len : w + s;
            const auto* from = src + (prefix * len + s) * inner;
            auto* to = dst + (prefix * max_len + pos) * inner;
            for (int64_t e = 0; e < inner; ++e) to[e] = from[e];
          }
        }
      }
    };
    if (past->type() == DataType::kString) {
      copy(out.data<std::string>(), update->data<std::string>());
    } else {
      // Element-wise copies of fixed-width values: move them as bytes, one element = its width in bytes.
      const int64_t width = DataTypeBits(past->type()) / 8;
      inner *= width;
      copy(static_cast<uint8_t*>(out.raw()), static_cast<const uint8_t*>(update->raw()));
    }
    ctx.SetOutput(0, Value(std::move(out)));
    return Status::Ok();
  }

 private:
  int64_t axis_ = -2;
  bool circular_ = false;
};

}  // namespace

void RegisterTensorScatterOps(KernelRegistry& registry) {
  registry.Add("", "TensorScatter", 24, kLatestVersion, MakeFactory<TensorScatterKernel>());
}

}  // namespace onyx::ops::transformer

// Transpose and the two block rearrangements defined as reshape + transpose (DepthToSpace, SpaceToDepth).
#include <memory>

#include "ops/common/kept_plan.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::movement {
namespace {

class TransposeKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    has_perm_ = info.HasAttribute("perm");
    perm_ = info.GetInts("perm");
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(std::shared_ptr<const Planned> planned,
                          planned_.FindOrMake([&](const Planned& p) { return p.in_shape == data->shape(); },
                                              [&] { return Plan(data->shape()); }));
    if (planned->view) {
      ctx.SetOutputView(0, *data, planned->out_shape);
      return Status::Ok();
    }
    Tensor& out = ctx.AllocateOutput(0, data->type(), planned->out_shape);
    StridedCopy(*data, 0, planned->src_strides, out, 0, planned->dst_strides, planned->out_shape);
    return Status::Ok();
  }

 private:
  // What Permute does for one input shape, resolved once: the output shape and either a view of the input (only
  // axes of size 1 move) or the strides of the copy.
  struct Planned {
    Shape in_shape;
    Shape out_shape;
    bool view = false;
    std::vector<int64_t> src_strides, dst_strides;
  };

  Result<std::shared_ptr<const Planned>> Plan(const Shape& in_shape) const {
    const auto rank = static_cast<int64_t>(in_shape.size());
    std::vector<int64_t> perm = perm_;
    if (!has_perm_) {
      perm.resize(static_cast<size_t>(rank));
      for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = rank - 1 - i;
    }
    if (static_cast<int64_t>(perm.size()) != rank) {
      return InvalidArgument("attribute 'perm' has " + std::to_string(perm.size()) + " entries but the input " +
                             ShapeToString(in_shape) + " has rank " + std::to_string(rank));
    }
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t p : perm) {
      if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) {
        return InvalidArgument("attribute 'perm' " + ShapeToString(perm_) + " is not a permutation of the " +
                               std::to_string(rank) + " axes");
      }
      seen[static_cast<size_t>(p)] = true;
    }
    auto planned = std::make_shared<Planned>();
    planned->in_shape = in_shape;
    const std::vector<int64_t> in_strides = RowMajorStrides(in_shape);
    planned->out_shape.resize(perm.size());
    planned->src_strides.resize(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) {
      planned->out_shape[i] = in_shape[static_cast<size_t>(perm[i])];
      planned->src_strides[i] = in_strides[static_cast<size_t>(perm[i])];
    }
    // As Permute: when only axes of size 1 move, the elements stay where they are.
    int64_t last_moved = -1;
    bool order_kept = true;
    for (int64_t p : perm) {
      if (in_shape[static_cast<size_t>(p)] == 1) continue;
      order_kept = order_kept && p > last_moved;
      last_moved = p;
    }
    planned->view = order_kept;
    planned->dst_strides = RowMajorStrides(planned->out_shape);
    return std::shared_ptr<const Planned>(std::move(planned));
  }

  bool has_perm_ = false;
  std::vector<int64_t> perm_;
  KeptPlan<Planned> planned_;  // the last input shape's plan
};

// DepthToSpace (to_space) and SpaceToDepth on NCHW inputs.
class BlockKernel : public OpKernel {
 public:
  explicit BlockKernel(bool to_space) : to_space_(to_space) {}
  Status Init(const KernelInfo& info) override {
    auto bs = info.GetRequiredInt("blocksize");
    if (!bs.ok()) return info.Error(bs.status().message());
    blocksize_ = *bs;
    if (blocksize_ <= 0) return info.Error("attribute 'blocksize' must be positive, got " + std::to_string(blocksize_));
    std::string mode = info.GetString("mode", "DCR");
    if (to_space_ && mode != "DCR" && mode != "CRD")
      return info.Error("attribute 'mode' must be DCR or CRD, got '" + mode + "'");
    crd_ = mode == "CRD";
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->rank() != 4) {
      return InvalidArgument("input 'input' (0) has shape " + ShapeToString(x->shape()) + ", expected rank 4 (NCHW)");
    }
    const int64_t b = x->dim(0), c = x->dim(1), h = x->dim(2), w = x->dim(3), bs = blocksize_;
    Tensor out;
    if (to_space_) {
      if (c % (bs * bs) != 0) {
        return InvalidArgument("input channels " + std::to_string(c) + " are not a multiple of blocksize^2 (" +
                               std::to_string(bs * bs) + ")");
      }
      const int64_t oc = c / (bs * bs);
      if (crd_) {
        out = Permute(*x, {b, oc, bs, bs, h, w}, {0, 1, 4, 2, 5, 3});
      } else {
        out = Permute(*x, {b, bs, bs, oc, h, w}, {0, 3, 4, 1, 5, 2});
      }
      ONYX_ASSIGN_OR_RETURN(out, out.Reshaped({b, oc, h * bs, w * bs}));
    } else {
      if (h % bs != 0 || w % bs != 0) {
        return InvalidArgument("input height and width " + std::to_string(h) + "x" + std::to_string(w) +
                               " are not multiples of blocksize " + std::to_string(bs));
      }
      out = Permute(*x, {b, c, h / bs, bs, w / bs, bs}, {0, 3, 5, 1, 2, 4});
      ONYX_ASSIGN_OR_RETURN(out, out.Reshaped({b, c * bs * bs, h / bs, w / bs}));
    }
    ctx.SetOutput(0, std::move(out));
    return Status::Ok();
  }

 private:
  bool to_space_;
  bool crd_ = false;
  int64_t blocksize_ = 1;
};

template <bool kToSpace>
Result<std::unique_ptr<OpKernel>> MakeBlockKernel(const KernelInfo& info) {
  auto k = std::make_unique<BlockKernel>(kToSpace);
  ONYX_RETURN_IF_ERROR(k->Init(info));
  return std::unique_ptr<OpKernel>(std::move(k));
}

}  // namespace

void RegisterTransposeOps(KernelRegistry& registry) {
  registry.Add("", "Transpose", 1, kLatestVersion, MakeFactory<TransposeKernel>());
  registry.Add("", "DepthToSpace", 1, kLatestVersion, MakeBlockKernel<true>);
  registry.Add("", "SpaceToDepth", 1, kLatestVersion, MakeBlockKernel<false>);
}

}  // namespace onyx::ops::movement

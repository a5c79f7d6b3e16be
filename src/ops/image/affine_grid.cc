// AffineGrid (20): the sampling grid for GridSample from a batch of affine matrices theta (N, 2, 3) or (N, 3, 4)
// and an output size (N, C, H, W) or (N, C, D, H, W). Each output position's normalized coordinates
// (x, y[, z], 1), x along the innermost axis, are multiplied by theta.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/image/image_ops.h"
#include "ops/image/image_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::image {
namespace {

class AffineGridKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    align_corners_ = info.GetInt("align_corners", 0) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* theta, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* size_t_, ctx.TensorInput(1));
    if (!IsInteger(size_t_->type()) || size_t_->rank() != 1) {
      return InvalidArgument("input 'size' (1) must be a 1-D int64 tensor");
    }
    const std::vector<int64_t> size = size_t_->ToInt64Vector();
    if (size.size() != 4 && size.size() != 5) {
      return InvalidArgument("input 'size' (1) has " + std::to_string(size.size()) +
                             " elements, expected 4 (N, C, H, W) or 5 (N, C, D, H, W)");
    }
    const int64_t r = static_cast<int64_t>(size.size()) - 2;  // spatial rank
    const int64_t batch = size[0];
    if (theta->rank() != 3 || theta->dim(0) != batch || theta->dim(1) != r || theta->dim(2) != r + 1) {
      return InvalidArgument("input 'theta' (0) has shape " + ShapeToString(theta->shape()) + ", expected [" +
                             std::to_string(batch) + ", " + std::to_string(r) + ", " + std::to_string(r + 1) + "]");
    }
    for (int64_t v : size) {
      if (v < 0) return InvalidArgument("input 'size' (1) has a negative dimension " + std::to_string(v));
    }
    if (!IsFloatingPoint(theta->type())) return InvalidArgument("input 'theta' (0) must be a float tensor");
    ONYX_ASSIGN_OR_RETURN(std::vector<double> th, ReadAsDoubles(*theta, "input 'theta' (0)"));

    // Normalized coordinate of index i along an axis of length n.
    std::vector<std::vector<double>> base(static_cast<size_t>(r));
    for (int64_t a = 0; a < r; ++a) {
      const int64_t n = size[static_cast<size_t>(a + 2)];
      for (int64_t i = 0; i < n; ++i) {
        double v;
        if (align_corners_) {
          v = n == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
        } else {
          v = -1.0 + (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(n);
        }
        base[static_cast<size_t>(a)].push_back(v);
      }
    }
    Shape out_shape = {batch};
    for (int64_t a = 0; a < r; ++a) out_shape.push_back(size[static_cast<size_t>(a + 2)]);
    out_shape.push_back(r);
    ONYX_RETURN_IF_ERROR(CheckOutputShape(out_shape, "input 'size' (1)"));
    Tensor& y = ctx.AllocateOutput(0, theta->type(), out_shape);
    std::vector<double> out(static_cast<size_t>(y.size()));
    const int64_t spatial = ShapeProduct(out_shape, 1, out_shape.size() - 1);
    std::vector<int64_t> idx(static_cast<size_t>(r));
    std::vector<double> point(static_cast<size_t>(r + 1));
    size_t o = 0;
    for (int64_t b = 0; b < batch; ++b) {
      std::fill(idx.begin(), idx.end(), 0);
      const double* m = th.data() + b * r * (r + 1);
      for (int64_t p = 0; p < spatial; ++p) {
        // point = (x, y[, z], 1): the innermost axis first.
        for (int64_t a = 0; a < r; ++a) {
          point[static_cast<size_t>(a)] = base[static_cast<size_t>(r - 1 - a)][static_cast<size_t>(idx[static_cast<size_t>(r - 1 - a)])];
        }
        point[static_cast<size_t>(r)] = 1.0;
        for (int64_t row = 0; row < r; ++row) {
          double s = 0;
          for (int64_t k = 0; k <= r; ++k) s += m[row * (r + 1) + k] * point[static_cast<size_t>(k)];
          out[o++] = s;
        }
        for (int64_t a = r; a-- > 0;) {
          if (++idx[static_cast<size_t>(a)] < size[static_cast<size_t>(a + 2)]) break;
          idx[static_cast<size_t>(a)] = 0;
        }
      }
    }
    return WriteFromDoubles(out, y);
  }

 private:
  bool align_corners_ = false;
};

}  // namespace

void RegisterAffineGridOps(KernelRegistry& registry) {
  registry.Add("", "AffineGrid", 20, kLatestVersion, MakeFactory<AffineGridKernel>());
}

}  // namespace onyx::ops::image

// DeformConv (19, 22): convolution whose kernel taps are displaced by learned offsets (and optionally scaled by
// a mask) per output position. Taps sample X with N-linear interpolation, reading zero outside the input. Offsets
// are laid out (N, offset_group, *kernel_shape, spatial_rank, *output_shape) and the mask
// (N, offset_group, *kernel_shape, *output_shape), as in the ONNX reference and torchvision.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/image/image_ops.h"
#include "ops/image/image_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::image {
namespace {

class DeformConvKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    dilations_ = info.GetInts("dilations");
    kernel_shape_ = info.GetInts("kernel_shape");
    pads_ = info.GetInts("pads");
    strides_ = info.GetInts("strides");
    group_ = info.GetInt("group", 1);
    offset_group_ = info.GetInt("offset_group", 1);
    if (group_ < 1 || offset_group_ < 1) return info.Error("attributes 'group' and 'offset_group' must be >= 1");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* offset, ctx.TensorInput(2));
    const int64_t rank = x->rank();
    if (rank < 3) return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected (N, C, ...)");
    const size_t r = static_cast<size_t>(rank - 2);
    const int64_t batch = x->dim(0), in_c = x->dim(1);
    if (w->rank() != rank || w->dim(1) * group_ != in_c || w->dim(0) % group_ != 0) {
      return InvalidArgument("input 'W' (1) has shape " + ShapeToString(w->shape()) + ", inconsistent with input 'X' " +
                             ShapeToString(x->shape()) + " and group " + std::to_string(group_));
    }
    if (in_c % offset_group_ != 0) {
      return InvalidArgument("input 'X' (0) has " + std::to_string(in_c) + " channels, not divisible by offset_group " +
                             std::to_string(offset_group_));
    }
    const int64_t out_c = w->dim(0);
    std::vector<int64_t> kernel(r), dil(r, 1), str(r, 1), pads(2 * r, 0);
    for (size_t i = 0; i < r; ++i) kernel[i] = w->dim(static_cast<int64_t>(i) + 2);
    if (!kernel_shape_.empty() && kernel_shape_ != kernel) {
      return InvalidArgument("attribute kernel_shape does not match input 'W' (1) " + ShapeToString(w->shape()));
    }
    if (!dilations_.empty()) dil = dilations_;
    if (!strides_.empty()) str = strides_;
    if (!pads_.empty()) pads = pads_;
    if (dil.size() != r || str.size() != r || pads.size() != 2 * r) {
      return InvalidArgument("attributes dilations, strides and pads must have " + std::to_string(r) + ", " +
                             std::to_string(r) + " and " + std::to_string(2 * r) + " elements");
    }
    Shape out_shape = {batch, out_c};
    for (size_t i = 0; i < r; ++i) {
      const int64_t v = (x->dim(static_cast<int64_t>(i) + 2) + pads[i] + pads[i + r] - dil[i] * (kernel[i] - 1) - 1) / str[i] + 1;
      out_shape.push_back(v);
    }
    const int64_t ksize = ShapeProduct(kernel, 0, r);
    const int64_t out_spatial = ShapeProduct(out_shape, 2, out_shape.size());
    Shape expected_offset = {batch, offset_group_ * ksize * static_cast<int64_t>(r)};
    expected_offset.insert(expected_offset.end(), out_shape.begin() + 2, out_shape.end());
    if (offset->shape() != expected_offset) {
      return InvalidArgument("input 'offset' (2) has shape " + ShapeToString(offset->shape()) + ", expected " +
                             ShapeToString(expected_offset));
    }
    const bool has_bias = ctx.has_input(3), has_mask = ctx.has_input(4);
    if (has_bias && ctx.input(3).shape() != Shape{out_c}) {
      return InvalidArgument("input 'B' (3) has shape " + ShapeToString(ctx.input(3).shape()) + ", expected (" +
                             std::to_string(out_c) + ")");
    }
    Shape expected_mask = expected_offset;
    expected_mask[1] = offset_group_ * ksize;
    if (has_mask && ctx.input(4).shape() != expected_mask) {
      return InvalidArgument("input 'mask' (4) has shape " + ShapeToString(ctx.input(4).shape()) + ", expected " +
                             ShapeToString(expected_mask));
    }
    if (!IsFloatingPoint(x->type())) return InvalidArgument("input 'X' (0) must be a float tensor");
    Tensor& y = ctx.AllocateOutput(0, x->type(), out_shape);
    if (y.size() == 0) return Status::Ok();
    ONYX_ASSIGN_OR_RETURN(std::vector<double> in, ReadAsDoubles(*x, "input 'X' (0)"));
    ONYX_ASSIGN_OR_RETURN(std::vector<double> weights, ReadAsDoubles(*w, "input 'W' (1)"));
    ONYX_ASSIGN_OR_RETURN(std::vector<double> offs, ReadAsDoubles(*offset, "input 'offset' (2)"));
    std::vector<double> bias, mask;
    if (has_bias) {
      ONYX_ASSIGN_OR_RETURN(bias, ReadAsDoubles(ctx.input(3), "input 'B' (3)"));
    }
    if (has_mask) {
      ONYX_ASSIGN_OR_RETURN(mask, ReadAsDoubles(ctx.input(4), "input 'mask' (4)"));
    }

    std::vector<int64_t> in_dims(r), in_strides(r);
    for (size_t i = 0; i < r; ++i) in_dims[i] = x->dim(static_cast<int64_t>(i) + 2);
    for (size_t i = r; i-- > 0;) in_strides[i] = i + 1 == r ? 1 : in_strides[i + 1] * in_dims[i + 1];
    const int64_t in_spatial = ShapeProduct(x->shape(), 2, x->shape().size());
    const int64_t c_per_og = in_c / offset_group_;
    const int64_t c_per_group = in_c / group_, oc_per_group = out_c / group_;
    const size_t corners = size_t{1} << r;

    // columns[c][k][o]: the (masked) sample of input channel c at kernel tap k for output position o.
    std::vector<double> columns(static_cast<size_t>(in_c * ksize * out_spatial));
    std::vector<double> out(static_cast<size_t>(y.size()));
    std::vector<int64_t> k_idx(r), o_idx(r), corner_off(corners);
    std::vector<double> corner_w(corners);
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t g = 0; g < offset_group_; ++g) {
        std::fill(k_idx.begin(), k_idx.end(), 0);
        for (int64_t k = 0; k < ksize; ++k) {
          std::fill(o_idx.begin(), o_idx.end(), 0);
          for (int64_t o = 0; o < out_spatial; ++o) {
            // Corners of the N-linear sample; offset -1 marks a corner outside the input.
            std::fill(corner_off.begin(), corner_off.end(), 0);
            std::fill(corner_w.begin(), corner_w.end(), 1.0);
            for (size_t d = 0; d < r; ++d) {
              const size_t oi = static_cast<size_t>(((((n * offset_group_ + g) * ksize + k) * static_cast<int64_t>(r) +
                                                      static_cast<int64_t>(d)) * out_spatial) + o);
              double p = static_cast<double>(o_idx[d] * str[d] - pads[d] + k_idx[d] * dil[d]) + offs[oi];
              // NaN offsets read zero; far-away ones stay outside with defined integer conversions.
              p = std::isnan(p) ? -2.0 : std::clamp(p, -1.0e15, 1.0e15);
              const double f = std::floor(p);
              const int64_t lo = static_cast<int64_t>(f);
              const double frac = p - f;
              for (size_t cn = 0; cn < corners; ++cn) {
                const bool high = (cn >> (r - 1 - d)) & 1;
                const int64_t i = lo + (high ? 1 : 0);
                corner_w[cn] *= high ? frac : 1 - frac;
                if (corner_off[cn] < 0 || i < 0 || i >= in_dims[d]) {
                  corner_off[cn] = -1;
                } else {
                  corner_off[cn] += i * in_strides[d];
                }
              }
            }
            const double m =
                has_mask ? mask[static_cast<size_t>(((n * offset_group_ + g) * ksize + k) * out_spatial + o)] : 1.0;
            for (int64_t c = g * c_per_og; c < (g + 1) * c_per_og; ++c) {
              const double* plane = in.data() + (n * in_c + c) * in_spatial;
              double v = 0;
              for (size_t cn = 0; cn < corners; ++cn) {
                if (corner_off[cn] >= 0 && corner_w[cn] != 0) v += corner_w[cn] * plane[corner_off[cn]];
              }
              columns[static_cast<size_t>((c * ksize + k) * out_spatial + o)] = v * m;
            }
            for (size_t d = r; d-- > 0;) {
              if (++o_idx[d] < out_shape[d + 2]) break;
              o_idx[d] = 0;
            }
          }
          for (size_t d = r; d-- > 0;) {
            if (++k_idx[d] < kernel[d]) break;
            k_idx[d] = 0;
          }
        }
      }
      for (int64_t oc = 0; oc < out_c; ++oc) {
        double* dst = out.data() + (n * out_c + oc) * out_spatial;
        std::fill(dst, dst + out_spatial, has_bias ? bias[static_cast<size_t>(oc)] : 0.0);
        const int64_t grp = oc / oc_per_group;
        for (int64_t cl = 0; cl < c_per_group; ++cl) {
          const int64_t c = grp * c_per_group + cl;
          for (int64_t k = 0; k < ksize; ++k) {
            const double wv = weights[static_cast<size_t>((oc * c_per_group + cl) * ksize + k)];
            if (wv == 0) continue;
            const double* col = columns.data() + (c * ksize + k) * out_spatial;
            for (int64_t o = 0; o < out_spatial; ++o) dst[o] += wv * col[o];
          }
        }
      }
    }
    return WriteFromDoubles(out, y);
  }

 private:
  std::vector<int64_t> dilations_, kernel_shape_, pads_, strides_;
  int64_t group_ = 1;
  int64_t offset_group_ = 1;
};

}  // namespace

void RegisterDeformConvOps(KernelRegistry& registry) {
  registry.Add("", "DeformConv", 19, kLatestVersion, MakeFactory<DeformConvKernel>());
}

}  // namespace onyx::ops::image

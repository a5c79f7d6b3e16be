// RoiAlign (10, 16, 22): pools each region of interest of X (N, C, H, W) into an output_height x output_width
// grid by averaging (or taking the maximum of) bilinear samples, sampling_ratio per bin axis (adaptive when 0).
// Version 10 maps boxes without the half-pixel shift (its behaviour, named output_half_pixel in version 16,
// where half_pixel became the default). Mode max keeps the largest weighted corner term, as the reference and
// ONNX Runtime do.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/parallel_tasks.h"
#include "ops/image/image_ops.h"
#include "ops/image/image_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::image {
namespace {

class RoiAlignKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const std::string mode = info.GetString("mode", "avg");
    if (mode != "avg" && mode != "max") return info.Error("attribute 'mode' must be avg or max, got '" + mode + "'");
    max_mode_ = mode == "max";
    const std::string coord =
        info.GetString("coordinate_transformation_mode", info.since_version() >= 16 ? "half_pixel" : "output_half_pixel");
    if (coord != "half_pixel" && coord != "output_half_pixel") {
      return info.Error("attribute 'coordinate_transformation_mode' must be half_pixel or output_half_pixel, got '" +
                        coord + "'");
    }
    half_pixel_ = coord == "half_pixel";
    output_height_ = info.GetInt("output_height", 1);
    output_width_ = info.GetInt("output_width", 1);
    sampling_ratio_ = info.GetInt("sampling_ratio", 0);
    spatial_scale_ = info.GetFloat("spatial_scale", 1.0f);
    if (output_height_ < 1 || output_width_ < 1) {
      return info.Error("attributes 'output_height' and 'output_width' must be >= 1");
    }
    if (sampling_ratio_ < 0) return info.Error("attribute 'sampling_ratio' must be >= 0");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* rois, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* batch_indices, ctx.TensorInput(2));
    if (x->rank() != 4) return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected (N, C, H, W)");
    if (rois->rank() != 2 || rois->dim(1) != 4) {
      return InvalidArgument("input 'rois' (1) has shape " + ShapeToString(rois->shape()) + ", expected (num_rois, 4)");
    }
    const int64_t num_rois = rois->dim(0);
    if (batch_indices->rank() != 1 || batch_indices->dim(0) != num_rois || !IsInteger(batch_indices->type())) {
      return InvalidArgument("input 'batch_indices' (2) has shape " + ShapeToString(batch_indices->shape()) +
                             ", expected an integer tensor of shape (" + std::to_string(num_rois) + ")");
    }
    if (!IsFloatingPoint(x->type())) return InvalidArgument("input 'X' (0) must be a float tensor");
    const int64_t batch = x->dim(0), channels = x->dim(1), height = x->dim(2), width = x->dim(3);
    Tensor& y = ctx.AllocateOutput(0, x->type(), {num_rois, channels, output_height_, output_width_});
    if (y.size() == 0) return Status::Ok();
    if (height == 0 || width == 0) {  // every sample falls outside an empty map
      return WriteFromDoubles(std::vector<double>(static_cast<size_t>(y.size()), 0.0), y);
    }
    ONYX_ASSIGN_OR_RETURN(std::vector<double> boxes, ReadAsDoubles(*rois, "input 'rois' (1)"));
    // Every region checked first; the regions are then pooled side by side on the session's threads.
    std::vector<Region> regions(static_cast<size_t>(num_rois));
    for (int64_t n = 0; n < num_rois; ++n) {
      ONYX_ASSIGN_OR_RETURN(regions[static_cast<size_t>(n)],
                            MakeRegion(n, batch_indices->IntAt(n), batch, &boxes[static_cast<size_t>(n * 4)]));
    }
    const int threads = ctx.num_threads();
    if (x->type() == DataType::kFloat) {
      // float maps read in place, weights and sums in float (as ONNX Runtime computes them): no double copy of X.
      const float* in = x->data<float>();
      float* out = y.data<float>();
      kernels::RunTasks(num_rois, threads, [&](int64_t n) {
        PoolRegion<float>(regions[static_cast<size_t>(n)], in, channels, height, width,
                          out + n * channels * output_height_ * output_width_);
      });
      return Status::Ok();
    }
    ONYX_ASSIGN_OR_RETURN(std::vector<double> in, ReadAsDoubles(*x, "input 'X' (0)"));
    std::vector<double> out(static_cast<size_t>(y.size()));
    kernels::RunTasks(num_rois, threads, [&](int64_t n) {
      PoolRegion<double>(regions[static_cast<size_t>(n)], in.data(), channels, height, width,
                         out.data() + n * channels * output_height_ * output_width_);
    });
    return WriteFromDoubles(out, y);
  }

 private:
  // One region of interest mapped onto X's grid.
  struct Region {
    int64_t batch = 0;
    double start_h = 0, start_w = 0, bin_h = 0, bin_w = 0;
    int64_t grid_h = 0, grid_w = 0;  // samples per bin along each axis
  };

  // Region n from its box (x1, y1, x2, y2) and batch index b, checked.
  Result<Region> MakeRegion(int64_t n, int64_t b, int64_t batch, const double* box) const {
    if (b < 0 || b >= batch) {
      return InvalidArgument("input 'batch_indices' (2) element " + std::to_string(n) + " is " + std::to_string(b) +
                             ", outside [0, " + std::to_string(batch) + ")");
    }
    const double offset = half_pixel_ ? 0.5 : 0.0;
    Region r;
    r.batch = b;
    r.start_w = box[0] * spatial_scale_ - offset;
    r.start_h = box[1] * spatial_scale_ - offset;
    double roi_w = box[2] * spatial_scale_ - offset - r.start_w;
    double roi_h = box[3] * spatial_scale_ - offset - r.start_h;
    if (!half_pixel_) {  // malformed boxes become 1x1
      roi_w = std::max(roi_w, 1.0);
      roi_h = std::max(roi_h, 1.0);
    }
    if (!std::isfinite(r.start_w) || !std::isfinite(r.start_h) || !std::isfinite(roi_w) || !std::isfinite(roi_h)) {
      return InvalidArgument("input 'rois' (1) row " + std::to_string(n) + " is not finite");
    }
    r.bin_h = roi_h / static_cast<double>(output_height_);
    r.bin_w = roi_w / static_cast<double>(output_width_);
    // Inverted half_pixel boxes give a negative adaptive grid: no samples, output 0.
    if (sampling_ratio_ == 0 && (std::ceil(r.bin_h) * std::ceil(r.bin_w) > 1.0e8)) {
      return InvalidArgument("input 'rois' (1) row " + std::to_string(n) +
                             " is too large for adaptive sampling (sampling_ratio 0)");
    }
    r.grid_h = std::max<int64_t>(0, sampling_ratio_ > 0 ? sampling_ratio_ : static_cast<int64_t>(std::ceil(r.bin_h)));
    r.grid_w = std::max<int64_t>(0, sampling_ratio_ > 0 ? sampling_ratio_ : static_cast<int64_t>(std::ceil(r.bin_w)));
    return r;
  }

  // The four corners and weights of one bilinear sample (all zero outside the map).
  template <typename T>
  struct Sample {
    int64_t pos[4];
    T w[4];
  };

  // Region r of X (T: float or double, as are its weights and sums) pooled into dst: channels x bins values.
  template <typename T>
  void PoolRegion(const Region& r, const T* in, int64_t channels, int64_t height, int64_t width, T* dst) const {
    const int64_t bins = output_height_ * output_width_;
    const int64_t per_bin = r.grid_h * r.grid_w;
    // The samples of every bin, shared by all channels (positions and weights computed in double).
    thread_local std::vector<Sample<T>> samples;
    samples.clear();
    for (int64_t ph = 0; ph < output_height_; ++ph) {
      for (int64_t pw = 0; pw < output_width_; ++pw) {
        for (int64_t iy = 0; iy < r.grid_h; ++iy) {
          const double yy = r.start_h + static_cast<double>(ph) * r.bin_h +
                            (static_cast<double>(iy) + 0.5) * r.bin_h / static_cast<double>(r.grid_h);
          for (int64_t ix = 0; ix < r.grid_w; ++ix) {
            double xx = r.start_w + static_cast<double>(pw) * r.bin_w +
                        (static_cast<double>(ix) + 0.5) * r.bin_w / static_cast<double>(r.grid_w);
            double yv = yy;
            Sample<T> s = {{0, 0, 0, 0}, {0, 0, 0, 0}};
            if (!(yv >= -1.0 && yv <= static_cast<double>(height) && xx >= -1.0 && xx <= static_cast<double>(width))) {
              samples.push_back(s);
              continue;
            }
            yv = std::max(yv, 0.0);
            xx = std::max(xx, 0.0);
            int64_t y_low = static_cast<int64_t>(yv), x_low = static_cast<int64_t>(xx), y_high, x_high;
            if (y_low >= height - 1) {
              y_high = y_low = height - 1;
              yv = static_cast<double>(y_low);
            } else {
              y_high = y_low + 1;
            }
            if (x_low >= width - 1) {
              x_high = x_low = width - 1;
              xx = static_cast<double>(x_low);
            } else {
              x_high = x_low + 1;
            }
            const double ly = yv - static_cast<double>(y_low), lx = xx - static_cast<double>(x_low);
            const double hy = 1 - ly, hx = 1 - lx;
            s = {{y_low * width + x_low, y_low * width + x_high, y_high * width + x_low, y_high * width + x_high},
                 {static_cast<T>(hy * hx), static_cast<T>(hy * lx), static_cast<T>(ly * hx), static_cast<T>(ly * lx)}};
            samples.push_back(s);
          }
        }
      }
    }
    const T count = static_cast<T>(std::max<int64_t>(per_bin, 1));
    for (int64_t c = 0; c < channels; ++c) {
      const T* plane = in + (r.batch * channels + c) * height * width;
      T* out = dst + c * bins;
      const Sample<T>* s = samples.data();
      for (int64_t bin = 0; bin < bins; ++bin, s += per_bin) {
        if (max_mode_) {
          T v = 0;
          for (int64_t k = 0; k < per_bin; ++k) {
            T m = s[k].w[0] * plane[s[k].pos[0]];
            for (int j = 1; j < 4; ++j) m = std::max(m, s[k].w[j] * plane[s[k].pos[j]]);
            v = k == 0 ? m : std::max(v, m);
          }
          out[bin] = v;
        } else {
          T v = 0;
          for (int64_t k = 0; k < per_bin; ++k) {
            v += s[k].w[0] * plane[s[k].pos[0]] + s[k].w[1] * plane[s[k].pos[1]] + s[k].w[2] * plane[s[k].pos[2]] +
                 s[k].w[3] * plane[s[k].pos[3]];
          }
          out[bin] = v / count;
        }
      }
    }
  }

  bool max_mode_ = false;
  bool half_pixel_ = true;
  int64_t output_height_ = 1;
  int64_t output_width_ = 1;
  int64_t sampling_ratio_ = 0;
  double spatial_scale_ = 1.0;
};

}  // namespace

void RegisterRoiAlignOps(KernelRegistry& registry) {
  registry.Add("", "RoiAlign", 10, kLatestVersion, MakeFactory<RoiAlignKernel>());
}

}  // namespace onyx::ops::image

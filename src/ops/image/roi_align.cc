// RoiAlign (10, 16, 22): pools each region of interest of X (N, C, H, W) into an output_height x output_width
// grid by averaging (or taking the maximum of) bilinear samples, sampling_ratio per bin axis (adaptive when 0).
// Version 10 maps boxes without the half-pixel shift (its behaviour, named output_half_pixel in version 16,
// where half_pixel became the default). Mode max keeps the largest weighted corner term, as the reference and
// ONNX Runtime do.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

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
    ONYX_ASSIGN_OR_RETURN(std::vector<double> in, ReadAsDoubles(*x, "input 'X' (0)"));
    ONYX_ASSIGN_OR_RETURN(std::vector<double> boxes, ReadAsDoubles(*rois, "input 'rois' (1)"));
    std::vector<double> out(static_cast<size_t>(y.size()));

    struct Sample {
      int64_t pos[4];
      double w[4];
    };
    const double offset = half_pixel_ ? 0.5 : 0.0;
    const int64_t bins = output_height_ * output_width_;
    for (int64_t n = 0; n < num_rois; ++n) {
      const int64_t b = batch_indices->IntAt(n);
      if (b < 0 || b >= batch) {
        return InvalidArgument("input 'batch_indices' (2) element " + std::to_string(n) + " is " + std::to_string(b) +
                               ", outside [0, " + std::to_string(batch) + ")");
      }
      const double* box = &boxes[static_cast<size_t>(n * 4)];
      const double start_w = box[0] * spatial_scale_ - offset;
      const double start_h = box[1] * spatial_scale_ - offset;
      double roi_w = box[2] * spatial_scale_ - offset - start_w;
      double roi_h = box[3] * spatial_scale_ - offset - start_h;
      if (!half_pixel_) {  // malformed boxes become 1x1
        roi_w = std::max(roi_w, 1.0);
        roi_h = std::max(roi_h, 1.0);
      }
      if (!std::isfinite(start_w) || !std::isfinite(start_h) || !std::isfinite(roi_w) || !std::isfinite(roi_h)) {
        return InvalidArgument("input 'rois' (1) row " + std::to_string(n) + " is not finite");
      }
      const double bin_h = roi_h / static_cast<double>(output_height_);
      const double bin_w = roi_w / static_cast<double>(output_width_);
      // Inverted half_pixel boxes give a negative adaptive grid: no samples, output 0.
      if (sampling_ratio_ == 0 && (std::ceil(bin_h) * std::ceil(bin_w) > 1.0e8)) {
        return InvalidArgument("input 'rois' (1) row " + std::to_string(n) +
                               " is too large for adaptive sampling (sampling_ratio 0)");
      }
      const int64_t grid_h =
          std::max<int64_t>(0, sampling_ratio_ > 0 ? sampling_ratio_ : static_cast<int64_t>(std::ceil(bin_h)));
      const int64_t grid_w =
          std::max<int64_t>(0, sampling_ratio_ > 0 ? sampling_ratio_ : static_cast<int64_t>(std::ceil(bin_w)));
      const double count = static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));

      // The samples of every bin, shared by all channels.
      std::vector<Sample> samples;
      samples.reserve(static_cast<size_t>(bins * grid_h * grid_w));
      for (int64_t ph = 0; ph < output_height_; ++ph) {
        for (int64_t pw = 0; pw < output_width_; ++pw) {
          for (int64_t iy = 0; iy < grid_h; ++iy) {
            const double yy = start_h + static_cast<double>(ph) * bin_h +
                              (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(grid_h);
            for (int64_t ix = 0; ix < grid_w; ++ix) {
              double xx = start_w + static_cast<double>(pw) * bin_w +
                          (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(grid_w);
              double yv = yy;
              Sample s = {{0, 0, 0, 0}, {0, 0, 0, 0}};
              if (!(yv >= -1.0 && yv <= static_cast<double>(height) && xx >= -1.0 &&
                    xx <= static_cast<double>(width))) {
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
                   {hy * hx, hy * lx, ly * hx, ly * lx}};
              samples.push_back(s);
            }
          }
        }
      }

      const int64_t per_bin = grid_h * grid_w;
      for (int64_t c = 0; c < channels; ++c) {
        const double* plane = in.data() + (b * channels + c) * height * width;
        double* dst = out.data() + (n * channels + c) * bins;
        for (int64_t bin = 0; bin < bins; ++bin) {
          double v = 0;
          bool first = true;
          for (int64_t k = 0; k < per_bin; ++k) {
            const Sample& s = samples[static_cast<size_t>(bin * per_bin + k)];
            if (max_mode_) {
              double m = s.w[0] * plane[s.pos[0]];
              for (int j = 1; j < 4; ++j) m = std::max(m, s.w[j] * plane[s.pos[j]]);
              v = first ? m : std::max(v, m);
              first = false;
            } else {
              for (int j = 0; j < 4; ++j) v += s.w[j] * plane[s.pos[j]];
            }
          }
          dst[bin] = max_mode_ ? v : v / count;
        }
      }
    }
    return WriteFromDoubles(out, y);
  }

 private:
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

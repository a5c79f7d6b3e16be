#include "ops/nn/window.h"

#include <algorithm>

namespace onyx::ops::nn {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t CeilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

std::string ListToString(const std::vector<int64_t>& v) { return ShapeToString(v); }

Status CheckAll(const KernelInfo& info, const std::vector<int64_t>& v, const char* name, int64_t min_value) {
  for (int64_t x : v) {
    if (x < min_value) {
      return info.Error(std::string("attribute '") + name + "' " + ListToString(v) +
                        " must hold values >= " + std::to_string(min_value));
    }
  }
  return Status::Ok();
}

}  // namespace

Status WindowAttrs::Parse(const KernelInfo& info, bool kernel_shape_required) {
  kernel_shape = info.GetInts("kernel_shape");
  strides = info.GetInts("strides");
  dilations = info.GetInts("dilations");
  pads = info.GetInts("pads");
  ceil_mode = info.GetInt("ceil_mode", 0) != 0;
  if (kernel_shape_required && kernel_shape.empty()) return info.Error("attribute 'kernel_shape' is required");
  ONYX_RETURN_IF_ERROR(CheckAll(info, kernel_shape, "kernel_shape", 1));
  ONYX_RETURN_IF_ERROR(CheckAll(info, strides, "strides", 1));
  ONYX_RETURN_IF_ERROR(CheckAll(info, dilations, "dilations", 1));
  ONYX_RETURN_IF_ERROR(CheckAll(info, pads, "pads", 0));
  if (pads.size() % 2 != 0) return info.Error("attribute 'pads' " + ListToString(pads) + " has an odd length");
  const std::string ap = info.GetString("auto_pad", "NOTSET");
  if (ap == "NOTSET" || ap.empty()) {
    auto_pad = AutoPad::kNotSet;
  } else if (ap == "SAME_UPPER") {
    auto_pad = AutoPad::kSameUpper;
  } else if (ap == "SAME_LOWER") {
    auto_pad = AutoPad::kSameLower;
  } else if (ap == "VALID") {
    auto_pad = AutoPad::kValid;
  } else {
    return info.Error("attribute 'auto_pad' has unknown value '" + ap + "'");
  }
  if (!kernel_shape.empty()) {
    const size_t n = kernel_shape.size();
    if (!strides.empty() && strides.size() != n) {
      return info.Error("attribute 'strides' has " + std::to_string(strides.size()) + " values, 'kernel_shape' " +
                        std::to_string(n));
    }
    if (!dilations.empty() && dilations.size() != n) {
      return info.Error("attribute 'dilations' has " + std::to_string(dilations.size()) + " values, 'kernel_shape' " +
                        std::to_string(n));
    }
    if (!pads.empty() && pads.size() != 2 * n) {
      return info.Error("attribute 'pads' has " + std::to_string(pads.size()) + " values, expected " +
                        std::to_string(2 * n) + " for 'kernel_shape' " + ListToString(kernel_shape));
    }
  }
  return Status::Ok();
}

Result<std::vector<WindowAxis>> ResolveWindow(const WindowAttrs& attrs, const Shape& in_spatial, const Shape& kernel) {
  const size_t n = in_spatial.size();
  const std::string dims = std::to_string(n) + " spatial dims";
  if (!attrs.kernel_shape.empty() && attrs.kernel_shape.size() != n) {
    return InvalidArgument("attribute 'kernel_shape' " + ListToString(attrs.kernel_shape) +
                           " does not match the input's " + dims);
  }
  if (!kernel.empty() && !attrs.kernel_shape.empty() && Shape(attrs.kernel_shape) != kernel) {
    return InvalidArgument("attribute 'kernel_shape' " + ListToString(attrs.kernel_shape) +
                           " differs from the weights' spatial shape " + ShapeToString(kernel));
  }
  if (attrs.kernel_shape.empty() && kernel.size() != n) {
    return InvalidArgument("the weights' spatial shape " + ShapeToString(kernel) + " does not match the input's " +
                           dims);
  }
  if (!attrs.strides.empty() && attrs.strides.size() != n) {
    return InvalidArgument("attribute 'strides' " + ListToString(attrs.strides) + " does not match the input's " +
                           dims);
  }
  if (!attrs.dilations.empty() && attrs.dilations.size() != n) {
    return InvalidArgument("attribute 'dilations' " + ListToString(attrs.dilations) + " does not match the input's " +
                           dims);
  }
  if (!attrs.pads.empty() && attrs.pads.size() != 2 * n) {
    return InvalidArgument("attribute 'pads' " + ListToString(attrs.pads) + " does not match the input's " + dims);
  }
  std::vector<WindowAxis> axes(n);
  for (size_t i = 0; i < n; ++i) {
    WindowAxis& a = axes[i];
    a.in = in_spatial[i];
    a.kernel = attrs.kernel_shape.empty() ? kernel[i] : attrs.kernel_shape[i];
    a.stride = attrs.strides.empty() ? 1 : attrs.strides[i];
    a.dilation = attrs.dilations.empty() ? 1 : attrs.dilations[i];
    if (a.kernel < 1) return InvalidArgument("kernel dim " + std::to_string(i) + " is " + std::to_string(a.kernel));
    // A hostile kernel_shape/dilations (say 2^62) would overflow here or, with auto_pad SAME (which pads any window
    // to fit), make the window loops run for ever. No real model has a window extent near 2^24.
    constexpr int64_t kMaxExtent = int64_t{1} << 24;
    if (a.kernel > kMaxExtent || a.dilation > kMaxExtent || (a.kernel - 1) * a.dilation + 1 > kMaxExtent) {
      return InvalidArgument("the window on spatial axis " + std::to_string(i) + " (kernel " + std::to_string(a.kernel) +
                             ", dilation " + std::to_string(a.dilation) + ") is larger than 2^24");
    }
    const int64_t extent = (a.kernel - 1) * a.dilation + 1;
    switch (attrs.auto_pad) {
      case AutoPad::kSameUpper:
      case AutoPad::kSameLower: {
        a.out = CeilDiv(a.in, a.stride);
        const int64_t total = std::max<int64_t>(0, (a.out - 1) * a.stride + extent - a.in);
        a.pad_begin = attrs.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
        a.pad_end = total - a.pad_begin;
        continue;
      }
      case AutoPad::kValid:
        a.pad_begin = a.pad_end = 0;
        break;
      case AutoPad::kNotSet:
        a.pad_begin = attrs.pads.empty() ? 0 : attrs.pads[i];
        a.pad_end = attrs.pads.empty() ? 0 : attrs.pads[i + n];
        break;
    }
    // Pads past 2^24 (a hostile 2^62, say) would overflow the output sizes' product: no real model has them either.
    if (a.pad_begin > kMaxExtent || a.pad_end > kMaxExtent) {
      return InvalidArgument("the padding on spatial axis " + std::to_string(i) + " (" + std::to_string(a.pad_begin) +
                             ", " + std::to_string(a.pad_end) + ") is larger than 2^24");
    }
    const int64_t span = a.in + a.pad_begin + a.pad_end - extent;
    if (span < 0) {
      return InvalidArgument("the window extent " + std::to_string(extent) + " on spatial axis " + std::to_string(i) +
                             " exceeds the padded input size " + std::to_string(a.in + a.pad_begin + a.pad_end));
    }
    if (attrs.ceil_mode) {
      a.out = CeilDiv(span, a.stride) + 1;
      // The last window must start inside the input or its leading padding.
      if ((a.out - 1) * a.stride >= a.in + a.pad_begin) --a.out;
    } else {
      a.out = FloorDiv(span, a.stride) + 1;
    }
  }
  return axes;
}

IndexRange ValidTapRange(const WindowAxis& a, int64_t o) {
  const int64_t start = o * a.stride - a.pad_begin;
  IndexRange r;
  r.first = start >= 0 ? 0 : (-start + a.dilation - 1) / a.dilation;
  const int64_t past = a.in - start;  // taps with start + t * dilation < in
  r.last = past <= 0 ? 0 : std::min(a.kernel, (past + a.dilation - 1) / a.dilation);
  r.first = std::min(r.first, r.last);
  return r;
}

IndexRange WholeWindowOutputs(const WindowAxis& a) {
  // First tap inside: o * stride >= pad_begin; last tap inside: o * stride - pad_begin + (kernel - 1) * dilation < in.
  IndexRange r;
  r.first = std::min(a.out, (a.pad_begin + a.stride - 1) / a.stride);
  const int64_t room = a.in + a.pad_begin - (a.kernel - 1) * a.dilation;  // o * stride < room
  r.last = std::clamp<int64_t>(room <= 0 ? 0 : (room - 1) / a.stride + 1, r.first, a.out);
  return r;
}

int64_t OutputSize(const std::vector<WindowAxis>& axes) {
  int64_t p = 1;
  for (const auto& a : axes) p *= a.out;
  return p;
}

int64_t InputSize(const std::vector<WindowAxis>& axes) {
  int64_t p = 1;
  for (const auto& a : axes) p *= a.in;
  return p;
}

int64_t KernelSize(const std::vector<WindowAxis>& axes) {
  int64_t p = 1;
  for (const auto& a : axes) p *= a.kernel;
  return p;
}

bool IsPointwise(const std::vector<WindowAxis>& axes) {
  for (const auto& a : axes) {
    if (a.kernel != 1 || a.stride != 1 || a.pad_begin != 0 || a.pad_end != 0) return false;
  }
  return true;
}

}  // namespace onyx::ops::nn

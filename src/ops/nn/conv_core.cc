#include "ops/nn/conv_core.h"

#include <string>

namespace onyx::ops::nn {

Result<ConvGeometry> ResolveConv(const WindowAttrs& attrs, int64_t group, const Shape& x, const Shape& w) {
  if (x.size() < 3) {
    return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x) +
                           ", expected [N, C, D1, ...] with at least one spatial dim");
  }
  if (w.size() != x.size()) {
    return InvalidArgument("input 'W' (1) has shape " + ShapeToString(w) + ", expected rank " +
                           std::to_string(x.size()) + " like X " + ShapeToString(x));
  }
  ConvGeometry g;
  g.batch = x[0];
  g.in_channels = x[1];
  g.out_channels = w[0];
  g.group = group;
  if (g.in_channels % group != 0 || g.out_channels % group != 0) {
    return InvalidArgument("X channels " + std::to_string(g.in_channels) + " and W output channels " +
                           std::to_string(g.out_channels) + " must both be divisible by group " +
                           std::to_string(group));
  }
  if (w[1] != g.in_channels / group) {
    return InvalidArgument("input 'W' (1) has shape " + ShapeToString(w) + ": dim 1 should be C / group = " +
                           std::to_string(g.in_channels / group) + " for X " + ShapeToString(x));
  }
  ONYX_ASSIGN_OR_RETURN(g.axes, ResolveWindow(attrs, Shape(x.begin() + 2, x.end()), Shape(w.begin() + 2, w.end())));
  g.out_shape = {g.batch, g.out_channels};
  for (const auto& a : g.axes) g.out_shape.push_back(a.out);
  return g;
}

}  // namespace onyx::ops::nn

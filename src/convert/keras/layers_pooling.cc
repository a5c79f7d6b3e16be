// Pooling: Max/AveragePooling1D/2D/3D and their Global forms, channels-first between Transposes. "same"
// average pooling divides by the number of real (unpadded) inputs, as Keras does.
#include "convert/keras/config_util.h"
#include "convert/keras/layer_context.h"

namespace onyx::convert::keras {

namespace {

Result<std::vector<KTensor>> Pool(Context& ctx, const LayerCall& c, size_t n, bool max) {
  if (c.inputs.size() != 1 || c.inputs[0].rank() != static_cast<int64_t>(n) + 2) {
    return InvalidArgument(c.Where() + ": expects one input of rank " + std::to_string(n + 2));
  }
  if (GetStringOr(c.config, "data_format", "channels_last") != "channels_last") {
    return Unsupported(c.Where() + ": data_format channels_first");
  }
  const KTensor& x = c.inputs[0];
  // Keras 2 names the 1-D window pool_length / stride in old files; pool_size / strides everywhere else.
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> size,
                        GetInts(c.config, "pool_size", n, std::vector<int64_t>(n, 2), c.Where()));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> strides, GetInts(c.config, "strides", n, size, c.Where()));
  // Output sizes divide by the strides: window and strides must be positive.
  for (size_t i = 0; i < n; ++i) {
    if (size[i] < 1 || strides[i] < 1 || size[i] > (int64_t{1} << 31) || strides[i] > (int64_t{1} << 31)) {
      return InvalidArgument(c.Where() + ": pool_size and strides must be in 1..2^31");
    }
  }
  const std::string padding = GetStringOr(c.config, "padding", "valid");
  std::vector<ir::Attribute> attrs{ir::IntsAttr("kernel_shape", size), ir::IntsAttr("strides", strides)};
  std::vector<int64_t> shape{x.shape[0]};
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = x.shape[1 + i];
    shape.push_back(in < 0              ? -1
                    : padding == "same" ? (in + strides[i] - 1) / strides[i]
                                        : (in - size[i]) / strides[i] + 1);
  }
  shape.push_back(x.shape.back());
  if (padding == "same") {
    attrs.push_back(ir::StringAttr("auto_pad", "SAME_UPPER"));
  } else if (padding == "valid") {
    attrs.push_back(ir::IntsAttr("pads", std::vector<int64_t>(2 * n, 0)));
  } else {
    return Unsupported(c.Where() + ": padding '" + padding + "'");
  }
  if (!max) attrs.push_back(ir::IntAttr("count_include_pad", 0));
  std::string y = ctx.b.Op1(max ? "MaxPool" : "AveragePool", {ToChannelsFirstValue(ctx, x, c.name)},
                            c.name + (max ? "/MaxPool" : "/AveragePool"), attrs);
  return std::vector<KTensor>{KTensor{ToChannelsLastValue(ctx, y, x.rank(), c.name), shape, x.type}};
}

Result<std::vector<KTensor>> GlobalPool(Context& ctx, const LayerCall& c, size_t n, bool max) {
  if (c.inputs.size() != 1 || c.inputs[0].rank() != static_cast<int64_t>(n) + 2) {
    return InvalidArgument(c.Where() + ": expects one input of rank " + std::to_string(n + 2));
  }
  const KTensor& x = c.inputs[0];
  if (!x.mask.empty() && !max && n == 1) {
    // Keras averages over the unmasked steps only: sum(x * mask) / sum(mask) over time.
    GraphBuilder& b = ctx.b;
    std::string m = b.Op1(
        "Unsqueeze",
        {b.Op1("Cast", {x.mask}, c.name + "/mask_float", {ir::IntAttr("to", static_cast<int64_t>(DataType::kFloat))}),
         b.ConstInts(c.name + "/mask_axes", {2})},
        c.name + "/mask3");  // [N, T, 1]
    const bool keep = GetBoolOr(c.config, "keepdims", false);
    std::string axes = b.ConstInts(c.name + "/time_axis", {1});
    std::string sum = b.Op1("ReduceSum", {b.Op1("Mul", {x.value, m}, c.name + "/masked"), axes}, c.name + "/sum",
                            {ir::IntAttr("keepdims", keep ? 1 : 0)});
    std::string count = b.Op1("ReduceSum", {m, axes}, c.name + "/count", {ir::IntAttr("keepdims", keep ? 1 : 0)});
    std::vector<int64_t> shape =
        keep ? std::vector<int64_t>{x.shape[0], 1, x.shape.back()} : std::vector<int64_t>{x.shape[0], x.shape.back()};
    return std::vector<KTensor>{KTensor{b.Op1("Div", {sum, count}, c.name), shape, x.type}};
  }
  std::string y = ctx.b.Op1(max ? "GlobalMaxPool" : "GlobalAveragePool", {ToChannelsFirstValue(ctx, x, c.name)},
                            c.name + (max ? "/GlobalMaxPool" : "/GlobalAveragePool"));
  if (GetBoolOr(c.config, "keepdims", false)) {
    std::vector<int64_t> shape(n + 2, 1);
    shape[0] = x.shape[0];
    shape.back() = x.shape.back();
    return std::vector<KTensor>{KTensor{ToChannelsLastValue(ctx, y, x.rank(), c.name), shape, x.type}};
  }
  // [N, C, 1, ...] -> [N, C].
  return std::vector<KTensor>{
      KTensor{ctx.b.Op1("Flatten", {y}, c.name, {ir::IntAttr("axis", 1)}), {x.shape[0], x.shape.back()}, x.type}};
}

}  // namespace

void RegisterPoolingLayers(LayerTable& t) {
  for (size_t n = 1; n <= 3; ++n) {
    const std::string d = std::to_string(n) + "D";
    LayerFn maxp = n == 1   ? [](Context& ctx, const LayerCall& c) { return Pool(ctx, c, 1, true); }
                   : n == 2 ? [](Context& ctx, const LayerCall& c) { return Pool(ctx, c, 2, true); }
                            : [](Context& ctx, const LayerCall& c) { return Pool(ctx, c, 3, true); };
    LayerFn avgp = n == 1   ? [](Context& ctx, const LayerCall& c) { return Pool(ctx, c, 1, false); }
                   : n == 2 ? [](Context& ctx, const LayerCall& c) { return Pool(ctx, c, 2, false); }
                            : [](Context& ctx, const LayerCall& c) { return Pool(ctx, c, 3, false); };
    LayerFn gmax = n == 1   ? [](Context& ctx, const LayerCall& c) { return GlobalPool(ctx, c, 1, true); }
                   : n == 2 ? [](Context& ctx, const LayerCall& c) { return GlobalPool(ctx, c, 2, true); }
                            : [](Context& ctx, const LayerCall& c) { return GlobalPool(ctx, c, 3, true); };
    LayerFn gavg = n == 1   ? [](Context& ctx, const LayerCall& c) { return GlobalPool(ctx, c, 1, false); }
                   : n == 2 ? [](Context& ctx, const LayerCall& c) { return GlobalPool(ctx, c, 2, false); }
                            : [](Context& ctx, const LayerCall& c) { return GlobalPool(ctx, c, 3, false); };
    t["MaxPooling" + d] = t["MaxPool" + d] = maxp;
    t["AveragePooling" + d] = t["AvgPool" + d] = avgp;
    t["GlobalMaxPooling" + d] = t["GlobalMaxPool" + d] = gmax;
    t["GlobalAveragePooling" + d] = t["GlobalAvgPool" + d] = gavg;
  }
}

}  // namespace onyx::convert::keras

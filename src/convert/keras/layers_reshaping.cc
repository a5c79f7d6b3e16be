// Reshaping layers: Flatten, Reshape, Permute, RepeatVector, ZeroPadding1D/2D/3D, Cropping1D/2D/3D,
// UpSampling1D/2D/3D. Padding, cropping and upsampling act on spatial axes, so they are emitted channels-first
// between Transposes (which the transpose optimizer then cancels against their neighbours').
#include <algorithm>
#include <climits>

#include "convert/common/checked_product.h"
#include "convert/keras/config_util.h"
#include "convert/keras/layer_context.h"

namespace onyx::convert::keras {

namespace {

using json = nlohmann::json;

Status ExpectOne(const LayerCall& c) {
  if (c.inputs.size() != 1) return InvalidArgument(c.Where() + ": expects one input");
  return Status::Ok();
}

Result<std::vector<KTensor>> Flatten(Context& ctx, const LayerCall& c) {
  ONYX_RETURN_IF_ERROR(ExpectOne(c));
  const KTensor& x = c.inputs[0];
  int64_t n = 1;
  for (int64_t i = 1; i < x.rank(); ++i)
    n = (n < 0 || x.shape[static_cast<size_t>(i)] < 0) ? -1 : n * x.shape[static_cast<size_t>(i)];
  return std::vector<KTensor>{
      KTensor{ctx.b.Op1("Flatten", {x.value}, c.name, {ir::IntAttr("axis", 1)}), {x.shape[0], n}, x.type}};
}

Result<std::vector<KTensor>> Reshape(Context& ctx, const LayerCall& c) {
  ONYX_RETURN_IF_ERROR(ExpectOne(c));
  const KTensor& x = c.inputs[0];
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> target, GetIntList(c.config, "target_shape", c.Where()));
  std::vector<int64_t> onnx_shape{0};  // 0: keep the batch
  std::vector<int64_t> shape{x.shape[0]};
  // The sizes a -1 stands for (unknown where a dim is unknown or the product leaves int64: then the -1 stays).
  const std::vector<int64_t> features(x.shape.begin() + 1, x.shape.end());
  const bool features_known = std::all_of(features.begin(), features.end(), [](int64_t d) { return d >= 0; });
  const int64_t total = features_known ? CheckedProduct(features).value_or(-1) : -1;
  std::vector<int64_t> given;
  for (int64_t d : target) {
    onnx_shape.push_back(d);
    shape.push_back(d);
    if (d > 0) given.push_back(d);
  }
  const int64_t known = CheckedProduct(given).value_or(-1);
  for (auto& d : shape) {
    if (&d != &shape[0] && d < 0 && total >= 0 && known > 0) d = total / known;
  }
  std::string y = ctx.b.Op1("Reshape", {x.value, ctx.b.ConstInts(c.name + "/shape", onnx_shape)}, c.name);
  return std::vector<KTensor>{KTensor{y, shape, x.type}};
}

Result<std::vector<KTensor>> Permute(Context& ctx, const LayerCall& c) {
  ONYX_RETURN_IF_ERROR(ExpectOne(c));
  const KTensor& x = c.inputs[0];
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, GetIntList(c.config, "dims", c.Where()));
  if (static_cast<int64_t>(dims.size()) != x.rank() - 1)
    return InvalidArgument(c.Where() + ": dims do not match the input rank");
  std::vector<int64_t> perm{0};
  std::vector<int64_t> shape{x.shape[0]};
  for (int64_t d : dims) {
    if (d < 1 || d >= x.rank()) return InvalidArgument(c.Where() + ": invalid dims");
    perm.push_back(d);
    shape.push_back(x.shape[static_cast<size_t>(d)]);
  }
  return std::vector<KTensor>{
      KTensor{ctx.b.Op1("Transpose", {x.value}, c.name, {ir::IntsAttr("perm", perm)}), shape, x.type}};
}

Result<std::vector<KTensor>> RepeatVector(Context& ctx, const LayerCall& c) {
  ONYX_RETURN_IF_ERROR(ExpectOne(c));
  const KTensor& x = c.inputs[0];
  ONYX_ASSIGN_OR_RETURN(int64_t n, GetInt(c.config, "n", c.Where()));
  std::string u = ctx.b.Op1("Unsqueeze", {x.value, ctx.b.ConstInts(c.name + "/axes", {1})}, c.name + "/unsqueeze");
  std::string y = ctx.b.Op1("Expand", {u, ctx.b.ConstInts(c.name + "/shape", {1, n, 1})}, c.name);
  return std::vector<KTensor>{KTensor{y, {x.shape[0], n, x.shape.back()}, x.type}};
}

// (begin, end) per spatial axis from Keras's forms: n, (a, b) per axis, ((b0, e0), (b1, e1), ...); for one
// spatial axis a pair is (begin, end).
Result<std::vector<std::pair<int64_t, int64_t>>> Pairs(const json& cfg, const std::string& key, size_t n,
                                                       const std::string& where) {
  std::vector<std::pair<int64_t, int64_t>> out;
  if (!cfg.contains(key)) return InvalidArgument(where + ": config lacks '" + key + "'");
  const json& v = cfg[key];
  if (v.is_number_integer()) return std::vector<std::pair<int64_t, int64_t>>(n, {v.get<int64_t>(), v.get<int64_t>()});
  if (!v.is_array()) return InvalidArgument(where + ": '" + key + "' is not a number or a list");
  if (n == 1 && v.size() == 2 && v[0].is_number_integer() && v[1].is_number_integer()) {
    return std::vector<std::pair<int64_t, int64_t>>{{v[0].get<int64_t>(), v[1].get<int64_t>()}};
  }
  if (v.size() != n) return InvalidArgument(where + ": '" + key + "' has the wrong number of entries");
  for (const auto& e : v) {
    if (e.is_number_integer()) {
      out.emplace_back(e.get<int64_t>(), e.get<int64_t>());
    } else if (e.is_array() && e.size() == 2 && e[0].is_number_integer() && e[1].is_number_integer()) {
      out.emplace_back(e[0].get<int64_t>(), e[1].get<int64_t>());
    } else {
      return InvalidArgument(where + ": '" + key + "' has an invalid entry");
    }
  }
  return out;
}

Result<std::vector<KTensor>> ZeroPadding(Context& ctx, const LayerCall& c, size_t n) {
  ONYX_RETURN_IF_ERROR(ExpectOne(c));
  const KTensor& x = c.inputs[0];
  if (x.rank() != static_cast<int64_t>(n) + 2) return InvalidArgument(c.Where() + ": input rank does not match");
  ONYX_ASSIGN_OR_RETURN(auto pairs, Pairs(c.config, "padding", n, c.Where()));
  std::vector<int64_t> pads(2 * (n + 2), 0);
  std::vector<int64_t> shape = x.shape;
  for (size_t i = 0; i < n; ++i) {
    pads[2 + i] = pairs[i].first;
    pads[n + 4 + i] = pairs[i].second;
    int64_t& d = shape[1 + i];
    if (d >= 0) d += pairs[i].first + pairs[i].second;
  }
  std::string cf = ToChannelsFirstValue(ctx, x, c.name);
  std::string p = ctx.b.Op1("Pad", {cf, ctx.b.ConstInts(c.name + "/pads", pads)}, c.name + "/Pad");
  return std::vector<KTensor>{KTensor{ToChannelsLastValue(ctx, p, x.rank(), c.name), shape, x.type}};
}

Result<std::vector<KTensor>> Cropping(Context& ctx, const LayerCall& c, size_t n) {
  ONYX_RETURN_IF_ERROR(ExpectOne(c));
  const KTensor& x = c.inputs[0];
  if (x.rank() != static_cast<int64_t>(n) + 2) return InvalidArgument(c.Where() + ": input rank does not match");
  ONYX_ASSIGN_OR_RETURN(auto pairs, Pairs(c.config, "cropping", n, c.Where()));
  std::vector<int64_t> starts, ends, axes;
  std::vector<int64_t> shape = x.shape;
  for (size_t i = 0; i < n; ++i) {
    starts.push_back(pairs[i].first);
    ends.push_back(pairs[i].second > 0 ? -pairs[i].second : INT64_MAX);
    axes.push_back(static_cast<int64_t>(i) + 2);
    int64_t& d = shape[1 + i];
    if (d >= 0) d -= pairs[i].first + pairs[i].second;
  }
  std::string cf = ToChannelsFirstValue(ctx, x, c.name);
  std::string s = ctx.b.Op1("Slice",
                            {cf, ctx.b.ConstInts(c.name + "/starts", starts), ctx.b.ConstInts(c.name + "/ends", ends),
                             ctx.b.ConstInts(c.name + "/axes", axes)},
                            c.name + "/Slice");
  return std::vector<KTensor>{KTensor{ToChannelsLastValue(ctx, s, x.rank(), c.name), shape, x.type}};
}

Result<std::vector<KTensor>> UpSampling(Context& ctx, const LayerCall& c, size_t n) {
  ONYX_RETURN_IF_ERROR(ExpectOne(c));
  const KTensor& x = c.inputs[0];
  if (x.rank() != static_cast<int64_t>(n) + 2) return InvalidArgument(c.Where() + ": input rank does not match");
  // UpSampling1D calls it `size` (an int), the others `size` (a tuple).
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> size,
                        GetInts(c.config, n == 1 ? "size" : "size", n, std::vector<int64_t>(n, 2), c.Where()));
  const std::string interp = GetStringOr(c.config, "interpolation", "nearest");
  std::vector<float> scales{1.0f, 1.0f};
  std::vector<int64_t> shape = x.shape;
  for (size_t i = 0; i < n; ++i) {
    scales.push_back(static_cast<float>(size[i]));
    if (shape[1 + i] >= 0) shape[1 + i] *= size[i];
  }
  std::vector<ir::Attribute> attrs;
  if (interp == "nearest") {
    attrs = {ir::StringAttr("mode", "nearest"), ir::StringAttr("coordinate_transformation_mode", "asymmetric"),
             ir::StringAttr("nearest_mode", "floor")};
  } else if (interp == "bilinear") {
    // Keras resizes with half-pixel centers; TF.js's UpSampling2D calls resizeBilinear without them.
    attrs = {ir::StringAttr("mode", "linear"),
             ir::StringAttr("coordinate_transformation_mode",
                            ctx.file.format == SourceFormat::kTfjs ? "asymmetric" : "half_pixel")};
  } else {
    return Unsupported(c.Where() + ": interpolation '" + interp + "'");
  }
  std::string cf = ToChannelsFirstValue(ctx, x, c.name);
  std::string sc =
      ctx.b.Constant(c.name + "/scales", Tensor::FromVector<float>(scales, {static_cast<int64_t>(scales.size())}));
  std::string r = ctx.b.Op1("Resize", {cf, "", sc}, c.name + "/Resize", attrs);
  return std::vector<KTensor>{KTensor{ToChannelsLastValue(ctx, r, x.rank(), c.name), shape, x.type}};
}

}  // namespace

void RegisterReshapingLayers(LayerTable& t) {
  t["Flatten"] = Flatten;
  t["Reshape"] = Reshape;
  t["Permute"] = Permute;
  t["RepeatVector"] = RepeatVector;
  t["ZeroPadding1D"] = [](Context& ctx, const LayerCall& c) { return ZeroPadding(ctx, c, 1); };
  t["ZeroPadding2D"] = [](Context& ctx, const LayerCall& c) { return ZeroPadding(ctx, c, 2); };
  t["ZeroPadding3D"] = [](Context& ctx, const LayerCall& c) { return ZeroPadding(ctx, c, 3); };
  t["Cropping1D"] = [](Context& ctx, const LayerCall& c) { return Cropping(ctx, c, 1); };
  t["Cropping2D"] = [](Context& ctx, const LayerCall& c) { return Cropping(ctx, c, 2); };
  t["Cropping3D"] = [](Context& ctx, const LayerCall& c) { return Cropping(ctx, c, 3); };
  t["UpSampling1D"] = [](Context& ctx, const LayerCall& c) { return UpSampling(ctx, c, 1); };
  t["UpSampling2D"] = [](Context& ctx, const LayerCall& c) { return UpSampling(ctx, c, 2); };
  t["UpSampling3D"] = [](Context& ctx, const LayerCall& c) { return UpSampling(ctx, c, 3); };
}

}  // namespace onyx::convert::keras

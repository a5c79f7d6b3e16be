// Adapters that replace a node by other operators or change its structure: Softmax-family axis semantics (13),
// Upsample -> Resize (10) and Resize's versions, Scatter -> ScatterElements (11), Scan's batch axis (9),
// GroupNormalization's per-channel scale (21), GridSample's mode names (20).
#include "version/adapter.h"

namespace onyx::version {

namespace {

int64_t IntAttrOr(const ir::Node& node, const std::string& name, int64_t fallback) {
  const ir::Attribute* a = node.FindAttribute(name);
  return a ? a->i : fallback;
}

std::string StringAttrOr(const ir::Node& node, const std::string& name, const std::string& fallback) {
  const ir::Attribute* a = node.FindAttribute(name);
  return a ? a->s : fallback;
}

// Before 13, Softmax/LogSoftmax/Hardmax flattened the input to 2-D at `axis` (default 1) and normalized each row;
// from 13 they normalize along the one axis `axis` (default -1). The same where `axis` is the last axis;
// otherwise Flatten -> op(axis=-1) -> Reshape back.
Status SoftmaxUp13(AdaptContext& ctx, ir::Node node) {
  int64_t axis = IntAttrOr(node, "axis", 1);
  std::optional<int64_t> rank = ctx.scope().Rank(node.inputs[0]);
  TakeAttribute(node, "axis");
  if (axis == -1 || (rank && axis == *rank - 1)) {
    node.attributes.push_back(IntAttr("axis", -1));
    ctx.Emit(std::move(node));
    return Status::Ok();
  }
  const std::string x = node.inputs[0];
  const std::string y = node.outputs[0];
  node.inputs[0] = ctx.EmitHelper("Flatten", {x}, node.name + "_flat", {IntAttr("axis", axis)});
  node.outputs[0] = ctx.NewName(node.name + "_2d");
  node.attributes.push_back(IntAttr("axis", -1));
  const std::string normalized = node.outputs[0];
  const std::string name = node.name;
  ctx.Emit(std::move(node));
  std::string shape = ctx.EmitHelper("Shape", {x}, name + "_shape");
  ir::Node reshape;
  reshape.op_type = "Reshape";
  reshape.name = ctx.NewName(name + "_unflat");
  reshape.inputs = {normalized, shape};
  reshape.outputs = {y};
  ctx.Emit(std::move(reshape));
  return Status::Ok();
}

Status SoftmaxDown13(AdaptContext& ctx, ir::Node node) {
  int64_t axis = IntAttrOr(node, "axis", -1);
  std::optional<int64_t> rank = ctx.scope().Rank(node.inputs[0]);
  TakeAttribute(node, "axis");
  if (rank && axis == *rank - 1) axis = -1;
  if (axis != -1) return ctx.Fail(node, "only the last axis can be expressed before opset 13");
  if (ctx.to_opset() < 11) {
    if (!rank) return ctx.Fail(node, "axis -1 needs the input's rank before opset 11, which is unknown");
    axis = *rank - 1;
  }
  node.attributes.push_back(IntAttr("axis", axis));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status UpsampleUp9(AdaptContext& ctx, ir::Node node) {
  auto scales = TakeAttribute(node, "scales");
  if (!scales) return ctx.Fail(node, "Upsample-7 without 'scales'");
  std::vector<float> v = scales->floats;
  SetInput(node, 1, ctx.AddConstant(Tensor::FromVector(v, {static_cast<int64_t>(v.size())}), node.name + "_scales"));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status UpsampleDown9(AdaptContext& ctx, ir::Node node) {
  std::optional<Tensor> scales = node.inputs.size() > 1 ? ctx.scope().ConstantValue(node.inputs[1]) : std::nullopt;
  if (!scales) return ctx.Fail(node, "input 'scales' must become an attribute but is not a constant");
  std::vector<float> v;
  for (int64_t i = 0; i < scales->size(); ++i) v.push_back(static_cast<float>(scales->DoubleAt(i)));
  node.inputs.resize(1);
  node.attributes.push_back(FloatsAttr("scales", std::move(v)));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

// Upsample is deprecated at 10; Resize-10 has the same inputs and meaning.
Status UpsampleUp10(AdaptContext& ctx, ir::Node node) {
  node.op_type = "Resize";
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status ResizeDown10(AdaptContext& ctx, ir::Node node) {
  node.op_type = "Upsample";
  ctx.Emit(std::move(node));
  return Status::Ok();
}

// Resize-10 maps output coordinate x to x / scale and, for nearest, takes the floor: Resize-11's "asymmetric"
// transformation with nearest_mode "floor". Resize-11 also wants a roi input (unused here: empty).
Status ResizeUp11(AdaptContext& ctx, ir::Node node) {
  std::string scales = node.inputs.size() > 1 ? node.inputs[1] : "";
  std::string roi = ctx.AddConstant(Tensor::FromVector<float>({}, {0}), node.name + "_roi");
  node.inputs = {node.inputs[0], roi, scales};
  node.attributes.push_back(StringAttr("coordinate_transformation_mode", "asymmetric"));
  if (StringAttrOr(node, "mode", "nearest") == "nearest")
    node.attributes.push_back(StringAttr("nearest_mode", "floor"));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status ResizeDown11(AdaptContext& ctx, ir::Node node) {
  const std::string mode = StringAttrOr(node, "mode", "nearest");
  if (StringAttrOr(node, "coordinate_transformation_mode", "half_pixel") != "asymmetric") {
    return ctx.Fail(node, "only coordinate_transformation_mode 'asymmetric' has an equivalent before opset 11");
  }
  if (mode == "nearest" && StringAttrOr(node, "nearest_mode", "round_prefer_floor") != "floor") {
    return ctx.Fail(node, "only nearest_mode 'floor' has an equivalent before opset 11");
  }
  if (mode == "cubic") return ctx.Fail(node, "mode 'cubic' has no equivalent before opset 11");
  if (node.inputs.size() > 3 && !node.inputs[3].empty()) {
    return ctx.Fail(node, "the 'sizes' input has no equivalent before opset 11");
  }
  for (const char* a :
       {"coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside", "extrapolation_value"}) {
    TakeAttribute(node, a);
  }
  node.inputs = {node.inputs[0], node.inputs.size() > 2 ? node.inputs[2] : ""};
  ctx.Emit(std::move(node));
  return Status::Ok();
}

// tf_half_pixel_for_nn (gone at 13) maps x to (x + 0.5) / scale: half_pixel's coordinate plus 0.5. For nearest
// that shift folds into the rounding: floor(h + 0.5) is round_prefer_ceil(h), and round_prefer_floor(h + 0.5) is
// ceil(h).
Status ResizeUp13(AdaptContext& ctx, ir::Node node) {
  if (StringAttrOr(node, "coordinate_transformation_mode", "") == "tf_half_pixel_for_nn") {
    const std::string nearest = StringAttrOr(node, "nearest_mode", "round_prefer_floor");
    std::string equivalent;
    if (nearest == "floor") equivalent = "round_prefer_ceil";
    if (nearest == "round_prefer_floor") equivalent = "ceil";
    if (StringAttrOr(node, "mode", "nearest") != "nearest" || equivalent.empty()) {
      return ctx.Fail(node, "coordinate_transformation_mode 'tf_half_pixel_for_nn' with mode '" +
                                StringAttrOr(node, "mode", "nearest") + "', nearest_mode '" + nearest +
                                "' has no equivalent from opset 13");
    }
    TakeAttribute(node, "coordinate_transformation_mode");
    TakeAttribute(node, "nearest_mode");
    node.attributes.push_back(StringAttr("coordinate_transformation_mode", "half_pixel"));
    node.attributes.push_back(StringAttr("nearest_mode", equivalent));
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

// Resize-11 requires roi and scales; from 13 they may be omitted.
Status ResizeDown13(AdaptContext& ctx, ir::Node node) {
  node.inputs.resize(std::max<size_t>(node.inputs.size(), 3));
  if (node.inputs[1].empty()) node.inputs[1] = ctx.AddConstant(Tensor::FromVector<float>({}, {0}), node.name + "_roi");
  if (node.inputs[2].empty()) {
    node.inputs[2] = ctx.AddConstant(Tensor::FromVector<float>({}, {0}), node.name + "_scales");
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status ResizeDown18(AdaptContext& ctx, ir::Node node) {
  if (IntAttrOr(node, "antialias", 0) != 0) return ctx.Fail(node, "antialias has no equivalent before opset 18");
  if (node.FindAttribute("axes")) return ctx.Fail(node, "'axes' has no equivalent before opset 18");
  if (StringAttrOr(node, "keep_aspect_ratio_policy", "stretch") != "stretch") {
    return ctx.Fail(node, "keep_aspect_ratio_policy has no equivalent before opset 18");
  }
  for (const char* a : {"antialias", "keep_aspect_ratio_policy"}) TakeAttribute(node, a);
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status ResizeDown19(AdaptContext& ctx, ir::Node node) {
  if (StringAttrOr(node, "coordinate_transformation_mode", "") == "half_pixel_symmetric") {
    return ctx.Fail(node, "coordinate_transformation_mode 'half_pixel_symmetric' has no equivalent before opset 19");
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Adapter Rename(std::string to) {
  return [to](AdaptContext& ctx, ir::Node node) {
    node.op_type = to;
    ctx.Emit(std::move(node));
    return Status::Ok();
  };
}

Status ScatterElementsDown11(AdaptContext& ctx, ir::Node node) {
  node.op_type = "Scatter";
  ctx.Emit(std::move(node));
  return Status::Ok();
}

// Scan-8 runs every batch element (axis 0 of all inputs) through the loop; Scan-9 has no batch axis. The
// equivalent is a Loop over the batch whose body takes element i of every input and runs a Scan-9 on them; the
// Loop stacks the per-element results back along axis 0.
Status ScanUp9(AdaptContext& ctx, ir::Node node) {
  if (!node.inputs.empty() && !node.inputs[0].empty()) {
    return ctx.Fail(node, "the 'sequence_lens' input has no equivalent from opset 9");
  }
  if (node.inputs.size() < 2) return ctx.Fail(node, "has no inputs besides sequence_lens");
  const std::string base = node.name.empty() ? "scan" : node.name;
  ir::Node scan = node;
  scan.name = ctx.NewName(base + "_per_batch");
  scan.inputs.clear();
  scan.outputs.clear();
  if (auto directions = TakeAttribute(scan, "directions")) {
    directions->name = "scan_input_directions";
    scan.attributes.push_back(std::move(*directions));
  }
  auto body = std::make_shared<ir::Graph>();
  body->name = base + "_batch_loop";
  const std::string iter = ctx.NewName(base + "_batch_index");
  const std::string cond_in = ctx.NewName(base + "_cond_in");
  const std::string cond_out = ctx.NewName(base + "_cond_out");
  body->inputs.push_back({iter, ir::TypeInfo::Tensor(DataType::kInt64, std::vector<ir::Dim>{}), {}, {}});
  body->inputs.push_back({cond_in, ir::TypeInfo::Tensor(DataType::kBool, std::vector<ir::Dim>{}), {}, {}});
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    ir::Node gather;
    gather.op_type = "Gather";
    gather.name = ctx.NewName(base + "_element");
    gather.inputs = {node.inputs[i], iter};
    gather.outputs = {gather.name};
    gather.attributes.push_back(IntAttr("axis", 0));
    scan.inputs.push_back(gather.name);
    body->nodes.push_back(std::move(gather));
  }
  ir::Node identity;
  identity.op_type = "Identity";
  identity.name = cond_out;
  identity.inputs = {cond_in};
  identity.outputs = {cond_out};
  body->nodes.push_back(std::move(identity));
  body->outputs.push_back({cond_out, std::nullopt, {}, {}});
  for (const auto& o : node.outputs) {
    std::string per_batch = ctx.NewName(o + "_element");
    scan.outputs.push_back(per_batch);
    body->outputs.push_back({per_batch, std::nullopt, {}, {}});
  }
  body->nodes.push_back(std::move(scan));

  std::string shape = ctx.EmitHelper("Shape", {node.inputs[1]}, base + "_shape");
  std::string zero = ctx.AddConstant(Tensor::Scalar<int64_t>(0), base + "_zero");
  std::string batch = ctx.EmitHelper("Gather", {shape, zero}, base + "_batch", {IntAttr("axis", 0)});
  ir::Node loop;
  loop.op_type = "Loop";
  loop.name = node.name;
  loop.inputs = {batch, ""};
  loop.outputs = node.outputs;
  ir::Attribute body_attr;
  body_attr.name = "body";
  body_attr.type = ir::AttrType::kGraph;
  body_attr.g = std::move(body);
  loop.attributes.push_back(std::move(body_attr));
  ctx.Emit(std::move(loop));
  return Status::Ok();
}

// GroupNormalization-18 scales and shifts per group; 21 per channel: each group's value repeated C/G times.
Status GroupNormUp21(AdaptContext& ctx, ir::Node node) {
  const ir::Attribute* groups = node.FindAttribute("num_groups");
  if (!groups) return ctx.Fail(node, "has no 'num_groups'");
  const std::string base = node.name.empty() ? "group_norm" : node.name;
  std::string shape = ctx.EmitHelper("Shape", {node.inputs[0]}, base + "_shape");
  std::string channels = ctx.EmitHelper(
      "Slice", {shape, ctx.AddInt64s({1}, base + "_one"), ctx.AddInt64s({2}, base + "_two")}, base + "_channels");
  std::string g = ctx.AddInt64s({groups->i}, base + "_groups");
  std::string per_group = ctx.EmitHelper("Div", {channels, g}, base + "_per_group");
  std::string grid = ctx.EmitHelper("Concat", {g, per_group}, base + "_grid", {IntAttr("axis", 0)});
  std::string axes = ctx.AddInt64s({1}, base + "_axis1");
  std::string flat = ctx.AddInt64s({-1}, base + "_flat");
  for (size_t i = 1; i <= 2 && i < node.inputs.size(); ++i) {
    std::string col = ctx.EmitHelper("Unsqueeze", {node.inputs[i], axes}, base + "_col");
    std::string expanded = ctx.EmitHelper("Expand", {col, grid}, base + "_expanded");
    node.inputs[i] = ctx.EmitHelper("Reshape", {expanded, flat}, base + "_per_channel");
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status GroupNormDown21(AdaptContext& ctx, ir::Node node) {
  const ir::Attribute* groups = node.FindAttribute("num_groups");
  if (!groups || groups->i <= 0) return ctx.Fail(node, "has no valid 'num_groups'");
  for (size_t i = 1; i <= 2 && i < node.inputs.size(); ++i) {
    std::optional<Tensor> v = ctx.scope().ConstantValue(node.inputs[i]);
    if (!v) return ctx.Fail(node, "input '" + node.inputs[i] + "' must be a constant to go per group");
    if (v->rank() != 1 || v->size() % groups->i != 0)
      return ctx.Fail(node, "input '" + node.inputs[i] + "' is not [C]");
    const int64_t per = v->size() / groups->i;
    std::vector<double> group_values;
    for (int64_t g = 0; g < groups->i; ++g) {
      for (int64_t c = 1; c < per; ++c) {
        if (v->DoubleAt(g * per + c) != v->DoubleAt(g * per)) {
          return ctx.Fail(node, "input '" + node.inputs[i] + "' differs within a group, which opset 20 cannot say");
        }
      }
      group_values.push_back(v->DoubleAt(g * per));
    }
    Tensor out = Tensor::Allocate(v->type(), {groups->i});
    ONYX_RETURN_IF_ERROR(Dispatch<FloatTypes>(v->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int64_t g = 0; g < groups->i; ++g) out.data<T>()[g] = FromDouble<T>(group_values[static_cast<size_t>(g)]);
      return Status::Ok();
    }));
    node.inputs[i] = ctx.AddConstant(std::move(out), node.name + "_per_group");
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Adapter GridSampleModes(bool upward) {
  return [upward](AdaptContext& ctx, ir::Node node) {
    for (auto& a : node.attributes) {
      if (a.name != "mode") continue;
      if (upward) {
        if (a.s == "bilinear") a.s = "linear";
        if (a.s == "bicubic") a.s = "cubic";
      } else {
        if (a.s == "linear") a.s = "bilinear";
        if (a.s == "cubic") a.s = "bicubic";
      }
    }
    ctx.Emit(std::move(node));
    return Status::Ok();
  };
}

// Below their first version, activations that are functions of older operators are written out:
// HardSwish-14(x) = x * HardSigmoid(x; alpha 1/6, beta 0.5); Mish-18(x) = x * Tanh(Softplus(x)).
Status HardSwishDown14(AdaptContext& ctx, ir::Node node) {
  const std::string gate = ctx.EmitHelper("HardSigmoid", {node.inputs.at(0)}, node.name + "_gate",
                                          {ir::FloatAttr("alpha", 1.0f / 6.0f), ir::FloatAttr("beta", 0.5f)});
  node.op_type = "Mul";
  node.inputs = {node.inputs[0], gate};
  node.attributes.clear();
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status MishDown18(AdaptContext& ctx, ir::Node node) {
  const std::string softplus = ctx.EmitHelper("Softplus", {node.inputs.at(0)}, node.name + "_softplus");
  const std::string gate = ctx.EmitHelper("Tanh", {softplus}, node.name + "_tanh");
  node.op_type = "Mul";
  node.inputs = {node.inputs[0], gate};
  node.attributes.clear();
  ctx.Emit(std::move(node));
  return Status::Ok();
}

}  // namespace

void RegisterRewriteAdapters(AdapterTable& t) {
  t[{"HardSwish", 14, false}] = HardSwishDown14;
  t[{"Mish", 18, false}] = MishDown18;
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    t[{op, 13, true}] = SoftmaxUp13;
    t[{op, 13, false}] = SoftmaxDown13;
  }
  t[{"Upsample", 9, true}] = UpsampleUp9;
  t[{"Upsample", 9, false}] = UpsampleDown9;
  t[{"Upsample", 10, true}] = UpsampleUp10;
  t[{"Resize", 10, false}] = ResizeDown10;
  t[{"Resize", 11, true}] = ResizeUp11;
  t[{"Resize", 11, false}] = ResizeDown11;
  t[{"Resize", 13, true}] = ResizeUp13;
  t[{"Resize", 13, false}] = ResizeDown13;
  t[{"Resize", 18, false}] = ResizeDown18;
  t[{"Resize", 19, false}] = ResizeDown19;
  t[{"Scatter", 11, true}] = Rename("ScatterElements");
  t[{"ScatterElements", 11, false}] = ScatterElementsDown11;
  t[{"Scan", 9, true}] = ScanUp9;
  t[{"GroupNormalization", 21, true}] = GroupNormUp21;
  t[{"GroupNormalization", 21, false}] = GroupNormDown21;
  t[{"GridSample", 20, true}] = GridSampleModes(true);
  t[{"GridSample", 20, false}] = GridSampleModes(false);
}

}  // namespace onyx::version

// Adapters for the changes of opsets 1..12 that are bookkeeping rather than new inputs: consumed_inputs and
// is_test removal (6, 7), legacy broadcast (7), Cast's type as a string (6), BatchNormalization's spatial (9),
// and attributes that later versions added with a default the older versions always had.
#include <cctype>

#include "version/adapter.h"

namespace onyx::version {

namespace {

Adapter Dropper(std::initializer_list<const char*> attrs) {
  std::vector<std::string> names(attrs.begin(), attrs.end());
  return [names](AdaptContext& ctx, ir::Node node) {
    for (const auto& a : names) TakeAttribute(node, a);
    ctx.Emit(std::move(node));
    return Status::Ok();
  };
}

Adapter Setter(ir::Attribute attr) {
  return [attr](AdaptContext& ctx, ir::Node node) {
    TakeAttribute(node, attr.name);
    node.attributes.push_back(attr);
    ctx.Emit(std::move(node));
    return Status::Ok();
  };
}

// A downward step over a version that added attributes: each may only hold the default the older version had.
struct AddedAttr {
  const char* name;
  int64_t int_default;
  const char* string_default;  // for STRING attributes; nullptr otherwise
};

Adapter DefaultsOnly(std::vector<AddedAttr> added) {
  return [added](AdaptContext& ctx, ir::Node node) -> Status {
    for (const auto& a : added) {
      auto attr = TakeAttribute(node, a.name);
      if (!attr) continue;
      bool is_default = a.string_default ? attr->s == a.string_default : attr->i == a.int_default;
      if (!is_default) {
        return ctx.Fail(node, std::string("attribute '") + a.name +
                                  "' other than its default has no equivalent at opset " +
                                  std::to_string(ctx.to_opset()));
      }
    }
    ctx.Emit(std::move(node));
    return Status::Ok();
  };
}

// Legacy broadcast (before opset 7): with broadcast=1, B is aligned with A starting at `axis` (default: the
// trailing dimensions). Numpy-style broadcasting aligns trailing dimensions, so B gets trailing 1s when `axis`
// leaves dimensions of A after it.
Status BroadcastUp7(AdaptContext& ctx, ir::Node node) {
  auto broadcast = TakeAttribute(node, "broadcast");
  auto axis = TakeAttribute(node, "axis");
  if (broadcast && broadcast->i != 0 && axis && node.inputs.size() == 2) {
    std::optional<int64_t> rank_a = ctx.scope().Rank(node.inputs[0]);
    std::optional<int64_t> rank_b = ctx.scope().Rank(node.inputs[1]);
    if (!rank_a || !rank_b) return ctx.Fail(node, "broadcast with 'axis' needs the ranks of both inputs, unknown");
    int64_t a = axis->i < 0 ? axis->i + *rank_a : axis->i;
    int64_t trailing = *rank_a - a - *rank_b;
    if (trailing < 0) return ctx.Fail(node, "'axis' does not fit the ranks of the inputs");
    if (trailing > 0) {
      std::vector<int64_t> axes;
      for (int64_t i = 0; i < trailing; ++i) axes.push_back(*rank_b + i);
      node.inputs[1] = ctx.EmitHelper("Unsqueeze", {node.inputs[1]}, node.name + "_bcast", {IntsAttr("axes", axes)});
    }
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status BroadcastDown7(AdaptContext& ctx, ir::Node node) {
  if (node.inputs.size() == 2) {
    std::optional<int64_t> rank_a = ctx.scope().Rank(node.inputs[0]);
    std::optional<int64_t> rank_b = ctx.scope().Rank(node.inputs[1]);
    if (!rank_a || !rank_b) return ctx.Fail(node, "legacy broadcast needs the ranks of both inputs, unknown");
    if (*rank_b > *rank_a) return ctx.Fail(node, "B has a higher rank than A, which legacy broadcast cannot say");
    node.attributes.push_back(IntAttr("broadcast", 1));
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status CastUp6(AdaptContext& ctx, ir::Node node) {
  for (auto& a : node.attributes) {
    if (a.name != "to" || a.type != ir::AttrType::kString) continue;
    std::string lower;
    for (char c : a.s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto t = DataTypeFromName(lower);
    if (!t.ok()) return ctx.Fail(node, "unknown type name '" + a.s + "' in 'to'");
    a = IntAttr("to", static_cast<int64_t>(*t));
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status CastDown6(AdaptContext& ctx, ir::Node node) {
  for (auto& a : node.attributes) {
    if (a.name != "to" || a.type != ir::AttrType::kInt) continue;
    if (!IsValidDataType(static_cast<int32_t>(a.i))) return ctx.Fail(node, "invalid 'to'");
    std::string upper;
    for (char c : DataTypeName(static_cast<DataType>(a.i))) {
      upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    a = StringAttr("to", upper);
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status CastDown19(AdaptContext& ctx, ir::Node node) {
  auto saturate = TakeAttribute(node, "saturate");
  const ir::Attribute* to = node.FindAttribute("to");
  if (saturate && saturate->i == 0 && to && IsFloat8(static_cast<DataType>(to->i))) {
    return ctx.Fail(node, "saturate=0 has no equivalent before opset 19");
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status BatchNormUp9(AdaptContext& ctx, ir::Node node) {
  if (auto spatial = TakeAttribute(node, "spatial"); spatial && spatial->i == 0) {
    return ctx.Fail(node, "spatial=0 (per-activation statistics) has no equivalent from opset 9");
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status BatchNormDown14(AdaptContext& ctx, ir::Node node) {
  if (auto training = TakeAttribute(node, "training_mode"); training && training->i != 0) {
    return ctx.Fail(node, "training_mode=1 has no equivalent before opset 14");
  }
  if (node.outputs.size() > 1) return ctx.Fail(node, "running statistics outputs have no equivalent before opset 14");
  ctx.Emit(std::move(node));
  return Status::Ok();
}

// Concat-1's axis defaulted to 1; from 4 it is required.
Status ConcatUp4(AdaptContext& ctx, ir::Node node) {
  if (!node.FindAttribute("axis")) node.attributes.push_back(IntAttr("axis", 1));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status MaxPoolDown8(AdaptContext& ctx, ir::Node node) {
  if (node.outputs.size() > 1 && !node.outputs[1].empty()) {
    return ctx.Fail(node, "the 'Indices' output has no equivalent before opset 8");
  }
  node.outputs.resize(1);
  return DefaultsOnly({{"storage_order", 0, nullptr}})(ctx, std::move(node));
}

// Pool attributes of opset 10+ (ceil_mode) and 19 (AveragePool dilations): only defaults go down.
Status DilationsDown(AdaptContext& ctx, ir::Node node) {
  if (auto d = TakeAttribute(node, "dilations")) {
    for (int64_t v : d->ints) {
      if (v != 1) return ctx.Fail(node, "dilations other than 1 have no equivalent at this opset");
    }
  }
  return DefaultsOnly({{"ceil_mode", 0, nullptr}})(ctx, std::move(node));
}

}  // namespace

void RegisterLegacyAdapters(AdapterTable& t) {
  // Opset 6 dropped consumed_inputs everywhere.
  for (const char* op : {"Abs",       "Add",         "BatchNormalization",
                         "Ceil",      "Clip",        "Div",
                         "Dropout",   "Elu",         "Exp",
                         "Floor",     "HardSigmoid", "InstanceNormalization",
                         "LeakyRelu", "Log",         "Max",
                         "Mean",      "Min",         "Mul",
                         "Neg",       "PRelu",       "Reciprocal",
                         "Relu",      "Selu",        "Sigmoid",
                         "Sqrt",      "Sub",         "Sum",
                         "Tanh"}) {
    t[{op, 6, true}] = Dropper({"consumed_inputs"});
  }
  t[{"Cast", 6, true}] = CastUp6;
  t[{"Cast", 6, false}] = CastDown6;
  t[{"Cast", 19, false}] = CastDown19;
  // Opset 7: numpy broadcasting replaces broadcast/axis; is_test goes.
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Greater", "Less"}) {
    t[{op, 7, true}] = BroadcastUp7;
    t[{op, 7, false}] = BroadcastDown7;
  }
  t[{"Gemm", 7, true}] = Dropper({"broadcast"});
  t[{"Gemm", 7, false}] = Setter(IntAttr("broadcast", 1));
  t[{"BatchNormalization", 7, true}] = Dropper({"is_test"});
  t[{"BatchNormalization", 7, false}] = Setter(IntAttr("is_test", 1));
  t[{"Dropout", 7, true}] = Dropper({"is_test"});
  t[{"Dropout", 7, false}] = Setter(IntAttr("is_test", 1));
  t[{"BatchNormalization", 9, true}] = BatchNormUp9;
  t[{"BatchNormalization", 14, false}] = BatchNormDown14;
  t[{"Concat", 4, true}] = ConcatUp4;
  t[{"MaxPool", 8, false}] = MaxPoolDown8;
  t[{"MaxPool", 10, false}] = DilationsDown;
  t[{"AveragePool", 7, false}] = DefaultsOnly({{"count_include_pad", 0, nullptr}});
  t[{"AveragePool", 10, false}] = DefaultsOnly({{"ceil_mode", 0, nullptr}});
  t[{"AveragePool", 19, false}] = DilationsDown;
  // Attributes later versions added, whose default is what the older version always did.
  t[{"ArgMax", 12, false}] = DefaultsOnly({{"select_last_index", 0, nullptr}});
  t[{"ArgMin", 12, false}] = DefaultsOnly({{"select_last_index", 0, nullptr}});
  for (const char* op : {"LSTM", "GRU", "RNN"}) t[{op, 14, false}] = DefaultsOnly({{"layout", 0, nullptr}});
  t[{"Shape", 15, false}] = DefaultsOnly({{"start", 0, nullptr}});
  t[{"QuantizeLinear", 19, false}] = DefaultsOnly({{"saturate", 1, nullptr}});
  t[{"QuantizeLinear", 21, false}] = DefaultsOnly({{"block_size", 0, nullptr}, {"output_dtype", 0, nullptr}});
  t[{"DequantizeLinear", 21, false}] = DefaultsOnly({{"block_size", 0, nullptr}});
  t[{"ScatterElements", 16, false}] = DefaultsOnly({{"reduction", 0, "none"}});
  t[{"ScatterND", 16, false}] = DefaultsOnly({{"reduction", 0, "none"}});
}

}  // namespace onyx::version

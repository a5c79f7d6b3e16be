// Activations (the `activation` argument of many layers, and the Activation layer) and the activation layers
// ReLU, LeakyReLU, PReLU, ELU, ThresholdedReLU, Softmax.
#include <cmath>

#include "convert/keras/config_util.h"
#include "convert/keras/layer_context.h"

namespace onyx::convert::keras {

namespace {

using json = nlohmann::json;

KTensor Same(const KTensor& x, std::string value) { return KTensor{std::move(value), x.shape, x.type}; }

// 0.5 * x * (1 + erf(x / sqrt(2))): Keras's exact gelu, for opsets before Gelu (20).
std::string GeluErf(Context& ctx, const std::string& x, const std::string& n) {
  GraphBuilder& b = ctx.b;
  if (ctx.options.opset >= 20) return b.Op1("Gelu", {x}, n);
  std::string s = b.Op1("Div", {x, b.ConstFloat(n + "/sqrt2", static_cast<float>(std::sqrt(2.0)))}, n + "/div");
  std::string e = b.Op1("Erf", {s}, n + "/erf");
  std::string a = b.Op1("Add", {e, b.ConstFloat(n + "/one", 1.0f)}, n + "/add");
  std::string m = b.Op1("Mul", {x, a}, n + "/mul");
  return b.Op1("Mul", {m, b.ConstFloat(n + "/half", 0.5f)}, n + "/half_mul");
}

// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))): the tanh approximation (TF.js "gelu_new").
std::string GeluTanh(Context& ctx, const std::string& x, const std::string& n) {
  GraphBuilder& b = ctx.b;
  if (ctx.options.opset >= 20) return b.Op1("Gelu", {x}, n, {ir::StringAttr("approximate", "tanh")});
  std::string x3 = b.Op1("Mul", {b.Op1("Mul", {x, x}, n + "/sq"), x}, n + "/cube");
  std::string inner = b.Op1("Add", {x, b.Op1("Mul", {x3, b.ConstFloat(n + "/c", 0.044715f)}, n + "/cx3")}, n + "/sum");
  std::string t = b.Op1(
      "Tanh", {b.Op1("Mul", {inner, b.ConstFloat(n + "/k", static_cast<float>(std::sqrt(2.0 / M_PI)))}, n + "/scale")},
      n + "/tanh");
  std::string a = b.Op1("Add", {t, b.ConstFloat(n + "/one", 1.0f)}, n + "/add");
  return b.Op1("Mul", {b.Op1("Mul", {x, a}, n + "/mul"), b.ConstFloat(n + "/half", 0.5f)}, n + "/half_mul");
}

}  // namespace

Result<std::string> ActivationName(const json& config, const std::string& key, const std::string& where) {
  if (!config.contains(key) || config[key].is_null()) return std::string("linear");
  const json& a = config[key];
  if (a.is_string()) return KerasSnakeCase(a.get<std::string>());
  // Keras 3 may serialize a built-in activation as an object naming it.
  if (a.is_object()) {
    if (a.contains("config") && a["config"].is_string()) return KerasSnakeCase(a["config"].get<std::string>());
    if (a.contains("class_name") && a["class_name"].is_string()) {
      return KerasSnakeCase(a["class_name"].get<std::string>());
    }
  }
  return InvalidArgument(where + ": config '" + key + "' is not an activation name");
}

Result<KTensor> ApplyActivation(Context& ctx, const std::string& activation, const KTensor& x, const std::string& n) {
  GraphBuilder& b = ctx.b;
  const std::string act = KerasSnakeCase(activation);
  const std::string& v = x.value;
  if (act == "linear" || act.empty()) return x;
  if (act == "relu") return Same(x, b.Op1("Relu", {v}, n + "/relu"));
  if (act == "relu6") {
    return Same(x, b.Op1("Clip", {v, b.ConstFloat(n + "/zero", 0), b.ConstFloat(n + "/six", 6)}, n + "/relu6"));
  }
  if (act == "elu") return Same(x, b.Op1("Elu", {v}, n + "/elu", {ir::FloatAttr("alpha", 1.0f)}));
  if (act == "selu") return Same(x, b.Op1("Selu", {v}, n + "/selu"));
  if (act == "sigmoid") return Same(x, b.Op1("Sigmoid", {v}, n + "/sigmoid"));
  if (act == "tanh") return Same(x, b.Op1("Tanh", {v}, n + "/tanh"));
  if (act == "softplus") return Same(x, b.Op1("Softplus", {v}, n + "/softplus"));
  if (act == "softsign") return Same(x, b.Op1("Softsign", {v}, n + "/softsign"));
  if (act == "exponential") return Same(x, b.Op1("Exp", {v}, n + "/exp"));
  if (act == "softmax") return Same(x, b.Op1("Softmax", {v}, n + "/softmax", {ir::IntAttr("axis", -1)}));
  if (act == "log_softmax") return Same(x, b.Op1("LogSoftmax", {v}, n + "/log_softmax", {ir::IntAttr("axis", -1)}));
  if (act == "hard_sigmoid") {
    // Keras 2 and TF.js: clip(0.2x + 0.5, 0, 1); Keras 3: relu6(x + 3) / 6.
    const float alpha = ctx.file.format == SourceFormat::kKeras3 ? 1.0f / 6.0f : 0.2f;
    return Same(x, b.Op1("HardSigmoid", {v}, n + "/hard_sigmoid",
                         {ir::FloatAttr("alpha", alpha), ir::FloatAttr("beta", 0.5f)}));
  }
  if (act == "hard_swish" || act == "hard_silu") {
    if (ctx.options.opset >= 14) return Same(x, b.Op1("HardSwish", {v}, n + "/hard_swish"));
    // HardSwish is opset 14+: x * relu6(x + 3) / 6 as x * HardSigmoid(alpha 1/6, beta 0.5).
    std::string gate = b.Op1("HardSigmoid", {v}, n + "/hard_sigmoid",
                             {ir::FloatAttr("alpha", 1.0f / 6.0f), ir::FloatAttr("beta", 0.5f)});
    return Same(x, b.Op1("Mul", {v, gate}, n + "/hard_swish"));
  }
  if (act == "swish" || act == "silu") {
    return Same(x, b.Op1("Mul", {v, b.Op1("Sigmoid", {v}, n + "/sigmoid")}, n + "/swish"));
  }
  if (act == "gelu") return Same(x, GeluErf(ctx, v, n + "/gelu"));
  if (act == "gelu_new") return Same(x, GeluTanh(ctx, v, n + "/gelu"));
  if (act == "mish") {
    if (ctx.options.opset >= 18) return Same(x, b.Op1("Mish", {v}, n + "/mish"));
    std::string sp = b.Op1("Softplus", {v}, n + "/softplus");
    return Same(x, b.Op1("Mul", {v, b.Op1("Tanh", {sp}, n + "/tanh")}, n + "/mish"));
  }
  if (act == "leaky_relu") return Same(x, b.Op1("LeakyRelu", {v}, n + "/leaky_relu", {ir::FloatAttr("alpha", 0.2f)}));
  return Unsupported("activation '" + activation + "' is not supported");
}

namespace {

Result<std::vector<KTensor>> Activation(Context& ctx, const LayerCall& c) {
  if (c.inputs.size() != 1) return InvalidArgument(c.Where() + ": expects one input");
  ONYX_ASSIGN_OR_RETURN(std::string act, ActivationName(c.config, "activation", c.Where()));
  auto y = ApplyActivation(ctx, act, c.inputs[0], c.name);
  if (!y.ok()) return y.status().WithContext(c.Where());
  return std::vector<KTensor>{*y};
}

// ReLU(max_value, negative_slope, threshold): x >= threshold ? min(x, max_value) : negative_slope * (x - threshold).
Result<std::vector<KTensor>> ReluLayer(Context& ctx, const LayerCall& c) {
  if (c.inputs.size() != 1) return InvalidArgument(c.Where() + ": expects one input");
  GraphBuilder& b = ctx.b;
  const KTensor& x = c.inputs[0];
  const double slope = GetFloatOr(c.config, "negative_slope", GetFloatOr(c.config, "alpha", 0.0));
  const double threshold = GetFloatOr(c.config, "threshold", 0.0);
  const bool has_max = HasNonNull(c.config, "max_value");
  const double max_value = GetFloatOr(c.config, "max_value", 0.0);
  std::string y;
  if (slope == 0 && threshold == 0) {
    y = has_max ? b.Op1("Clip",
                        {x.value, b.ConstFloat(c.name + "/zero", 0),
                         b.ConstFloat(c.name + "/max", static_cast<float>(max_value))},
                        c.name)
                : b.Op1("Relu", {x.value}, c.name);
  } else {
    std::string th = b.ConstFloat(c.name + "/threshold", static_cast<float>(threshold));
    std::string below = b.Op1(
        "Mul",
        {b.Op1("Sub", {x.value, th}, c.name + "/shift"), b.ConstFloat(c.name + "/slope", static_cast<float>(slope))},
        c.name + "/negative");
    std::string cond = b.Op1("GreaterOrEqual", {x.value, th}, c.name + "/above");
    y = b.Op1("Where", {cond, x.value, below}, c.name + "/select");
    if (has_max) y = b.Op1("Min", {y, b.ConstFloat(c.name + "/max", static_cast<float>(max_value))}, c.name + "/cap");
  }
  return std::vector<KTensor>{Same(x, y)};
}

Result<std::vector<KTensor>> LeakyReluLayer(Context& ctx, const LayerCall& c) {
  if (c.inputs.size() != 1) return InvalidArgument(c.Where() + ": expects one input");
  // Keras 2 / TF.js call it alpha (default 0.3); Keras 3 negative_slope (default 0.3).
  const double alpha = GetFloatOr(c.config, "negative_slope", GetFloatOr(c.config, "alpha", 0.3));
  return std::vector<KTensor>{Same(c.inputs[0], ctx.b.Op1("LeakyRelu", {c.inputs[0].value}, c.name,
                                                          {ir::FloatAttr("alpha", static_cast<float>(alpha))}))};
}

Result<std::vector<KTensor>> PReluLayer(Context& ctx, const LayerCall& c) {
  if (c.inputs.size() != 1) return InvalidArgument(c.Where() + ": expects one input");
  // alpha has the input's shape without the batch (shared axes of size 1): it broadcasts as is.
  ONYX_ASSIGN_OR_RETURN(Tensor alpha, c.WeightAt(0, "alpha"));
  std::string a = ctx.b.Constant(c.name + "/alpha", alpha);
  return std::vector<KTensor>{Same(c.inputs[0], ctx.b.Op1("PRelu", {c.inputs[0].value, a}, c.name))};
}

Result<std::vector<KTensor>> EluLayer(Context& ctx, const LayerCall& c) {
  if (c.inputs.size() != 1) return InvalidArgument(c.Where() + ": expects one input");
  const double alpha = GetFloatOr(c.config, "alpha", 1.0);
  return std::vector<KTensor>{Same(
      c.inputs[0], ctx.b.Op1("Elu", {c.inputs[0].value}, c.name, {ir::FloatAttr("alpha", static_cast<float>(alpha))}))};
}

Result<std::vector<KTensor>> ThresholdedReluLayer(Context& ctx, const LayerCall& c) {
  if (c.inputs.size() != 1) return InvalidArgument(c.Where() + ": expects one input");
  const double theta = GetFloatOr(c.config, "theta", 1.0);
  return std::vector<KTensor>{Same(c.inputs[0], ctx.b.Op1("ThresholdedRelu", {c.inputs[0].value}, c.name,
                                                          {ir::FloatAttr("alpha", static_cast<float>(theta))}))};
}

Result<std::vector<KTensor>> SoftmaxLayer(Context& ctx, const LayerCall& c) {
  if (!c.inputs.empty() && !c.inputs[0].mask.empty()) {
    return MaskNotConvertible(c, c.inputs[0], "the Softmax layer's masked form");
  }
  if (c.inputs.size() != 1) return InvalidArgument(c.Where() + ": expects one input");
  if (c.config.contains("axis") && c.config["axis"].is_array() && c.config["axis"].size() != 1) {
    return Unsupported(c.Where() + ": softmax over several axes");
  }
  int64_t axis = -1;
  if (c.config.contains("axis")) {
    const auto& a = c.config["axis"];
    if (a.is_number_integer()) axis = a.get<int64_t>();
    if (a.is_array() && a[0].is_number_integer()) axis = a[0].get<int64_t>();
  }
  return std::vector<KTensor>{
      Same(c.inputs[0], ctx.b.Op1("Softmax", {c.inputs[0].value}, c.name, {ir::IntAttr("axis", axis)}))};
}

}  // namespace

void RegisterActivationLayers(LayerTable& t) {
  t["Activation"] = Activation;
  t["ReLU"] = ReluLayer;
  t["LeakyReLU"] = LeakyReluLayer;
  t["PReLU"] = PReluLayer;
  t["ELU"] = EluLayer;
  t["ThresholdedReLU"] = ThresholdedReluLayer;
  t["Softmax"] = SoftmaxLayer;
}

}  // namespace onyx::convert::keras

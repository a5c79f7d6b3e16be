// Channels-first forms of TF's layout-sensitive operators (data_format NCHW / NCDHW, as frozen graphs trained on
// GPUs hold them) and MaxPoolV2 (MaxPool whose ksize and strides are inputs). TF defines data_format as
// a layout only: the NCHW op is the NHWC op between transposes. So the node is converted by its channels-last
// converter, given the channels-last attributes (data_format, and strides, ksize, dilations, explicit_paddings
// permuted) and the transposed data input; its data output is transposed back. The transpose optimizer cancels
// these transposes against the ones the channels-last converter emits around the ONNX (channels-first) op.
#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <utility>

#include "convert/common/tensor_layout.h"
#include "convert/tf/nn_common.h"

namespace onyx::convert::tf {
namespace {

// What a wrapped operator transposes: its data input and output ports.
struct Form {
  OpFn channels_last = nullptr;
  std::vector<size_t> data_inputs;
  std::vector<int> data_outputs;
};

std::map<std::string, Form>& Forms() {
  static std::map<std::string, Form> forms;
  return forms;
}

nlohmann::json StringAttr(const std::string& text) {
  // proto3-JSON bytes: base64 (the formats are 4 or 5 capital letters).
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < text.size(); i += 3) {
    const uint32_t b0 = static_cast<unsigned char>(text[i]);
    const uint32_t b1 = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    const uint32_t b2 = i + 2 < text.size() ? static_cast<unsigned char>(text[i + 2]) : 0;
    const uint32_t v = (b0 << 16) | (b1 << 8) | b2;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < text.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < text.size() ? kAlphabet[v & 63] : '=';
  }
  return nlohmann::json{{"s", out}};
}

nlohmann::json IntsAttr(const std::vector<int64_t>& values) {
  nlohmann::json list = nlohmann::json::array();
  for (int64_t v : values) list.push_back(std::to_string(v));
  return nlohmann::json{{"list", {{"i", list}}}};
}

// The attributes of `node` with its per-dimension lists in channels-last order (rank `rank`).
Result<nlohmann::json> ChannelsLastAttrs(const TfNode& node, size_t rank) {
  nlohmann::json attrs = node.attr ? *node.attr : nlohmann::json::object();
  const std::vector<int64_t> perm = ToChannelsLast(rank);  // channels-last dim k is channels-first dim perm[k]
  for (const char* key : {"strides", "ksize", "dilations"}) {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> v, node.Ints(key));
    if (v.empty()) continue;
    if (v.size() != rank) {
      return InvalidArgument(node.Where() + ": '" + key + "' has " + std::to_string(v.size()) + " entries, expected " +
                             std::to_string(rank));
    }
    std::vector<int64_t> out(rank);
    for (size_t k = 0; k < rank; ++k) out[k] = v[static_cast<size_t>(perm[k])];
    attrs[key] = IntsAttr(out);
  }
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> pads, node.Ints("explicit_paddings"));
  if (!pads.empty()) {
    if (pads.size() != 2 * rank) return InvalidArgument(node.Where() + ": explicit_paddings needs 2 entries a dim");
    std::vector<int64_t> out(2 * rank);
    for (size_t k = 0; k < rank; ++k) {
      out[2 * k] = pads[2 * static_cast<size_t>(perm[k])];
      out[2 * k + 1] = pads[2 * static_cast<size_t>(perm[k]) + 1];
    }
    attrs["explicit_paddings"] = IntsAttr(out);
  }
  attrs["data_format"] = StringAttr(rank == 5 ? "NDHWC" : "NHWC");
  return attrs;
}

// Runs `fn` on a copy of the node with attributes `attrs` and the inputs `inputs`; then sets the node's outputs,
// the data outputs transposed back to channels-first (rank `rank`) when `rank` is not 0.
Status RunAs(OpContext& ctx, OpFn fn, const nlohmann::json& attrs, std::vector<TfValue> inputs,
             const std::vector<int>& data_outputs, size_t rank) {
  TfNode node = ctx.node;
  node.attr = &attrs;
  OpContext sub(ctx.b, node, std::move(inputs));
  sub.functions = ctx.functions;
  ONYX_RETURN_IF_ERROR(fn(sub));
  for (const auto& [port, value] : sub.outputs()) {
    const bool data = std::find(data_outputs.begin(), data_outputs.end(), port) != data_outputs.end();
    if (data && rank != 0) {
      ctx.SetOutput(port, Transposed(ctx, value.name, ToChannelsFirst(rank), "to_channels_first"), value.type);
    } else {
      ctx.SetOutputValue(port, value);
    }
  }
  return Status::Ok();
}

Status ChannelsFirstWith(OpContext& ctx, const Form& form) {
  const std::string format = ctx.node.StringOr("data_format", "");
  if (format != "NCHW" && format != "NCDHW") return form.channels_last(ctx);
  const size_t rank = format.size();
  ONYX_ASSIGN_OR_RETURN(nlohmann::json attrs, ChannelsLastAttrs(ctx.node, rank));
  std::vector<TfValue> inputs;
  for (size_t k = 0; k < ctx.num_inputs(); ++k) {
    ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(k));
    if (std::find(form.data_inputs.begin(), form.data_inputs.end(), k) != form.data_inputs.end()) {
      v = {Transposed(ctx, v.name, ToChannelsLast(rank), "to_channels_last"), v.type, nullptr};
    }
    inputs.push_back(std::move(v));
  }
  return RunAs(ctx, form.channels_last, attrs, std::move(inputs), form.data_outputs, rank);
}

// The wrapped operators. Each gets its own wrapper function (Wrapped<K>): converters delegate to others under
// their own node (BiasAddV1 runs BiasAdd's), so the node's op does not name the form.
constexpr const char* kWrapped[] = {"Conv2D",           "Conv3D",           "DepthwiseConv2dNative",
                                    "DepthwiseConv2d",  "_FusedConv2D",     "FusedDepthwiseConv2dNative",
                                    "MaxPool",          "AvgPool",          "MaxPool3D",
                                    "AvgPool3D",        "BiasAdd",          "FusedBatchNorm",
                                    "FusedBatchNormV2", "FusedBatchNormV3", "DepthToSpace",
                                    "SpaceToDepth"};
constexpr size_t kNumWrapped = sizeof(kWrapped) / sizeof(kWrapped[0]);

Status ChannelsFirstOf(OpContext& ctx, const char* op) {
  auto form = Forms().find(op);
  if (form == Forms().end()) return Internal(ctx.node.Where() + ": no " + op + " converter registered");
  return ChannelsFirstWith(ctx, form->second);
}

template <size_t K>
Status Wrapped(OpContext& ctx) {
  return ChannelsFirstOf(ctx, kWrapped[K]);
}

template <size_t... K>
constexpr std::array<OpFn, kNumWrapped> WrapperTable(std::index_sequence<K...>) {
  return {Wrapped<K>...};
}

// MaxPoolV2(input, ksize, strides): MaxPool with the constant inputs 1 and 2 as its attributes.
Status MaxPoolV2(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> ksize, ctx.ConstInts(1, "ksize"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ctx.ConstInts(2, "strides"));
  nlohmann::json attrs = ctx.node.attr ? *ctx.node.attr : nlohmann::json::object();
  attrs["ksize"] = IntsAttr(ksize);
  attrs["strides"] = IntsAttr(strides);
  return RunAs(
      ctx, [](OpContext& c) { return ChannelsFirstOf(c, "MaxPool"); }, attrs, {x}, {}, 0);
}

}  // namespace

void AddChannelsFirstForms(std::map<std::string, OpFn>& table) {
  static constexpr std::array<OpFn, kNumWrapped> kWrappers = WrapperTable(std::make_index_sequence<kNumWrapped>());
  for (size_t k = 0; k < kNumWrapped; ++k) {
    auto it = table.find(kWrapped[k]);
    if (it == table.end() || it->second == kWrappers[k]) continue;
    Forms()[kWrapped[k]] = {it->second, {0}, {0}};  // data input 0, data output 0
    it->second = kWrappers[k];
  }
  table["MaxPoolV2"] = MaxPoolV2;
}

}  // namespace onyx::convert::tf

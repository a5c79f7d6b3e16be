// The 8-bit layout pass (optimizer/int8_nhwc_layout.h).
#include "optimizer/int8_nhwc_layout.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph_edit.h"
#include "ir/session_constants.h"
#include "optimizer/byte_table.h"

namespace onyx::optimizer {
namespace {

bool IsOnnx(const ir::Node& n) { return n.domain.empty() || n.domain == "ai.onnx"; }
bool IsInternal(const ir::Node& n, const char* op) { return n.domain == ir::kInternalDomain && n.op_type == op; }
// onyx's QDQ-fused operator, or ONNX Runtime's com.microsoft one of the same name and arithmetic (a QOperator
// model's): the pass-throughs below take both and emit onyx's.
bool IsQOp(const ir::Node& n, const char* op) {
  return n.op_type == op && (n.domain == ir::kInternalDomain || n.domain == "com.microsoft");
}
bool Has(const ir::Node& n, size_t i) { return i < n.inputs.size() && !n.inputs[i].empty(); }

class Int8NhwcRewriter {
 public:
  explicit Int8NhwcRewriter(ir::Graph& graph) : graph_(graph) {}

  int Run() {
    constants_ = ir::SessionConstants(graph_);
    for (const ir::Node& n : graph_.nodes) {
      for (const auto& out : n.outputs) producers_[out] = &n;
      for (const auto& name : ir::NodeReads(n)) readers_[name].push_back(&n);
    }
    for (const auto& out : graph_.outputs) graph_outputs_.insert(out.name);
    for (const auto* infos : {&graph_.inputs, &graph_.value_info}) {
      for (const auto& v : *infos) {
        if (v.type && v.type->is_tensor()) types_[v.name] = v.type->elem_type;
      }
    }
    int converted = 0;
    for (const ir::Node& n : graph_.nodes) {
      if (ConvEligible(n)) {
        EmitConv(n);
        ++converted;
      } else if (!TryPassThrough(n)) {
        for (const auto& name : ir::NodeReads(n)) EnsureChannelsFirst(name);
        out_.push_back(n);
      }
    }
    if (converted == 0) return 0;
    for (const auto& out : graph_.outputs) EnsureChannelsFirst(out.name);
    graph_.nodes = std::move(out_);
    for (auto& t : new_initializers_) graph_.initializers.push_back(std::move(t));
    ir::RemoveDeadNodes(graph_);
    return converted;
  }

 private:
  const Tensor* Constant(const std::string& name) const {
    auto it = constants_.find(name);
    return it == constants_.end() ? nullptr : it->second;
  }

  // QLinearConv over 2-D images with constant int8 weights [M, C/g, KH, KW] whose zero points are all 0 (what
  // oneDNN's int8 convolution takes).
  bool ConvEligible(const ir::Node& n) const {
    if (!IsOnnx(n) || n.op_type != "QLinearConv" || n.outputs.size() != 1 || !Has(n, 0) || !Has(n, 3)) return false;
    const Tensor* w = Constant(n.inputs[3]);
    if (w == nullptr || w->type() != DataType::kInt8 || w->rank() != 4) return false;
    if (Has(n, 5)) {
      const Tensor* z = Constant(n.inputs[5]);
      if (z == nullptr || z->type() != DataType::kInt8) return false;
      for (int64_t i = 0; i < z->size(); ++i) {
        if (z->data<int8_t>()[i] != 0) return false;
      }
    }
    if (const auto* a = n.FindAttribute("auto_pad"); a != nullptr && a->s != "NOTSET" && !a->s.empty()) {
      return a->s == "VALID" || a->s == "SAME_UPPER" || a->s == "SAME_LOWER";
    }
    return true;
  }

  // The channels-last form of `name`: the existing one, or a Transpose emitted now (the channels-first value stays).
  std::string ChannelsLast(const std::string& name) {
    auto it = channels_last_.find(name);
    if (it != channels_last_.end()) return it->second;
    const std::string to = name + "::nhwc";
    auto producer = producers_.find(name);
    if (producer != producers_.end() && QuantizesFloatPerTensor(*producer->second)) {
      out_.push_back(QuantizeChannelsLast(*producer->second, to));
    } else {
      out_.push_back(Transpose(name, to, {0, 2, 3, 1}));
    }
    channels_last_[name] = to;
    return to;
  }

  // A QuantizeLinear of float32 data to 8 bits with one constant scale and zero point (a model's input, typically):
  // the int8 kernels then quantize straight into channels last, one pass over the floats instead of the quantized
  // copy and its Transpose. Attributes that change the result for these types (block_size, output_dtype,
  // precision) keep the general path.
  bool QuantizesFloatPerTensor(const ir::Node& n) const {
    if (!IsOnnx(n) || n.op_type != "QuantizeLinear" || n.outputs.size() != 1 || !Has(n, 0) || !Has(n, 1)) {
      return false;
    }
    for (const auto& a : n.attributes) {
      if (a.name != "axis" && a.name != "saturate") return false;
    }
    auto type = types_.find(n.inputs[0]);
    if (type == types_.end() || type->second != DataType::kFloat) return false;
    const Tensor* scale = Constant(n.inputs[1]);
    if (scale == nullptr || scale->type() != DataType::kFloat || scale->size() != 1) return false;
    if (!Has(n, 2)) return true;  // uint8
    const Tensor* zp = Constant(n.inputs[2]);
    return zp != nullptr && zp->size() == 1 && (zp->type() == DataType::kUint8 || zp->type() == DataType::kInt8);
  }

  // ai.onyx.internal.QuantizeLinear<channels_last = 1>: the quantization of `q` written [N, H, W, C] as `to`.
  static ir::Node QuantizeChannelsLast(const ir::Node& q, const std::string& to) {
    ir::Node m;
    m.op_type = "QuantizeLinear";
    m.domain = ir::kInternalDomain;
    m.name = to + "/quantize";
    m.inputs = q.inputs;
    m.outputs = {to};
    m.attributes = {ir::IntAttr("channels_last", 1)};
    return m;
  }

  // Records that `name` now exists channels last only.
  std::string NewChannelsLast(const std::string& name) {
    const std::string to = name + "::nhwc";
    channels_last_[name] = to;
    first_missing_.insert(name);
    return to;
  }

  // Emits the Transpose back to channels first under the original name, once, where only the channels-last form
  // exists.
  void EnsureChannelsFirst(const std::string& name) {
    if (!first_missing_.count(name)) return;
    out_.push_back(Transpose(channels_last_.at(name), name, {0, 3, 1, 2}));
    first_missing_.erase(name);
  }

  static ir::Node Transpose(const std::string& from, const std::string& to, std::vector<int64_t> perm) {
    ir::Node t;
    t.op_type = "Transpose";
    t.name = to + "/transpose";
    t.inputs = {from};
    t.outputs = {to};
    t.attributes = {ir::IntsAttr("perm", std::move(perm))};
    return t;
  }

  static void SetChannelsLast(ir::Node& n) {
    for (auto& a : n.attributes) {
      if (a.name == "channels_last") {
        a = ir::IntAttr("channels_last", 1);
        return;
      }
    }
    n.attributes.push_back(ir::IntAttr("channels_last", 1));
  }

  void EmitConv(const ir::Node& n) {
    ir::Node m = n;
    m.domain = ir::kInternalDomain;
    m.inputs[0] = ChannelsLast(n.inputs[0]);
    SetChannelsLast(m);
    m.outputs = {NewChannelsLast(n.outputs[0])};
    out_.push_back(std::move(m));
  }

  bool OnlyChannelsLast(const std::string& name) const { return first_missing_.count(name) > 0; }

  // Whether `value` is read only as input 0 of operators that ElementwiseAnyLayout takes (not a graph output).
  bool ReadOnlyElementwise(const std::string& value) const {
    if (graph_outputs_.count(value)) return false;
    auto it = readers_.find(value);
    if (it == readers_.end()) return false;
    for (const ir::Node* r : it->second) {
      if (!ElementwiseAnyLayout(*r) || r->inputs[0] != value) return false;
    }
    return true;
  }

  // Whether every input of `n` but the first is absent or a one-element constant.
  bool OtherInputsScalarConstants(const ir::Node& n) const {
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      if (n.inputs[i].empty()) continue;
      const Tensor* t = Constant(n.inputs[i]);
      if (t == nullptr || t->size() != 1) return false;
    }
    return true;
  }

  // An operator computing each element of its one output from the same element of input 0 alone (its other inputs
  // one-element constants): the standard quantization with per-tensor parameters, and the unary activations.
  bool ElementwiseAnyLayout(const ir::Node& n) const {
    if (!IsOnnx(n) && !IsInternal(n, "HardSwish")) return false;
    if (n.op_type == "DequantizeLinear" || n.op_type == "QuantizeLinear") {
      if (n.FindAttribute("block_size") != nullptr || n.FindAttribute("output_dtype") != nullptr) return false;
      return n.inputs.size() >= 2 && OtherInputsScalarConstants(n);
    }
    return (IsUnaryActivation(n) || (IsInternal(n, "HardSwish") && n.outputs.size() == 1)) &&
           OtherInputsScalarConstants(n);
  }

  // A constant the rewritten graph needs, named `name`; added to the graph when the walk ends (constants_ points into
  // the graph's initializers until then).
  std::string NewInitializer(const std::string& name, Tensor value) {
    ir::NamedTensor t;
    t.name = name;
    t.tensor = std::move(value);
    new_initializers_.push_back(std::move(t));
    return name;
  }

  bool TryPassThrough(const ir::Node& n) {
    // A pooling of a value that exists channels last only.
    // A standard MaxPool here reads 8-bit data (values exist channels last only when an 8-bit operator made them):
    // a QOperator model's, which becomes onyx's 8-bit MaxPool.
    const bool max_pool = IsInternal(n, "MaxPool") || (IsOnnx(n) && n.op_type == "MaxPool");
    if ((max_pool || IsQOp(n, "QLinearGlobalAveragePool")) && Has(n, 0) && OnlyChannelsLast(n.inputs[0]) &&
        n.outputs.size() == 1) {
      if (const auto* a = n.FindAttribute("channels_last"); a != nullptr && a->i != 0) return false;
      if (const auto* a = n.FindAttribute("kernel_shape"); max_pool && (a == nullptr || a->ints.size() != 2)) {
        return false;
      }
      ir::Node m = n;
      m.domain = ir::kInternalDomain;
      m.inputs[0] = channels_last_.at(n.inputs[0]);
      SetChannelsLast(m);
      if (max_pool) std::erase_if(m.attributes, [](const ir::Attribute& a) { return a.name == "storage_order"; });
      // The global pooling's [N, C, 1, 1] result is the same memory in both layouts: it is written channels first.
      if (max_pool) m.outputs = {NewChannelsLast(n.outputs[0])};
      out_.push_back(std::move(m));
      return true;
    }
    // ONNX Runtime's 2-D QLinearAveragePool of a value that exists channels last only: the same operator with
    // channels_last = 1 (its kernel sums each pixel's channels side by side, in the same order per channel).
    if (n.domain == "com.microsoft" && n.op_type == "QLinearAveragePool" && Has(n, 0) &&
        OnlyChannelsLast(n.inputs[0]) && n.outputs.size() == 1) {
      const auto* kernel = n.FindAttribute("kernel_shape");
      const auto* last = n.FindAttribute("channels_last");
      if (kernel == nullptr || kernel->ints.size() != 2 || (last != nullptr && last->i != 0)) return false;
      ir::Node m = n;
      m.inputs[0] = channels_last_.at(n.inputs[0]);
      SetChannelsLast(m);
      m.outputs = {NewChannelsLast(n.outputs[0])};
      out_.push_back(std::move(m));
      return true;
    }
    // A split along the channels (axis 1) of a value that exists channels last only (8-bit data: a Split whose QDQ
    // was dropped): the same split along axis 3 of the channels-last value, its outputs channels last only.
    if (IsOnnx(n) && n.op_type == "Split" && Has(n, 0) && OnlyChannelsLast(n.inputs[0]) && !n.outputs.empty()) {
      const auto* axis = n.FindAttribute("axis");
      if (axis == nullptr || (axis->i != 1 && axis->i != -3)) return false;
      ir::Node m = n;
      m.inputs[0] = channels_last_.at(n.inputs[0]);
      for (auto& a : m.attributes) {
        if (a.name == "axis") a = ir::IntAttr("axis", 3);
      }
      for (auto& out : m.outputs) {
        if (!out.empty()) out = NewChannelsLast(out);
      }
      out_.push_back(std::move(m));
      return true;
    }
    // A nearest Resize (opset 11+, no axes attribute) of a value that exists channels last only, with constant
    // scales [1, 1, sh, sw] or sizes [N, C, H, W]: the same resize of the channels-last value with scales
    // [1, sh, sw, 1] or sizes [N, H, W, C] (the roi, read only by tf_crop_and_resize, left as it is). An FPN's
    // upsampling between 8-bit convolutions then needs no Transpose on either side.
    if (IsOnnx(n) && n.op_type == "Resize" && n.inputs.size() >= 3 && Has(n, 0) && OnlyChannelsLast(n.inputs[0]) &&
        n.outputs.size() == 1 && n.FindAttribute("axes") == nullptr) {
      const auto* mode = n.FindAttribute("mode");
      const auto* coord = n.FindAttribute("coordinate_transformation_mode");
      const auto* policy = n.FindAttribute("keep_aspect_ratio_policy");
      if ((mode != nullptr && mode->s != "nearest") || (coord != nullptr && coord->s == "tf_crop_and_resize") ||
          (policy != nullptr && policy->s != "stretch")) {
        return false;
      }
      ir::Node m = n;
      m.inputs[0] = channels_last_.at(n.inputs[0]);
      const Tensor* scales = Has(n, 2) ? Constant(n.inputs[2]) : nullptr;
      const Tensor* sizes = Has(n, 3) ? Constant(n.inputs[3]) : nullptr;
      if (scales != nullptr && scales->type() == DataType::kFloat && scales->size() == 4 && !Has(n, 3)) {
        const float* v = scales->data<float>();
        if (v[0] != 1.0f || v[1] != 1.0f) return false;
        Tensor t = Tensor::Allocate(DataType::kFloat, {4});
        const float nhwc[4] = {v[0], v[2], v[3], v[1]};
        std::copy(nhwc, nhwc + 4, t.data<float>());
        m.inputs[2] = NewInitializer(n.outputs[0] + "::nhwc_scales", std::move(t));
      } else if (sizes != nullptr && sizes->type() == DataType::kInt64 && sizes->size() == 4 &&
                 (!Has(n, 2) || (Constant(n.inputs[2]) != nullptr && Constant(n.inputs[2])->size() == 0))) {
        const int64_t* v = sizes->data<int64_t>();
        Tensor t = Tensor::Allocate(DataType::kInt64, {4});
        const int64_t nhwc[4] = {v[0], v[2], v[3], v[1]};
        std::copy(nhwc, nhwc + 4, t.data<int64_t>());
        m.inputs[2].clear();
        m.inputs.resize(4);
        m.inputs[3] = NewInitializer(n.outputs[0] + "::nhwc_sizes", std::move(t));
      } else {
        return false;
      }
      m.outputs = {NewChannelsLast(n.outputs[0])};
      out_.push_back(std::move(m));
      return true;
    }
    // Per-tensor DequantizeLinear / QuantizeLinear and unary elementwise operators (a float activation between two
    // 8-bit layers: MobileNet-v3's DQ -> HardSwish -> Q) of a value that exists channels last only: elementwise, so the
    // same operator on the channels-last value, whose result then exists channels last only.
    // A float result goes channels last only where every reader takes it so (transposing a float image moves four
    // times the bytes of transposing the 8-bit one before the DequantizeLinear).
    if (ElementwiseAnyLayout(n) && Has(n, 0) && OnlyChannelsLast(n.inputs[0]) && n.outputs.size() == 1 &&
        (n.op_type == "QuantizeLinear" || ReadOnlyElementwise(n.outputs[0]))) {
      ir::Node m = n;
      m.inputs[0] = channels_last_.at(n.inputs[0]);
      m.outputs = {NewChannelsLast(n.outputs[0])};
      out_.push_back(std::move(m));
      return true;
    }
    // A byte-table operator (elementwise, any layout) of a value that exists channels last only.
    const bool table_op =
        (n.domain == "com.microsoft" && (n.op_type == "QLinearSigmoid" || n.op_type == "QLinearLeakyRelu")) ||
        (n.domain == ir::kInternalDomain && n.op_type == "ByteLookup");
    if (table_op && Has(n, 0) && OnlyChannelsLast(n.inputs[0]) && n.outputs.size() == 1) {
      ir::Node m = n;
      m.inputs[0] = channels_last_.at(n.inputs[0]);
      m.outputs = {NewChannelsLast(n.outputs[0])};
      out_.push_back(std::move(m));
      return true;
    }
    // The sum or product of two values that both exist channels last (4-D both: the layout commutes with
    // broadcasting). ONNX Runtime's QLinearMul has no onyx twin: it stays com.microsoft.
    if ((IsQOp(n, "QLinearAdd") || (n.domain == "com.microsoft" && n.op_type == "QLinearMul")) && Has(n, 0) &&
        Has(n, 3) && n.outputs.size() == 1 && channels_last_.count(n.inputs[0]) && channels_last_.count(n.inputs[3]) &&
        (OnlyChannelsLast(n.inputs[0]) || OnlyChannelsLast(n.inputs[3]))) {
      ir::Node m = n;
      if (n.op_type == "QLinearAdd") m.domain = ir::kInternalDomain;
      m.inputs[0] = channels_last_.at(n.inputs[0]);
      m.inputs[3] = channels_last_.at(n.inputs[3]);
      m.outputs = {NewChannelsLast(n.outputs[0])};
      out_.push_back(std::move(m));
      return true;
    }
    // A concatenation along the channels (ai.onyx.internal.QLinearConcat, axis 1) of values that all exist channels
    // last (4-D: they come from the channels-last operators), one of them only so.
    if (IsQOp(n, "QLinearConcat") && n.outputs.size() == 1 && n.inputs.size() >= 5 && (n.inputs.size() - 2) % 3 == 0 &&
        n.FindAttribute("channels_last") == nullptr) {
      const auto* axis = n.FindAttribute("axis");
      if (axis == nullptr || (axis->i != 1 && axis->i != -3)) return false;
      bool all = true, one_only = false;
      for (size_t i = 2; i < n.inputs.size(); i += 3) {
        all = all && channels_last_.count(n.inputs[i]) > 0;
        one_only = one_only || OnlyChannelsLast(n.inputs[i]);
      }
      if (!all || !one_only) return false;
      ir::Node m = n;
      m.domain = ir::kInternalDomain;
      for (size_t i = 2; i < n.inputs.size(); i += 3) m.inputs[i] = channels_last_.at(n.inputs[i]);
      SetChannelsLast(m);
      m.outputs = {NewChannelsLast(n.outputs[0])};
      out_.push_back(std::move(m));
      return true;
    }
    return false;
  }

  ir::Graph& graph_;
  std::unordered_map<std::string, const Tensor*> constants_;
  std::unordered_map<std::string, const ir::Node*> producers_;  // into graph_.nodes, unchanged until the end of Run
  std::unordered_map<std::string, std::vector<const ir::Node*>> readers_;  // the same nodes, by the values they read
  std::unordered_set<std::string> graph_outputs_;
  std::unordered_map<std::string, DataType> types_;             // element types the graph declares
  std::unordered_map<std::string, std::string> channels_last_;  // value -> its channels-last copy
  std::unordered_set<std::string> first_missing_;               // values that exist channels last only
  std::vector<ir::Node> out_;
  std::vector<ir::NamedTensor> new_initializers_;
};

}  // namespace

Result<int> ApplyInt8NhwcLayout(ir::Model& model) {
  const int converted = Int8NhwcRewriter(model.graph).Run();
  if (converted > 0 && !model.OpsetVersion(ir::kInternalDomain)) {
    model.opset_import.push_back({ir::kInternalDomain, 1});
  }
  return converted;
}

}  // namespace onyx::optimizer

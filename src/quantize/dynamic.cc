// Dynamic quantization, as ONNX Runtime's quantize_dynamic writes it: weights int8 now (symmetric, per tensor or
// per output channel), activations quantized at run time to uint8 by DynamicQuantizeLinear, the product in
// integers (MatMulInteger / ConvInteger, int32), then Cast to float and one Mul by scale_a * scale_w. The zero
// points of symmetric weights are all 0, so a scalar 0 serves per-channel weights too (ONNX Runtime's ConvInteger
// takes only a scalar weight zero point); the per-channel scales go into the Mul.
#include <map>
#include <utility>

#include "ir/graph_edit.h"
#include "quantize/graph_util.h"
#include "quantize/modes.h"
#include "quantize/prepare.h"
#include "quantize/weights.h"

namespace onyx::quantize {

namespace {

const std::vector<std::string> kDynamicOps = {"MatMul", "Gemm", "Conv"};

struct QuantizedActivation {
  std::string q, scale, zero_point;
};

struct QuantizedWeight {
  std::string q, zero_point;
  Tensor scale;  // per tensor: scalar; per channel: [C]
};

// W^T of a 2-D float tensor (Gemm's transB folded into the weight).
Tensor Transposed(const Tensor& w) {
  const int64_t r = w.dim(0), c = w.dim(1);
  Tensor t = Tensor::Allocate(DataType::kFloat, {c, r});
  for (int64_t i = 0; i < r; ++i) {
    for (int64_t j = 0; j < c; ++j) t.data<float>()[j * r + i] = w.data<float>()[i * c + j];
  }
  return t;
}

Tensor Scaled(const Tensor& t, float factor) {
  Tensor out = t.Clone();
  for (float& v : out.mutable_values<float>()) v *= factor;
  return out;
}

}  // namespace

Result<ir::Model> QuantizeDynamic(const ir::Model& input, const QuantizeOptions& options, QuantizeReport* report) {
  ONYX_ASSIGN_OR_RETURN(ir::Model model, AtLeastOpset(input, 11, report));
  if (options.prepare) ONYX_RETURN_IF_ERROR(PrepareConstants(model, options.threads, report));
  ir::Graph& g = model.graph;
  Namer namer(g);
  std::map<std::string, QuantizedActivation> activations;
  std::map<std::string, QuantizedWeight> weights;
  std::vector<ir::Node> nodes;

  auto activation = [&](const std::string& a) -> const QuantizedActivation& {
    auto it = activations.find(a);
    if (it != activations.end()) return it->second;
    QuantizedActivation qa{namer.Value(a + "_quantized"), namer.Value(a + "_scale"), namer.Value(a + "_zero_point")};
    nodes.push_back(
        MakeNode("DynamicQuantizeLinear", namer.Node(a + "_QuantizeLinear"), {a}, {qa.q, qa.scale, qa.zero_point}));
    return activations.emplace(a, qa).first->second;
  };
  // `key` names the weight as stored (Gemm with transB=1 stores W^T, a different tensor).
  auto weight = [&](const std::string& key, const std::string& name, const Tensor& w,
                    int64_t axis) -> Result<const QuantizedWeight*> {
    auto it = weights.find(key);
    if (it != weights.end()) return &it->second;
    ONYX_ASSIGN_OR_RETURN(QuantizedTensor qt,
                          QuantizeSymmetric(w, options.per_channel ? axis : -1, options.reduce_range));
    report->tensors.push_back(ConstantReport(name, "weight", qt));
    QuantizedWeight qw;
    qw.q = AddInitializer(g, namer, name + "_quantized", qt.q);
    qw.zero_point = AddInitializer(g, namer, name + "_zero_point", Tensor::Scalar<int8_t>(0));
    qw.scale = qt.scale;
    return &weights.emplace(key, std::move(qw)).first->second;
  };

  for (ir::Node& node : g.nodes) {
    const bool selected = Selected(node, options, kDynamicOps) && node.outputs.size() == 1;
    // Copies (sharing storage): adding initializers below moves the vector the pointers would point into.
    const Tensor* w_ptr = selected && node.inputs.size() >= 2 ? ConstantTensor(g, node.inputs[1]) : nullptr;
    const Tensor w_copy = w_ptr != nullptr ? *w_ptr : Tensor();
    const Tensor* w = w_ptr != nullptr ? &w_copy : nullptr;
    const bool a_const = selected && ConstantTensor(g, node.inputs[0]) != nullptr;
    bool ok = w != nullptr && w->type() == DataType::kFloat && !a_const;
    if (ok && node.op_type == "MatMul") ok = w->rank() == 2;
    if (ok && node.op_type == "Gemm") {
      ok = w->rank() == 2 && IntAttribute(node, "transA", 0) == 0;
      const bool has_c = node.inputs.size() > 2 && !node.inputs[2].empty();
      if (has_c && FloatAttribute(node, "beta", 1.0f) != 1.0f) ok = ok && ConstantTensor(g, node.inputs[2]) != nullptr;
    }
    if (ok && node.op_type == "Conv") ok = w->rank() >= 3;
    if (!ok) {
      if (selected && w == nullptr)
        report->notes.push_back(node.Describe() + " kept in float: its weight is not a constant");
      nodes.push_back(std::move(node));
      continue;
    }
    const std::string out = node.outputs[0];
    const QuantizedActivation qa = activation(node.inputs[0]);
    const QuantizedWeight* qw = nullptr;
    std::string integer = namer.Value(out + "_output_quantized");
    Tensor scale;
    if (node.op_type == "Conv") {
      ONYX_ASSIGN_OR_RETURN(qw, weight(node.inputs[1], node.inputs[1], *w, 0));
      nodes.push_back(MakeNode("ConvInteger", namer.Node(node.name + "_quant"),
                               {qa.q, qw->q, qa.zero_point, qw->zero_point}, {integer}, node.attributes));
      // Per-channel scales [M] broadcast against the output [N, M, ...] as [M, 1, ...].
      Shape shape = {qw->scale.size()};
      if (qw->scale.size() > 1) shape.resize(static_cast<size_t>(w->rank() - 1), 1);
      if (qw->scale.size() == 1) shape.clear();
      ONYX_ASSIGN_OR_RETURN(scale, qw->scale.Reshaped(shape));
    } else if (node.op_type == "MatMul") {
      ONYX_ASSIGN_OR_RETURN(qw, weight(node.inputs[1], node.inputs[1], *w, 1));
      nodes.push_back(MakeNode("MatMulInteger", namer.Node(node.name + "_quant"),
                               {qa.q, qw->q, qa.zero_point, qw->zero_point}, {integer}));
      scale = qw->scale;
    } else {  // Gemm: Y = alpha * A * B' + beta * C, B' = B or B^T
      const bool trans_b = IntAttribute(node, "transB", 0) != 0;
      const Tensor b = trans_b ? Transposed(*w) : *w;
      ONYX_ASSIGN_OR_RETURN(qw, weight(node.inputs[1] + (trans_b ? "^T" : ""), node.inputs[1], b, 1));
      nodes.push_back(MakeNode("MatMulInteger", namer.Node(node.name + "_quant"),
                               {qa.q, qw->q, qa.zero_point, qw->zero_point}, {integer}));
      scale = Scaled(qw->scale, FloatAttribute(node, "alpha", 1.0f));
    }
    const std::string as_float = namer.Value(out + "_output_quantized_cast_output");
    nodes.push_back(MakeNode("Cast", namer.Node(out + "_output_quantized_cast"), {integer}, {as_float},
                             {ir::IntAttr("to", static_cast<int64_t>(DataType::kFloat))}));
    const std::string w_scale = AddInitializer(g, namer, node.inputs[1] + "_scale", scale);
    const std::string scales = namer.Value(out + "_scales_mul_output");
    nodes.push_back(MakeNode("Mul", namer.Node(out + "_scales_mul"), {qa.scale, w_scale}, {scales}));
    // The bias: Conv's B (as [M, 1, ...]), Gemm's beta * C.
    std::string bias;
    if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
      const Tensor* c_ptr = ConstantTensor(g, node.inputs[2]);
      const Tensor c_copy = c_ptr != nullptr ? *c_ptr : Tensor();
      const Tensor* c = c_ptr != nullptr ? &c_copy : nullptr;
      if (node.op_type == "Conv") {
        if (c != nullptr) {
          Shape shape(static_cast<size_t>(w->rank() - 1), 1);
          shape[0] = c->size();
          ONYX_ASSIGN_OR_RETURN(Tensor reshaped, c->Reshaped(shape));
          bias = AddInitializer(g, namer, node.inputs[2] + "_reshaped", reshaped);
        } else {
          Shape shape(static_cast<size_t>(w->rank() - 1), 1);
          shape[0] = -1;
          const std::string shape_name =
              AddInitializer(g, namer, node.inputs[2] + "_shape",
                             Tensor::FromVector<int64_t>(shape, {static_cast<int64_t>(shape.size())}));
          bias = namer.Value(node.inputs[2] + "_reshaped");
          nodes.push_back(
              MakeNode("Reshape", namer.Node(node.inputs[2] + "_reshape"), {node.inputs[2], shape_name}, {bias}));
        }
      } else {
        const float beta = FloatAttribute(node, "beta", 1.0f);
        bias = beta == 1.0f ? node.inputs[2] : AddInitializer(g, namer, node.inputs[2] + "_beta", Scaled(*c, beta));
      }
    }
    const std::string product = bias.empty() ? out : namer.Value(out + "_unbiased");
    nodes.push_back(
        MakeNode("Mul", node.name.empty() ? namer.Node(out + "_mul") : node.name, {as_float, scales}, {product}));
    if (!bias.empty()) nodes.push_back(MakeNode("Add", namer.Node(out + "_bias_add"), {product, bias}, {out}));
    ++report->quantized_nodes[node.op_type];
  }
  g.nodes = std::move(nodes);
  ir::RemoveDeadNodes(g);
  ONYX_RETURN_IF_ERROR(ir::TopologicalSort(g));
  return model;
}

}  // namespace onyx::quantize

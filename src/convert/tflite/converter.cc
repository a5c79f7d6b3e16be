// The driver: parses the file, lists every operator without a converter in one error, then converts the main
// subgraph operator by operator through the table of ops_<family>.cc (WHILE / IF / CALL_ONCE inline the other
// subgraphs). Errors name the file, the operator's index and its schema name.
#include "convert/tflite/converter.h"

#include <filesystem>
#include <set>

#include "convert/common/converted_model.h"
#include "convert/common/graph_builder.h"
#include "convert/tflite/op_context.h"
#include "core/mapped_file.h"

namespace onyx::convert::tflite {
namespace {

constexpr int kMaxNesting = 16;

std::string OpName(const TfliteOperator& op) {
  return op.builtin_code == op::kCustom ? "CUSTOM(" + op.custom_code + ")" : BuiltinName(op.builtin_code);
}

// Custom operators are looked up by their custom_code, builtins by their code.
OpFn Converter(const TfliteOperator& op) {
  if (op.builtin_code == op::kCustom) {
    auto it = CustomOpTable().find(op.custom_code);
    return it == CustomOpTable().end() ? nullptr : it->second;
  }
  auto it = OpTable().find(op.builtin_code);
  return it == OpTable().end() ? nullptr : it->second;
}

// Operators whose effect is on state (variables, hash tables, initialization) rather than on an output.
bool MayHaveNoOutputs(int32_t code) {
  return code == op::kCallOnce || code == op::kAssignVariable || code == op::kHashtableImport;
}

Status ConvertOperators(OpContext& c) {
  for (size_t k = 0; k < c.graph.operators.size(); ++k) {
    const TfliteOperator& op = c.graph.operators[k];
    c.Begin(op, k);
    const OpFn fn = Converter(op);
    if (fn == nullptr) return onyx::Unsupported(c.where() + ": no converter");
    if (op.outputs.empty() && !MayHaveNoOutputs(op.builtin_code)) return c.Error("has no outputs");
    ONYX_RETURN_IF_ERROR(fn(c));
  }
  c.b.set_doc("");
  return Status::Ok();
}

}  // namespace

const std::map<int32_t, OpFn>& OpTable() {
  static const std::map<int32_t, OpFn> table = [] {
    std::map<int32_t, OpFn> t;
    AddNnOps(t);
    AddMathOps(t);
    AddReduceOps(t);
    AddArrayOps(t);
    AddQuantOps(t);
    AddImageOps(t);
    AddRnnOps(t);
    AddControlOps(t);
    AddIndexOps(t);
    AddRandomOps(t);
    AddCellOps(t);
    AddStateOps(t);
    return t;
  }();
  return table;
}

const std::map<std::string, OpFn>& CustomOpTable() {
  static const std::map<std::string, OpFn> table = [] {
    std::map<std::string, OpFn> t;
    AddCustomNnOps(t);
    AddMediapipeOps(t);
    return t;
  }();
  return table;
}

Result<std::vector<std::string>> InlineSubgraph(const OpContext& caller, int index, GraphBuilder& b,
                                                const std::string& prefix, const std::vector<std::string>& inputs) {
  if (index < 0 || static_cast<size_t>(index) >= caller.model.subgraphs.size()) {
    return caller.Error("refers to subgraph " + std::to_string(index) + " of " +
                        std::to_string(caller.model.subgraphs.size()));
  }
  if (index == 0 || caller.depth >= kMaxNesting) return caller.Error("recursive subgraphs");
  OpContext c(caller.model, index, b, prefix, caller.depth + 1, caller.state);
  if (c.graph.inputs.size() != inputs.size()) {
    return caller.Error("subgraph " + std::to_string(index) + " takes " + std::to_string(c.graph.inputs.size()) +
                        " inputs, given " + std::to_string(inputs.size()));
  }
  for (size_t k = 0; k < inputs.size(); ++k) ONYX_RETURN_IF_ERROR(c.SetTensorValue(c.graph.inputs[k], inputs[k]));
  Status st = ConvertOperators(c);
  if (!st.ok()) return st.WithContext(caller.where());
  std::vector<std::string> outs;
  for (int32_t o : c.graph.outputs) {
    ONYX_ASSIGN_OR_RETURN(std::string v, c.TensorValue(o, true));
    outs.push_back(v);
  }
  return outs;
}

Result<ir::Model> ConvertTfliteFile(const std::string& path, int64_t opset, TfliteConvertReport* report) {
  if (opset < 13 || opset > 21) return InvalidArgument("opset " + std::to_string(opset) + " is outside 13..21");
  ONYX_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  auto parsed = ParseTflite(bytes);
  if (!parsed.ok()) return parsed.status().WithContext(path);
  const TfliteModel& m = *parsed;
  std::set<std::string> missing;
  for (const auto& g : m.subgraphs) {
    for (const auto& op : g.operators) {
      if (Converter(op) == nullptr) missing.insert(OpName(op));
    }
  }
  ONYX_RETURN_IF_ERROR(MissingOperators(path, "TFLite", missing));

  const TfliteSubgraph& main = m.subgraphs[0];
  ir::Model model = NewConvertedModel(std::filesystem::path(path).stem().string());
  GraphBuilder b(&model.graph);
  for (int32_t o : main.outputs) b.Reserve(main.tensors[static_cast<size_t>(o)].name);  // kept for the graph outputs
  ConversionState state;
  state.opset = opset;
  state.main = &b;
  OpContext c(m, 0, b, "", 0, &state);
  Status st = c.AddGraphInputs(model.graph, true);
  if (st.ok()) st = ConvertOperators(c);
  if (!st.ok()) return st.WithContext(path);
  std::set<std::string> output_names;
  for (int32_t o : main.outputs) {
    const TfliteTensor& t = main.tensors[static_cast<size_t>(o)];
    if (!output_names.insert(t.name).second) continue;  // a tensor listed twice is one ONNX output
    auto v = c.TensorValue(o, true);
    if (!v.ok()) return v.status().WithContext(path);
    b.OpTo("Identity", {*v}, {t.name}, t.name);
    auto type = OnnxType(t.type);
    if (!type.ok()) return type.status().WithContext(path + ": output '" + t.name + "'");
    ir::ValueInfo vi;
    vi.name = t.name;
    // TFLite records every tensor's shape: the outputs declare it (-1 dims as symbolic ones).
    std::vector<ir::Dim> dims;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      dims.push_back(t.shape[d] >= 0 ? ir::Dim::Value(t.shape[d])
                                     : ir::Dim::Param(t.name + "_dim" + std::to_string(d)));
    }
    vi.type = ir::TypeInfo::Tensor(*type, t.shape.empty() ? std::nullopt : std::optional<std::vector<ir::Dim>>(dims));
    model.graph.outputs.push_back(vi);
  }
  if (state.uses_ml) model.opset_import.push_back({"ai.onnx.ml", 2});  // LabelEncoder 2
  ONYX_ASSIGN_OR_RETURN(const TransposeStats stats, FinishConvertedModel(model, opset));
  if (report) {
    report->operators = static_cast<int>(main.operators.size());
    report->nodes = static_cast<int>(model.graph.nodes.size());
    report->transposes_before = stats.before;
    report->transposes_after = stats.after;
  }
  return model;
}

}  // namespace onyx::convert::tflite

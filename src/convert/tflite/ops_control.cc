// Multi-subgraph control flow: WHILE -> Loop, IF -> If, CALL_ONCE inlined. The TFLite subgraphs are inlined into
// ONNX graphs (a body may be inlined more than once: WHILE's condition runs before the loop and inside its body).
#include "convert/tflite/op_context.h"

namespace onyx::convert::tflite {
namespace {

std::string NextPrefix(OpContext& c, const std::string& kind) {
  return c.prefix() + kind + "_" + std::to_string((*c.instances)++) + "/";
}

Result<ir::TypeInfo> TypeOf(const TfliteTensor& t) {
  ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t.type));
  return ir::TypeInfo::Tensor(type);
}

// A graph output (of a Loop / If body) named `name` holding `value`.
Status AddBodyOutput(GraphBuilder& b, ir::Graph& g, const std::string& value, const std::string& name,
                     ir::TypeInfo type) {
  const std::string out = b.Fresh(name);
  b.OpTo("Identity", {value}, {out}, out);
  g.outputs.push_back({out, std::move(type), {}, {}});
  return Status::Ok();
}

// WHILE(vars...) -> vars; WhileOptions: cond_subgraph_index 0, body_subgraph_index 1. ONNX Loop checks its
// condition before each iteration from the value it is given: the condition runs once before the Loop, then at
// the end of each body on the new values.
Status While(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(int32_t cond_index, c.OptInt(0, -1));
  ONYX_ASSIGN_OR_RETURN(int32_t body_index, c.OptInt(1, -1));
  if (c.num_inputs() != c.num_outputs()) return c.Error("needs as many outputs as inputs");
  std::vector<std::string> vars;
  for (size_t k = 0; k < c.num_inputs(); ++k) {
    ONYX_ASSIGN_OR_RETURN(std::string v, c.RawInput(k));
    vars.push_back(v);
  }
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> first,
                        InlineSubgraph(c, cond_index, c.b, NextPrefix(c, "cond"), vars));
  if (first.size() != 1) return c.Error("the condition subgraph must have one output");

  auto body = std::make_shared<ir::Graph>();
  const std::string prefix = NextPrefix(c, "while");
  body->name = prefix + "body";
  GraphBuilder bb(body.get());
  const std::string iter = bb.Fresh(prefix + "iteration"), cond_in = bb.Fresh(prefix + "condition");
  body->inputs.push_back({iter, ir::TypeInfo::Tensor(DataType::kInt64, std::vector<ir::Dim>{}), {}, {}});
  body->inputs.push_back({cond_in, ir::TypeInfo::Tensor(DataType::kBool, std::vector<ir::Dim>{}), {}, {}});
  std::vector<std::string> body_vars;
  std::vector<ir::TypeInfo> types;
  for (size_t k = 0; k < c.num_inputs(); ++k) {
    ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.InTensor(k));
    ONYX_ASSIGN_OR_RETURN(ir::TypeInfo type, TypeOf(*t));
    const std::string name = bb.Fresh(prefix + "var_" + std::to_string(k));
    body->inputs.push_back({name, type, {}, {}});
    body_vars.push_back(name);
    types.push_back(type);
  }
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> next, InlineSubgraph(c, body_index, bb, prefix + "body/", body_vars));
  if (next.size() != body_vars.size()) return c.Error("the body subgraph must return every loop variable");
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> again, InlineSubgraph(c, cond_index, bb, prefix + "cond/", next));
  ONYX_RETURN_IF_ERROR(AddBodyOutput(bb, *body, again[0], prefix + "condition_out",
                                     ir::TypeInfo::Tensor(DataType::kBool, std::vector<ir::Dim>{})));
  for (size_t k = 0; k < next.size(); ++k) {
    ONYX_RETURN_IF_ERROR(AddBodyOutput(bb, *body, next[k], prefix + "var_out_" + std::to_string(k), types[k]));
  }
  std::vector<std::string> ins = {"", first[0]};
  ins.insert(ins.end(), vars.begin(), vars.end());
  ir::Attribute attr;
  attr.name = "body";
  attr.type = ir::AttrType::kGraph;
  attr.g = body;
  std::vector<std::string> outs = c.b.Op("Loop", ins, c.Name("while"), {attr}, static_cast<int>(vars.size()));
  for (size_t k = 0; k < outs.size(); ++k) ONYX_RETURN_IF_ERROR(c.SetRawOutput(outs[k], k));
  return Status::Ok();
}

// IF(cond, inputs...); IfOptions: then_subgraph_index 0, else_subgraph_index 1. The branches read the operator's
// inputs from the enclosing graph (ONNX If bodies take no inputs).
Status If(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(int32_t then_index, c.OptInt(0, -1));
  ONYX_ASSIGN_OR_RETURN(int32_t else_index, c.OptInt(1, -1));
  ONYX_ASSIGN_OR_RETURN(std::string cond, c.Input(0));
  std::vector<std::string> args;
  for (size_t k = 1; k < c.num_inputs(); ++k) {
    ONYX_ASSIGN_OR_RETURN(std::string v, c.RawInput(k));
    args.push_back(v);
  }
  std::vector<ir::Attribute> attrs;
  for (int branch = 0; branch < 2; ++branch) {
    auto g = std::make_shared<ir::Graph>();
    const std::string prefix = NextPrefix(c, branch == 0 ? "then" : "else");
    g->name = prefix + "branch";
    GraphBuilder gb(g.get());
    ONYX_ASSIGN_OR_RETURN(std::vector<std::string> outs,
                          InlineSubgraph(c, branch == 0 ? then_index : else_index, gb, prefix, args));
    if (outs.size() != c.num_outputs()) return c.Error("a branch returns the wrong number of outputs");
    for (size_t k = 0; k < outs.size(); ++k) {
      ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor(k));
      ONYX_ASSIGN_OR_RETURN(ir::TypeInfo type, TypeOf(*t));
      ONYX_RETURN_IF_ERROR(AddBodyOutput(gb, *g, outs[k], prefix + "out_" + std::to_string(k), type));
    }
    ir::Attribute attr;
    attr.name = branch == 0 ? "then_branch" : "else_branch";
    attr.type = ir::AttrType::kGraph;
    attr.g = g;
    attrs.push_back(std::move(attr));
  }
  // TFLite's condition may be any scalar-like tensor of one element: ONNX If wants a bool.
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* ct, c.InTensor(0));
  if (ct->type != TensorType::kBool) {
    cond = c.b.Op1("Cast", {cond}, c.Name("cond"), {ir::IntAttr("to", static_cast<int64_t>(DataType::kBool))});
  }
  cond = c.b.Op1("Reshape", {cond, c.b.ConstInts(c.Name("scalar"), {})}, c.Name("cond_scalar"));
  std::vector<std::string> outs =
      c.b.Op("If", {cond}, c.Name("if"), std::move(attrs), static_cast<int>(c.num_outputs()));
  for (size_t k = 0; k < outs.size(); ++k) ONYX_RETURN_IF_ERROR(c.SetRawOutput(outs[k], k));
  return Status::Ok();
}

// CALL_ONCE; CallOnceOptions: init_subgraph_index 0. Initializes resource variables: inlined (its effects on
// variables are not modelled; a subgraph without outputs adds nothing the graph reads).
Status CallOnce(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(int32_t index, c.OptInt(0, -1));
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> outs, InlineSubgraph(c, index, c.b, NextPrefix(c, "init"), {}));
  (void)outs;
  return Status::Ok();
}

}  // namespace

void AddControlOps(std::map<int32_t, OpFn>& t) {
  t[op::kWhile] = While;
  t[op::kIf] = If;
  t[op::kCallOnce] = CallOnce;
}

}  // namespace onyx::convert::tflite

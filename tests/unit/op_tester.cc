#include "op_tester.h"

#include <algorithm>

#include "runtime/session.h"
#include "text/parser.h"

namespace onyx::testing {

namespace {

ir::Attribute MakeAttr(const std::string& name, ir::AttrType type) {
  ir::Attribute a;
  a.name = name;
  a.type = type;
  return a;
}

ir::TypeInfo TypeOfValue(const Value& v) {
  if (v.is_tensor()) return ir::TypeInfo::Tensor(v.tensor().type());
  if (v.is_sequence()) return ir::TypeInfo::Sequence(ir::TypeInfo::Tensor(v.sequence().elem_type));
  return ir::TypeInfo::Optional(ir::TypeInfo::Tensor(DataType::kFloat));
}

}  // namespace

OpTest& OpTest::Attr(const std::string& name, int64_t v) {
  auto a = MakeAttr(name, ir::AttrType::kInt);
  a.i = v;
  attributes.push_back(std::move(a));
  return *this;
}

OpTest& OpTest::Attr(const std::string& name, float v) {
  auto a = MakeAttr(name, ir::AttrType::kFloat);
  a.f = v;
  attributes.push_back(std::move(a));
  return *this;
}

OpTest& OpTest::Attr(const std::string& name, const std::string& v) {
  auto a = MakeAttr(name, ir::AttrType::kString);
  a.s = v;
  attributes.push_back(std::move(a));
  return *this;
}

OpTest& OpTest::Attr(const std::string& name, const std::vector<int64_t>& v) {
  auto a = MakeAttr(name, ir::AttrType::kInts);
  a.ints = v;
  attributes.push_back(std::move(a));
  return *this;
}

OpTest& OpTest::Attr(const std::string& name, const std::vector<float>& v) {
  auto a = MakeAttr(name, ir::AttrType::kFloats);
  a.floats = v;
  attributes.push_back(std::move(a));
  return *this;
}

OpTest& OpTest::Input(Value v) {
  inputs.push_back(std::move(v));
  return *this;
}

OpTest& OpTest::Outputs(int n) {
  num_outputs = n;
  return *this;
}

Result<std::vector<Value>> RunOp(const OpTest& test) {
  ir::Model model;
  model.ir_version = 10;
  model.opset_import.push_back({test.domain, test.opset});
  if (!test.domain.empty()) model.opset_import.push_back({"", 21});
  ir::Node node;
  node.name = "node_under_test";
  node.op_type = test.op_type;
  node.domain = test.domain;
  node.attributes = test.attributes;
  std::vector<std::pair<std::string, Value>> feeds;
  for (size_t i = 0; i < test.inputs.size(); ++i) {
    if (test.inputs[i].empty()) {
      node.inputs.emplace_back();
      continue;
    }
    std::string name = "input_" + std::to_string(i);
    node.inputs.push_back(name);
    if (std::find(test.constant_inputs.begin(), test.constant_inputs.end(), i) != test.constant_inputs.end() &&
        test.inputs[i].is_tensor()) {
      model.graph.initializers.push_back(ir::NamedTensor{name, "", test.inputs[i].tensor(), {}, {}});
      continue;
    }
    model.graph.inputs.push_back({name, TypeOfValue(test.inputs[i]), {}, {}});
    feeds.emplace_back(name, test.inputs[i]);
  }
  for (int i = 0; i < test.num_outputs; ++i) {
    std::string name = "output_" + std::to_string(i);
    node.outputs.push_back(name);
    model.graph.outputs.push_back({name, std::nullopt, {}, {}});
  }
  model.graph.nodes.push_back(std::move(node));
  ONYX_ASSIGN_OR_RETURN(auto session, Session::Create(std::move(model), test.options));
  std::vector<Value> outputs;
  ONYX_RETURN_IF_ERROR(session->Run(feeds, {}, &outputs));
  return outputs;
}

Result<std::vector<Value>> RunModel(const std::string& text, const Feeds& feeds) {
  ONYX_ASSIGN_OR_RETURN(ir::Model model, text::ParseModel(text));
  ONYX_ASSIGN_OR_RETURN(auto session, Session::Create(std::move(model)));
  std::vector<Value> outputs;
  ONYX_RETURN_IF_ERROR(session->Run(feeds, {}, &outputs));
  return outputs;
}

}  // namespace onyx::testing

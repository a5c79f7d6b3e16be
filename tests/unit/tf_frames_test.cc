// TF1 control flow and frozen-graph function libraries in the TensorFlow converter, where TF.js gives no reference:
// nested while loop frames (TF.js 4.22 loses the inner loop's Exit) and a frozen GraphDef .pb whose library holds
// functions (TF.js reads no .pb). The expected values are computed here with plain loops / closed forms. The cases
// TF.js runs are in tests/convert/tf/ops/cases_tf1_control.mjs.
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "convert/tf/converter.h"
#include "proto/tf_graph.pb.h"
#include "runtime/session.h"

namespace onyx::convert::tf {
namespace {

using nlohmann::json;

json Attr(const char* key, json value) { return json::object({{key, std::move(value)}}); }

json Node(const std::string& name, const std::string& op, std::vector<std::string> inputs, json attr = json::object()) {
  return {{"name", name}, {"op", op}, {"input", std::move(inputs)}, {"attr", std::move(attr)}};
}

json Const(const std::string& name, const std::string& dtype, json values, std::vector<int64_t> dims = {},
           std::vector<std::string> control = {}) {
  json shape = json::object();
  for (int64_t d : dims) shape["dim"].push_back({{"size", std::to_string(d)}});
  const char* field = dtype == "DT_FLOAT" ? "floatVal" : "intVal";
  return Node(name, "Const", std::move(control),
              {{"dtype", Attr("type", dtype)},
               {"value", Attr("tensor", {{"dtype", dtype}, {"tensorShape", shape}, {field, std::move(values)}})}});
}

json Typed(const std::string& dtype) { return {{"T", Attr("type", dtype)}}; }

std::string B64(const std::string& text) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < text.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(text[i]) << 16;
    if (i + 1 < text.size()) v |= static_cast<uint8_t>(text[i + 1]) << 8;
    if (i + 2 < text.size()) v |= static_cast<uint8_t>(text[i + 2]);
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += i + 1 < text.size() ? digits[(v >> 6) & 63] : '=';
    out += i + 2 < text.size() ? digits[v & 63] : '=';
  }
  return out;
}

// A TF1 while loop laid out as TensorFlow writes it. Variables: (name, dtype, initial tensor); invariants: (name,
// dtype, tensor). `cond` / `body` add their nodes and return the condition / the next values; they get the names of
// the variables (Merge outputs for the condition, Identity(Switch:1) for the body) and of the invariants.
using Names = std::vector<std::string>;
Names While(json& nodes, const std::string& p, const std::vector<std::array<std::string, 3>>& vars,
            const std::vector<std::array<std::string, 3>>& invariants,
            const std::function<std::string(const Names&, const Names&)>& cond,
            const std::function<Names(const Names&, const Names&)>& body) {
  auto enter = [&](const std::string& name, const std::string& dtype, const std::string& in, bool constant) {
    json attr = Typed(dtype);
    attr["frame_name"] = Attr("s", B64(p + "/while_context"));
    attr["is_constant"] = Attr("b", constant);
    nodes.push_back(Node(name, "Enter", {in}, attr));
    return name;
  };
  Names merges, ids, inv;
  for (const auto& [name, dtype, init] : vars) {
    enter(p + "/Enter_" + name, dtype, init, false);
    nodes.push_back(Node(p + "/Merge_" + name, "Merge", {p + "/Enter_" + name, p + "/Next_" + name}, Typed(dtype)));
    merges.push_back(p + "/Merge_" + name);
  }
  for (const auto& [name, dtype, value] : invariants) inv.push_back(enter(p + "/Inv_" + name, dtype, value, true));
  nodes.push_back(Node(p + "/LoopCond", "LoopCond", {cond(merges, inv)}));
  for (const auto& [name, dtype, init] : vars) {
    nodes.push_back(Node(p + "/Switch_" + name, "Switch", {p + "/Merge_" + name, p + "/LoopCond"}, Typed(dtype)));
    nodes.push_back(Node(p + "/Identity_" + name, "Identity", {p + "/Switch_" + name + ":1"}, Typed(dtype)));
    ids.push_back(p + "/Identity_" + name);
  }
  const Names next = body(ids, inv);
  Names exits;
  for (size_t k = 0; k < vars.size(); ++k) {
    const auto& [name, dtype, init] = vars[k];
    nodes.push_back(Node(p + "/Next_" + name, "NextIteration", {next[k]}, Typed(dtype)));
    nodes.push_back(Node(p + "/Exit_" + name, "Exit", {p + "/Switch_" + name}, Typed(dtype)));
    exits.push_back(p + "/Exit_" + name);
  }
  return exits;
}

std::vector<float> RunFloat(const ir::Model& model, const std::string& input, std::vector<float> x) {
  auto session = Session::Create(model);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  auto t = Tensor::Create(DataType::kFloat, {static_cast<int64_t>(x.size())});
  std::copy(x.begin(), x.end(), t->data<float>());
  std::vector<Value> outputs;
  Status st = (*session)->Run({{input, Value(std::move(t).value())}}, {}, &outputs);
  EXPECT_TRUE(st.ok()) << st.message();
  if (!st.ok() || outputs.empty()) return {};
  const Tensor& out = outputs[0].tensor();
  return std::vector<float>(out.data<float>(), out.data<float>() + out.size());
}

// for i < 3: for j < i + 1: acc = acc * 1.5 + x; the inner loop's bound and x are invariants of the inner frame,
// x one of the outer too.
TEST(TfFrames, NestedWhileLoopsBecomeLoopInLoop) {
  json nodes = json::array();
  nodes.push_back(Node("x", "Placeholder", {},
                       {{"dtype", Attr("type", "DT_FLOAT")}, {"shape", Attr("shape", {{"dim", {{{"size", "2"}}}}})}}));
  nodes.push_back(Const("i0", "DT_INT32", {0}));
  nodes.push_back(Const("acc0", "DT_FLOAT", {0}, {2}));
  const Names outer = While(
      nodes, "outer", {{"i", "DT_INT32", "i0"}, {"acc", "DT_FLOAT", "acc0"}}, {{"x", "DT_FLOAT", "x"}},
      [&](const Names& v, const Names&) {
        nodes.push_back(Const("outer/three", "DT_INT32", {3}, {}, {"^" + v[0]}));
        nodes.push_back(Node("outer/Less", "Less", {v[0], "outer/three"}, Typed("DT_INT32")));
        return std::string("outer/Less");
      },
      [&](const Names& v, const Names& inv) {
        nodes.push_back(Const("outer/one", "DT_INT32", {1}, {}, {"^" + v[0]}));
        nodes.push_back(Const("outer/j0", "DT_INT32", {0}, {}, {"^" + v[0]}));
        nodes.push_back(Node("outer/limit", "AddV2", {v[0], "outer/one"}, Typed("DT_INT32")));
        const Names inner = While(
            nodes, "outer/inner", {{"j", "DT_INT32", "outer/j0"}, {"b", "DT_FLOAT", v[1]}},
            {{"limit", "DT_INT32", "outer/limit"}, {"x", "DT_FLOAT", inv[0]}},
            [&](const Names& w, const Names& winv) {
              nodes.push_back(Node("outer/inner/Less", "Less", {w[0], winv[0]}, Typed("DT_INT32")));
              return std::string("outer/inner/Less");
            },
            [&](const Names& w, const Names& winv) -> Names {
              nodes.push_back(Const("outer/inner/one", "DT_INT32", {1}, {}, {"^" + w[0]}));
              nodes.push_back(Const("outer/inner/f", "DT_FLOAT", {1.5}, {}, {"^" + w[0]}));
              nodes.push_back(Node("outer/inner/j1", "AddV2", {w[0], "outer/inner/one"}, Typed("DT_INT32")));
              nodes.push_back(Node("outer/inner/mul", "Mul", {w[1], "outer/inner/f"}, Typed("DT_FLOAT")));
              nodes.push_back(Node("outer/inner/b1", "AddV2", {"outer/inner/mul", winv[1]}, Typed("DT_FLOAT")));
              return {"outer/inner/j1", "outer/inner/b1"};
            });
        nodes.push_back(Node("outer/i1", "AddV2", {v[0], "outer/one"}, Typed("DT_INT32")));
        return Names{"outer/i1", inner[1]};
      });
  nodes.push_back(Node("result", "Identity", {outer[1]}, Typed("DT_FLOAT")));
  json root = {{"format", "graph-model"},
               {"modelTopology", {{"node", nodes}}},
               {"signature", {{"outputs", {{"result:0", {{"name", "result:0"}}}}}}}};
  auto model = ConvertGraphJson(root, {}, "nested.json", {}, nullptr);
  ASSERT_TRUE(model.ok()) << model.status().message();
  const std::vector<float> x = {0.5f, -2.0f};
  std::vector<float> expected = {0, 0};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < i + 1; ++j) {
      for (size_t k = 0; k < 2; ++k) expected[k] = expected[k] * 1.5f + x[k];
    }
  }
  const std::vector<float> got = RunFloat(*model, "x:0", x);
  ASSERT_EQ(got.size(), 2u);
  for (size_t k = 0; k < 2; ++k) EXPECT_NEAR(got[k], expected[k], 1e-5) << k;
  // One Loop at the top, the inner one in its body.
  int loops = 0;
  for (const auto& n : model->graph.nodes) loops += n.op_type == "Loop";
  EXPECT_EQ(loops, 1);
}

TEST(TfFrames, AMergeThatIsNoConditionalIsAnError) {
  json nodes = json::array();
  nodes.push_back(Node("x", "Placeholder", {}, {{"dtype", Attr("type", "DT_FLOAT")}}));
  nodes.push_back(Node("y", "Placeholder", {}, {{"dtype", Attr("type", "DT_FLOAT")}}));
  nodes.push_back(Node("m", "Merge", {"x", "y"}, Typed("DT_FLOAT")));
  json root = {{"format", "graph-model"}, {"modelTopology", {{"node", nodes}}}};
  auto model = ConvertGraphJson(root, {}, "merge.json", {}, nullptr);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("node 'm' (Merge)"), std::string::npos) << model.status().message();
}

// A frozen GraphDef whose library holds a StatelessWhile's cond and body: v = v * 2 + 1 four times (16 x + 15).
TEST(TfFrames, FrozenGraphFunctionLibraryConverts) {
  json f32 = Attr("type", "DT_FLOAT");
  json args = json::array({{{"name", "i"}, {"type", "DT_INT32"}}, {{"name", "v"}, {"type", "DT_FLOAT"}}});
  json cond = {
      {"signature", {{"name", "loop_cond"}, {"inputArg", args}, {"outputArg", {{{"name", "c"}, {"type", "DT_BOOL"}}}}}},
      {"nodeDef", {Const("four", "DT_INT32", {4}), Node("less", "Less", {"i", "four:output:0"}, Typed("DT_INT32"))}},
      {"ret", {{"c", "less:z:0"}}}};
  json body = {{"signature", {{"name", "loop_body"}, {"inputArg", args}, {"outputArg", args}}},
               {"nodeDef",
                {Const("one", "DT_INT32", {1}), Const("two", "DT_FLOAT", {2.0}), Const("onef", "DT_FLOAT", {1.0}),
                 Node("next_i", "AddV2", {"i", "one:output:0"}, Typed("DT_INT32")),
                 Node("twice", "Mul", {"v", "two:output:0"}, Typed("DT_FLOAT")),
                 Node("next_v", "AddV2", {"twice:z:0", "onef:output:0"}, Typed("DT_FLOAT"))}},
               {"ret", {{"i", "next_i:z:0"}, {"v", "next_v:z:0"}}},
               {"argAttr", {{"1", {{"attr", {{"_user_specified_name", Attr("s", B64("v"))}}}}}}}};
  json graph = {
      {"node",
       {Node("x", "Placeholder", {}, {{"dtype", f32}, {"shape", Attr("shape", {{"dim", {{{"size", "3"}}}}})}}),
        Const("i0", "DT_INT32", {0}),
        Node("w", "StatelessWhile", {"i0", "x"},
             {{"T", Attr("list", {{"type", {"DT_INT32", "DT_FLOAT"}}})},
              {"cond", Attr("func", {{"name", "loop_cond"}})},
              {"body", Attr("func", {{"name", "loop_body"}})}}),
        Node("out", "Identity", {"w:1"}, {{"T", f32}})}},
      {"library", {{"function", {cond, body}}, {"gradient", {{{"functionName", "loop_body"}, {"gradientFunc", "g"}}}}}},
      {"versions", {{"producer", 1286}}}};
  tfpb::GraphDef def;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(graph.dump(), &def).ok());
  ASSERT_EQ(def.library().function_size(), 2);
  EXPECT_EQ(def.library().function(1).signature().input_arg(1).name(), "v");
  EXPECT_EQ(def.library().function(1).arg_attr().at(1).attr().count("_user_specified_name"), 1u);
  const auto path = std::filesystem::temp_directory_path() / "onyx_tf_frames_test_frozen.pb";
  std::ofstream(path, std::ios::binary) << def.SerializeAsString();
  auto model = ConvertTfFrozenGraph(path.string(), {});
  ASSERT_TRUE(model.ok()) << model.status().message();
  const std::vector<float> x = {0.0f, 1.0f, -0.25f};
  const std::vector<float> got = RunFloat(*model, "x:0", x);
  ASSERT_EQ(got.size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_NEAR(got[k], 16 * x[k] + 15, 1e-5) << k;
}

}  // namespace
}  // namespace onyx::convert::tf

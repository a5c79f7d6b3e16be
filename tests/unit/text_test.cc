// Tests of the ONNX text syntax: parsing (the examples of ONNX docs/Syntax.md and its parser tests), printing,
// round trips (parse -> print -> parse gives the same print) and error messages with line and column.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include "text/parser.h"
#include "text/printer.h"

namespace onyx::text {
namespace {

using ir::AttrType;

// Parses, prints, parses the print and prints again: both prints must agree.
template <typename T, typename ParseFn, typename PrintFn>
T RoundTrip(std::string_view text, ParseFn parse, PrintFn print) {
  auto first = parse(text);
  EXPECT_TRUE(first.ok()) << first.status().message() << "\nin:\n" << text;
  if (!first.ok()) return T{};
  std::string printed = print(*first);
  auto second = parse(printed);
  EXPECT_TRUE(second.ok()) << second.status().message() << "\nprinted:\n" << printed;
  if (!second.ok()) return T{};
  EXPECT_EQ(printed, print(*second));
  return std::move(first).value();
}

ir::Model ModelRoundTrip(std::string_view text) {
  return RoundTrip<ir::Model>(
      text, [](std::string_view s) { return ParseModel(s); }, [](const ir::Model& m) { return PrintModel(m); });
}
ir::Graph GraphRoundTrip(std::string_view text) {
  return RoundTrip<ir::Graph>(
      text, [](std::string_view s) { return ParseGraph(s); }, [](const ir::Graph& g) { return PrintGraph(g); });
}
ir::Node NodeRoundTrip(std::string_view text) {
  return RoundTrip<ir::Node>(
      text, [](std::string_view s) { return ParseNode(s); }, [](const ir::Node& n) { return PrintNode(n); });
}
ir::TypeInfo TypeRoundTrip(std::string_view text) {
  return RoundTrip<ir::TypeInfo>(
      text, [](std::string_view s) { return ParseType(s); }, [](const ir::TypeInfo& t) { return PrintType(t); });
}
ir::NamedTensor TensorRoundTrip(std::string_view text) {
  return RoundTrip<ir::NamedTensor>(
      text, [](std::string_view s) { return ParseTensor(s); }, [](const ir::NamedTensor& t) { return PrintTensor(t); });
}

ir::ValueInfo MakeValueInfo(std::string name, std::optional<ir::TypeInfo> type) {
  ir::ValueInfo vi;
  vi.name = std::move(name);
  vi.type = std::move(type);
  return vi;
}

// The error message of a parse that must fail.
template <typename R>
std::string ErrorOf(const R& result) {
  EXPECT_FALSE(result.ok());
  return result.ok() ? std::string("<no error>") : result.status().message();
}

const ir::Attribute& Attr(const ir::Node& n, std::string_view name) {
  const ir::Attribute* a = n.FindAttribute(name);
  EXPECT_NE(a, nullptr) << name;
  static const ir::Attribute kNone;
  return a ? *a : kNone;
}

// ------------------------------------------------------------------------------------------------ models

TEST(TextSyntax, SyntaxDocExample) {
  ir::Model m = ModelRoundTrip(R"ONNX(
<
  ir_version: 7,
  opset_import: [ "" : 10 ]
>
agraph (float[N, 128] X, float[128, 10] W, float[10] B) => (float[N, 10] C)
{
    T = MatMul(X, W)
    S = Add(T, B)
    C = Softmax(S)
}
)ONNX");
  EXPECT_EQ(m.ir_version, 7);
  ASSERT_EQ(m.opset_import.size(), 1u);
  EXPECT_EQ(m.opset_import[0].domain, "");
  EXPECT_EQ(m.opset_import[0].version, 10);
  EXPECT_EQ(m.graph.name, "agraph");
  ASSERT_EQ(m.graph.inputs.size(), 3u);
  const ir::TypeInfo& x = *m.graph.inputs[0].type;
  EXPECT_EQ(x.kind, ir::TypeInfo::Kind::kTensor);
  EXPECT_EQ(x.elem_type, DataType::kFloat);
  ASSERT_EQ(x.shape->size(), 2u);
  EXPECT_TRUE((*x.shape)[0].is_param());
  EXPECT_EQ((*x.shape)[0].param, "N");
  EXPECT_EQ((*x.shape)[1].value, 128);
  ASSERT_EQ(m.graph.nodes.size(), 3u);
  EXPECT_EQ(m.graph.nodes[0].op_type, "MatMul");
  EXPECT_EQ(m.graph.nodes[0].inputs, (std::vector<std::string>{"X", "W"}));
  EXPECT_EQ(m.graph.nodes[0].outputs, (std::vector<std::string>{"T"}));
  EXPECT_EQ(m.graph.outputs[0].name, "C");
}

TEST(TextSyntax, ModelHeaderKeys) {
  ir::Model m = ModelRoundTrip(R"ONNX(
<
  ir_version: 8,
  opset_import: [ "" : 15, "com.microsoft" : 1 ],
  producer_name: "ParserTest",
  producer_version: "1.0",
  domain: "ai.onnx.ml",
  model_version: 3,
  doc_string: "A parser test case model.",
  metadata_props: [ "somekey" : "somevalue", "key2" : "value2" ]
>
agraph (float[N] y, float[N] z) => (float[N] w)
{
    x = foo(y, z)
    w = bar(x, y)
}
)ONNX");
  EXPECT_EQ(m.ir_version, 8);
  ASSERT_EQ(m.opset_import.size(), 2u);
  EXPECT_EQ(m.opset_import[1].domain, "com.microsoft");
  EXPECT_EQ(m.producer_name, "ParserTest");
  EXPECT_EQ(m.producer_version, "1.0");
  EXPECT_EQ(m.domain, "ai.onnx.ml");
  EXPECT_EQ(m.model_version, 3);
  EXPECT_EQ(m.doc_string, "A parser test case model.");
  ASSERT_EQ(m.metadata_props.size(), 2u);
  EXPECT_EQ(m.metadata_props[1].first, "key2");
  EXPECT_EQ(m.metadata_props[1].second, "value2");
}

TEST(TextSyntax, ModelWithFunctions) {
  ir::Model m = ModelRoundTrip(R"ONNX(
<
  ir_version: 8,
  opset_import: [ "" : 10, "local" : 1 ]
>
agraph (float[N, 128] X, float[128,10] W, float[10] B) => (float[N] C)
{
  T = local.foo (X, W, B)
  C = local.square(T)
}

<
  opset_import: [ "" : 10 ],
  domain: "local",
  doc_string: "Function foo."
>
foo (x, w, b) => (c) {
  T = MatMul(x, w)
  S = Add(T, b)
  c = Softmax(S)
}

<
  opset_import: [ "" : 10 ],
  domain: "local",
  doc_string: "Function square."
>
square (x) => (y) {
  y = Mul (x, x)
}
)ONNX");
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_EQ(m.graph.nodes[0].domain, "local");
  EXPECT_EQ(m.graph.nodes[0].op_type, "foo");
  const ir::Function& foo = m.functions[0];
  EXPECT_EQ(foo.name, "foo");
  EXPECT_EQ(foo.domain, "local");
  EXPECT_EQ(foo.doc_string, "Function foo.");
  EXPECT_EQ(foo.inputs, (std::vector<std::string>{"x", "w", "b"}));
  EXPECT_EQ(foo.outputs, (std::vector<std::string>{"c"}));
  EXPECT_EQ(foo.nodes.size(), 3u);
  ASSERT_EQ(foo.opset_import.size(), 1u);
  EXPECT_EQ(foo.opset_import[0].version, 10);
  EXPECT_EQ(m.functions[1].name, "square");
  EXPECT_NE(m.FindFunction("local", "square"), nullptr);
}

TEST(TextSyntax, FunctionAttributesAndTypedSignature) {
  ir::Model m = ModelRoundTrip(R"ONNX(
<
  ir_version: 9,
  opset_import: [ "" : 15, "custom_domain" : 1]
>
agraph (float[N] x) => (float[N] out)
{
  out = custom_domain.foo<alpha=2.0, gamma=3.0>(x)
}

<
domain: "custom_domain",
opset_import: [ "" : 15],
doc_string: "function foo",
overload: "v2"
>
  foo
  <alpha: float=4.0, gamma, beta = [1, 2]>
  (float[N] X, Y) => (float[N] C)
  <float[N] constant_alpha_x>
  {
      constant_alpha = Constant<value_float: float=@alpha>()
      constant_gamma = Constant<value_float: float=@gamma>()
      constant_alpha_x = Mul(constant_alpha, X)
      C = Add(constant_alpha_x, constant_gamma)
  }
)ONNX");
  ASSERT_EQ(m.functions.size(), 1u);
  const ir::Function& f = m.functions[0];
  EXPECT_EQ(f.overload, "v2");
  EXPECT_EQ(f.attributes, (std::vector<std::string>{"gamma"}));
  ASSERT_EQ(f.attribute_defaults.size(), 2u);
  EXPECT_EQ(f.attribute_defaults[0].name, "alpha");
  EXPECT_EQ(f.attribute_defaults[0].type, AttrType::kFloat);
  EXPECT_FLOAT_EQ(f.attribute_defaults[0].f, 4.0f);
  EXPECT_EQ(f.attribute_defaults[1].type, AttrType::kInts);
  EXPECT_EQ(f.inputs, (std::vector<std::string>{"X", "Y"}));
  // Typed inputs and outputs, then the <...> list, give the value infos.
  ASSERT_EQ(f.value_info.size(), 3u);
  EXPECT_EQ(f.value_info[0].name, "X");
  EXPECT_EQ(f.value_info[1].name, "C");
  EXPECT_EQ(f.value_info[2].name, "constant_alpha_x");
  const ir::Attribute& ref = Attr(f.nodes[0], "value_float");
  EXPECT_EQ(ref.ref_attr_name, "alpha");
  EXPECT_EQ(ref.type, AttrType::kFloat);
  // The standalone entry points read and print the same function.
  auto fn = ParseFunction(PrintFunction(f));
  ASSERT_TRUE(fn.ok()) << fn.status().message();
  EXPECT_EQ(PrintFunction(*fn), PrintFunction(f));
}

TEST(TextSyntax, ValueTypes) {
  ir::Model m = ModelRoundTrip(R"ONNX(
    <
    ir_version: 8,
    opset_import: [ "" : 18 ]
    >
    agraph (float[N] tensorX, seq(float[N]) seqX, map(int32, float[N]) mapX, optional(float[N]) optionalX,
            sparse_tensor(float[N]) sparseX, map(int64, float) m2, optional(seq(int64[2])) o2) => (float[N] X)
    {
        X = Identity (tensorX)
    }
)ONNX");
  using Kind = ir::TypeInfo::Kind;
  const auto& in = m.graph.inputs;
  ASSERT_EQ(in.size(), 7u);
  EXPECT_EQ(in[1].type->kind, Kind::kSequence);
  EXPECT_EQ(in[1].type->elem->elem_type, DataType::kFloat);
  EXPECT_EQ(in[2].type->kind, Kind::kMap);
  EXPECT_EQ(in[2].type->elem_type, DataType::kInt32);
  EXPECT_EQ(in[2].type->elem->kind, Kind::kTensor);
  EXPECT_EQ(in[3].type->kind, Kind::kOptional);
  EXPECT_EQ(in[4].type->kind, Kind::kSparseTensor);
  EXPECT_EQ(in[4].type->elem_type, DataType::kFloat);
  EXPECT_EQ(in[5].type->elem_type, DataType::kInt64);
  EXPECT_EQ(in[5].type->elem->elem_type, DataType::kFloat);
  EXPECT_EQ(in[6].type->elem->kind, Kind::kSequence);
}

// ------------------------------------------------------------------------------------------------ types

TEST(TextSyntax, Types) {
  ir::TypeInfo t = TypeRoundTrip("float[N]");
  EXPECT_EQ(t.kind, ir::TypeInfo::Kind::kTensor);
  ASSERT_TRUE(t.shape.has_value());
  ASSERT_EQ(t.shape->size(), 1u);
  EXPECT_EQ((*t.shape)[0].param, "N");

  t = TypeRoundTrip("float");  // a scalar: rank 0
  ASSERT_TRUE(t.shape.has_value());
  EXPECT_TRUE(t.shape->empty());

  t = TypeRoundTrip("float[]");  // rank unknown
  EXPECT_FALSE(t.shape.has_value());

  t = TypeRoundTrip("float[N,?,K]");
  ASSERT_EQ(t.shape->size(), 3u);
  EXPECT_EQ((*t.shape)[1].kind, ir::Dim::Kind::kUnknown);

  t = TypeRoundTrip("uint8[\"batch size\", 3]");
  EXPECT_EQ((*t.shape)[0].param, "batch size");
  EXPECT_EQ(PrintType(t), "uint8[\"batch size\", 3]");

  t = TypeRoundTrip("seq(float[])");
  EXPECT_EQ(t.kind, ir::TypeInfo::Kind::kSequence);
  EXPECT_FALSE(t.elem->shape.has_value());

  t = TypeRoundTrip("optional(float)");
  EXPECT_EQ(t.kind, ir::TypeInfo::Kind::kOptional);

  t = TypeRoundTrip("sparse_tensor(float[1000])");
  EXPECT_EQ(t.kind, ir::TypeInfo::Kind::kSparseTensor);
  EXPECT_EQ((*t.shape)[0].value, 1000);

  t = TypeRoundTrip("map(int32, float[N])");
  EXPECT_EQ(PrintType(t), "map(int32, float[N])");

  t = TypeRoundTrip("opaque(test.rng.RNG)");
  EXPECT_EQ(t.kind, ir::TypeInfo::Kind::kOpaque);
  EXPECT_EQ(t.opaque_domain, "");
  EXPECT_EQ(t.opaque_name, "test.rng.RNG");
  t = TypeRoundTrip("opaque(com.example, Thing)");
  EXPECT_EQ(t.opaque_domain, "com.example");
  EXPECT_EQ(t.opaque_name, "Thing");
  t = TypeRoundTrip("opaque()");
  EXPECT_EQ(t.opaque_name, "");

  for (const char* name : {"bfloat16", "float8e4m3fn", "int4", "uint2", "complex128", "string", "bool"}) {
    auto r = ParseType(std::string(name) + "[2]");
    ASSERT_TRUE(r.ok()) << name;
    EXPECT_EQ(DataTypeName(r->elem_type), name);
  }
}

// ------------------------------------------------------------------------------------------------ tensors

TEST(TextSyntax, TensorConstants) {
  ir::NamedTensor t = TensorRoundTrip("int32[5] {1, 2, 3, 4, 5}");
  EXPECT_EQ(t.tensor.type(), DataType::kInt32);
  EXPECT_EQ(t.tensor.shape(), (Shape{5}));
  EXPECT_EQ(t.tensor.data<int32_t>()[4], 5);

  t = TensorRoundTrip("int32[5] T {1, 2, 3, 4, 5}");
  EXPECT_EQ(t.name, "T");

  t = TensorRoundTrip("float[5] {1, 2.0, 3.1, 4, 5.5}");
  EXPECT_FLOAT_EQ(t.tensor.data<float>()[2], 3.1f);
  EXPECT_FLOAT_EQ(t.tensor.data<float>()[3], 4.0f);

  t = TensorRoundTrip("float[5] {1e1, 2.0e-1, 3.1E-1, 4E+1, 5.5e-10}");
  EXPECT_FLOAT_EQ(t.tensor.data<float>()[0], 10.0f);
  EXPECT_FLOAT_EQ(t.tensor.data<float>()[3], 40.0f);
  EXPECT_FLOAT_EQ(t.tensor.data<float>()[4], 5.5e-10f);

  t = TensorRoundTrip("string[2] { \"Hello\", \"World\" }");
  EXPECT_EQ(t.tensor.data<std::string>()[1], "World");

  t = TensorRoundTrip(R"(string[3] { "Use a \"quoted\" word", "Use a backslash \\ like this.", "tab\there\n" })");
  EXPECT_EQ(t.tensor.data<std::string>()[0], "Use a \"quoted\" word");
  EXPECT_EQ(t.tensor.data<std::string>()[1], "Use a backslash \\ like this.");
  EXPECT_EQ(t.tensor.data<std::string>()[2], "tab\there\n");

  t = TensorRoundTrip("float w = {-2.5}");  // a scalar
  EXPECT_TRUE(t.tensor.shape().empty());
  EXPECT_FLOAT_EQ(t.tensor.data<float>()[0], -2.5f);

  t = TensorRoundTrip("int64[0] empty = {}");
  EXPECT_EQ(t.tensor.size(), 0);

  t = TensorRoundTrip("int64[2, 2] m = {1, -2, 9223372036854775807, -9223372036854775808}");
  EXPECT_EQ(t.tensor.data<int64_t>()[2], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(t.tensor.data<int64_t>()[3], std::numeric_limits<int64_t>::min());

  t = TensorRoundTrip("uint64[1] {18446744073709551615}");
  EXPECT_EQ(t.tensor.data<uint64_t>()[0], std::numeric_limits<uint64_t>::max());

  t = TensorRoundTrip("int8[3] {-128, 0, 127}");
  EXPECT_EQ(t.tensor.data<int8_t>()[0], -128);

  t = TensorRoundTrip("bool[3] {1, 0, true}");
  EXPECT_TRUE(t.tensor.data<bool>()[0]);
  EXPECT_FALSE(t.tensor.data<bool>()[1]);
  EXPECT_TRUE(t.tensor.data<bool>()[2]);
}

TEST(TextSyntax, TensorFloatingPointValues) {
  ir::NamedTensor t = TensorRoundTrip("float[4] {inf, -inf, nan, 1e-45}");
  EXPECT_TRUE(std::isinf(t.tensor.data<float>()[0]));
  EXPECT_LT(t.tensor.data<float>()[1], 0);
  EXPECT_TRUE(std::isnan(t.tensor.data<float>()[2]));
  EXPECT_GT(t.tensor.data<float>()[3], 0);  // the smallest subnormal survives

  // Shortest round-trip printing keeps every bit of floats and doubles.
  ir::NamedTensor d;
  d.name = "d";
  d.tensor = Tensor::FromVector<double>({0.1, 1.0 / 3.0, 1e300, -2.0}, {4});
  std::string printed = PrintTensor(d);
  EXPECT_EQ(printed, "double[4] d = {0.1, 0.3333333333333333, 1e+300, -2.0}");
  auto back = ParseTensor(printed);
  ASSERT_TRUE(back.ok()) << back.status().message();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(back->tensor.data<double>()[i], d.tensor.data<double>()[i]);

  t = TensorRoundTrip("float16[3] h = {1.5, -0.099975586, 65504}");
  EXPECT_EQ(t.tensor.data<Float16>()[0].bits, Float16(1.5f).bits);
  EXPECT_EQ(t.tensor.data<Float16>()[1].bits, Float16(-0.099975586f).bits);
  EXPECT_EQ(static_cast<float>(t.tensor.data<Float16>()[2]), 65504.0f);

  t = TensorRoundTrip("bfloat16[2] {3.140625, -1e10}");
  EXPECT_EQ(t.tensor.data<BFloat16>()[0].bits, BFloat16(3.140625f).bits);

  t = TensorRoundTrip("complex64[2] {1.0, 2.0, -3.0, 0.5}");
  EXPECT_EQ(t.tensor.data<std::complex<float>>()[1], std::complex<float>(-3.0f, 0.5f));

  t = TensorRoundTrip("complex128[1] {1.0, 2.0}");
  EXPECT_EQ(t.tensor.data<std::complex<double>>()[0], std::complex<double>(1.0, 2.0));
}

TEST(TextSyntax, TensorSubByteAndFloat8) {
  ir::NamedTensor t = TensorRoundTrip("int4[3] {-8, 7, -1}");
  const auto* b = static_cast<const uint8_t*>(t.tensor.raw());
  EXPECT_EQ(b[0], 0x78);  // first element in the low nibble
  EXPECT_EQ(b[1], 0x0f);
  EXPECT_EQ(PrintTensor(t), "int4[3] {-8, 7, -1}");

  t = TensorRoundTrip("uint2[5] {0, 1, 2, 3, 3}");
  b = static_cast<const uint8_t*>(t.tensor.raw());
  EXPECT_EQ(b[0], 0xe4);
  EXPECT_EQ(b[1], 0x03);

  t = TensorRoundTrip("float8e4m3fn[2] {56, 184}");  // bit patterns, as ONNX writes them
  EXPECT_EQ(static_cast<const uint8_t*>(t.tensor.raw())[1], 184);
}

TEST(TextSyntax, ExternalTensorData) {
  ir::Graph g = GraphRoundTrip(R"ONNX(
g (float[2, 3] x) => (float[2, 3] y)
  <float[2, 3] w = ["location": "weights.bin", "offset": "0", "length": "24"]>
{
  y = Add(x, w)
}
)ONNX");
  ASSERT_EQ(g.initializers.size(), 1u);
  const ir::NamedTensor& w = g.initializers[0];
  EXPECT_EQ(w.tensor.type(), DataType::kFloat);
  EXPECT_EQ(w.tensor.shape(), (Shape{2, 3}));
  EXPECT_EQ(w.tensor.raw(), nullptr);
  ASSERT_EQ(w.external_data.size(), 3u);
  EXPECT_EQ(w.external_data[0], (std::pair<std::string, std::string>{"location", "weights.bin"}));
}

TEST(TextSyntax, AbbreviatedPrinting) {
  ir::NamedTensor t;
  t.name = "big";
  std::vector<float> values(100);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  t.tensor = Tensor::FromVector<float>(values, {10, 10});

  std::string full = PrintTensor(t);
  auto back = ParseTensor(full);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->tensor.size(), 100);
  EXPECT_FLOAT_EQ(back->tensor.data<float>()[99], 99.0f);

  PrintOptions opts;
  opts.max_elements = 3;
  std::string brief = PrintTensor(t, opts);
  EXPECT_EQ(brief, "float[10, 10] big = {0.0, 1.0, 2.0, ...}");
  EXPECT_NE(ErrorOf(ParseTensor(brief)).find("abbreviated tensor data"), std::string::npos);

  // Small tensors are unaffected; graphs and models take the option too.
  ir::NamedTensor small;
  small.tensor = Tensor::FromVector<int64_t>({1, 2}, {2});
  EXPECT_EQ(PrintTensor(small, opts), "int64[2] {1, 2}");
  ir::Graph g;
  g.name = "g";
  g.initializers.push_back(t);
  EXPECT_NE(PrintGraph(g, opts).find("{0.0, 1.0, 2.0, ...}"), std::string::npos);
}

// ------------------------------------------------------------------------------------------------ attributes

TEST(TextSyntax, AttributeKinds) {
  ir::Node n = NodeRoundTrip(
      R"(y = Foo<i = 2, f = 0.625, neg = -3, ints = [2, 4, 6], floats = [0.125, 0.625], mixed = [1, 2.5],
                 t = float[3] {2.1, 4.1, 6.1}, s = "astring", ss = ["abc", "def"], tp = float[N, 3],
                 tps = [int64, seq(float[2])], ts = [float[1] {1.0}, int64[2] named {3, 4}],
                 big = 1e38, tiny = -inf, none = nan>(x))");
  EXPECT_EQ(Attr(n, "i").type, AttrType::kInt);
  EXPECT_EQ(Attr(n, "i").i, 2);
  EXPECT_EQ(Attr(n, "f").type, AttrType::kFloat);
  EXPECT_FLOAT_EQ(Attr(n, "f").f, 0.625f);
  EXPECT_EQ(Attr(n, "neg").i, -3);
  EXPECT_EQ(Attr(n, "ints").type, AttrType::kInts);
  EXPECT_EQ(Attr(n, "ints").ints, (std::vector<int64_t>{2, 4, 6}));
  EXPECT_EQ(Attr(n, "floats").type, AttrType::kFloats);
  EXPECT_EQ(Attr(n, "floats").floats.size(), 2u);
  EXPECT_EQ(Attr(n, "mixed").type, AttrType::kFloats);
  EXPECT_EQ(Attr(n, "mixed").floats, (std::vector<float>{1.0f, 2.5f}));
  EXPECT_EQ(Attr(n, "t").type, AttrType::kTensor);
  EXPECT_EQ(Attr(n, "t").t.tensor.shape(), (Shape{3}));
  EXPECT_FLOAT_EQ(Attr(n, "t").t.tensor.data<float>()[1], 4.1f);
  EXPECT_EQ(Attr(n, "s").type, AttrType::kString);
  EXPECT_EQ(Attr(n, "s").s, "astring");
  EXPECT_EQ(Attr(n, "ss").type, AttrType::kStrings);
  EXPECT_EQ(Attr(n, "ss").strings, (std::vector<std::string>{"abc", "def"}));
  EXPECT_EQ(Attr(n, "tp").type, AttrType::kTypeProto);
  EXPECT_EQ(PrintType(*Attr(n, "tp").tp), "float[N, 3]");
  EXPECT_EQ(Attr(n, "tps").type, AttrType::kTypeProtos);
  ASSERT_EQ(Attr(n, "tps").type_protos.size(), 2u);
  EXPECT_EQ(Attr(n, "tps").type_protos[1].kind, ir::TypeInfo::Kind::kSequence);
  EXPECT_EQ(Attr(n, "ts").type, AttrType::kTensors);
  ASSERT_EQ(Attr(n, "ts").tensors.size(), 2u);
  EXPECT_EQ(Attr(n, "ts").tensors[1].name, "named");
  EXPECT_EQ(Attr(n, "ts").tensors[1].tensor.data<int64_t>()[1], 4);
  EXPECT_FLOAT_EQ(Attr(n, "big").f, 1e38f);
  EXPECT_TRUE(std::isinf(Attr(n, "tiny").f));
  EXPECT_TRUE(std::isnan(Attr(n, "none").f));
}

TEST(TextSyntax, AttributeTypeAnnotations) {
  ir::Node n = NodeRoundTrip(
      R"(y = Foo<x: int = 1, alpha: float = 2, e: ints = [], fe: floats = [], se: strings = [], fl: floats = [1, 2],
                 r: ints = @xyz, untyped = @abc, sp: sparse_tensor = "\x08\x01\x00", sps: sparse_tensors = ["a", "b"],
                 te: tensors = [], ge: graphs = []>(x))");
  EXPECT_EQ(Attr(n, "x").type, AttrType::kInt);
  EXPECT_EQ(Attr(n, "x").i, 1);
  EXPECT_EQ(Attr(n, "alpha").type, AttrType::kFloat);  // the integer literal is converted
  EXPECT_FLOAT_EQ(Attr(n, "alpha").f, 2.0f);
  EXPECT_EQ(Attr(n, "e").type, AttrType::kInts);
  EXPECT_TRUE(Attr(n, "e").ints.empty());
  EXPECT_EQ(Attr(n, "fe").type, AttrType::kFloats);
  EXPECT_EQ(Attr(n, "se").type, AttrType::kStrings);
  EXPECT_EQ(Attr(n, "fl").floats, (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(Attr(n, "r").type, AttrType::kInts);
  EXPECT_EQ(Attr(n, "r").ref_attr_name, "xyz");
  EXPECT_EQ(Attr(n, "untyped").type, AttrType::kUndefined);
  EXPECT_EQ(Attr(n, "untyped").ref_attr_name, "abc");
  EXPECT_EQ(Attr(n, "sp").type, AttrType::kSparseTensor);
  EXPECT_EQ(Attr(n, "sp").sparse_tensor, std::string("\x08\x01\x00", 3));
  EXPECT_EQ(Attr(n, "sps").sparse_tensors.size(), 2u);
  EXPECT_EQ(Attr(n, "te").type, AttrType::kTensors);
  EXPECT_EQ(Attr(n, "ge").type, AttrType::kGraphs);

  std::string printed = PrintNode(n);
  EXPECT_NE(printed.find("alpha = 2.0"), std::string::npos) << printed;
  EXPECT_NE(printed.find("e: ints = []"), std::string::npos) << printed;
  EXPECT_NE(printed.find("r: ints = @xyz"), std::string::npos) << printed;
}

TEST(TextSyntax, GraphAttributes) {
  ir::Node n = NodeRoundTrip(R"ONNX(
z = If (b) <
    then_branch = g1 () => (float[N] z_then)
      {
        z_then = foo(y)
      },
    else_branch = g2 () => (float[N] z_else)
      {
        z_else = bar(x)
      }
    >
)ONNX");
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"b"}));
  ASSERT_EQ(n.attributes.size(), 2u);
  const ir::Attribute& then_branch = Attr(n, "then_branch");
  EXPECT_EQ(then_branch.type, AttrType::kGraph);
  ASSERT_NE(then_branch.g, nullptr);
  EXPECT_EQ(then_branch.g->name, "g1");
  EXPECT_EQ(then_branch.g->outputs[0].name, "z_then");
  EXPECT_EQ(then_branch.g->nodes[0].op_type, "foo");

  ir::Node loop = NodeRoundTrip(R"ONNX(
    out = Loop(M, cond, v) <body = body (int64 i, bool c, float[N] v_in) => (bool c_out, float[N] v_out)
        <float[1] one = {1.0}, float[N] tmp> {
      c_out = Identity(c)
      tmp = Add(v_in, one)
      v_out = Identity(tmp)
      inner = If(c) <then_branch = t () => (float x) { x = Constant<value = float {1.5}>() },
                      else_branch = "else branch" () => (float x) { x = Constant<value_float = 2.5>() }>
    }, branches = [a () => () {}, b () => () {}]>
)ONNX");
  const ir::Attribute& body = Attr(loop, "body");
  ASSERT_NE(body.g, nullptr);
  EXPECT_EQ(body.g->inputs.size(), 3u);
  EXPECT_EQ(body.g->initializers.size(), 1u);
  EXPECT_EQ(body.g->value_info.size(), 1u);
  ASSERT_EQ(body.g->nodes.size(), 4u);
  const ir::Attribute& else_branch = Attr(body.g->nodes[3], "else_branch");
  ASSERT_NE(else_branch.g, nullptr);
  EXPECT_EQ(else_branch.g->name, "else branch");
  EXPECT_EQ(Attr(loop, "branches").type, AttrType::kGraphs);
  EXPECT_EQ(Attr(loop, "branches").graphs.size(), 2u);
}

// ------------------------------------------------------------------------------------------------ nodes

TEST(TextSyntax, Nodes) {
  ir::Node n = NodeRoundTrip("x = foo(y, z)");
  EXPECT_EQ(n.op_type, "foo");
  EXPECT_EQ(n.domain, "");
  EXPECT_EQ(PrintNode(n), "x = foo(y, z)");

  n = NodeRoundTrip("x = com.example.foo(y, z)");
  EXPECT_EQ(n.domain, "com.example");
  EXPECT_EQ(n.op_type, "foo");
  EXPECT_EQ(PrintNode(n), "x = com.example.foo(y, z)");

  n = NodeRoundTrip("y, mask = com.microsoft.Foo <a = 100, b = 200.5, c = \"astring\"> (x)");
  EXPECT_EQ(n.domain, "com.microsoft");
  EXPECT_EQ(n.outputs, (std::vector<std::string>{"y", "mask"}));
  EXPECT_EQ(n.attributes.size(), 3u);
  EXPECT_EQ(PrintNode(n), "y, mask = com.microsoft.Foo<a = 100, b = 200.5, c = \"astring\">(x)");

  // Attributes may also follow the inputs.
  n = NodeRoundTrip("y = Cast (x) <to = 1>");
  EXPECT_EQ(Attr(n, "to").i, 1);

  // Omitted optional inputs: left empty or written "".
  n = NodeRoundTrip("y = Clip(x, , max)");
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"x", "", "max"}));
  n = NodeRoundTrip("y = Clip(x, \"\", max)");
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"x", "", "max"}));
  EXPECT_EQ(PrintNode(n), "y = Clip(x, \"\", max)");
  n = NodeRoundTrip("y = Resize(x, , , sizes)");
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"x", "", "", "sizes"}));
  n = NodeRoundTrip("y = Op(,x)");
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"", "x"}));
  n = NodeRoundTrip("y = Op(x,)");  // as in ONNX, a trailing comma adds nothing
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"x"}));
  // Omitted optional outputs.
  n = NodeRoundTrip("y, , saved_var = BatchNormalization(x, s, b, m, v)");
  EXPECT_EQ(n.outputs, (std::vector<std::string>{"y", "", "saved_var"}));

  // Labels, overloads, no outputs, no inputs, quoted names.
  n = NodeRoundTrip("[conv_1] y = Conv(x, w)");
  EXPECT_EQ(n.name, "conv_1");
  EXPECT_EQ(PrintNode(n), "[conv_1] y = Conv(x, w)");
  n = NodeRoundTrip("y = local.f:v2(x)");
  EXPECT_EQ(n.overload, "v2");
  n = NodeRoundTrip("= Print(x)");
  EXPECT_TRUE(n.outputs.empty());
  n = NodeRoundTrip("c = Constant<value_ints = [1, 2]>()");
  EXPECT_TRUE(n.inputs.empty());
  n = NodeRoundTrip(R"(["/layer.0/Add"] "onnx::Add_3" = Add("x.1", "float"))");
  EXPECT_EQ(n.name, "/layer.0/Add");
  EXPECT_EQ(n.outputs[0], "onnx::Add_3");
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"x.1", "float"}));
  EXPECT_EQ(PrintNode(n), R"(["/layer.0/Add"] "onnx::Add_3" = Add("x.1", "float"))");
}

// ------------------------------------------------------------------------------------------------ graphs

TEST(TextSyntax, GraphInitializersAndValueInfos) {
  ir::Graph g = GraphRoundTrip(R"ONNX(
agraph (float[N] y, float[N] z) => (float[N] w)
<float[2] w1 = {1.0, 2.0}, float[3] w2 = {4.0, 5.0, 6.0}, float[N] x>
{
    # This is a comment.
    x = foo(y, z, w1) # More comments.
    w = bar(x, y, w2)
}
)ONNX");
  EXPECT_EQ(g.name, "agraph");
  EXPECT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.nodes.size(), 2u);
  ASSERT_EQ(g.initializers.size(), 2u);
  EXPECT_EQ(g.initializers[1].name, "w2");
  EXPECT_FLOAT_EQ(g.initializers[1].tensor.data<float>()[2], 6.0f);
  ASSERT_EQ(g.value_info.size(), 1u);
  EXPECT_EQ(g.value_info[0].name, "x");

  // An input with a value is an input with an initializer; inputs may be untyped.
  g = GraphRoundTrip(R"ONNX(
agraph (float y = {1.0}, z) => (float[N] w)
<float[2] w1 = {1.0, 2.0}, float[3] w2 = {4.0, 5.0, 6.0}, float[N] x>
{
    x = foo(y, z, w1)
    w = bar(x, y, w2)
}
)ONNX");
  EXPECT_EQ(g.inputs.size(), 2u);
  EXPECT_FALSE(g.inputs[1].type.has_value());
  ASSERT_EQ(g.initializers.size(), 3u);
  EXPECT_EQ(g.initializers[0].name, "y");
  EXPECT_EQ(g.value_info.size(), 1u);
  EXPECT_EQ(g.RealInputs().size(), 1u);
}

TEST(TextSyntax, PrintedLayout) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_import = {{"", 15}};
  m.graph.name = "g";
  m.graph.inputs.push_back(
      MakeValueInfo("x", ir::TypeInfo::Tensor(DataType::kFloat, std::vector<ir::Dim>{ir::Dim::Param("N")})));
  m.graph.outputs.push_back(MakeValueInfo("y", std::nullopt));
  ir::NamedTensor w;
  w.name = "w";
  w.tensor = Tensor::FromVector<float>({1.0f, 2.5f}, {2});
  m.graph.initializers.push_back(w);
  ir::Node add;
  add.op_type = "Add";
  add.inputs = {"x", "w"};
  add.outputs = {"y"};
  m.graph.nodes.push_back(add);
  EXPECT_EQ(PrintModel(m),
            "<\n"
            "  ir_version: 8,\n"
            "  opset_import: [\"\" : 15]\n"
            ">\n"
            "g (float[N] x) => (y)\n"
            "  <float[2] w = {1.0, 2.5}>\n"
            "{\n"
            "  y = Add(x, w)\n"
            "}\n");
  auto back = ParseModel(PrintModel(m));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(PrintModel(*back), PrintModel(m));
}

TEST(TextSyntax, QuotedNamesRoundTrip) {
  // Names that are not identifiers, or that read as type names, are quoted.
  ir::Graph g;
  g.name = "main graph";
  g.inputs.push_back(MakeValueInfo("input:0", ir::TypeInfo::Tensor(DataType::kFloat, std::vector<ir::Dim>{})));
  g.inputs.push_back(MakeValueInfo("map", std::nullopt));
  g.outputs.push_back(MakeValueInfo("out\"put\\", std::nullopt));
  ir::Node n;
  n.op_type = "Add";
  n.inputs = {"input:0", "map"};
  n.outputs = {"out\"put\\"};
  g.nodes.push_back(n);
  std::string printed = PrintGraph(g);
  auto back = ParseGraph(printed);
  ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << printed;
  EXPECT_EQ(back->name, "main graph");
  EXPECT_EQ(back->inputs[0].name, "input:0");
  EXPECT_EQ(back->inputs[1].name, "map");
  EXPECT_FALSE(back->inputs[1].type.has_value());
  EXPECT_EQ(back->outputs[0].name, "out\"put\\");
  EXPECT_EQ(back->nodes[0].outputs[0], "out\"put\\");
  EXPECT_EQ(PrintGraph(*back), printed);
}

// ------------------------------------------------------------------------------------------------ errors

TEST(TextSyntaxErrors, LineAndColumn) {
  std::string text =
      "<ir_version: 8, opset_import: [\"\" : 15]>\n"
      "g (float x) => (float y) {\n"
      "  y = Relu(x = z)\n"
      "}\n";
  EXPECT_EQ(ErrorOf(ParseModel(text)), "line 3, column 14: expected ')' but found '='");
  EXPECT_EQ(ErrorOf(ParseNode("y = Add(a, b")), "line 1, column 13: expected ')' but found end of input");
  EXPECT_EQ(ErrorOf(ParseNode("y = Add(a b)")), "line 1, column 11: expected ')' but found identifier 'b'");
}

TEST(TextSyntaxErrors, UnterminatedString) {
  std::string msg = ErrorOf(ParseNode("y = Foo<s = \"abc>(x)"));
  EXPECT_EQ(msg, "line 1, column 13: unterminated string literal");
  msg = ErrorOf(ParseModel("<\n  ir_version: 8,\n  producer_name: \"oops\n>\ng () => () {}"));
  EXPECT_EQ(msg, "line 3, column 18: unterminated string literal");
  msg = ErrorOf(ParseTensor("string[1] {\"abc\\"));
  EXPECT_NE(msg.find("unterminated string literal"), std::string::npos) << msg;
}

TEST(TextSyntaxErrors, UnknownTypes) {
  EXPECT_EQ(ErrorOf(ParseGraph("g (flot[2] x) => () {}")), "line 1, column 4: unknown type 'flot'");
  EXPECT_EQ(ErrorOf(ParseGraph("g (float[2] x) => (int65 y) {}")), "line 1, column 20: unknown type 'int65'");
  EXPECT_EQ(ErrorOf(ParseType("tensor(float)")), "line 1, column 1: unknown type 'tensor'");
  EXPECT_NE(ErrorOf(ParseType("map(seq(float), float)")).find("map key type"), std::string::npos);
  EXPECT_NE(ErrorOf(ParseNode("y = Foo<x: integer = 1>()")).find("unknown attribute type 'integer'"),
            std::string::npos);
}

TEST(TextSyntaxErrors, MissingBrackets) {
  EXPECT_EQ(ErrorOf(ParseType("float[2, 3")), "line 1, column 11: expected ']' but found end of input");
  EXPECT_EQ(ErrorOf(ParseGraph("g (float x) => (float y) { y = Relu(x)")),
            "line 1, column 39: expected '}' but found end of input");
  EXPECT_EQ(ErrorOf(ParseGraph("g (float x) => (float y)  y = Relu(x) }")),
            "line 1, column 27: expected '{' but found identifier 'y'");
  EXPECT_EQ(ErrorOf(ParseGraph("g (float x) (float y) {}")), "line 1, column 13: expected '=>' but found '('");
  EXPECT_EQ(ErrorOf(ParseNode("y = Foo<a = 1 (x)")), "line 1, column 15: expected '>' but found '('");
  EXPECT_EQ(ErrorOf(ParseNode("y = Foo<a = [1, 2>(x)")), "line 1, column 18: expected ']' but found '>'");
  EXPECT_EQ(ErrorOf(ParseModel("<ir_version: 8 g () => () {}")),
            "line 1, column 16: expected '>' but found identifier 'g'");
}

TEST(TextSyntaxErrors, HugeAndBadNumbers) {
  EXPECT_EQ(ErrorOf(ParseModel("<ir_version: 99999999999999999999> g () => () {}")),
            "line 1, column 14: integer 99999999999999999999 does not fit in int64");
  EXPECT_EQ(ErrorOf(ParseNode("y = Foo<a = 123456789012345678901234567890>()")),
            "line 1, column 13: integer 123456789012345678901234567890 does not fit in int64");
  EXPECT_EQ(ErrorOf(ParseNode("y = Foo<a = 1e999>()")), "line 1, column 13: number 1e999 is out of range for float");
  EXPECT_EQ(ErrorOf(ParseTensor("double[1] {1e400}")), "line 1, column 12: number 1e400 is out of range for double");
  EXPECT_EQ(ErrorOf(ParseTensor("int8[2] {1, 300}")),
            "line 1, column 13: value 300 is out of range for int8 (-128 to 127)");
  EXPECT_EQ(ErrorOf(ParseTensor("uint8[1] {-1}")), "line 1, column 11: value -1 is out of range for uint8 (0 to 255)");
  EXPECT_EQ(ErrorOf(ParseTensor("uint64[1] {18446744073709551616}")),
            "line 1, column 12: integer 18446744073709551616 does not fit in uint64");
  EXPECT_EQ(ErrorOf(ParseTensor("float16[1] {70000}")), "line 1, column 13: number 70000 is out of range for float16");
  EXPECT_EQ(ErrorOf(ParseTensor("int4[1] {8}")), "line 1, column 10: value 8 is out of range for int4 (-8 to 7)");
  EXPECT_EQ(ErrorOf(ParseType("float[99999999999999999999]")),
            "line 1, column 7: integer 99999999999999999999 does not fit in int64");
  EXPECT_NE(ErrorOf(ParseTensor("float[4611686018427387904, 4] {}")).find("too large"), std::string::npos);
  EXPECT_EQ(ErrorOf(ParseNode("y = Foo<a = 12abc>()")), "line 1, column 13: malformed number '12abc'");
  // Underflow is not an error: the value rounds to zero as in C++.
  auto tiny = ParseTensor("float[1] {1e-60}");
  ASSERT_TRUE(tiny.ok()) << tiny.status().message();
  EXPECT_EQ(tiny->tensor.data<float>()[0], 0.0f);
}

TEST(TextSyntaxErrors, TensorShapeAndValues) {
  EXPECT_EQ(ErrorOf(ParseTensor("int32[] {1, 2, 3}")),
            "line 1, column 1: tensor needs a shape with numbers (like float[2, 3]), not float[]");
  EXPECT_EQ(ErrorOf(ParseTensor("int32[N] {1, 2, 3}")),
            "line 1, column 1: tensor needs a shape with numbers, but dimension 'N' is not one");
  EXPECT_EQ(ErrorOf(ParseTensor("float[2] w = {1.0, 2.0, 3.0}")),
            "line 1, column 14: tensor 'w' of shape [2] needs 2 values but 3 are given");
  EXPECT_EQ(ErrorOf(ParseTensor("complex64[1] {1.0}")),
            "line 1, column 14: tensor of shape [1] needs 2 numbers (real and imaginary parts) but 1 are given");
  EXPECT_EQ(ErrorOf(ParseTensor("int32[2] {1, 2.5}")),
            "line 1, column 14: expected an integer for a int32 element of tensor but found number 2.5");
  EXPECT_EQ(ErrorOf(ParseTensor("string[1] {abc}")),
            "line 1, column 12: expected a string in quotes for a string element of tensor but found identifier 'abc'");
  EXPECT_EQ(ErrorOf(ParseGraph("g () => () <w = {1.0}> {}")),
            "line 1, column 13: initializer 'w' needs a type, like float[2] w");
}

TEST(TextSyntaxErrors, AttributeValues) {
  EXPECT_EQ(ErrorOf(ParseNode("y = Foo<a = []>()")),
            "line 1, column 13: the empty list of attribute 'a' needs a type annotation, like 'a: ints = []'");
  EXPECT_EQ(ErrorOf(ParseNode("y = Foo<a = [1, \"s\"]>()")),
            "line 1, column 17: element 1 of attribute 'a' is string but the list holds ints");
  EXPECT_EQ(ErrorOf(ParseNode("y = Foo<a: int = 1.5>()")),
            "line 1, column 18: attribute 'a' is declared 'int' but its value is float");
  EXPECT_EQ(ErrorOf(ParseNode("y = Foo<a: ints = 1>()")),
            "line 1, column 19: attribute 'a' is declared 'ints' but has a single value; write a list in [...]");
  EXPECT_EQ(ErrorOf(ParseNode("y = Foo<a: int = [1]>()")),
            "line 1, column 18: attribute 'a' is declared 'int' but has a list value");
  EXPECT_EQ(ErrorOf(ParseNode("y = Foo<a = >()")), "line 1, column 13: expected an attribute value but found '>'");
}

TEST(TextSyntaxErrors, HeadersAndTrailingText) {
  EXPECT_EQ(ErrorOf(ParseModel("<ir_verison: 8> g () => () {}")),
            "line 1, column 2: unknown model header key 'ir_verison' (expected ir_version, opset_import, "
            "producer_name, producer_version, domain, model_version, doc_string or metadata_props)");
  EXPECT_EQ(ErrorOf(ParseModel("<opset_import: [onnx : 15]> g () => () {}")),
            "line 1, column 17: expected an opset domain in quotes (\"\" for the default domain) but found "
            "identifier 'onnx'");
  EXPECT_EQ(ErrorOf(ParseNode("y = Relu(x) z")),
            "line 1, column 13: expected end of input after the node but found "
            "identifier 'z'");
  EXPECT_EQ(ErrorOf(ParseModel("")), "line 1, column 1: expected a graph name but found end of input");
  EXPECT_EQ(ErrorOf(ParseNode("y = Relu(x) $")), "line 1, column 13: unexpected character '$'");
  EXPECT_EQ(ErrorOf(ParseModel("<ir_version: 8> g () => () {}\n<domain: \"d\">\nf (x) => (y) { y = Relu(x) ")),
            "line 3, column 28: expected '}' but found end of input");
}

TEST(TextSyntaxErrors, DeepNesting) {
  std::string deep_type;
  for (int i = 0; i < 100000; ++i) deep_type += "seq(";
  EXPECT_NE(ErrorOf(ParseType(deep_type)).find("nested more than"), std::string::npos);
  std::string deep_graph = "y = If(c) <";
  for (int i = 0; i < 100000; ++i) deep_graph += "b = g () => () { y = If(c) <";
  EXPECT_NE(ErrorOf(ParseNode(deep_graph)).find("nested more than"), std::string::npos);
  // Moderate nesting is fine.
  std::string type = "float";
  for (int i = 0; i < 50; ++i) type = "seq(" + type + ")";
  auto t = ParseType(type);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(PrintType(*t), type);
}

}  // namespace
}  // namespace onyx::text

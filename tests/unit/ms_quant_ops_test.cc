// ONNX Runtime's com.microsoft 8-bit operators (src/ops/quant, QAttention, QEmbedLayerNormalization): malformed nodes
// and inputs are errors that name the input or attribute, never crashes. (Their values against ONNX Runtime: ctest
// quant_bit_exact on tests/data/quant/ms_qlinear, contrib_ops on tests/data/contrib/q*.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/kernel_registry.h"

namespace onyx {
namespace {

struct NodeRun {
  Status init;     // the factory's status
  Status compute;  // Compute's, when the kernel was made
};

Value Scalar(float v) {
  Tensor t = Tensor::Allocate(DataType::kFloat, {}, true);
  t.data<float>()[0] = v;
  return Value(std::move(t));
}

Value Bytes(DataType type, const Shape& shape) { return Value(Tensor::Allocate(type, shape, true)); }

NodeRun RunNode(const std::string& op, std::vector<std::string> input_names, std::vector<Value*> inputs,
                std::vector<ir::Attribute> attrs = {}, size_t outputs = 1) {
  ir::Node node;
  node.op_type = op;
  node.domain = "com.microsoft";
  node.inputs = std::move(input_names);
  for (size_t i = 0; i < outputs; ++i) node.outputs.push_back("y" + std::to_string(i));
  node.attributes = std::move(attrs);
  const KernelFactory* factory = KernelRegistry::Global().Find("com.microsoft", op, 1);
  EXPECT_NE(factory, nullptr) << op;
  if (factory == nullptr) return NodeRun{Unsupported("no kernel"), Status::Ok()};
  KernelInfo info(node, 1, 1, {});
  auto kernel = (*factory)(info);
  if (!kernel.ok()) return NodeRun{kernel.status(), Status::Ok()};
  std::vector<const Value*> in(inputs.begin(), inputs.end());
  std::vector<Value> out(outputs);
  KernelContext ctx(in, &out, nullptr, 1);
  return NodeRun{Status::Ok(), (*kernel)->Compute(ctx)};
}

TEST(MsQuantOps, QLinearSoftmaxNeedsItsOpsetAttribute) {
  Value x = Bytes(DataType::kUint8, {2, 4}), s = Scalar(0.1f), z = Bytes(DataType::kUint8, {});
  NodeRun r = RunNode("QLinearSoftmax", {"x", "s", "z", "s", "z"}, {&x, &s, &z, &s, &z});
  ASSERT_FALSE(r.init.ok());
  EXPECT_NE(r.init.message().find("opset"), std::string::npos) << r.init.message();
}

TEST(MsQuantOps, QLinearMulRejectsAPerChannelScale) {
  Value a = Bytes(DataType::kUint8, {2, 4}), s = Scalar(0.1f), z = Bytes(DataType::kUint8, {});
  Value s4 = Bytes(DataType::kFloat, {4});
  NodeRun r = RunNode("QLinearMul", {"a", "s4", "z", "a", "s", "z", "s", "z"}, {&a, &s4, &z, &a, &s, &z, &s, &z});
  ASSERT_TRUE(r.init.ok()) << r.init.message();
  ASSERT_FALSE(r.compute.ok());
  EXPECT_NE(r.compute.message().find("A_scale"), std::string::npos) << r.compute.message();
}

// QLinearMul's output for these inputs (named a, as, az, b, bs, bz, cs, cz), or an empty tensor on error.
Tensor MulOutput(std::vector<Value*> inputs) {
  ir::Node node;
  node.op_type = "QLinearMul";
  node.domain = "com.microsoft";
  node.inputs = {"a", "as", "az", "b", "bs", "bz", "cs", "cz"};
  node.outputs = {"y"};
  const KernelFactory* factory = KernelRegistry::Global().Find("com.microsoft", "QLinearMul", 1);
  if (factory == nullptr) return Tensor();
  KernelInfo info(node, 1, 1, {});
  auto kernel = (*factory)(info);
  if (!kernel.ok()) return Tensor();
  std::vector<const Value*> in(inputs.begin(), inputs.end());
  std::vector<Value> out(1);
  KernelContext ctx(in, &out, nullptr, 2);
  if (!(*kernel)->Compute(ctx).ok()) return Tensor();
  return out[0].tensor();
}

// A gate of C values broadcast over the pixels of a channels-last image ([1, H, W, C] times [1, 1, 1, C], either
// operand the gate): the bytes of the same product with the gate written out for every pixel (equal shapes), for C a
// multiple of the vector width and not, uint8 and int8.
TEST(MsQuantOps, QLinearMulOfAGateOverPixelsEqualsTheProductWrittenOut) {
  for (DataType type : {DataType::kUint8, DataType::kInt8}) {
    for (int64_t c : {16, 32, 40, 48, 7}) {
      const int64_t pixels = 5 * 9;
      Value image = Bytes(type, {1, 5, 9, c}), gate = Bytes(type, {1, 1, 1, c}), full = Bytes(type, {1, 5, 9, c});
      auto* im = static_cast<uint8_t*>(image.tensor().raw());
      auto* g = static_cast<uint8_t*>(gate.tensor().raw());
      auto* f = static_cast<uint8_t*>(full.tensor().raw());
      for (int64_t i = 0; i < pixels * c; ++i) im[i] = static_cast<uint8_t>((i * 73 + 5) % 256);
      for (int64_t i = 0; i < c; ++i) g[i] = static_cast<uint8_t>((i * 29 + 200) % 256);
      for (int64_t i = 0; i < pixels * c; ++i) f[i] = g[i % c];
      Value as = Scalar(0.021f), bs = Scalar(0.0037f), cs = Scalar(0.013f);
      Value az = Bytes(type, {}), bz = Bytes(type, {}), cz = Bytes(type, {});
      static_cast<uint8_t*>(az.tensor().raw())[0] = 9;
      static_cast<uint8_t*>(bz.tensor().raw())[0] = 130;
      static_cast<uint8_t*>(cz.tensor().raw())[0] = 17;
      for (bool gate_is_a : {false, true}) {
        Value* ga = gate_is_a ? &gate : &image;
        Value* gb = gate_is_a ? &image : &gate;
        Value* fa = gate_is_a ? &full : &image;
        Value* fb = gate_is_a ? &image : &full;
        const Tensor got = MulOutput({ga, &as, &az, gb, &bs, &bz, &cs, &cz});
        const Tensor want = MulOutput({fa, &as, &az, fb, &bs, &bz, &cs, &cz});
        ASSERT_EQ(got.size(), pixels * c);
        ASSERT_EQ(want.size(), pixels * c);
        const auto* x = static_cast<const uint8_t*>(got.raw());
        const auto* y = static_cast<const uint8_t*>(want.raw());
        EXPECT_EQ(std::vector<uint8_t>(x, x + got.size()), std::vector<uint8_t>(y, y + want.size()))
            << DataTypeName(type) << " C=" << c << " gate is A: " << gate_is_a;
      }
    }
  }
}

TEST(MsQuantOps, QLinearAddRejectsMixedTypesAndUnbroadcastableShapes) {
  Value a = Bytes(DataType::kUint8, {2, 4}), b8 = Bytes(DataType::kInt8, {2, 4}), b3 = Bytes(DataType::kUint8, {3});
  Value s = Scalar(0.1f), z = Bytes(DataType::kUint8, {});
  NodeRun mixed =
      RunNode("QLinearAdd", {"a", "s", "", "b", "s", "", "s", ""}, {&a, &s, nullptr, &b8, &s, nullptr, &s, nullptr});
  ASSERT_FALSE(mixed.compute.ok());
  EXPECT_NE(mixed.compute.message().find("'A' and 'B'"), std::string::npos) << mixed.compute.message();
  NodeRun shapes = RunNode("QLinearAdd", {"a", "s", "z", "b", "s", "z", "s", "z"}, {&a, &s, &z, &b3, &s, &z, &s, &z});
  ASSERT_FALSE(shapes.compute.ok());
  EXPECT_NE(shapes.compute.message().find("broadcast"), std::string::npos) << shapes.compute.message();
}

TEST(MsQuantOps, QLinearWhereNeedsNineInputsAndABoolCondition) {
  Value x = Bytes(DataType::kUint8, {4}), s = Scalar(0.1f), z = Bytes(DataType::kUint8, {});
  NodeRun few = RunNode("QLinearWhere", {"c", "x", "s", "z"}, {&x, &x, &s, &z});
  ASSERT_FALSE(few.init.ok());
  EXPECT_NE(few.init.message().find("9 inputs"), std::string::npos) << few.init.message();
  NodeRun cond =
      RunNode("QLinearWhere", {"c", "x", "s", "z", "x", "s", "z", "s", "z"}, {&x, &x, &s, &z, &x, &s, &z, &s, &z});
  ASSERT_FALSE(cond.compute.ok());
  EXPECT_NE(cond.compute.message().find("'condition'"), std::string::npos) << cond.compute.message();
}

TEST(MsQuantOps, QLinearAveragePoolChecksRankAgainstTheKernel) {
  Value x = Bytes(DataType::kUint8, {1, 2, 5}), s = Scalar(0.1f), z = Bytes(DataType::kUint8, {});
  NodeRun r = RunNode("QLinearAveragePool", {"x", "s", "z", "s", "z"}, {&x, &s, &z, &s, &z},
                      {ir::IntsAttr("kernel_shape", {2, 2})});
  ASSERT_TRUE(r.init.ok()) << r.init.message();
  ASSERT_FALSE(r.compute.ok());
  EXPECT_NE(r.compute.message().find("'X'"), std::string::npos) << r.compute.message();
  NodeRun no_kernel = RunNode("QLinearAveragePool", {"x", "s", "z", "s", "z"}, {&x, &s, &z, &s, &z});
  EXPECT_FALSE(no_kernel.init.ok());
}

TEST(MsQuantOps, QLinearAveragePoolRejectsHostilePads) {
  // Pads of 2^62 (found by the mutation test) made the output size's product wrap; now an error naming them.
  Value x = Bytes(DataType::kUint8, {1, 2, 10, 12}), s = Scalar(0.1f), z = Bytes(DataType::kUint8, {});
  const int64_t huge = int64_t{1} << 62;
  NodeRun r = RunNode("QLinearAveragePool", {"x", "s", "z", "s", "z"}, {&x, &s, &z, &s, &z},
                      {ir::IntsAttr("kernel_shape", {3, 3}), ir::IntsAttr("pads", {huge, huge, 1, 1 << 20})});
  ASSERT_TRUE(r.init.ok()) << r.init.message();
  ASSERT_FALSE(r.compute.ok());
  EXPECT_NE(r.compute.message().find("padding"), std::string::npos) << r.compute.message();
}

TEST(MsQuantOps, QLinearSigmoidRejectsFloatData) {
  Value x = Bytes(DataType::kFloat, {4}), s = Scalar(0.1f);
  NodeRun r = RunNode("QLinearSigmoid", {"x", "s", "", "s", ""}, {&x, &s, nullptr, &s, nullptr});
  ASSERT_FALSE(r.compute.ok());
  EXPECT_NE(r.compute.message().find("'X'"), std::string::npos) << r.compute.message();
}

TEST(MsQuantOps, QAttentionRejectsWeightsOfTheWrongDepth) {
  Value x = Bytes(DataType::kUint8, {1, 3, 8}), w = Bytes(DataType::kInt8, {6, 12}), b = Bytes(DataType::kFloat, {12});
  Value s = Scalar(0.1f);
  NodeRun r = RunNode("QAttention", {"x", "w", "b", "s", "s"}, {&x, &w, &b, &s, &s}, {ir::IntAttr("num_heads", 2)});
  ASSERT_TRUE(r.init.ok()) << r.init.message();
  ASSERT_FALSE(r.compute.ok());
  EXPECT_NE(r.compute.message().find("'weight'"), std::string::npos) << r.compute.message();
}

TEST(MsQuantOps, QEmbedLayerNormRejectsOutOfRangeIds) {
  Tensor ids = Tensor::Allocate(DataType::kInt32, {1, 2}, true);
  ids.data<int32_t>()[1] = 99;
  Value id(std::move(ids));
  Value word = Bytes(DataType::kUint8, {10, 4}), pos = Bytes(DataType::kUint8, {8, 4});
  Value gb = Bytes(DataType::kUint8, {4}), s = Scalar(0.1f), z = Bytes(DataType::kUint8, {});
  NodeRun r = RunNode(
      "QEmbedLayerNormalization",
      {"ids", "", "word", "pos", "", "g", "b", "", "s", "s", "", "s", "s", "z", "z", "", "z", "z"},
      {&id, nullptr, &word, &pos, nullptr, &gb, &gb, nullptr, &s, &s, nullptr, &s, &s, &z, &z, nullptr, &z, &z}, {}, 2);
  ASSERT_TRUE(r.init.ok()) << r.init.message();
  ASSERT_FALSE(r.compute.ok());
  EXPECT_NE(r.compute.message().find("input_ids[1] = 99"), std::string::npos) << r.compute.message();
}

}  // namespace
}  // namespace onyx

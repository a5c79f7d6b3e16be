// The prepacked int8 matrix product (kernels/int8_matmul.h through MatMulInteger and QLinearMatMul with a constant B)
// against loops written here from the ONNX definitions: sum_k (a - a_zero_point) * b, and for QLinearMatMul the float
// scale a_scale * b_scale[j] / y_scale, round half to even, the zero point, saturation. Batched A ([2, 5, K]), 1-D A,
// uint8 and int8 A, per-tensor and per-column B scales; two runs per session.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/int8_gemm.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

std::string Floats(const std::vector<float>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(v[i]));
    s += (i ? "," : "") + std::string(buf);
  }
  return s;
}

std::string Dims(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return "[" + s + "]";
}

struct Case {
  std::vector<int64_t> a_shape;
  int64_t n = 1;
  bool signed_a = false;
  int32_t a_zp = 0;
  bool per_column = false;
};

void RunCase(const Case& c, unsigned seed) {
  // Checked against the exact definition: only where the int8 products are exact (VNNI/AMX). Without VNNI they
  // saturate in pairs as ONNX Runtime's do (kernels/int8_gemm.h; Int8GemmTest.WithoutVnniPairsSaturateAsOnnxRuntime).
  if (kernels::Int8GemmArithmetic() == kernels::Int8Arithmetic::kSaturatingPairs) {
    GTEST_SKIP() << "no VNNI: 8-bit products saturate in pairs as ONNX Runtime's on this CPU";
  }
  std::mt19937 rng(seed);
  const int64_t k = c.a_shape.back();
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < c.a_shape.size(); ++i) rows *= c.a_shape[i];
  const std::string at = c.signed_a ? "int8" : "uint8";
  std::uniform_int_distribution<int> ad(c.signed_a ? -128 : 0, c.signed_a ? 127 : 255), bd(-128, 127);
  Tensor a = Tensor::Allocate(c.signed_a ? DataType::kInt8 : DataType::kUint8, c.a_shape);
  std::vector<int32_t> av(static_cast<size_t>(rows * k));
  for (size_t i = 0; i < av.size(); ++i) {
    av[i] = ad(rng);
    if (c.signed_a) {
      a.data<int8_t>()[i] = static_cast<int8_t>(av[i]);
    } else {
      a.data<uint8_t>()[i] = static_cast<uint8_t>(av[i]);
    }
  }
  Tensor b = Tensor::Allocate(DataType::kInt8, {k, c.n});
  for (int64_t i = 0; i < k * c.n; ++i) b.data<int8_t>()[i] = static_cast<int8_t>(bd(rng));
  std::vector<float> bs(c.per_column ? static_cast<size_t>(c.n) : 1);
  std::uniform_real_distribution<float> sd(0.0005f, 0.004f);
  for (auto& v : bs) v = sd(rng);
  std::vector<int64_t> out_shape(c.a_shape.begin(), c.a_shape.end() - 1);
  out_shape.push_back(c.n);
  const std::string header = "<ir_version: 8, opset_import: [\"\" : 13]>\ng (" + at + Dims(c.a_shape) + " a) => (";
  const std::string azp = "  az = Constant<value = " + at + " {" + std::to_string(c.a_zp) + "}>()\n";
  const std::string mm_text =
      header + "int32" + Dims(out_shape) + " y) {\n" + azp + "  y = MatMulInteger(a, b, az)\n}\n";
  const std::string bs_dims = c.per_column ? "[" + std::to_string(c.n) + "]" : "";
  const std::string q_text = header + at + Dims(out_shape) + " y) {\n" + azp +
                             "  as = Constant<value = float {0.05}>()\n  bs = Constant<value = float" + bs_dims + " {" +
                             Floats(bs) + "}>()\n  bz = Constant<value = int8 {0}>()\n" +
                             "  ys = Constant<value = float {0.37}>()\n  yz = Constant<value = " + at + " {" +
                             std::to_string(c.signed_a ? -9 : 131) + "}>()\n" +
                             "  y = QLinearMatMul(a, as, az, b, bs, bz, ys, yz)\n}\n";
  // The reference accumulators.
  std::vector<int64_t> acc(static_cast<size_t>(rows * c.n));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < c.n; ++j) {
      int64_t sum = 0;
      for (int64_t t = 0; t < k; ++t)
        sum += (av[static_cast<size_t>(r * k + t)] - c.a_zp) * b.data<int8_t>()[t * c.n + j];
      acc[static_cast<size_t>(r * c.n + j)] = sum;
    }
  }
  for (int which = 0; which < 2; ++which) {
    auto parsed = text::ParseModel(which == 0 ? mm_text : q_text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    ir::Model m = *parsed;
    m.graph.initializers.push_back(ir::NamedTensor{"b", "", b, {}, {}});
    auto session = Session::Create(m);
    ASSERT_TRUE(session.ok()) << session.status().message();
    for (int run = 0; run < 2; ++run) {
      std::vector<Value> got;
      Status st = (*session)->Run({{"a", a}}, {}, &got);
      ASSERT_TRUE(st.ok()) << st.message();
      const Tensor& y = got[0].tensor();
      ASSERT_EQ(y.size(), static_cast<int64_t>(acc.size()));
      for (size_t i = 0; i < acc.size(); ++i) {
        if (which == 0) {
          ASSERT_EQ(y.data<int32_t>()[i], acc[i]) << "MatMulInteger element " << i;
          continue;
        }
        const size_t j = i % static_cast<size_t>(c.n);
        const float mult = 0.05f * bs[c.per_column ? j : 0] / 0.37f;
        const double r =
            std::nearbyint(static_cast<double>(static_cast<float>(acc[i]) * mult)) + (c.signed_a ? -9 : 131);
        const double lo = c.signed_a ? -128 : 0, hi = c.signed_a ? 127 : 255;
        const int want = static_cast<int>(r < lo ? lo : r > hi ? hi : r);
        const int have = c.signed_a ? y.data<int8_t>()[i] : y.data<uint8_t>()[i];
        ASSERT_EQ(have, want) << "QLinearMatMul element " << i;
      }
    }
  }
}

TEST(Int8MatMulPacked, BatchedUint8) { RunCase({{2, 5, 37}, 19, false, 131, false}, 1); }
TEST(Int8MatMulPacked, Int8PerColumnScales) { RunCase({{7, 64}, 48, true, -3, true}, 2); }
TEST(Int8MatMulPacked, VectorTimesMatrix) { RunCase({{100}, 33, false, 0, true}, 3); }
TEST(Int8MatMulPacked, LargerThanOneThreadsWorth) { RunCase({{128, 256}, 96, false, 77, false}, 4); }

}  // namespace
}  // namespace onyx

// The weight-only fusion (optimizer/weight_only_fusion.cc): MatMul(A, DequantizeLinear(x blocked along K)) runs as
// one com.microsoft MatMulNBits at level all, with the unfused graph's results, for signed and unsigned 4- and 8-bit
// weights, with and without zero points, K a whole number of blocks or not, one row or several; other forms stay.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

struct Form {
  std::string type;  // int4, uint4, int8, uint8
  int64_t k, n, block, rows;
  bool zero_point;
};

std::string Values(const std::string& type, size_t count, std::mt19937& rng) {
  const int lo = type == "int4" ? -8 : type == "int8" ? -128 : 0;
  const int hi = type == "int4" ? 7 : type == "uint4" ? 15 : type == "int8" ? 127 : 255;
  std::ostringstream s;
  for (size_t i = 0; i < count; ++i) s << (i ? ", " : "") << lo + static_cast<int>(rng() % (hi - lo + 1));
  return s.str();
}

std::string Floats(size_t count, std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::ostringstream s;
  s.precision(9);
  for (size_t i = 0; i < count; ++i) s << (i ? ", " : "") << d(rng);
  return s.str();
}

// y = MatMul(x, DequantizeLinear(w, s[, z]) with axis 0 and `block`).
ir::Model Model(const Form& f, std::mt19937& rng, int64_t axis = 0) {
  const int64_t blocks = (f.k + f.block - 1) / f.block;
  std::ostringstream t;
  t << "<ir_version: 10, opset_import: [\"\" : 21]>\n"
    << "g (float[" << f.rows << ", " << f.k << "] x) => (float[" << f.rows << ", " << f.n << "] y) <" << f.type << "["
    << f.k << ", " << f.n << "] w = {" << Values(f.type, static_cast<size_t>(f.k * f.n), rng) << "}, float[" << blocks
    << ", " << f.n << "] s = {" << Floats(static_cast<size_t>(blocks * f.n), rng, 0.01f, 0.1f) << "}";
  if (f.zero_point) {
    t << ", " << f.type << "[" << blocks << ", " << f.n << "] z = {"
      << Values(f.type, static_cast<size_t>(blocks * f.n), rng) << "}";
  }
  t << "> {\n  wf = DequantizeLinear<axis = " << axis << ", block_size = " << f.block << ">(w, s"
    << (f.zero_point ? ", z" : "") << ")\n  y = MatMul(x, wf)\n}\n";
  auto parsed = text::ParseModel(t.str());
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? *parsed : ir::Model{};
}

Value RunModel(const ir::Model& m, const Tensor& x, optimizer::OptLevel level, ir::Model* optimized) {
  SessionOptions so;
  so.optimization_level = level;
  so.intra_op_num_threads = 2;
  auto s = Session::Create(m, so);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return Value();
  if (optimized != nullptr) *optimized = (*s)->model();
  std::vector<Value> out;
  const Status st = (*s)->Run({{"x", Value(x)}}, {}, &out);
  EXPECT_TRUE(st.ok()) << st.message();
  return out.empty() ? Value() : out[0];
}

int Count(const ir::Graph& g, const std::string& op) {
  int c = 0;
  for (const auto& n : g.nodes) c += n.op_type == op;
  return c;
}

TEST(WeightOnlyFusion, DequantizeMatMulRunsAsMatMulNBits) {
  std::mt19937 rng(5);
  const Form forms[] = {{"int4", 64, 24, 32, 1, false},   {"int4", 40, 10, 16, 3, true},
                        {"uint4", 96, 17, 32, 1, true},   {"uint4", 64, 9, 64, 2, false},
                        {"int8", 48, 21, 16, 1, true},    {"uint8", 300, 33, 128, 9, true},
                        {"int8", 128, 40, 32, 12, false}, {"int4", 512, 64, 32, 1, true}};
  for (const Form& f : forms) {
    SCOPED_TRACE(f.type + " k " + std::to_string(f.k) + " n " + std::to_string(f.n) + " block " +
                 std::to_string(f.block) + " rows " + std::to_string(f.rows) + (f.zero_point ? " zp" : ""));
    const ir::Model m = Model(f, rng);
    Tensor x = Tensor::Allocate(DataType::kFloat, {f.rows, f.k});
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = d(rng);
    ir::Model fused;
    const Value want = RunModel(m, x, optimizer::OptLevel::kDisabled, nullptr);
    const Value got = RunModel(m, x, optimizer::OptLevel::kAll, &fused);
    EXPECT_EQ(Count(fused.graph, "MatMulNBits"), 1);
    EXPECT_EQ(Count(fused.graph, "DequantizeLinear"), 0);
    ASSERT_TRUE(want.is_tensor() && got.is_tensor());
    ASSERT_EQ(want.tensor().shape(), got.tensor().shape());
    for (int64_t i = 0; i < want.tensor().size(); ++i) {
      const float w = want.tensor().data<float>()[i];
      ASSERT_NEAR(got.tensor().data<float>()[i], w, 1e-4f * (1.0f + std::abs(w))) << "element " << i;
    }
  }
}

TEST(WeightOnlyFusion, OtherFormsStay) {
  std::mt19937 rng(6);
  // Per-column scales (axis 1) and a block of 8 are not MatMulNBits' form; level extended keeps standard operators.
  for (const auto& [form, axis, level] :
       {std::tuple{Form{"int8", 32, 4, 32, 1, false}, int64_t{0}, optimizer::OptLevel::kExtended},
        std::tuple{Form{"int4", 32, 4, 8, 1, false}, int64_t{0}, optimizer::OptLevel::kAll}}) {
    ir::Model fused;
    const ir::Model m = Model(form, rng, axis);
    Tensor x = Tensor::Allocate(DataType::kFloat, {form.rows, form.k});
    for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = 0.5f;
    RunModel(m, x, level, &fused);
    EXPECT_EQ(Count(fused.graph, "MatMulNBits"), 0) << form.type << " block " << form.block;
  }
}

}  // namespace
}  // namespace onyx

// The attention fusion's sequence-first form (src/optimizer/attention_fusion.cc ToSeqFirst, FusedAttention with
// seq_first = 1 in src/ops/contrib/fused_attention.cc): torch's nn.MultiheadAttention head transposes fold into the
// fused node, which then computes what the unfused graph computes, NaN rows included.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

// q [S, H, D], k [T, H, D], v [T, H, Dv] sequence first, as torch exports them; `extra_reader` makes the
// attention output also a graph output (then the output Transpose cannot fold).
std::string MhaModel(bool extra_reader) {
  std::string outputs = "float[6, 4, 5] y";
  if (extra_reader) outputs += ", float[4, 6, 5] o";
  return "<ir_version: 8, opset_import: [\"\" : 13]>\n"
         "g (float[6, 4, 8] q, float[7, 4, 8] k, float[7, 4, 5] v) => (" +
         outputs +
         ") <float sc = {0.35355339}> {\n"
         "  qt = Transpose<perm = [1, 0, 2]>(q)\n"
         "  kt = Transpose<perm = [1, 2, 0]>(k)\n"
         "  vt = Transpose<perm = [1, 0, 2]>(v)\n"
         "  qs = Mul(qt, sc)\n"
         "  s = MatMul(qs, kt)\n"
         "  p = Softmax<axis = -1>(s)\n"
         "  o = MatMul(p, vt)\n"
         "  y = Transpose<perm = [1, 0, 2]>(o)\n"
         "}\n";
}

Tensor RandomTensor(const Shape& shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  Tensor t = Tensor::Allocate(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

std::vector<Value> RunAt(const ir::Model& m, const std::vector<std::pair<std::string, Value>>& feeds,
                         optimizer::OptLevel level, ir::Model* optimized) {
  SessionOptions so;
  so.optimization_level = level;
  so.intra_op_num_threads = 2;
  auto s = Session::Create(m, so);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return {};
  if (optimized != nullptr) *optimized = (*s)->model();
  std::vector<Value> out;
  const Status st = (*s)->Run(feeds, {}, &out);
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

void CheckCase(bool extra_reader, int want_seq_first) {
  auto model = text::ParseModel(MhaModel(extra_reader));
  ASSERT_TRUE(model.ok()) << model.status().message();
  Tensor q = RandomTensor({6, 4, 8}, 1);
  q.data<float>()[2 * 32 + 1 * 8 + 3] = std::numeric_limits<float>::quiet_NaN();  // query row 2 of head 1
  const std::vector<std::pair<std::string, Value>> feeds = {
      {"q", Value(std::move(q))}, {"k", Value(RandomTensor({7, 4, 8}, 2))}, {"v", Value(RandomTensor({7, 4, 5}, 3))}};
  const auto want = RunAt(*model, feeds, optimizer::OptLevel::kDisabled, nullptr);
  ir::Model fused;
  const auto got = RunAt(*model, feeds, optimizer::OptLevel::kAll, &fused);
  int attention = 0, seq_first = 0, transposes = 0;
  for (const auto& n : fused.graph.nodes) {
    if (n.op_type == "FusedAttention") {
      ++attention;
      const ir::Attribute* a = n.FindAttribute("seq_first");
      seq_first += a != nullptr && a->i == 1;
    }
    transposes += n.op_type == "Transpose";
  }
  EXPECT_EQ(attention, 1);
  EXPECT_EQ(seq_first, want_seq_first);
  if (want_seq_first == 1) {
    EXPECT_EQ(transposes, 0) << "the four head transposes fold in";
  }
  ASSERT_EQ(want.size(), got.size());
  for (size_t o = 0; o < want.size(); ++o) {
    const Tensor& a = want[o].tensor();
    const Tensor& b = got[o].tensor();
    ASSERT_EQ(a.shape(), b.shape());
    int nans = 0;
    for (int64_t i = 0; i < a.size(); ++i) {
      const float x = a.data<float>()[i], y = b.data<float>()[i];
      if (std::isnan(x)) {
        ++nans;
        EXPECT_TRUE(std::isnan(y)) << "output " << o << " element " << i;
        continue;
      }
      ASSERT_NEAR(x, y, 1e-5 * std::max(1.0f, std::abs(x))) << "output " << o << " element " << i;
    }
    EXPECT_EQ(nans, 5) << "the NaN query row of head 1 gives one NaN output row";
  }
}

TEST(AttentionSeqFirst, HeadTransposesFoldAndResultsMatch) { CheckCase(false, 1); }

TEST(AttentionSeqFirst, OutputReadElsewhereKeepsTheTransposes) { CheckCase(true, 0); }

// nn.MultiheadAttention's input projection: x [S, B, E] times W [E, 3E] plus a bias, Q, K and V sliced out of it
// ([0, E), [E, 2E), [2E, 3E) of the last axis) and reshaped to [S, B*H, D]. With B = 1 the fused node reads the
// projection in place (column_offsets); with B = 2 the heads of a row are not evenly spaced and the Slices stay.
std::string ProjectedMhaModel(int64_t batch) {
  const int64_t s = 6, h = 4, d = 8, e = h * d;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<float> real(-0.5f, 0.5f);
  auto values = [&](int64_t n) {
    std::string v;
    for (int64_t i = 0; i < n; ++i) v += (i ? "," : "") + std::to_string(real(rng));
    return v;
  };
  const std::string S = std::to_string(s), B = std::to_string(batch), E = std::to_string(e);
  const std::string heads = "[" + S + ", " + std::to_string(batch * h) + ", " + std::to_string(d) + "]";
  return "<ir_version: 8, opset_import: [\"\" : 13]>\n"
         "g (float[" +
         S + ", " + B + ", " + E + "] x) => (float[" + S + ", " + std::to_string(batch * h) + ", " + std::to_string(d) +
         "] y) <float[" + E + ", " + std::to_string(3 * e) + "] w = {" + values(e * 3 * e) + "}, float[" +
         std::to_string(3 * e) + "] b = {" + values(3 * e) +
         "}, int64[1] axes = {-1}, int64[1] c0 = {0}, int64[1] c1 = {" + E + "}, int64[1] c2 = {" +
         std::to_string(2 * e) + "}, int64[1] c3 = {" + std::to_string(3 * e) + "}, int64[3] shape = {" +
         heads.substr(1, heads.size() - 2) +
         "}, float sc = {0.35355339}> {\n"
         "  p = MatMul(x, w)\n  qkv = Add(p, b)\n"
         "  qs = Slice(qkv, c0, c1, axes)\n  ks = Slice(qkv, c1, c2, axes)\n  vs = Slice(qkv, c2, c3, axes)\n"
         "  q = Reshape(qs, shape)\n  k = Reshape(ks, shape)\n  v = Reshape(vs, shape)\n"
         "  qt = Transpose<perm = [1, 0, 2]>(q)\n  kt = Transpose<perm = [1, 2, 0]>(k)\n"
         "  vt = Transpose<perm = [1, 0, 2]>(v)\n  qsc = Mul(qt, sc)\n  sco = MatMul(qsc, kt)\n"
         "  pr = Softmax<axis = -1>(sco)\n  o = MatMul(pr, vt)\n  y = Transpose<perm = [1, 0, 2]>(o)\n}\n";
}

void CheckProjected(int64_t batch, bool want_columns) {
  auto model = text::ParseModel(ProjectedMhaModel(batch));
  ASSERT_TRUE(model.ok()) << model.status().message();
  const std::vector<std::pair<std::string, Value>> feeds = {{"x", Value(RandomTensor({6, batch, 32}, 4))}};
  const auto want = RunAt(*model, feeds, optimizer::OptLevel::kDisabled, nullptr);
  ir::Model fused;
  const auto got = RunAt(*model, feeds, optimizer::OptLevel::kAll, &fused);
  int columns = 0, slices = 0;
  for (const auto& n : fused.graph.nodes) {
    columns += n.op_type == "FusedAttention" && n.FindAttribute("column_offsets") != nullptr;
    slices += n.op_type == "Slice";
  }
  EXPECT_EQ(columns, want_columns ? 1 : 0);
  EXPECT_EQ(slices, want_columns ? 0 : 3);
  ASSERT_EQ(want.size(), 1u);
  ASSERT_EQ(got.size(), 1u);
  const Tensor& a = want[0].tensor();
  const Tensor& b = got[0].tensor();
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.size(); ++i) {
    ASSERT_NEAR(a.data<float>()[i], b.data<float>()[i], 1e-5 * std::max(1.0f, std::abs(a.data<float>()[i])))
        << "element " << i;
  }
}

TEST(AttentionSeqFirst, QkvSlicesOfOneProjectionAreReadInPlace) { CheckProjected(1, true); }

TEST(AttentionSeqFirst, QkvSlicesOfABatchOfTwoStay) { CheckProjected(2, false); }

}  // namespace
}  // namespace onyx

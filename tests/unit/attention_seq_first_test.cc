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

}  // namespace
}  // namespace onyx

// Unit tests of the ai.onnx.ml family. The ONNX backend suite has eight cases for it (ArrayFeatureExtractor,
// Binarizer, LabelEncoder 2/4, two TreeEnsemble 5 models); these cover every operator and attribute the way
// scikit-learn-style converted models use them: tree ensembles in both encodings with every branch mode, NaN
// tracking, aggregate functions, base values, post transforms and the binary classifier forms; linear and SVM
// models (kernels, one-vs-one votes, Platt probabilities, one-class); the preprocessing operators; label and
// category mappings in all versions; the map operators. Expected values were worked out by hand or with numpy
// (probit uses the same erf^-1 approximation as onnxruntime and the ONNX reference), never by running these
// kernels. Bad attributes and inputs must give errors, not crashes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "op_test_helpers.h"
#include "op_tester.h"

namespace onyx {
namespace {

using namespace testing;  // NOLINT: the shared op-test helpers
using Strs = std::vector<std::string>;
using Ints = std::vector<int64_t>;
using Floats = std::vector<float>;

OpTest Ml(const std::string& op_type, int64_t opset = 3, int num_outputs = 1) {
  return Op(op_type, opset, "ai.onnx.ml").Outputs(num_outputs);
}

OpTest& TensorAttr(OpTest& t, const std::string& name, Tensor value) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kTensor;
  a.t.name = name;
  a.t.tensor = std::move(value);
  t.attributes.push_back(std::move(a));
  return t;
}

Tensor D(std::vector<double> v, Shape s) { return Tensor::FromVector<double>(v, std::move(s)); }
Tensor U8(std::vector<uint8_t> v) {
  Shape s = {static_cast<int64_t>(v.size())};
  return Tensor::FromVector<uint8_t>(v, s);
}
Tensor F1(Floats v) {
  Shape s = {static_cast<int64_t>(v.size())};
  return F(std::move(v), s);
}

// Stricter than the shared Values: a tensor of another element type is a failure, not a reinterpretation.
template <typename T>
std::vector<T> Values(const Tensor& t) {
  if (t.type() != DataTypeOf<T>::value) {
    ADD_FAILURE() << "tensor has type " << DataTypeName(t.type());
    return {};
  }
  auto s = t.values<T>();
  return {s.begin(), s.end()};
}

// Unlike the shared ExpectFloats, the tolerance is relative (to |expected|, at least 1) and there is no shape.
void ExpectFloats(const Tensor& t, const Floats& expected, float tol = 2e-6f) {
  const auto got = Values<float>(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(got[i], expected[i]) << "at " << i;
    } else {
      EXPECT_NEAR(got[i], expected[i], tol * std::max(1.0f, std::abs(expected[i]))) << "at " << i;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Tree ensembles, (tree id, node id) encoding. Two trees over features (f0, f1):
//   tree 0: n0 "f0 <= 1.5" (NaN goes true) ? n1 : n2;  n2 "f1 < 0.5" ? n3 : n4
//   tree 1: n0 "f1 > 2" ? n1 : n2

OpTest& TwoTrees(OpTest& t) {
  t.Attr("nodes_treeids", Ints{0, 0, 0, 0, 0, 1, 1, 1})
      .Attr("nodes_nodeids", Ints{0, 1, 2, 3, 4, 0, 1, 2})
      .Attr("nodes_featureids", Ints{0, 0, 1, 0, 0, 1, 0, 0})
      .Attr("nodes_values", Floats{1.5f, 0, 0.5f, 0, 0, 2, 0, 0})
      .Attr("nodes_truenodeids", Ints{1, 0, 3, 0, 0, 1, 0, 0})
      .Attr("nodes_falsenodeids", Ints{2, 0, 4, 0, 0, 2, 0, 0})
      .Attr("nodes_missing_value_tracks_true", Ints{1, 0, 0, 0, 0, 0, 0, 0})
      .Attr("nodes_hitrates", Floats{1, 1, 1, 1, 1, 1, 1, 1});  // accepted, without effect
  return StringsAttr(t, "nodes_modes",
                     {"BRANCH_LEQ", "LEAF", "BRANCH_LT", "LEAF", "LEAF", "BRANCH_GT", "LEAF", "LEAF"});
}

// Votes: t0n1 -> (target 0: 1, target 1: 10), t0n3 -> (0: 2), t0n4 -> (0: 3, 1: 30), t1n1 -> (0: 0.5), t1n2 -> (1: -4).
OpTest Regressor(const std::string& aggregate, int64_t opset = 3) {
  OpTest t = Ml("TreeEnsembleRegressor", opset);
  TwoTrees(t)
      .Attr("n_targets", int64_t{2})
      .Attr("aggregate_function", aggregate)
      .Attr("target_treeids", Ints{0, 0, 0, 0, 0, 1, 1})
      .Attr("target_nodeids", Ints{1, 1, 3, 4, 4, 1, 2})
      .Attr("target_ids", Ints{0, 1, 0, 0, 1, 0, 1})
      .Attr("target_weights", Floats{1, 10, 2, 3, 30, 0.5f, -4});
  // Rows reach: (t0n1, t1n1), (t0n3, t1n2), NaN tracked true (t0n1, t1n2), NaN not tracked (t0n4, t1n2).
  t.Input(F({1, 3, 2, 0, kNaN, 1, 5, kNaN}, {4, 2}));
  return t;
}

TEST(TreeEnsembleRegressor, AggregateFunctions) {
  Tensor sum = RunOk(Regressor("SUM"));
  EXPECT_EQ(sum.shape(), (Shape{4, 2}));
  ExpectFloats(sum, {1.5f, 10, 2, -4, 1, 6, 3, 26});
  ExpectFloats(RunOk(Regressor("AVERAGE")), {0.75f, 5, 1, -2, 0.5f, 3, 1.5f, 13});
  ExpectFloats(RunOk(Regressor("MIN")), {0.5f, 10, 2, -4, 1, -4, 3, -4});
  ExpectFloats(RunOk(Regressor("MAX")), {1, 10, 2, -4, 1, 10, 3, 30});
  // Version 1 and the deprecated version 5 run the same.
  ExpectFloats(RunOk(Regressor("SUM", 1)), {1.5f, 10, 2, -4, 1, 6, 3, 26});
  ExpectFloats(RunOk(Regressor("SUM", 5)), {1.5f, 10, 2, -4, 1, 6, 3, 26});
}

TEST(TreeEnsembleRegressor, BaseValuesAndPostTransforms) {
  OpTest base = Regressor("SUM");
  base.Attr("base_values", Floats{100, 200});
  ExpectFloats(RunOk(base), {101.5f, 210, 102, 196, 101, 206, 103, 226});
  OpTest broadcast = Regressor("AVERAGE");
  broadcast.Attr("base_values", Floats{1});  // one value for every target, added after averaging
  ExpectFloats(RunOk(broadcast), {1.75f, 6, 2, -1, 1.5f, 4, 2.5f, 14});

  OpTest logistic = Regressor("SUM");
  logistic.Attr("post_transform", std::string("LOGISTIC"));
  ExpectFloats(RunOk(logistic), {0.817574476f, 0.9999546f, 0.880797078f, 0.01798621f, 0.731058579f, 0.997527377f,
                                 0.952574127f, 1.0f});
  OpTest softmax = Regressor("SUM");
  softmax.Attr("post_transform", std::string("SOFTMAX"));
  Tensor sm = RunOk(softmax);
  ExpectFloats(sm, {0.000203426978f, 0.999796573f, 0.997527377f, 0.002472623f, 0.006692851f, 0.993307149f,
                    1.02618796e-10f, 1.0f},
               1e-5f);
}

TEST(TreeEnsembleRegressor, UntouchedTargetAndDefaultTargetCount) {
  // One tree: only target 0 has votes; MIN leaves target 1 at 0 (+ base).
  OpTest t = Ml("TreeEnsembleRegressor");
  t.Attr("nodes_treeids", Ints{0, 0, 0})
      .Attr("nodes_nodeids", Ints{0, 1, 2})
      .Attr("nodes_featureids", Ints{0, 0, 0})
      .Attr("nodes_values", Floats{0, 0, 0})
      .Attr("nodes_truenodeids", Ints{1, 0, 0})
      .Attr("nodes_falsenodeids", Ints{2, 0, 0})
      .Attr("n_targets", int64_t{2})
      .Attr("aggregate_function", std::string("MIN"))
      .Attr("base_values", Floats{0.5f, 0.25f})
      .Attr("target_treeids", Ints{0, 0})
      .Attr("target_nodeids", Ints{1, 2})
      .Attr("target_ids", Ints{0, 0})
      .Attr("target_weights", Floats{-1, 4});
  StringsAttr(t, "nodes_modes", {"BRANCH_GTE", "LEAF", "LEAF"});
  t.Input(F({0, -1}, {2, 1}));
  ExpectFloats(RunOk(t), {-0.5f, 0.25f, 4.5f, 0.25f});

  // Without n_targets the largest target id decides; a 1-D input is one row; int64 inputs compare as numbers.
  OpTest one = t;
  one.attributes.erase(std::remove_if(one.attributes.begin(), one.attributes.end(),
                                      [](const ir::Attribute& a) { return a.name == "n_targets" || a.name == "base_values"; }),
                       one.attributes.end());
  one.inputs = {I64({3}, {1})};
  Tensor y = RunOk(one);
  EXPECT_EQ(y.shape(), (Shape{1, 1}));
  ExpectFloats(y, {-1});
}

TEST(TreeEnsembleRegressor, NodesListedInAnyOrder) {
  // The root (node 0, "f0 < 1") comes last; each tree's root is the node no branch points to.
  OpTest t = Ml("TreeEnsembleRegressor");
  t.Attr("nodes_treeids", Ints{4, 4, 4})
      .Attr("nodes_nodeids", Ints{2, 1, 0})
      .Attr("nodes_featureids", Ints{0, 0, 0})
      .Attr("nodes_values", Floats{0, 0, 1})
      .Attr("nodes_truenodeids", Ints{0, 0, 1})
      .Attr("nodes_falsenodeids", Ints{0, 0, 2})
      .Attr("target_treeids", Ints{4, 4})
      .Attr("target_nodeids", Ints{1, 2})
      .Attr("target_ids", Ints{0, 0})
      .Attr("target_weights", Floats{5, 7});
  StringsAttr(t, "nodes_modes", {"LEAF", "LEAF", "BRANCH_LT"});
  t.Input(F({0, 3}, {2, 1}));
  ExpectFloats(RunOk(t), {5, 7});
}

// One tree per branch mode, each "f0 <mode> 2": the true leaf votes 1, the false leaf 0 for the tree's target.
OpTest ModesRegressor(const std::vector<std::string>& modes) {
  OpTest t = Ml("TreeEnsembleRegressor");
  Ints tree, node, feature, truen, falsen, vt, vn, vid;
  Floats values, vw;
  Strs mode_names;
  for (int64_t k = 0; k < static_cast<int64_t>(modes.size()); ++k) {
    for (int64_t n = 0; n < 3; ++n) {
      tree.push_back(k);
      node.push_back(n);
      feature.push_back(0);
      values.push_back(n == 0 ? 2.0f : 0.0f);
      truen.push_back(n == 0 ? 1 : 0);
      falsen.push_back(n == 0 ? 2 : 0);
      mode_names.push_back(n == 0 ? modes[static_cast<size_t>(k)] : "LEAF");
    }
    for (int64_t n = 1; n < 3; ++n) {
      vt.push_back(k);
      vn.push_back(n);
      vid.push_back(k);
      vw.push_back(n == 1 ? 1.0f : 0.0f);
    }
  }
  t.Attr("nodes_treeids", tree)
      .Attr("nodes_nodeids", node)
      .Attr("nodes_featureids", feature)
      .Attr("nodes_values", values)
      .Attr("nodes_truenodeids", truen)
      .Attr("nodes_falsenodeids", falsen)
      .Attr("n_targets", static_cast<int64_t>(modes.size()))
      .Attr("target_treeids", vt)
      .Attr("target_nodeids", vn)
      .Attr("target_ids", vid)
      .Attr("target_weights", vw);
  StringsAttr(t, "nodes_modes", mode_names);
  t.Input(F({1, 2, 3, kNaN}, {4, 1}));
  return t;
}

TEST(TreeEnsembleRegressor, EveryBranchModeAndNaN) {
  Tensor y = RunOk(ModesRegressor({"BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"}));
  // Rows x = 1, 2, 3, NaN; columns LEQ LT GTE GT EQ NEQ. NaN compares false except for NEQ.
  ExpectFloats(y, {1, 1, 0, 0, 0, 1,  //
                   1, 0, 1, 0, 1, 0,  //
                   0, 0, 1, 1, 0, 1,  //
                   0, 0, 0, 0, 0, 1});
}

TEST(TreeEnsembleRegressor, AsTensorAttributesUseDoubles) {
  // "f0 <= 0.1": the double threshold 0.1 sends 0.1000000007 false, the float 0.1f (0.10000000149) true.
  auto make = [](bool as_tensor) {
    OpTest t = Ml("TreeEnsembleRegressor");
    t.Attr("nodes_treeids", Ints{0, 0, 0})
        .Attr("nodes_nodeids", Ints{0, 1, 2})
        .Attr("nodes_featureids", Ints{0, 0, 0})
        .Attr("nodes_truenodeids", Ints{1, 0, 0})
        .Attr("nodes_falsenodeids", Ints{2, 0, 0})
        .Attr("n_targets", int64_t{1})
        .Attr("target_treeids", Ints{0, 0})
        .Attr("target_nodeids", Ints{1, 2})
        .Attr("target_ids", Ints{0, 0});
    StringsAttr(t, "nodes_modes", {"BRANCH_LEQ", "LEAF", "LEAF"});
    if (as_tensor) {
      TensorAttr(t, "nodes_values_as_tensor", D({0.1, 0, 0}, {3}));
      TensorAttr(t, "target_weights_as_tensor", D({1.5, 2.5}, {2}));
      TensorAttr(t, "base_values_as_tensor", D({10}, {1}));
      TensorAttr(t, "nodes_hitrates_as_tensor", D({1, 1, 1}, {3}));
    } else {
      t.Attr("nodes_values", Floats{0.1f, 0, 0}).Attr("target_weights", Floats{1.5f, 2.5f}).Attr("base_values", Floats{10});
    }
    t.Input(D({0.1000000007}, {1, 1}));
    return t;
  };
  ExpectFloats(RunOk(make(true)), {12.5f});
  ExpectFloats(RunOk(make(false)), {11.5f});
}

TEST(TreeEnsembleRegressor, Errors) {
  OpTest both = Regressor("SUM");
  TensorAttr(both, "nodes_values_as_tensor", D({1.5, 0, 0.5, 0, 0, 2, 0, 0}, {8}));
  ExpectError(both, "both given");
  ExpectError(Regressor("MEDIAN"), "aggregate_function");
  OpTest huge = Regressor("SUM");
  huge.Attr("n_targets", int64_t{1} << 40);
  huge.attributes.erase(std::find_if(huge.attributes.begin(), huge.attributes.end(),
                                     [](const ir::Attribute& a) { return a.name == "n_targets"; }));
  ExpectError(huge, "n_targets");
  OpTest post = Regressor("SUM");
  post.Attr("post_transform", std::string("EXP"));
  ExpectError(post, "post_transform");
  OpTest base = Regressor("SUM");
  base.Attr("base_values", Floats{1, 2, 3});
  ExpectError(base, "base_values");
  OpTest target = Regressor("SUM");
  target.attributes.back().floats.push_back(1);  // target_weights longer than target_ids
  ExpectError(target, "target_weights");
  OpTest few = Regressor("SUM");
  few.inputs = {F({1, 2, 3}, {3, 1})};
  ExpectError(few, "features");

  auto tree = [](Ints truen, Ints falsen, Strs modes, Ints vote_nodes, Ints vote_ids) {
    OpTest t = Ml("TreeEnsembleRegressor");
    const auto n = static_cast<int64_t>(truen.size());
    Ints zeros(static_cast<size_t>(n), 0), ids;
    for (int64_t i = 0; i < n; ++i) ids.push_back(i);
    t.Attr("nodes_treeids", zeros)
        .Attr("nodes_nodeids", ids)
        .Attr("nodes_featureids", zeros)
        .Attr("nodes_values", Floats(static_cast<size_t>(n), 0.0f))
        .Attr("nodes_truenodeids", truen)
        .Attr("nodes_falsenodeids", falsen)
        .Attr("n_targets", int64_t{1})
        .Attr("target_treeids", Ints(vote_nodes.size(), 0))
        .Attr("target_nodeids", vote_nodes)
        .Attr("target_ids", vote_ids)
        .Attr("target_weights", Floats(vote_nodes.size(), 1.0f));
    StringsAttr(t, "nodes_modes", modes);
    t.Input(F({1}, {1, 1}));
    return t;
  };
  EXPECT_TRUE(RunOp(tree({1, 0, 0}, {2, 0, 0}, {"BRANCH_LEQ", "LEAF", "LEAF"}, {1, 2}, {0, 0})).ok());
  ExpectError(tree({1, 0, 0}, {2, 0, 0}, {"BRANCH_LE", "LEAF", "LEAF"}, {1, 2}, {0, 0}), "nodes_modes");
  ExpectError(tree({1, 0, 0}, {5, 0, 0}, {"BRANCH_LEQ", "LEAF", "LEAF"}, {1, 2}, {0, 0}), "false child 5");
  ExpectError(tree({1, 0, 0}, {2, 0, 0}, {"BRANCH_LEQ", "LEAF", "LEAF"}, {1, 7}, {0, 0}), "does not exist");
  ExpectError(tree({1, 0, 0}, {2, 0, 0}, {"BRANCH_LEQ", "LEAF", "LEAF"}, {0}, {0}), "not a LEAF");
  ExpectError(tree({1, 0, 0}, {2, 0, 0}, {"BRANCH_LEQ", "LEAF", "LEAF"}, {1}, {1}), "target_ids");
  ExpectError(tree({1, 0}, {1, 2}, {"BRANCH_LEQ", "BRANCH_LEQ"}, {}, {}), "false child 2");
  ExpectError(tree({1, 0, 0}, {2, 2, 0}, {"BRANCH_LEQ", "BRANCH_LEQ", "LEAF"}, {2}, {0}), "cycle");
  OpTest dup = tree({1, 0, 0}, {2, 0, 0}, {"BRANCH_LEQ", "LEAF", "LEAF"}, {1, 2}, {0, 0});
  dup.attributes[1].ints = {0, 1, 1};
  ExpectError(dup, "appears twice");
}

// Classes 10, 20, 30. Votes: t0n1 -> (0: 0.6, 1: 0.4), t0n3 -> (1: 1.0), t0n4 -> (2: 0.7, 0: 0.3), t1n1 -> (2: 0.5),
// t1n2 -> (0: 0.2). Rows [1, 3], [2, 0], [5, 1] score [0.6, 0.4, 0.5], [0.2, 1, 0], [0.5, 0, 0.7].
OpTest Classifier(const std::string& post, int64_t opset = 3) {
  OpTest t = Ml("TreeEnsembleClassifier", opset, 2);
  TwoTrees(t)
      .Attr("classlabels_int64s", Ints{10, 20, 30})
      .Attr("post_transform", post)
      .Attr("class_treeids", Ints{0, 0, 0, 0, 0, 1, 1})
      .Attr("class_nodeids", Ints{1, 1, 3, 4, 4, 1, 2})
      .Attr("class_ids", Ints{0, 1, 1, 2, 0, 2, 0})
      .Attr("class_weights", Floats{0.6f, 0.4f, 1.0f, 0.7f, 0.3f, 0.5f, 0.2f});
  t.Input(F({1, 3, 2, 0, 5, 1}, {3, 2}));
  return t;
}

TEST(TreeEnsembleClassifier, MulticlassScoresAndLabels) {
  auto out = RunAll(Classifier("NONE"));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<int64_t>(out[0].tensor()), (Ints{10, 20, 30}));
  EXPECT_EQ(out[1].tensor().shape(), (Shape{3, 3}));
  ExpectFloats(out[1].tensor(), {0.6f, 0.4f, 0.5f, 0.2f, 1, 0, 0.5f, 0, 0.7f});
  ExpectFloats(RunOk(Classifier("NONE", 1), 1), {0.6f, 0.4f, 0.5f, 0.2f, 1, 0, 0.5f, 0, 0.7f});

  ExpectFloats(RunOk(Classifier("SOFTMAX"), 1), {0.367165401f, 0.300609605f, 0.332224994f, 0.247263309f, 0.550294615f,
                                                 0.202442075f, 0.353615115f, 0.214478409f, 0.431906476f});
  // SOFTMAX_ZERO keeps the zero scores at zero.
  Tensor sz = RunOk(Classifier("SOFTMAX_ZERO"), 1);
  EXPECT_NEAR(Values<float>(sz)[3], 0.310025519f, 1e-6f);
  EXPECT_NEAR(Values<float>(sz)[4], 0.689974481f, 1e-6f);
  EXPECT_EQ(Values<float>(sz)[5], 0.0f);
  EXPECT_EQ(Values<float>(sz)[7], 0.0f);
  Tensor probit = RunOk(Classifier("PROBIT"), 1);
  EXPECT_NEAR(Values<float>(probit)[0], 0.253352957f, 1e-6f);
  EXPECT_NEAR(Values<float>(probit)[1], -0.253352957f, 1e-6f);
  EXPECT_NEAR(Values<float>(probit)[2], 0.0f, 1e-6f);
  EXPECT_EQ(Values<float>(probit)[4], std::numeric_limits<float>::infinity());  // probit(1)

  OpTest base = Classifier("LOGISTIC");
  base.Attr("base_values", Floats{0.1f, 0.2f, 0.3f});
  auto b = RunAll(base);
  EXPECT_EQ(Values<int64_t>(b[0].tensor()), (Ints{30, 20, 30}));  // labels from [0.7, 0.6, 0.8] etc.
  ExpectFloats(b[1].tensor(), {0.668187772f, 0.645656306f, 0.689974481f, 0.574442517f, 0.768524783f, 0.574442517f,
                               0.645656306f, 0.549833997f, 0.731058579f});
}

TEST(TreeEnsembleClassifier, StringLabelsAndTensorWeights) {
  OpTest t = Classifier("NONE", 3);
  t.attributes.erase(std::remove_if(t.attributes.begin(), t.attributes.end(),
                                    [](const ir::Attribute& a) {
                                      return a.name == "classlabels_int64s" || a.name == "class_weights";
                                    }),
                     t.attributes.end());
  StringsAttr(t, "classlabels_strings", {"setosa", "versicolor", "virginica"});
  TensorAttr(t, "class_weights_as_tensor", D({0.6, 0.4, 1.0, 0.7, 0.3, 0.5, 0.2}, {7}));
  TensorAttr(t, "base_values_as_tensor", D({0, 0, 0.4}, {3}));
  auto out = RunAll(t);
  EXPECT_EQ(Values<std::string>(out[0].tensor()), (Strs{"virginica", "versicolor", "virginica"}));
  ExpectFloats(out[1].tensor(), {0.6f, 0.4f, 0.9f, 0.2f, 1, 0.4f, 0.5f, 0, 1.1f});
}

// Binary boosted model: two labels, every vote for class id 0, one tree "f0 <= 0" ? w_true : w_false.
OpTest BinaryClassifier(float w_true, float w_false, const std::string& post) {
  OpTest t = Ml("TreeEnsembleClassifier", 3, 2);
  t.Attr("nodes_treeids", Ints{0, 0, 0})
      .Attr("nodes_nodeids", Ints{0, 1, 2})
      .Attr("nodes_featureids", Ints{0, 0, 0})
      .Attr("nodes_values", Floats{0, 0, 0})
      .Attr("nodes_truenodeids", Ints{1, 0, 0})
      .Attr("nodes_falsenodeids", Ints{2, 0, 0})
      .Attr("classlabels_int64s", Ints{0, 1})
      .Attr("post_transform", post)
      .Attr("class_treeids", Ints{0, 0})
      .Attr("class_nodeids", Ints{1, 2})
      .Attr("class_ids", Ints{0, 0})
      .Attr("class_weights", Floats{w_true, w_false});
  StringsAttr(t, "nodes_modes", {"BRANCH_LEQ", "LEAF", "LEAF"});
  t.Input(F({-1, 1}, {2, 1}));
  return t;
}

TEST(TreeEnsembleClassifier, BinaryOneClassIdForms) {
  // Mixed weights under LOGISTIC (gradient boosting): scores [sigmoid(-s), sigmoid(s)], label 1 when s > 0.
  OpTest gb = BinaryClassifier(-1.2f, 0.8f, "LOGISTIC");
  gb.Attr("base_values", Floats{0.5f});  // s = -0.7 and 1.3
  auto out = RunAll(gb);
  EXPECT_EQ(out[1].tensor().shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<int64_t>(out[0].tensor()), (Ints{0, 1}));
  ExpectFloats(out[1].tensor(), {0.668187772f, 0.331812228f, 0.214165017f, 0.785834983f});
  // Mixed weights, NONE: [-s, s].
  auto none = RunAll(BinaryClassifier(-1.2f, 0.8f, "NONE"));
  EXPECT_EQ(Values<int64_t>(none[0].tensor()), (Ints{0, 1}));
  ExpectFloats(none[1].tensor(), {1.2f, -1.2f, -0.8f, 0.8f});
  // Non-negative weights, NONE: [1 - s, s], label 1 when s > 0.5.
  auto pos = RunAll(BinaryClassifier(0.3f, 0.9f, "NONE"));
  EXPECT_EQ(Values<int64_t>(pos[0].tensor()), (Ints{0, 1}));
  ExpectFloats(pos[1].tensor(), {0.7f, 0.3f, 0.1f, 0.9f});
}

TEST(TreeEnsembleClassifier, Errors) {
  OpTest both = Classifier("NONE");
  StringsAttr(both, "classlabels_strings", {"a", "b", "c"});
  ExpectError(both, "classlabels");
  OpTest id = Classifier("NONE");
  for (auto& a : id.attributes) {
    if (a.name == "class_ids") a.ints[0] = 3;
  }
  ExpectError(id, "class_ids");
  OpTest base = Classifier("NONE");
  base.Attr("base_values", Floats{1, 2});
  ExpectError(base, "base_values");
  OpTest strings = Classifier("NONE");
  strings.inputs = {S({"a", "b"}, {1, 2})};
  ExpectError(strings, "element type");
}

// ---------------------------------------------------------------------------------------------------------------
// TreeEnsemble 5. Interior nodes i0 "f0 <= 1.5" (NaN tracks true) ? L0 : i1, i1 "f1 < 0.5" ? L1 : L2,
// i2 "f1 > 2" ? L3 : L4; roots i0, i2. Leaves: L0 (target 0, 1), L1 (0, 2), L2 (1, 30), L3 (0, 0.5), L4 (1, -4).
OpTest TreeEnsemble(int64_t aggregate, int64_t post = 0) {
  OpTest t = Ml("TreeEnsemble", 5);
  t.Attr("nodes_featureids", Ints{0, 1, 1})
      .Attr("nodes_truenodeids", Ints{0, 1, 3})
      .Attr("nodes_trueleafs", Ints{1, 1, 1})
      .Attr("nodes_falsenodeids", Ints{1, 2, 4})
      .Attr("nodes_falseleafs", Ints{0, 1, 1})
      .Attr("nodes_missing_value_tracks_true", Ints{1, 0, 0})
      .Attr("leaf_targetids", Ints{0, 0, 1, 0, 1})
      .Attr("tree_roots", Ints{0, 2})
      .Attr("n_targets", int64_t{2})
      .Attr("aggregate_function", aggregate)
      .Attr("post_transform", post);
  TensorAttr(t, "nodes_splits", F1({1.5f, 0.5f, 2}));
  TensorAttr(t, "nodes_modes", U8({0, 1, 3}));
  TensorAttr(t, "leaf_weights", F1({1, 2, 30, 0.5f, -4}));
  TensorAttr(t, "nodes_hitrates", F1({1, 1, 1}));
  t.Input(F({1, 3, 2, 0, kNaN, 1, 5, kNaN}, {4, 2}));
  return t;
}

TEST(TreeEnsemble, AggregateFunctionsAndPostTransform) {
  Tensor sum = RunOk(TreeEnsemble(1));
  EXPECT_EQ(sum.type(), DataType::kFloat);
  EXPECT_EQ(sum.shape(), (Shape{4, 2}));
  ExpectFloats(sum, {1.5f, 0, 2, -4, 1, -4, 0, 26});
  ExpectFloats(RunOk(TreeEnsemble(0)), {0.75f, 0, 1, -2, 0.5f, -2, 0, 13});
  ExpectFloats(RunOk(TreeEnsemble(2)), {0.5f, 0, 2, -4, 1, -4, 0, -4});
  ExpectFloats(RunOk(TreeEnsemble(3)), {1, 0, 2, -4, 1, -4, 0, 30});
  ExpectFloats(RunOk(TreeEnsemble(1, 2)), {0.817574476f, 0.5f, 0.880797078f, 0.01798621f, 0.731058579f, 0.01798621f,
                                           0.5f, 1.0f});
}

TEST(TreeEnsemble, EveryBranchModeIncludingMembership) {
  // Six one-node trees "f0 <mode> 2" sending true to a leaf voting 1 and false to one voting 0 for target k.
  OpTest t = Ml("TreeEnsemble", 5);
  Ints targets, truen, falsen;
  Floats weights;
  for (int64_t k = 0; k < 7; ++k) {
    truen.push_back(2 * k);
    falsen.push_back(2 * k + 1);
    targets.push_back(k);
    targets.push_back(k);
    weights.push_back(1);
    weights.push_back(0);
  }
  t.Attr("nodes_featureids", Ints(7, 0))
      .Attr("nodes_truenodeids", truen)
      .Attr("nodes_trueleafs", Ints(7, 1))
      .Attr("nodes_falsenodeids", falsen)
      .Attr("nodes_falseleafs", Ints(7, 1))
      .Attr("leaf_targetids", targets)
      .Attr("tree_roots", Ints{0, 1, 2, 3, 4, 5, 6})
      .Attr("n_targets", int64_t{7});
  TensorAttr(t, "nodes_splits", F1({2, 2, 2, 2, 2, 2, 0}));
  TensorAttr(t, "nodes_modes", U8({0, 1, 2, 3, 4, 5, 6}));
  TensorAttr(t, "membership_values", F1({3, 1, kNaN}));  // the MEMBER node tests f0 in {1, 3}
  TensorAttr(t, "leaf_weights", F1(weights));
  t.Input(F({1, 2, 3, kNaN}, {4, 1}));
  // Columns LEQ LT GTE GT EQ NEQ MEMBER for x = 1, 2, 3, NaN.
  ExpectFloats(RunOk(t), {1, 1, 0, 0, 0, 1, 1,  //
                          1, 0, 1, 0, 1, 0, 0,  //
                          0, 0, 1, 1, 0, 1, 1,  //
                          0, 0, 0, 0, 0, 1, 0});
}

TEST(TreeEnsemble, MembershipSetsInNodeOrderAndMissingTracks) {
  // i0 "f0 in {1, 4, 7}" ? L0 (1) : i1;  i1 "f0 in {2}" (NaN tracks true) ? L1 (2) : L2 (3). The last set needs no
  // closing NaN.
  OpTest t = Ml("TreeEnsemble", 5);
  t.Attr("nodes_featureids", Ints{0, 0})
      .Attr("nodes_truenodeids", Ints{0, 1})
      .Attr("nodes_trueleafs", Ints{1, 1})
      .Attr("nodes_falsenodeids", Ints{1, 2})
      .Attr("nodes_falseleafs", Ints{0, 1})
      .Attr("nodes_missing_value_tracks_true", Ints{0, 1})
      .Attr("leaf_targetids", Ints{0, 0, 0})
      .Attr("tree_roots", Ints{0})
      .Attr("n_targets", int64_t{1});
  TensorAttr(t, "nodes_splits", F1({0, 0}));
  TensorAttr(t, "nodes_modes", U8({6, 6}));
  TensorAttr(t, "membership_values", F1({7, 1, 4, kNaN, 2}));
  TensorAttr(t, "leaf_weights", F1({1, 2, 3}));
  t.Input(F({4, 2, 3, kNaN, 7}, {5, 1}));
  ExpectFloats(RunOk(t), {1, 2, 3, 2, 1});
}

TEST(TreeEnsemble, DoubleAndFloat16InputsAndOneLeafTrees) {
  // A one-leaf tree is a root whose two branches reach the same leaf; its feature (7) is never read.
  OpTest t = Ml("TreeEnsemble", 5);
  t.Attr("nodes_featureids", Ints{7, 0})
      .Attr("nodes_truenodeids", Ints{0, 1})
      .Attr("nodes_trueleafs", Ints{1, 1})
      .Attr("nodes_falsenodeids", Ints{0, 2})
      .Attr("nodes_falseleafs", Ints{1, 1})
      .Attr("leaf_targetids", Ints{0, 0, 0})
      .Attr("tree_roots", Ints{0, 1})
      .Attr("n_targets", int64_t{1})
      .Attr("aggregate_function", int64_t{1});
  TensorAttr(t, "nodes_splits", D({0, 0.5}, {2}));
  TensorAttr(t, "nodes_modes", U8({0, 2}));
  TensorAttr(t, "leaf_weights", D({0.1, 1e-12, 2}, {3}));
  OpTest d = t;
  d.Input(D({1.0, 0.25}, {2, 1}));
  Tensor yd = RunOk(d);
  ASSERT_EQ(yd.type(), DataType::kDouble);
  EXPECT_EQ(Values<double>(yd), (std::vector<double>{0.1 + 1e-12, 0.1 + 2}));
  OpTest h = t;
  h.Input(Tensor::FromVector<Float16>({Float16(1.0f), Float16(0.25f)}, {2, 1}));
  Tensor yh = RunOk(h);
  ASSERT_EQ(yh.type(), DataType::kFloat16);
  EXPECT_NEAR(static_cast<float>(yh.data<Float16>()[0]), 0.1f, 1e-3f);
  EXPECT_NEAR(static_cast<float>(yh.data<Float16>()[1]), 2.1f, 2e-3f);
  OpTest i = t;
  i.Input(I64({1}, {1, 1}));
  ExpectError(i, "element type");
}

TEST(TreeEnsemble, Errors) {
  OpTest mode = TreeEnsemble(1);
  TensorAttr(mode, "nodes_modes", U8({0, 9, 3}));
  mode.attributes.erase(std::find_if(mode.attributes.begin(), mode.attributes.end(),
                                     [](const ir::Attribute& a) { return a.name == "nodes_modes"; }));
  ExpectError(mode, "nodes_modes");
  OpTest member = TreeEnsemble(1);
  member.attributes.erase(std::find_if(member.attributes.begin(), member.attributes.end(),
                                       [](const ir::Attribute& a) { return a.name == "nodes_modes"; }));
  TensorAttr(member, "nodes_modes", U8({6, 6, 3}));
  TensorAttr(member, "membership_values", F1({1, kNaN}));
  ExpectError(member, "membership_values");
  OpTest extra = TreeEnsemble(1);
  TensorAttr(extra, "membership_values", F1({1, kNaN}));
  ExpectError(extra, "membership_values");
  ExpectError(TreeEnsemble(4), "aggregate_function");
  OpTest targets = TreeEnsemble(1);
  for (auto& a : targets.attributes) {
    if (a.name == "n_targets") a.i = 0;
  }
  ExpectError(targets, "n_targets");
  ExpectError(TreeEnsemble(1, 5), "post_transform");
  OpTest child = TreeEnsemble(1);
  for (auto& a : child.attributes) {
    if (a.name == "nodes_falsenodeids") a.ints = {1, 2, 5};
  }
  ExpectError(child, "outside the 5 leaves");
  OpTest root = TreeEnsemble(1);
  for (auto& a : root.attributes) {
    if (a.name == "tree_roots") a.ints = {0, 3};
  }
  ExpectError(root, "tree_roots");
  OpTest target = TreeEnsemble(1);
  for (auto& a : target.attributes) {
    if (a.name == "leaf_targetids") a.ints = {0, 0, 2, 0, 1};
  }
  ExpectError(target, "leaf_targetids");
  OpTest lengths = TreeEnsemble(1);
  for (auto& a : lengths.attributes) {
    if (a.name == "nodes_trueleafs") a.ints = {1, 1};
  }
  ExpectError(lengths, "nodes_trueleafs");
  OpTest cycle = TreeEnsemble(1);
  for (auto& a : cycle.attributes) {
    if (a.name == "nodes_falsenodeids") a.ints = {1, 0, 4};
    if (a.name == "nodes_falseleafs") a.ints = {0, 0, 1};
  }
  ExpectError(cycle, "cycle");
}

// ---------------------------------------------------------------------------------------------------------------
// Linear models.

TEST(LinearRegressor, TargetsInterceptsAndTransforms) {
  OpTest t = Ml("LinearRegressor", 1);
  t.Attr("coefficients", Floats{1, 2, 3, -1, 0, 0.5f}).Attr("intercepts", Floats{0.5f, -1}).Attr("targets", int64_t{2});
  t.Input(F({1, 1, 1, 0, 2, -2}, {2, 3}));
  Tensor y = RunOk(t);
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  ExpectFloats(y, {6.5f, -1.5f, -1.5f, -2});
  OpTest ints = t;
  ints.inputs = {I32({1, 1, 1, 0, 2, -2}, {2, 3})};
  ExpectFloats(RunOk(ints), {6.5f, -1.5f, -1.5f, -2});
  OpTest sm = t;
  sm.Attr("post_transform", std::string("SOFTMAX"));
  ExpectFloats(RunOk(sm), {0.99966465f, 0.00033535013f, 0.62245933f, 0.37754067f});

  // One target by default; a 1-D input is one row.
  OpTest one = Ml("LinearRegressor", 1);
  one.Attr("coefficients", Floats{2, -1}).Attr("intercepts", Floats{1});
  one.Input(D({3, 4}, {2}));
  Tensor y1 = RunOk(one);
  EXPECT_EQ(y1.shape(), (Shape{1, 1}));
  ExpectFloats(y1, {3});
  // PROBIT of 0.8 and 0.5; no intercepts.
  OpTest probit = Ml("LinearRegressor", 1);
  probit.Attr("coefficients", Floats{0.5f, 0.3f}).Attr("post_transform", std::string("PROBIT"));
  probit.Input(I64({1, 1, 1, 0}, {2, 2}));
  ExpectFloats(RunOk(probit), {0.84175594f, 0});
}

TEST(LinearRegressor, Errors) {
  OpTest t = Ml("LinearRegressor", 1);
  t.Attr("coefficients", Floats{1, 2, 3}).Attr("targets", int64_t{2});
  ExpectError(t.Input(F({1, 2}, {1, 2})), "multiple of targets");
  OpTest b = Ml("LinearRegressor", 1);
  b.Attr("coefficients", Floats{1, 2}).Attr("intercepts", Floats{1, 2});
  ExpectError(b.Input(F({1, 2}, {1, 2})), "intercepts");
  OpTest f = Ml("LinearRegressor", 1);
  f.Attr("coefficients", Floats{1, 2});
  ExpectError(f.Input(F({1, 2, 3}, {1, 3})), "features");
  OpTest empty = Ml("LinearRegressor", 1);
  empty.Attr("targets", int64_t{1} << 40);
  ExpectError(empty.Input(F({}, {1, 0})), "coefficients");
  OpTest p = Ml("LinearRegressor", 1);
  p.Attr("coefficients", Floats{1}).Attr("post_transform", std::string("softmax"));
  ExpectError(p.Input(F({1}, {1, 1})), "post_transform");
}

// Three classes: W = [[1, -1], [0.5, 2], [-1, 0.25]], b = [0.1, -0.2, 0.3]; rows [1, 2], [-3, 0.5] score
// [-0.9, 4.3, -0.2] and [-3.4, -0.7, 3.425].
OpTest LinearClassifier(const std::string& post) {
  OpTest t = Ml("LinearClassifier", 1, 2);
  t.Attr("coefficients", Floats{1, -1, 0.5f, 2, -1, 0.25f})
      .Attr("intercepts", Floats{0.1f, -0.2f, 0.3f})
      .Attr("classlabels_ints", Ints{7, 8, 9})
      .Attr("multi_class", int64_t{1})
      .Attr("post_transform", post);
  t.Input(F({1, 2, -3, 0.5f}, {2, 2}));
  return t;
}

TEST(LinearClassifier, MulticlassTransforms) {
  auto none = RunAll(LinearClassifier("NONE"));
  EXPECT_EQ(Values<int64_t>(none[0].tensor()), (Ints{8, 9}));
  ExpectFloats(none[1].tensor(), {-0.9f, 4.3f, -0.2f, -3.4f, -0.7f, 3.425f});
  ExpectFloats(RunOk(LinearClassifier("SOFTMAX"), 1),
               {0.00542634834f, 0.983646328f, 0.0109273237f, 0.00106785568f, 0.015889406f, 0.983042738f});
  ExpectFloats(RunOk(LinearClassifier("SOFTMAX_ZERO"), 1),
               {0.00542634834f, 0.983646328f, 0.0109273237f, 0.00106785568f, 0.015889406f, 0.983042738f});
  auto logistic = RunAll(LinearClassifier("LOGISTIC"));
  EXPECT_EQ(Values<int64_t>(logistic[0].tensor()), (Ints{8, 9}));
  ExpectFloats(logistic[1].tensor(),
               {0.289050497f, 0.986613082f, 0.450166003f, 0.0322954647f, 0.331812228f, 0.968476777f});
  OpTest i64 = LinearClassifier("NONE");
  i64.inputs = {I64({1, 2, -3, 0}, {2, 2})};
  ExpectFloats(RunOk(i64, 1), {-0.9f, 4.3f, -0.2f, -2.9f, -1.7f, 3.3f});
}

TEST(LinearClassifier, BinaryAndSingleScore) {
  // One row of coefficients, two labels: scores [-s, s], s = [1.5, -2.5].
  OpTest t = Ml("LinearClassifier", 1, 2);
  t.Attr("coefficients", Floats{2, -1}).Attr("intercepts", Floats{0.5f});
  StringsAttr(t, "classlabels_strings", {"neg", "pos"});
  t.Input(F({1, 1, 0, 3}, {2, 2}));
  auto none = RunAll(t);
  EXPECT_EQ(Values<std::string>(none[0].tensor()), (Strs{"pos", "neg"}));
  EXPECT_EQ(none[1].tensor().shape(), (Shape{2, 2}));
  ExpectFloats(none[1].tensor(), {-1.5f, 1.5f, 2.5f, -2.5f});
  OpTest logistic = t;
  logistic.Attr("post_transform", std::string("LOGISTIC"));
  auto l = RunAll(logistic);
  EXPECT_EQ(Values<std::string>(l[0].tensor()), (Strs{"pos", "neg"}));
  ExpectFloats(l[1].tensor(), {0.182425524f, 0.817574476f, 0.92414182f, 0.07585818f});

  // One row, one label, no intercepts: at or above the threshold (0, or 0.5 after a transform) the label,
  // below it 0.
  OpTest single = Ml("LinearClassifier", 1, 2);
  single.Attr("coefficients", Floats{1, 1}).Attr("classlabels_ints", Ints{5});
  single.Input(F({1, 1, -1, 0}, {2, 2}));
  auto s = RunAll(single);
  EXPECT_EQ(Values<int64_t>(s[0].tensor()), (Ints{5, 0}));
  ExpectFloats(s[1].tensor(), {2, -1});
  single.Attr("post_transform", std::string("LOGISTIC"));
  auto sl = RunAll(single);
  EXPECT_EQ(Values<int64_t>(sl[0].tensor()), (Ints{5, 0}));
  ExpectFloats(sl[1].tensor(), {0.880797078f, 0.268941421f});
}

TEST(LinearClassifier, Errors) {
  OpTest none = Ml("LinearClassifier", 1, 2);
  none.Attr("coefficients", Floats{1, 2});
  ExpectError(none.Input(F({1, 2}, {1, 2})), "classlabels");
  OpTest empty = Ml("LinearClassifier", 1, 2);
  empty.Attr("classlabels_ints", Ints{1, 2});
  ExpectError(empty.Input(F({1, 2}, {1, 2})), "coefficients");
  OpTest wrong = LinearClassifier("NONE");
  wrong.inputs = {F({1, 2, 3}, {1, 3})};
  ExpectError(wrong, "does not divide");
  OpTest labels = LinearClassifier("NONE");
  for (auto& a : labels.attributes) {
    if (a.name == "classlabels_ints") a.ints = {1, 2};
  }
  ExpectError(labels, "class labels");
}

// ---------------------------------------------------------------------------------------------------------------
// SVMs.

TEST(SVMRegressor, KernelsOneClassAndLinear) {
  OpTest rbf = Ml("SVMRegressor", 1);
  rbf.Attr("n_supports", int64_t{2})
      .Attr("support_vectors", Floats{0, 0, 1, 2})
      .Attr("coefficients", Floats{1.5f, -0.5f})
      .Attr("rho", Floats{0.25f})
      .Attr("kernel_type", std::string("RBF"))
      .Attr("kernel_params", Floats{0.1f, 0, 0});
  rbf.Input(F({1, 1, 3, 0}, {2, 2}));
  Tensor y = RunOk(rbf);
  EXPECT_EQ(y.shape(), (Shape{2, 1}));
  ExpectFloats(y, {1.02567742f, 0.635190008f});

  OpTest poly = Ml("SVMRegressor", 1);
  poly.Attr("n_supports", int64_t{2})
      .Attr("support_vectors", Floats{1, 0, 0, 1})
      .Attr("coefficients", Floats{1, -1})
      .Attr("rho", Floats{-0.5f})
      .Attr("kernel_type", std::string("POLY"))
      .Attr("kernel_params", Floats{1, 0, 3});
  poly.Input(F({2, 1, 0.5f, 1}, {2, 2}));
  ExpectFloats(RunOk(poly), {6.5f, -1.375f});
  OpTest one_class = poly;
  one_class.Attr("one_class", int64_t{1});
  ExpectFloats(RunOk(one_class), {1, -1});
  OpTest logistic = poly;
  logistic.Attr("post_transform", std::string("LOGISTIC"));
  ExpectFloats(RunOk(logistic), {0.998498818f, 0.201813222f});

  // Without support vectors: <x, coefficients> + rho.
  OpTest linear = Ml("SVMRegressor", 1);
  linear.Attr("coefficients", Floats{1, -2}).Attr("rho", Floats{0.5f});
  linear.Input(I32({3, 1}, {1, 2}));
  ExpectFloats(RunOk(linear), {1.5f});
  // SIGMOID: tanh(0.5 * <[1, 2], [1, 1]> + 1) = tanh(2.5).
  OpTest sigmoid = Ml("SVMRegressor", 1);
  sigmoid.Attr("n_supports", int64_t{1})
      .Attr("support_vectors", Floats{1, 1})
      .Attr("coefficients", Floats{2})
      .Attr("rho", Floats{0})
      .Attr("kernel_type", std::string("SIGMOID"))
      .Attr("kernel_params", Floats{0.5f, 1, 0});
  sigmoid.Input(F({1, 2}, {2}));
  ExpectFloats(RunOk(sigmoid), {2 * 0.986614298f});
}

TEST(SVMRegressor, Errors) {
  OpTest k = Ml("SVMRegressor", 1);
  k.Attr("coefficients", Floats{1}).Attr("rho", Floats{0}).Attr("kernel_type", std::string("GAUSS"));
  ExpectError(k.Input(F({1}, {1, 1})), "kernel_type");
  OpTest sv = Ml("SVMRegressor", 1);
  sv.Attr("n_supports", int64_t{2}).Attr("support_vectors", Floats{1, 2, 3}).Attr("coefficients", Floats{1, 1}).Attr("rho", Floats{0});
  ExpectError(sv.Input(F({1}, {1, 1})), "support_vectors");
  OpTest rho = Ml("SVMRegressor", 1);
  rho.Attr("coefficients", Floats{1});
  ExpectError(rho.Input(F({1}, {1, 1})), "rho");
  OpTest f = Ml("SVMRegressor", 1);
  f.Attr("coefficients", Floats{1, 2}).Attr("rho", Floats{0});
  ExpectError(f.Input(F({1, 2, 3}, {1, 3})), "features");
}

// Binary RBF SVC: class 0 has support vector [0, 0], class 1 [1, 1] and [2, 0]; decision values 0.5025 and
// -0.3368 for rows [0, 0.5] and [2, 0.5].
OpTest BinarySvc(const std::string& post) {
  OpTest t = Ml("SVMClassifier", 1, 2);
  t.Attr("classlabels_ints", Ints{3, 7})
      .Attr("vectors_per_class", Ints{1, 2})
      .Attr("support_vectors", Floats{0, 0, 1, 1, 2, 0})
      .Attr("coefficients", Floats{0.8f, -0.5f, -0.3f})
      .Attr("rho", Floats{0.1f})
      .Attr("kernel_type", std::string("RBF"))
      .Attr("kernel_params", Floats{0.5f, 0, 0})
      .Attr("post_transform", post);
  t.Input(F({0, 0.5f, 2, 0.5f}, {2, 2}));
  return t;
}

TEST(SVMClassifier, BinarySupportVectors) {
  auto none = RunAll(BinarySvc("NONE"));
  EXPECT_EQ(Values<int64_t>(none[0].tensor()), (Ints{3, 7}));  // a positive decision votes for the first class
  EXPECT_EQ(none[1].tensor().shape(), (Shape{2, 2}));
  ExpectFloats(none[1].tensor(), {-0.502536917f, 0.502536917f, 0.33683341f, -0.33683341f});
  auto logistic = RunAll(BinarySvc("LOGISTIC"));
  EXPECT_EQ(Values<int64_t>(logistic[0].tensor()), (Ints{3, 7}));
  ExpectFloats(logistic[1].tensor(), {0.376944669f, 0.623055331f, 0.583421116f, 0.416578884f});
}

// Three classes, one support vector each ([1, 0], [0, 1], [1, 1]), coefficients [[0.5, -0.7, 0.3], [0.6, 0.4, -0.9]],
// rho [0.1, -0.2, 0.05]; rows [1, 2], [-1, 0.5], [0.3, 0.3].
OpTest ThreeClassSvc(const std::string& kernel, Floats params) {
  OpTest t = Ml("SVMClassifier", 1, 2);
  t.Attr("vectors_per_class", Ints{1, 1, 1})
      .Attr("support_vectors", Floats{1, 0, 0, 1, 1, 1})
      .Attr("coefficients", Floats{0.5f, -0.7f, 0.3f, 0.6f, 0.4f, -0.9f})
      .Attr("rho", Floats{0.1f, -0.2f, 0.05f})
      .Attr("kernel_type", kernel)
      .Attr("kernel_params", params);
  StringsAttr(t, "classlabels_strings", {"a", "b", "c"});
  t.Input(F({1, 2, -1, 0.5f, 0.3f, 0.3f}, {3, 2}));
  return t;
}

TEST(SVMClassifier, MulticlassVotesAndDecisionValues) {
  auto lin = RunAll(ThreeClassSvc("LINEAR", {}));
  EXPECT_EQ(Values<std::string>(lin[0].tensor()), (Strs{"a", "b", "a"}));
  ExpectFloats(lin[1].tensor(), {-0.8f, 1.3f, -1.85f, -0.75f, -0.95f, 0.7f, 0.04f, 0.16f, -0.37f}, 1e-5f);
  // Every pair votes once, so ties go to the first class.
  auto sig = RunAll(ThreeClassSvc("SIGMOID", {0.5f, 1, 0}));
  EXPECT_EQ(Values<std::string>(sig[0].tensor()), (Strs{"a", "a", "a"}));
  ExpectFloats(sig[1].tensor(), {-0.122245179f, 0.639073242f, -0.452341836f, -0.262739969f, 0.26781498f,
                                 -0.182320601f, -0.0635508156f, 0.549169395f, -0.398449212f},
               1e-5f);
}

TEST(SVMClassifier, PlattProbabilities) {
  OpTest t = ThreeClassSvc("POLY", {0.5f, 1, 2});
  t.Attr("prob_a", Floats{-1.5f, -2.0f, -1.2f}).Attr("prob_b", Floats{0.1f, -0.1f, 0.2f});
  auto out = RunAll(t);
  EXPECT_EQ(Values<std::string>(out[0].tensor()), (Strs{"a", "b", "a"}));  // labels still come from the votes
  EXPECT_EQ(out[1].tensor().shape(), (Shape{3, 3}));
  ExpectFloats(out[1].tensor(), {0.373438091f, 0.326967953f, 0.299593956f, 0.212131549f, 0.46730833f, 0.320560121f,
                                 0.496288914f, 0.301072167f, 0.20263892f},
               1e-5f);
}

TEST(SVMClassifier, LinearModeWithoutSupportVectors) {
  OpTest t = Ml("SVMClassifier", 1, 2);
  t.Attr("classlabels_ints", Ints{1, 2, 3}).Attr("coefficients", Floats{1, -1, 0.5f, 2, -1, 0.25f}).Attr("rho", Floats{0.5f});
  t.Attr("kernel_type", std::string("RBF"));  // ignored: a model without support vectors is linear
  t.Input(D({1, 2, -3, 0.5}, {2, 2}));
  auto out = RunAll(t);
  EXPECT_EQ(Values<int64_t>(out[0].tensor()), (Ints{2, 3}));
  ExpectFloats(out[1].tensor(), {-0.5f, 5, 0, -3, 0, 3.625f});
}

TEST(SVMClassifier, Errors) {
  OpTest labels = BinarySvc("NONE");
  labels.attributes.erase(labels.attributes.begin());
  ExpectError(labels, "classlabels");
  OpTest prob = BinarySvc("NONE");
  prob.Attr("prob_a", Floats{1});
  ExpectError(prob, "prob_a");
  OpTest vpc = BinarySvc("NONE");
  vpc.attributes[1].ints = {1, 1, 1};
  ExpectError(vpc, "vectors_per_class");
  OpTest many = BinarySvc("NONE");
  many.attributes[1].ints = {1, int64_t{1} << 62};
  ExpectError(many, "vectors_per_class");
  OpTest coef = BinarySvc("NONE");
  coef.attributes[3].floats = {0.8f};
  ExpectError(coef, "coefficients");
  OpTest rho = ThreeClassSvc("LINEAR", {});
  for (auto& a : rho.attributes) {
    if (a.name == "rho") a.floats = {0.1f};
  }
  ExpectError(rho, "rho");
  OpTest features = BinarySvc("NONE");
  features.inputs = {F({1, 2, 3}, {1, 3})};
  ExpectError(features, "features");
  OpTest params = BinarySvc("NONE");
  params.Attr("kernel_params", Floats{1, 2, 3, 4});
  params.attributes.erase(std::find_if(params.attributes.begin(), params.attributes.end(),
                                       [](const ir::Attribute& a) { return a.name == "kernel_params"; }));
  ExpectError(params, "kernel_params");
}

// ---------------------------------------------------------------------------------------------------------------
// Preprocessing.

TEST(Scaler, PerFeatureAndBroadcastOffsetScale) {
  OpTest t = Ml("Scaler", 1);
  t.Attr("offset", Floats{1, 2}).Attr("scale", Floats{2, 0.5f});
  t.Input(F({3, 4, 1, 0}, {2, 2}));
  Tensor y = RunOk(t);
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  ExpectFloats(y, {4, 1, 0, -1});
  OpTest one = Ml("Scaler", 1);
  one.Attr("offset", Floats{1}).Attr("scale", Floats{3});
  one.Input(I64({1, 2, 3}, {3}));
  ExpectFloats(RunOk(one), {0, 3, 6});
  OpTest scale_only = Ml("Scaler", 1);
  scale_only.Attr("scale", Floats{-1});
  scale_only.Input(I32({2, -5}, {1, 2}));
  ExpectFloats(RunOk(scale_only), {-2, 5});
  OpTest bad = Ml("Scaler", 1);
  bad.Attr("offset", Floats{1, 2, 3}).Attr("scale", Floats{1});
  ExpectError(bad.Input(F({1, 2}, {1, 2})), "offset");
  OpTest str = Ml("Scaler", 1);
  ExpectError(str.Input(S({"a"}, {1})), "element type");
}

TEST(Normalizer, MaxL1L2RowsAndZeroRows) {
  auto run = [](const std::string& norm, Tensor x) {
    OpTest t = Ml("Normalizer", 1);
    t.Attr("norm", norm).Input(std::move(x));
    return RunOk(t);
  };
  ExpectFloats(run("MAX", F({-4, 2, 1, 0, 0, 0}, {2, 3})), {-1, 0.5f, 0.25f, 0, 0, 0});
  ExpectFloats(run("L1", F({1, -3, 2, 2}, {2, 2})), {0.25f, -0.75f, 0.5f, 0.5f});
  ExpectFloats(run("L2", I64({3, 4}, {2})), {0.6f, 0.8f});
  ExpectFloats(run("L2", D({0, 0}, {1, 2})), {0, 0});
  OpTest def = Ml("Normalizer", 1);  // MAX by default
  ExpectFloats(RunOk(def.Input(I32({2, 8}, {1, 2}))), {0.25f, 1});
  OpTest bad = Ml("Normalizer", 1);
  bad.Attr("norm", std::string("L3"));
  ExpectError(bad.Input(F({1}, {1})), "norm");
  OpTest rank = Ml("Normalizer", 1);
  ExpectError(rank.Input(F({1, 2}, {1, 1, 2})), "[C] or [N, C]");
}

TEST(Binarizer, ThresholdTypesAndNaN) {
  OpTest t = Ml("Binarizer", 1);
  t.Attr("threshold", 1.0f).Input(F({0.5f, 1, 1.5f, kNaN}, {2, 2}));
  Tensor y = RunOk(t);
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  ExpectFloats(y, {0, 0, 1, 0});
  OpTest i = Ml("Binarizer", 1);
  i.Attr("threshold", 2.0f).Input(I64({1, 2, 3}, {3}));
  EXPECT_EQ(Values<int64_t>(RunOk(i)), (Ints{0, 0, 1}));
  OpTest d = Ml("Binarizer", 1);
  EXPECT_EQ(Values<double>(RunOk(d.Input(D({-1, 0, 2}, {3})))), (std::vector<double>{0, 0, 1}));
  OpTest i32 = Ml("Binarizer", 1);
  EXPECT_EQ(Values<int32_t>(RunOk(i32.Input(I32({-1, 5}, {2})))), (std::vector<int32_t>{0, 1}));
  OpTest s = Ml("Binarizer", 1);
  ExpectError(s.Input(S({"a"}, {1})), "element type");
}

TEST(Imputer, FloatsIntsAndNaN) {
  OpTest nan = Ml("Imputer", 1);
  nan.Attr("imputed_value_floats", Floats{10, 20}).Attr("replaced_value_float", kNaN);
  nan.Input(F({kNaN, 1, 2, kNaN}, {2, 2}));
  ExpectFloats(RunOk(nan), {10, 1, 2, 20});
  OpTest zero = Ml("Imputer", 1);  // replaced_value_float defaults to 0
  zero.Attr("imputed_value_floats", Floats{9});
  EXPECT_EQ(Values<double>(RunOk(zero.Input(D({0, 1, 0}, {3})))), (std::vector<double>{9, 1, 9}));
  OpTest ints = Ml("Imputer", 1);
  ints.Attr("imputed_value_int64s", Ints{7}).Attr("replaced_value_int64", int64_t{-1});
  ints.Input(I64({-1, 5, 3, -1}, {2, 2}));
  EXPECT_EQ(Values<int64_t>(RunOk(ints)), (Ints{7, 5, 3, 7}));
  OpTest i32 = Ml("Imputer", 1);
  i32.Attr("imputed_value_int64s", Ints{1, 2});
  EXPECT_EQ(Values<int32_t>(RunOk(i32.Input(I32({0, 0, 4, 0}, {2, 2})))), (std::vector<int32_t>{1, 2, 4, 2}));

  OpTest none = Ml("Imputer", 1);
  ExpectError(none.Input(F({1}, {1})), "imputed_value");
  OpTest kind = Ml("Imputer", 1);
  kind.Attr("imputed_value_int64s", Ints{1});
  ExpectError(kind.Input(F({1}, {1})), "imputed_value_floats");
  OpTest size = Ml("Imputer", 1);
  size.Attr("imputed_value_floats", Floats{1, 2, 3});
  ExpectError(size.Input(F({1, 2}, {1, 2})), "imputed_value_floats");
}

TEST(OneHotEncoder, IntegerFloatAndStringCategories) {
  OpTest t = Ml("OneHotEncoder", 1);
  t.Attr("cats_int64s", Ints{3, 1, 7}).Input(I64({1, 7, 5, 3}, {2, 2}));
  Tensor y = RunOk(t);
  EXPECT_EQ(y.shape(), (Shape{2, 2, 3}));
  ExpectFloats(y, {0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0});
  OpTest f = Ml("OneHotEncoder", 1);  // floats truncate toward zero; NaN is in no category
  f.Attr("cats_int64s", Ints{3, 1, 7}).Input(D({1.0, 7.9, kNaN}, {3}));
  ExpectFloats(RunOk(f), {0, 1, 0, 0, 0, 1, 0, 0, 0});
  OpTest s = Ml("OneHotEncoder", 1);
  StringsAttr(s, "cats_strings", {"cat", "dog"});
  s.Input(S({"dog", "bird"}, {2}));
  ExpectFloats(RunOk(s), {0, 1, 0, 0});

  OpTest strict = s;
  strict.Attr("zeros", int64_t{0});
  ExpectError(strict, "no category");
  OpTest strict_ok = Ml("OneHotEncoder", 1);
  strict_ok.Attr("cats_int64s", Ints{0, 1}).Attr("zeros", int64_t{0}).Input(I32({1}, {1}));
  ExpectFloats(RunOk(strict_ok), {0, 1});
  OpTest mismatch = Ml("OneHotEncoder", 1);
  mismatch.Attr("cats_int64s", Ints{1});
  ExpectError(mismatch.Input(S({"1"}, {1})), "categories are integers");
  OpTest both = Ml("OneHotEncoder", 1);
  both.Attr("cats_int64s", Ints{1});
  StringsAttr(both, "cats_strings", {"a"});
  ExpectError(both.Input(I64({1}, {1})), "exactly one");
}

TEST(ArrayFeatureExtractor, ShapesTypesAndIndices) {
  OpTest v = Ml("ArrayFeatureExtractor", 1);
  v.Input(F({10, 20, 30}, {3})).Input(I64({2, 0, 2}, {3}));
  Tensor y = RunOk(v);
  EXPECT_EQ(y.shape(), (Shape{1, 3}));
  ExpectFloats(y, {30, 10, 30});
  OpTest r3 = Ml("ArrayFeatureExtractor", 1);
  r3.Input(I32({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {2, 2, 3})).Input(I64({2, 0}, {1, 2}));
  Tensor y3 = RunOk(r3);
  EXPECT_EQ(y3.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(Values<int32_t>(y3), (std::vector<int32_t>{2, 0, 5, 3, 8, 6, 11, 9}));
  OpTest s = Ml("ArrayFeatureExtractor", 1);
  s.Input(S({"a", "b", "c", "d"}, {2, 2})).Input(I64({1}, {1}));
  EXPECT_EQ(Values<std::string>(RunOk(s)), (Strs{"b", "d"}));
  OpTest none = Ml("ArrayFeatureExtractor", 1);
  none.Input(D({1, 2}, {1, 2})).Input(I64({}, {0}));
  EXPECT_EQ(RunOk(none).shape(), (Shape{1, 0}));

  OpTest high = Ml("ArrayFeatureExtractor", 1);
  ExpectError(high.Input(F({1, 2}, {2})).Input(I64({2}, {1})), "outside [0, 2)");
  OpTest neg = Ml("ArrayFeatureExtractor", 1);
  ExpectError(neg.Input(F({1, 2}, {2})).Input(I64({-1}, {1})), "outside");
  OpTest scalar = Ml("ArrayFeatureExtractor", 1);
  ExpectError(scalar.Input(F({1}, {})).Input(I64({0}, {1})), "scalar");
}

TEST(FeatureVectorizer, PadsCutsAndConcatenates) {
  OpTest t = Ml("FeatureVectorizer", 1);
  t.Attr("inputdimensions", Ints{3, 2});
  t.Input(F({1, 2, 3, 4}, {2, 2})).Input(I64({5, 6, 7, 8, 9, 10}, {2, 3}));
  Tensor y = RunOk(t);
  EXPECT_EQ(y.shape(), (Shape{2, 5}));
  ExpectFloats(y, {1, 2, 0, 5, 6, 3, 4, 0, 8, 9});
  OpTest no_dims = Ml("FeatureVectorizer", 1);  // widths from the inputs; 1-D is one row
  no_dims.Input(D({1.5, 2.5}, {2})).Input(I32({3}, {1, 1}));
  Tensor y2 = RunOk(no_dims);
  EXPECT_EQ(y2.shape(), (Shape{1, 3}));
  ExpectFloats(y2, {1.5f, 2.5f, 3});

  OpTest count = Ml("FeatureVectorizer", 1);
  count.Attr("inputdimensions", Ints{1});
  ExpectError(count.Input(F({1}, {1, 1})).Input(F({1}, {1, 1})), "inputdimensions");
  OpTest huge = Ml("FeatureVectorizer", 1);
  huge.Attr("inputdimensions", Ints{int64_t{1} << 40});
  ExpectError(huge.Input(F({1}, {1, 1})), "inputdimensions");
  OpTest rows = Ml("FeatureVectorizer", 1);
  ExpectError(rows.Input(F({1, 2}, {2, 1})).Input(F({1}, {1, 1})), "rows");
  OpTest str = Ml("FeatureVectorizer", 1);
  ExpectError(str.Input(S({"a"}, {1})), "element type");
}

// ---------------------------------------------------------------------------------------------------------------
// Label and category mapping.

TEST(LabelEncoder, Version1ClassesBothDirections) {
  OpTest to_int = Ml("LabelEncoder", 1);
  StringsAttr(to_int, "classes_strings", {"cat", "dog", "eel"});
  to_int.Attr("default_int64", int64_t{42}).Input(S({"eel", "cow", "cat", "dog"}, {2, 2}));
  Tensor y = RunOk(to_int);
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<int64_t>(y), (Ints{2, 42, 0, 1}));
  OpTest to_str = Ml("LabelEncoder", 1);
  StringsAttr(to_str, "classes_strings", {"cat", "dog", "eel"});
  to_str.Input(I64({1, 5, -1, 0}, {4}));
  EXPECT_EQ(Values<std::string>(RunOk(to_str)), (Strs{"dog", "_Unused", "_Unused", "cat"}));
  to_str.Attr("default_string", std::string("?"));
  EXPECT_EQ(Values<std::string>(RunOk(to_str)), (Strs{"dog", "?", "?", "cat"}));
  OpTest default_int = Ml("LabelEncoder", 1);
  StringsAttr(default_int, "classes_strings", {"a"});
  EXPECT_EQ(Values<int64_t>(RunOk(default_int.Input(S({"b"}, {1})))), (Ints{-1}));
}

TEST(LabelEncoder, Version2ListsDefaultsAndBitwiseFloatKeys) {
  OpTest s2f = Ml("LabelEncoder", 2);
  StringsAttr(s2f, "keys_strings", {"a", "b", "a"});  // a repeated key: the last wins
  s2f.Attr("values_floats", Floats{1.5f, 2.5f, 3.5f}).Input(S({"a", "b", "z"}, {3}));
  ExpectFloats(RunOk(s2f), {3.5f, 2.5f, -0.0f});
  EXPECT_TRUE(std::signbit(Values<float>(RunOk(s2f))[2]));  // default_float is -0.0
  s2f.Attr("default_float", 9.0f);
  ExpectFloats(RunOk(s2f), {3.5f, 2.5f, 9});

  OpTest i2s = Ml("LabelEncoder", 3);  // opset 3 runs version 2
  i2s.Attr("keys_int64s", Ints{1, 2});
  StringsAttr(i2s, "values_strings", {"one", "two"});
  EXPECT_EQ(Values<std::string>(RunOk(i2s.Input(I64({2, 3, 1}, {3})))), (Strs{"two", "_Unused", "one"}));

  // Version 2 compares float keys bit for bit: the NaN key matches only its own bits, -0 is not 0.
  const float nan_a = std::bit_cast<float>(0x7fc00000u);
  const float nan_b = std::bit_cast<float>(0x7fc00001u);
  OpTest f2i = Ml("LabelEncoder", 2);
  f2i.Attr("keys_floats", Floats{nan_a, 0.0f, 1.5f}).Attr("values_int64s", Ints{7, 8, 9}).Attr("default_int64", int64_t{0});
  f2i.Input(F({nan_a, nan_b, -0.0f, 0.0f, 1.5f}, {5}));
  EXPECT_EQ(Values<int64_t>(RunOk(f2i)), (Ints{7, 0, 0, 8, 9}));
}

TEST(LabelEncoder, Version4Tensors) {
  // keys_tensor int32 -> values_tensor double, with default_tensor.
  OpTest t = Ml("LabelEncoder", 4);
  TensorAttr(t, "keys_tensor", I32({5, 6}, {2}));
  TensorAttr(t, "values_tensor", D({0.5, 0.25}, {2}));
  TensorAttr(t, "default_tensor", D({-2}, {1}));
  t.Input(I32({6, 5, 7}, {1, 3}));
  Tensor y = RunOk(t);
  EXPECT_EQ(y.shape(), (Shape{1, 3}));
  EXPECT_EQ(Values<double>(y), (std::vector<double>{0.25, 0.5, -2}));

  // Version 4 compares floats by value: any NaN matches a NaN key, -0 matches 0.
  const float nan_b = std::bit_cast<float>(0x7fc00001u);
  OpTest f = Ml("LabelEncoder", 4);
  f.Attr("keys_floats", Floats{kNaN, 0.0f});
  TensorAttr(f, "values_tensor", Tensor::FromVector<int16_t>({3, 4}, {2}));
  f.Input(F({nan_b, -0.0f, 2}, {3}));
  Tensor y16 = RunOk(f);
  ASSERT_EQ(y16.type(), DataType::kInt16);
  EXPECT_EQ(Values<int16_t>(y16), (std::vector<int16_t>{3, 4, -1}));  // default_int64 (-1) as int16

  OpTest s = Ml("LabelEncoder", 4);
  TensorAttr(s, "keys_tensor", I64({1, 2}, {2}));
  StringsAttr(s, "values_strings", {"x", "y"});
  TensorAttr(s, "default_tensor", S({"none"}, {1}));
  EXPECT_EQ(Values<std::string>(RunOk(s.Input(I64({2, 9}, {2})))), (Strs{"y", "none"}));
}

TEST(LabelEncoder, Errors) {
  OpTest two_keys = Ml("LabelEncoder", 2);
  two_keys.Attr("keys_int64s", Ints{1}).Attr("keys_floats", Floats{1}).Attr("values_int64s", Ints{1});
  ExpectError(two_keys.Input(I64({1}, {1})), "exactly one");
  OpTest lengths = Ml("LabelEncoder", 2);
  lengths.Attr("keys_int64s", Ints{1, 2}).Attr("values_int64s", Ints{1});
  ExpectError(lengths.Input(I64({1}, {1})), "as many");
  OpTest type = Ml("LabelEncoder", 2);
  type.Attr("keys_int64s", Ints{1}).Attr("values_int64s", Ints{1});
  ExpectError(type.Input(F({1}, {1})), "keys are int64");
  OpTest tensor_v2 = Ml("LabelEncoder", 2);
  TensorAttr(tensor_v2, "keys_tensor", I64({1}, {1}));
  tensor_v2.Attr("values_int64s", Ints{1});
  ExpectError(tensor_v2.Input(I64({1}, {1})), "version 4");
  OpTest def = Ml("LabelEncoder", 4);
  def.Attr("keys_int64s", Ints{1}).Attr("values_int64s", Ints{1});
  TensorAttr(def, "default_tensor", F({1}, {1}));
  ExpectError(def.Input(I64({1}, {1})), "default_tensor");
  OpTest bool_keys = Ml("LabelEncoder", 4);
  TensorAttr(bool_keys, "keys_tensor", Tensor::FromVector<bool>({true}, {1}));
  bool_keys.Attr("values_int64s", Ints{1});
  ExpectError(bool_keys.Input(I64({1}, {1})), "keys_tensor");
}

TEST(CategoryMapper, BothDirectionsAndDefaults) {
  OpTest t = Ml("CategoryMapper", 1);
  StringsAttr(t, "cats_strings", {"a", "b", "c"});
  t.Attr("cats_int64s", Ints{5, 6, 7});
  OpTest to_int = t;
  to_int.Input(S({"c", "x", "a"}, {3, 1}));
  Tensor y = RunOk(to_int);
  EXPECT_EQ(y.shape(), (Shape{3, 1}));
  EXPECT_EQ(Values<int64_t>(y), (Ints{7, -1, 5}));
  to_int.Attr("default_int64", int64_t{99});
  EXPECT_EQ(Values<int64_t>(RunOk(to_int)), (Ints{7, 99, 5}));
  OpTest to_str = t;
  to_str.Input(I64({6, 0}, {2}));
  EXPECT_EQ(Values<std::string>(RunOk(to_str)), (Strs{"b", "_Unused"}));
  to_str.Attr("default_string", std::string("none"));
  EXPECT_EQ(Values<std::string>(RunOk(to_str)), (Strs{"b", "none"}));

  OpTest bad = Ml("CategoryMapper", 1);
  StringsAttr(bad, "cats_strings", {"a"});
  ExpectError(bad.Input(S({"a"}, {1})), "as many");
  OpTest type = t;
  ExpectError(type.Input(F({1}, {1})), "string or int64");
}

// ---------------------------------------------------------------------------------------------------------------
// Maps.

MapValue Map(Tensor keys, Tensor values) { return MapValue{std::move(keys), std::move(values)}; }

TEST(ZipMap, SequenceOfMapsPerRow) {
  OpTest t = Ml("ZipMap", 1);
  t.Attr("classlabels_int64s", Ints{10, 20, 30}).Input(F({0.1f, 0.2f, 0.7f, 0.5f, 0.5f, 0}, {2, 3}));
  auto out = RunAll(t);
  ASSERT_TRUE(out[0].is_sequence());
  const auto& items = out[0].sequence().items;
  ASSERT_EQ(items.size(), 2u);
  ASSERT_TRUE(items[1].is_map());
  EXPECT_EQ(Values<int64_t>(items[1].map().keys), (Ints{10, 20, 30}));
  ExpectFloats(items[0].map().values, {0.1f, 0.2f, 0.7f});
  ExpectFloats(items[1].map().values, {0.5f, 0.5f, 0});

  OpTest s = Ml("ZipMap", 1);
  StringsAttr(s, "classlabels_strings", {"no", "yes"});
  auto one = RunAll(s.Input(F({0.25f, 0.75f}, {2})));
  ASSERT_TRUE(one[0].is_sequence());
  ASSERT_EQ(one[0].sequence().items.size(), 1u);
  EXPECT_EQ(Values<std::string>(one[0].sequence().items[0].map().keys), (Strs{"no", "yes"}));
  ExpectFloats(one[0].sequence().items[0].map().values, {0.25f, 0.75f});

  OpTest cols = Ml("ZipMap", 1);
  cols.Attr("classlabels_int64s", Ints{1, 2});
  ExpectError(cols.Input(F({1, 2, 3}, {1, 3})), "class labels");
  OpTest both = Ml("ZipMap", 1);
  both.Attr("classlabels_int64s", Ints{1});
  StringsAttr(both, "classlabels_strings", {"a"});
  ExpectError(both.Input(F({1}, {1, 1})), "exactly one");
  OpTest type = Ml("ZipMap", 1);
  type.Attr("classlabels_int64s", Ints{1});
  ExpectError(type.Input(D({1}, {1, 1})), "float");
}

TEST(DictVectorizer, StringAndIntVocabularies) {
  OpTest t = Ml("DictVectorizer", 1);
  StringsAttr(t, "string_vocabulary", {"a", "c", "b", "z"});
  t.Input(Map(S({"c", "a", "q"}, {3}), F({8, 4, 99}, {3})));  // "q" is not in the vocabulary
  Tensor y = RunOk(t);
  EXPECT_EQ(y.shape(), (Shape{1, 4}));
  ExpectFloats(y, {4, 8, 0, 0});

  OpTest i = Ml("DictVectorizer", 1);
  i.Attr("int64_vocabulary", Ints{3, 1});
  i.Input(Map(I64({1}, {1}), S({"one"}, {1})));
  EXPECT_EQ(Values<std::string>(RunOk(i)), (Strs{"", "one"}));
  OpTest d = Ml("DictVectorizer", 1);
  d.Attr("int64_vocabulary", Ints{3, 1});
  d.Input(Map(I64({3, 1}, {2}), D({0.5, 1.5}, {2})));
  EXPECT_EQ(Values<double>(RunOk(d)), (std::vector<double>{0.5, 1.5}));
  OpTest s2i = Ml("DictVectorizer", 1);
  StringsAttr(s2i, "string_vocabulary", {"x", "y"});
  s2i.Input(Map(S({"y"}, {1}), I64({7}, {1})));
  EXPECT_EQ(Values<int64_t>(RunOk(s2i)), (Ints{0, 7}));

  // A sequence of maps gives one row each.
  SequenceValue seq;
  seq.elem_type = DataType::kFloat;
  seq.items.emplace_back(Map(S({"b"}, {1}), F({1}, {1})));
  seq.items.emplace_back(Map(S({"z", "a"}, {2}), F({2, 3}, {2})));
  OpTest rows = Ml("DictVectorizer", 1);
  StringsAttr(rows, "string_vocabulary", {"a", "c", "b", "z"});
  Tensor yr = RunOk(rows.Input(Value(seq)));
  EXPECT_EQ(yr.shape(), (Shape{2, 4}));
  ExpectFloats(yr, {0, 0, 1, 0, 3, 0, 0, 2});

  OpTest keys = Ml("DictVectorizer", 1);
  keys.Attr("int64_vocabulary", Ints{1});
  ExpectError(keys.Input(Map(S({"a"}, {1}), F({1}, {1}))), "keys");
  OpTest tensor = Ml("DictVectorizer", 1);
  tensor.Attr("int64_vocabulary", Ints{1});
  ExpectError(tensor.Input(F({1}, {1})), "expected a map");
  OpTest none = Ml("DictVectorizer", 1);
  ExpectError(none.Input(Map(I64({1}, {1}), F({1}, {1}))), "vocabulary");
}

TEST(CastMap, DenseSparseAndCasts) {
  const MapValue floats = Map(I64({3, 1}, {2}), F({1.5f, 2}, {2}));
  OpTest dense = Ml("CastMap", 1);
  dense.Input(floats);
  Tensor y = RunOk(dense);
  EXPECT_EQ(y.shape(), (Shape{1, 2}));
  ExpectFloats(y, {2, 1.5f});  // ordered by key
  OpTest to_int = Ml("CastMap", 1);
  to_int.Attr("cast_to", std::string("TO_INT64")).Input(floats);
  EXPECT_EQ(Values<int64_t>(RunOk(to_int)), (Ints{2, 1}));
  OpTest to_str = Ml("CastMap", 1);
  to_str.Attr("cast_to", std::string("TO_STRING")).Input(floats);
  EXPECT_EQ(Values<std::string>(RunOk(to_str)), (Strs{"2.000000", "1.500000"}));
  OpTest sparse = Ml("CastMap", 1);
  sparse.Attr("map_form", std::string("SPARSE")).Attr("max_map", int64_t{5}).Input(floats);
  Tensor ys = RunOk(sparse);
  EXPECT_EQ(ys.shape(), (Shape{1, 5}));
  ExpectFloats(ys, {0, 2, 0, 1.5f, 0});

  const MapValue strings = Map(I64({2, 0}, {2}), S({"7", "-3.5"}, {2}));
  OpTest sf = Ml("CastMap", 1);
  ExpectFloats(RunOk(sf.Input(strings)), {-3.5f, 7});
  OpTest ss = Ml("CastMap", 1);
  ss.Attr("cast_to", std::string("TO_STRING")).Attr("map_form", std::string("SPARSE")).Attr("max_map", int64_t{3});
  EXPECT_EQ(Values<std::string>(RunOk(ss.Input(strings))), (Strs{"-3.5", "", "7"}));
  OpTest si = Ml("CastMap", 1);
  si.Attr("cast_to", std::string("TO_INT64"));
  OpTest si2 = si;
  EXPECT_EQ(Values<int64_t>(RunOk(si.Input(Map(I64({4}, {1}), S({"-12"}, {1}))))), (Ints{-12}));
  ExpectError(si2.Input(strings), "not an int64");  // "-3.5"

  OpTest range = Ml("CastMap", 1);
  range.Attr("map_form", std::string("SPARSE")).Attr("max_map", int64_t{3});
  ExpectError(range.Input(floats), "max_map");
  OpTest wide = Ml("CastMap", 1);
  wide.Attr("map_form", std::string("SPARSE")).Attr("max_map", int64_t{1} << 40);
  ExpectError(wide.Input(floats), "max_map");
  OpTest cast = Ml("CastMap", 1);
  cast.Attr("cast_to", std::string("TO_DOUBLE"));
  ExpectError(cast.Input(floats), "cast_to");
  OpTest form = Ml("CastMap", 1);
  form.Attr("map_form", std::string("CSR"));
  ExpectError(form.Input(floats), "map_form");
  OpTest keys = Ml("CastMap", 1);
  ExpectError(keys.Input(Map(S({"a"}, {1}), F({1}, {1}))), "int64");
  OpTest nan = Ml("CastMap", 1);
  nan.Attr("cast_to", std::string("TO_INT64"));
  ExpectError(nan.Input(Map(I64({1}, {1}), F({kNaN}, {1}))), "int64");
  OpTest bad = Ml("CastMap", 1);
  ExpectError(bad.Input(Map(I64({1}, {1}), S({"1.5x"}, {1}))), "not a number");
}

}  // namespace
}  // namespace onyx

// Keras converter on bad input (corrupt files, missing weights, unsupported layers) and the transpose optimizer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "convert/common/transpose_optimizer.h"
#include "convert/keras/converter.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
using convert::keras::ConvertKerasFile;
using convert::keras::ConvertOptions;

class KerasConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("onyx_keras_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  fs::path dir_;
};

const char* kDenseTopology =
    R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
        {"class_name": "Dense", "config": {"name": "d", "units": 2, "batch_input_shape": [null, 3]}}]}})";

TEST_F(KerasConvertTest, InvalidJson) {
  auto r = ConvertKerasFile(Write("model.json", "{not json"), ConvertOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("invalid JSON"), std::string::npos) << r.status().message();
}

TEST_F(KerasConvertTest, CorruptZip) {
  auto r =
      ConvertKerasFile(Write("m.keras", std::string("PK\x03\x04", 4) + "garbage that is not a zip"), ConvertOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("zip"), std::string::npos) << r.status().message();
}

TEST_F(KerasConvertTest, CorruptHdf5) {
  auto r =
      ConvertKerasFile(Write("m.h5", std::string("\x89HDF\r\n\x1a\n", 8) + std::string(200, 'x')), ConvertOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("m.h5"), std::string::npos) << r.status().message();
}

TEST_F(KerasConvertTest, MissingWeights) {
  std::string json = std::string(R"({"modelTopology": )") + kDenseTopology + R"(, "weightsManifest": []})";
  auto r = ConvertKerasFile(Write("model.json", json), ConvertOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("layer 'd' (Dense): missing weight #0 (kernel)"), std::string::npos)
      << r.status().message();
}

TEST_F(KerasConvertTest, TruncatedShard) {
  std::string json =
      std::string(R"({"modelTopology": )") + kDenseTopology +
      R"(, "weightsManifest": [{"paths": ["w.bin"], "weights": [{"name": "d/kernel", "shape": [3, 2], "dtype": "float32"}]}]})";
  Write("w.bin", std::string(8, '\0'));
  auto r = ConvertKerasFile(Write("model.json", json), ConvertOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("end before this weight"), std::string::npos) << r.status().message();
}

TEST_F(KerasConvertTest, ShardOutsideFolderRefused) {
  std::string json = std::string(R"({"modelTopology": )") + kDenseTopology +
                     R"(, "weightsManifest": [{"paths": ["../w.bin"], "weights": []}]})";
  auto r = ConvertKerasFile(Write("model.json", json), ConvertOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("leaves the model's folder"), std::string::npos) << r.status().message();
}

TEST_F(KerasConvertTest, EveryUnsupportedLayerListedOnce) {
  std::string json = R"({"modelTopology": {"class_name": "Sequential", "config": {"name": "s", "layers": [
      {"class_name": "Dense", "config": {"name": "d", "units": 2, "batch_input_shape": [null, 3]}},
      {"class_name": "Lambda", "config": {"name": "lam_a"}},
      {"class_name": "MyCustomLayer", "config": {"name": "custom_b"}},
      {"class_name": "Sequential", "config": {"name": "inner", "layers": [{"class_name": "Lambda", "config": {"name": "lam_c"}}]}}]}},
      "weightsManifest": []})";
  auto r = ConvertKerasFile(Write("model.json", json), ConvertOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  const std::string& m = r.status().message();
  EXPECT_NE(m.find("3 unsupported layers"), std::string::npos) << m;
  EXPECT_NE(m.find("'lam_a' (Lambda)"), std::string::npos) << m;
  EXPECT_NE(m.find("'custom_b' (MyCustomLayer)"), std::string::npos) << m;
  EXPECT_NE(m.find("'lam_c' (Lambda)"), std::string::npos) << m;
}

TEST_F(KerasConvertTest, OpsetOutOfRange) {
  ConvertOptions o;
  o.opset = 12;
  std::string json = std::string(R"({"modelTopology": )") + kDenseTopology + "}";
  auto r = ConvertKerasFile(Write("model.json", json), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("13..21"), std::string::npos);
}

// A mask the converter cannot express fails the conversion, naming the layer and the mask's origin.
TEST_F(KerasConvertTest, MaskedRnnReturningSequencesRefused) {
  std::string json = R"({"modelTopology": {"class_name": "Sequential", "config": {"name": "s", "layers": [
      {"class_name": "Masking", "config": {"name": "pad", "mask_value": 0, "batch_input_shape": [null, 4, 3]}},
      {"class_name": "Dropout", "config": {"name": "drop", "rate": 0.5}},
      {"class_name": "LSTM", "config": {"name": "seq", "units": 2, "return_sequences": true, "go_backwards": true}}]}},
      "weightsManifest": []})";
  auto r = ConvertKerasFile(Write("model.json", json), ConvertOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  const std::string& m = r.status().message();
  EXPECT_NE(m.find("layer 'seq' (LSTM)"), std::string::npos) << m;
  EXPECT_NE(m.find("mask of layer 'pad'"), std::string::npos) << m;
  EXPECT_NE(m.find("return_sequences=True"), std::string::npos) << m;
}

TEST_F(KerasConvertTest, MaskedSoftmaxRefused) {
  std::string json = R"({"modelTopology": {"class_name": "Sequential", "config": {"name": "s", "layers": [
      {"class_name": "Embedding", "config": {"name": "emb", "input_dim": 5, "output_dim": 2, "mask_zero": true,
                                             "batch_input_shape": [null, 4]}},
      {"class_name": "Softmax", "config": {"name": "sm"}}]}},
      "weightsManifest": [{"paths": ["w.bin"], "weights": [{"name": "emb/embeddings", "shape": [5, 2], "dtype": "float32"}]}]})";
  Write("w.bin", std::string(40, '\0'));
  auto r = ConvertKerasFile(Write("model.json", json), ConvertOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("layer 'sm' (Softmax): its input carries the mask of layer 'emb'"),
            std::string::npos)
      << r.status().message();
}

// --inputs-as-nchw / --outputs-as-nchw: the named graph input / output is channels-first; unknown names fail.
TEST_F(KerasConvertTest, InputsAndOutputsAsNchw) {
  std::string json = R"({"modelTopology": {"class_name": "Sequential", "config": {"name": "s", "layers": [
      {"class_name": "Dense", "config": {"name": "d", "units": 2, "batch_input_shape": [null, 4, 5, 3]}}]}},
      "weightsManifest": [{"paths": ["w.bin"], "weights": [{"name": "d/kernel", "shape": [3, 2], "dtype": "float32"},
                                                          {"name": "d/bias", "shape": [2], "dtype": "float32"}]}]})";
  Write("w.bin", std::string(32, '\0'));
  const std::string path = Write("model.json", json);
  ConvertOptions o;
  o.batch = 1;
  auto plain = ConvertKerasFile(path, o);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->graph.inputs[0].type->ToShortString(), "float[1,4,5,3]");
  o.inputs_as_nchw = {"d_input"};
  o.outputs_as_nchw = {"d"};
  auto nchw = ConvertKerasFile(path, o);
  ASSERT_TRUE(nchw.ok()) << nchw.status().message();
  EXPECT_EQ(nchw->graph.inputs[0].type->ToShortString(), "float[1,3,4,5]");
  EXPECT_EQ(nchw->graph.outputs[0].type->ToShortString(), "float[1,2,4,5]");
  o.inputs_as_nchw = {"image"};
  auto bad = ConvertKerasFile(path, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no input 'image' (inputs: 'd_input')"), std::string::npos)
      << bad.status().message();
}

TEST(TransposeOptimizerTest, InversePairsAcrossElementwiseOpsCancel) {
  auto m = text::ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[1,4,5,3] x) => (float[1,4,5,3] y) {
      a = Transpose <perm = [0, 3, 1, 2]> (x)
      r = Relu (a)
      b = Transpose <perm = [0, 2, 3, 1]> (r)
      y = Sigmoid (b)
    }
  )");
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto stats = convert::OptimizeTransposes(m->graph);
  EXPECT_EQ(stats.before, 2);
  EXPECT_EQ(stats.after, 0);
  EXPECT_EQ(m->graph.outputs[0].name, "y");
}

TEST(TransposeOptimizerTest, PushesThroughAddWithConstantAndKeepsOutputLayout) {
  auto m = text::ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[1,2,3,4] x) => (float[1,3,4,2] y) <float[4] c = {1, 2, 3, 4}> {
      t = Transpose <perm = [0, 2, 3, 1]> (x)
      y = Add (t, c)
    }
  )");
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto stats = convert::OptimizeTransposes(m->graph);
  // The output keeps its layout: one Transpose remains, now after the Add.
  EXPECT_EQ(stats.after, 1);
  EXPECT_EQ(m->graph.nodes.back().op_type, "Transpose");
}

// A Transpose read by two elementwise branches that meet again (hard-swish x * relu6(x + 3) / 6 on a convolution's
// output) gets a copy per branch; both move down, meet at the Mul and cancel against the next layout change.
TEST(TransposeOptimizerTest, SplitsATransposeReadByBranchesThatMeetAgain) {
  const char* text = R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[1,2,3,3] x) => (float[1,2,3,3] y) <float sixth = {0.1666667}, float three = {3.0}, float zero = {0.0},
                                                float six = {6.0}> {
      a = Transpose <perm = [0, 2, 3, 1]> (x)
      s = Mul (a, sixth)
      p = Add (a, three)
      c = Clip (p, zero, six)
      h = Mul (s, c)
      b = Transpose <perm = [0, 3, 1, 2]> (h)
      y = Relu (b)
    }
  )";
  auto original = text::ParseModel(text);
  auto m = text::ParseModel(text);
  ASSERT_TRUE(m.ok() && original.ok());
  auto stats = convert::OptimizeTransposes(m->graph);
  EXPECT_EQ(stats.before, 2);
  EXPECT_EQ(stats.after, 0);
  // Same results as the original.
  std::vector<float> xs(18);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i) - 9.0f;
  std::vector<Value> before, after;
  auto s0 = Session::Create(*original);
  auto s1 = Session::Create(*m);
  ASSERT_TRUE(s0.ok() && s1.ok());
  ASSERT_TRUE((*s0)->Run({{"x", Value(Tensor::FromVector(xs, {1, 2, 3, 3}))}}, {}, &before).ok());
  ASSERT_TRUE((*s1)->Run({{"x", Value(Tensor::FromVector(xs, {1, 2, 3, 3}))}}, {}, &after).ok());
  for (int64_t i = 0; i < 18; ++i) {
    EXPECT_FLOAT_EQ(after[0].tensor().data<float>()[i], before[0].tensor().data<float>()[i]) << i;
  }
}

// A Transpose whose readers cannot all take it in stays one node (no copies that would only pile up).
TEST(TransposeOptimizerTest, KeepsASharedTransposeWhenAReaderCannotAbsorbIt) {
  auto m = text::ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[1,2,3,3] x) => (float[1,3,3,2] y, float[1,3,3,2] z) {
      a = Transpose <perm = [0, 2, 3, 1]> (x)
      y = Relu (a)
      z = Softmax <axis = -1> (a)
    }
  )");
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto stats = convert::OptimizeTransposes(m->graph);
  EXPECT_EQ(stats.after, 1);
}

}  // namespace
}  // namespace onyx

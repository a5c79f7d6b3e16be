// .npy files, TensorProto decoding (typed fields, raw data, bad sizes), external data safety, topological order.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/mapped_file.h"
#include "format/model_io.h"
#include "format/npy.h"
#include "format/tensor_proto.h"
#include "runtime/session.h"

namespace onyx {
namespace {
namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("onyx_format_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

TEST(Npy, RoundTripsEveryNumpyType) {
  fs::path dir = TempDir("npy");
  for (DataType t :
       {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kInt8, DataType::kInt16, DataType::kInt32,
        DataType::kInt64, DataType::kUint8, DataType::kUint16, DataType::kUint32, DataType::kUint64, DataType::kBool}) {
    Tensor x = Tensor::Allocate(t, {2, 3}, true);
    for (size_t i = 0; i < x.nbytes(); ++i) static_cast<uint8_t*>(x.raw())[i] = static_cast<uint8_t>(i % 2);
    std::string path = (dir / "x.npy").string();
    ASSERT_TRUE(format::SaveNpy(x, path).ok());
    auto y = format::LoadNpy(path);
    ASSERT_TRUE(y.ok()) << y.status().message();
    EXPECT_EQ(y->type(), t);
    EXPECT_EQ(y->shape(), x.shape());
    EXPECT_EQ(0, std::memcmp(x.raw(), y->raw(), x.nbytes()));
  }
  Tensor scalar = Tensor::Scalar<float>(2.5f);
  auto bytes = format::SerializeNpy(scalar);
  ASSERT_TRUE(bytes.ok());
  EXPECT_NE(bytes->find("'shape': ()"), std::string::npos);
  EXPECT_EQ(bytes->size() % 64, 4u);  // header padded to 64 bytes, then 4 data bytes
}

TEST(Npy, RejectsBadFiles) {
  EXPECT_FALSE(format::ParseNpy("not an npy file").ok());
  auto good = format::SerializeNpy(Tensor::FromVector<float>({1, 2, 3, 4}, {4}));
  ASSERT_TRUE(good.ok());
  auto truncated = format::ParseNpy(good->substr(0, good->size() - 3));
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("truncated"), std::string::npos);
  std::string bad_type = *good;
  bad_type.replace(bad_type.find("<f4"), 3, "<U8");
  EXPECT_EQ(format::ParseNpy(bad_type).status().code(), StatusCode::kUnsupported);
}

TEST(TensorProto, DecodesTypedFieldsAndRawData) {
  pb::TensorProto p;
  p.set_data_type(static_cast<int>(DataType::kInt64));
  p.add_dims(3);
  for (int64_t v : {5, -6, 7}) p.add_int64_data(v);
  auto t = format::TensorFromProto(p, nullptr);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->ToInt64Vector(), (std::vector<int64_t>{5, -6, 7}));

  pb::TensorProto h;
  h.set_data_type(static_cast<int>(DataType::kFloat16));
  h.add_dims(1);
  h.add_int32_data(0x3c00);
  auto ht = format::TensorFromProto(h, nullptr);
  ASSERT_TRUE(ht.ok());
  EXPECT_EQ(static_cast<float>(ht->data<Float16>()[0]), 1.0f);

  pb::TensorProto out;
  format::TensorToProto(*t, &out);
  auto back = format::TensorFromProto(out, nullptr);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->ToInt64Vector(), t->ToInt64Vector());
}

TEST(TensorProto, RejectsMismatchedSizes) {
  pb::TensorProto p;
  p.set_name("w");
  p.set_data_type(static_cast<int>(DataType::kFloat));
  p.add_dims(4);
  p.set_raw_data(std::string(12, '\0'));
  auto t = format::TensorFromProto(p, nullptr);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("tensor 'w'"), std::string::npos);
  EXPECT_NE(t.status().message().find("12 bytes"), std::string::npos);

  pb::TensorProto huge;
  huge.set_data_type(static_cast<int>(DataType::kFloat));
  huge.add_dims(int64_t{1} << 40);
  huge.add_dims(int64_t{1} << 30);
  EXPECT_FALSE(format::TensorFromProto(huge, nullptr).ok());

  pb::TensorProto bad_type;
  bad_type.set_data_type(99);
  EXPECT_FALSE(format::TensorFromProto(bad_type, nullptr).ok());
}

TEST(ExternalData, ResolvesInsideTheFolderOnly) {
  fs::path dir = TempDir("ext");
  fs::create_directories(dir / "sub");
  {
    std::ofstream f(dir / "sub" / "w.bin", std::ios::binary);
    float v[4] = {1, 2, 3, 4};
    f.write(reinterpret_cast<const char*>(v), sizeof v);
  }
  format::ExternalDataResolver r(dir.string());
  auto ok = r.Resolve("sub/w.bin", 4, 8);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  float second;
  std::memcpy(&second, ok->first, 4);
  EXPECT_EQ(second, 2.0f);
  EXPECT_FALSE(r.Resolve("/etc/passwd", 0, 4).ok());
  EXPECT_FALSE(r.Resolve("../w.bin", 0, 4).ok());
  EXPECT_FALSE(r.Resolve("sub/../../w.bin", 0, 4).ok());
  EXPECT_FALSE(r.Resolve("sub/w.bin", 12, 8).ok());  // past the end
  EXPECT_FALSE(r.Resolve("sub/w.bin", -1, 4).ok());
  EXPECT_FALSE(r.Resolve("missing.bin", 0, 4).ok());
  fs::create_symlink("/etc/hostname", dir / "link.bin");
  auto escaped = r.Resolve("link.bin", 0, 1);
  ASSERT_FALSE(escaped.ok());
  EXPECT_NE(escaped.status().message().find("outside"), std::string::npos);
}

TEST(ModelIo, SavesExternalDataAndLoadsItBack) {
  fs::path dir = TempDir("save");
  ir::Model m;
  m.ir_version = 8;
  m.opset_import.push_back({"", 13});
  ir::NamedTensor w;
  w.name = "w";
  w.tensor = Tensor::FromVector<float>(std::vector<float>(1000, 0.5f), {1000});
  m.graph.initializers.push_back(w);
  m.graph.inputs.push_back(
      {"x", ir::TypeInfo::Tensor(DataType::kFloat, std::vector<ir::Dim>{ir::Dim::Value(1000)}), {}, {}});
  m.graph.outputs.push_back({"y", ir::TypeInfo::Tensor(DataType::kFloat), {}, {}});
  ir::Node add;
  add.op_type = "Add";
  add.inputs = {"x", "w"};
  add.outputs = {"y"};
  m.graph.nodes.push_back(add);
  format::SaveOptions so;
  so.external_data_threshold = 1024;
  std::string path = (dir / "m.onnx").string();
  ASSERT_TRUE(format::SaveModel(m, path, so).ok());
  EXPECT_TRUE(fs::exists(dir / "m.onnx.data"));
  EXPECT_LT(fs::file_size(path), 1000u);
  auto loaded = format::LoadModel(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->graph.initializers.size(), 1u);
  EXPECT_EQ(loaded->graph.initializers[0].tensor.data<float>()[999], 0.5f);
  auto session = Session::Create(std::move(loaded).value());
  ASSERT_TRUE(session.ok()) << session.status().message();
  std::vector<Value> out;
  ASSERT_TRUE(
      (*session)->Run({{"x", Tensor::FromVector<float>(std::vector<float>(1000, 1.0f), {1000})}}, {}, &out).ok());
  EXPECT_EQ(out[0].tensor().data<float>()[3], 1.5f);
}

// A model file of several MiB is parsed in chunks whose pages are released behind the parser: every byte of its
// initializers (spanning chunk boundaries, at odd offsets) must still arrive.
TEST(ModelIo, LoadsMultiMegabyteModelsExactly) {
  fs::path dir = TempDir("large");
  ir::Model m;
  m.ir_version = 8;
  m.opset_import.push_back({"", 13});
  std::vector<std::vector<float>> values;
  for (int k = 0; k < 5; ++k) {
    const size_t n = 300001 + static_cast<size_t>(k) * 7;  // ~1.2 MB each, not a multiple of anything useful
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 9973) * 0.25f + static_cast<float>(k);
    values.push_back(v);
    ir::NamedTensor w;
    w.name = "w" + std::to_string(k);
    w.tensor = Tensor::FromVector<float>(v, {static_cast<int64_t>(n)});
    m.graph.initializers.push_back(w);
    m.graph.outputs.push_back({w.name, ir::TypeInfo::Tensor(DataType::kFloat), {}, {}});
  }
  std::string path = (dir / "m.onnx").string();
  ASSERT_TRUE(format::SaveModel(m, path).ok());
  EXPECT_GT(fs::file_size(path), 5u << 20);
  auto loaded = format::LoadModel(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->graph.initializers.size(), values.size());
  for (size_t k = 0; k < values.size(); ++k) {
    const Tensor& t = loaded->graph.initializers[k].tensor;
    ASSERT_EQ(t.size(), static_cast<int64_t>(values[k].size()));
    EXPECT_EQ(std::memcmp(t.data<float>(), values[k].data(), values[k].size() * sizeof(float)), 0) << "w" << k;
  }
}

TEST(Ir, TopologicalSortOrdersAndFindsCycles) {
  ir::Graph g;
  g.inputs.push_back({"x", std::nullopt, {}, {}});
  ir::Node b{"b", "Relu", "", "", {"t"}, {"y"}, {}, {}, {}, {}};
  ir::Node a{"a", "Neg", "", "", {"x"}, {"t"}, {}, {}, {}, {}};
  g.nodes = {b, a};
  ASSERT_TRUE(ir::TopologicalSort(g).ok());
  EXPECT_EQ(g.nodes[0].name, "a");
  EXPECT_EQ(g.nodes[1].name, "b");
  ir::Graph cyc;
  cyc.nodes = {ir::Node{"p", "Neg", "", "", {"q_out"}, {"p_out"}, {}, {}, {}, {}},
               ir::Node{"q", "Neg", "", "", {"p_out"}, {"q_out"}, {}, {}, {}, {}}};
  Status st = ir::TopologicalSort(cyc);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cycle"), std::string::npos);
}

TEST(Session, ReportsFeedErrors) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_import.push_back({"", 13});
  m.graph.inputs.push_back(
      {"x",
       ir::TypeInfo::Tensor(DataType::kFloat, std::vector<ir::Dim>{ir::Dim::Param("N"), ir::Dim::Value(2)}),
       {},
       {}});
  m.graph.outputs.push_back({"y", std::nullopt, {}, {}});
  m.graph.nodes.push_back(ir::Node{"r", "Relu", "", "", {"x"}, {"y"}, {}, {}, {}, {}});
  auto s = Session::Create(m);
  ASSERT_TRUE(s.ok());
  std::vector<Value> out;
  Status wrong_type = (*s)->Run({{"x", Tensor::FromVector<int32_t>({1, 2}, {1, 2})}}, {}, &out);
  EXPECT_NE(wrong_type.message().find("expects tensor(float), got tensor(int32)"), std::string::npos);
  Status wrong_dim = (*s)->Run({{"x", Tensor::FromVector<float>({1, 2, 3}, {1, 3})}}, {}, &out);
  EXPECT_NE(wrong_dim.message().find("dimension 1 to be 2"), std::string::npos);
  Status missing = (*s)->Run({}, {}, &out);
  EXPECT_NE(missing.message().find("input 'x' was not fed"), std::string::npos);
  Status unknown = (*s)->Run({{"z", Tensor::Scalar<float>(1)}}, {}, &out);
  EXPECT_NE(unknown.message().find("'z' is not an input"), std::string::npos);
  ASSERT_TRUE((*s)->Run({{"x", Tensor::FromVector<float>({-1, 2, -3, 4}, {2, 2})}}, {}, &out).ok());
  EXPECT_EQ(out[0].tensor().data<float>()[0], 0.0f);
  EXPECT_EQ(out[0].tensor().data<float>()[3], 4.0f);

  m.opset_import[0].version = 5;
  m.graph.nodes[0].op_type = "Gelu";  // does not exist before opset 20
  auto bad = Session::Create(m);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(bad.status().message().find("Gelu"), std::string::npos);
}

}  // namespace
}  // namespace onyx

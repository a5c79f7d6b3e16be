// Saving models with external data: when it happens (automatically for large models, on request, never), where
// tensors land (aligned offsets, small ones inline), and the safety rules (a plain file name beside the model,
// temporary names renamed into place, a planted symlink replaced rather than followed, the input's own mapped data
// file rewritten safely).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "format/model_io.h"
#include "proto/onyx.pb.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("onyx_extwrite_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// Initializers w0..wN of the given element counts (values i * 0.5 + k), each a graph output.
ir::Model ModelWith(const std::vector<int64_t>& sizes) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_import.push_back({"", 17});
  for (size_t k = 0; k < sizes.size(); ++k) {
    std::vector<float> v(static_cast<size_t>(sizes[k]));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.5f + static_cast<float>(k);
    ir::NamedTensor w;
    w.name = "w" + std::to_string(k);
    w.tensor = Tensor::FromVector<float>(v, {sizes[k]});
    m.graph.initializers.push_back(w);
    m.graph.outputs.push_back({w.name, ir::TypeInfo::Tensor(DataType::kFloat), {}, {}});
  }
  return m;
}

// The external_data entries of each initializer of the saved file, by name ("" when inline).
std::map<std::string, std::map<std::string, std::string>> ExternalEntries(const fs::path& path) {
  pb::ModelProto p;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(p.ParseFromIstream(&in));
  std::map<std::string, std::map<std::string, std::string>> out;
  for (const auto& t : p.graph().initializer()) {
    auto& e = out[t.name()];
    for (const auto& kv : t.external_data()) e[kv.key()] = kv.value();
  }
  return out;
}

void ExpectSameValues(const ir::Model& a, const ir::Model& b) {
  ASSERT_EQ(a.graph.initializers.size(), b.graph.initializers.size());
  for (size_t k = 0; k < a.graph.initializers.size(); ++k) {
    const Tensor& x = a.graph.initializers[k].tensor;
    const Tensor& y = b.graph.initializers[k].tensor;
    ASSERT_EQ(x.shape(), y.shape());
    EXPECT_EQ(0, std::memcmp(x.raw(), y.raw(), x.nbytes())) << a.graph.initializers[k].name;
  }
}

std::vector<std::string> Listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(ExternalDataWrite, LargeModelsGoExternalAutomaticallyWithAlignedTensorsAndSmallOnesInline) {
  fs::path dir = TempDir("auto");
  ir::Model m = ModelWith({5000, 10, 3000});  // 20000 B, 40 B, 12000 B
  format::SaveOptions so;
  so.auto_external_bytes = 16 * 1024;  // "large" for this test
  ASSERT_TRUE(format::SaveModel(m, (dir / "m.onnx").string(), so).ok());
  EXPECT_EQ(Listing(dir), (std::vector<std::string>{"m.onnx", "m.onnx.data"}));
  auto entries = ExternalEntries(dir / "m.onnx");
  EXPECT_EQ(entries["w0"]["location"], "m.onnx.data");
  EXPECT_EQ(entries["w0"]["offset"], "0");
  EXPECT_EQ(entries["w0"]["length"], "20000");
  EXPECT_TRUE(entries["w1"].empty());  // 40 bytes: below the 1 KiB threshold
  EXPECT_EQ(std::stoll(entries["w2"]["offset"]) % 4096, 0);
  EXPECT_GE(std::stoll(entries["w2"]["offset"]), 20000);
  auto loaded = format::LoadModel((dir / "m.onnx").string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ExpectSameValues(m, *loaded);
}

TEST(ExternalDataWrite, SmallModelsStayInOneFileUnlessAskedAndNeverMeansNever) {
  fs::path dir = TempDir("modes");
  ir::Model m = ModelWith({5000});
  ASSERT_TRUE(format::SaveModel(m, (dir / "a.onnx").string()).ok());
  format::SaveOptions always;
  always.external_data = format::SaveOptions::ExternalData::kAlways;
  always.external_data_location = "weights.bin";
  always.alignment = 64;
  ASSERT_TRUE(format::SaveModel(m, (dir / "b.onnx").string(), always).ok());
  format::SaveOptions never;
  never.external_data = format::SaveOptions::ExternalData::kNever;
  never.auto_external_bytes = 16;
  ASSERT_TRUE(format::SaveModel(m, (dir / "c.onnx").string(), never).ok());
  EXPECT_EQ(Listing(dir), (std::vector<std::string>{"a.onnx", "b.onnx", "c.onnx", "weights.bin"}));
  EXPECT_EQ(ExternalEntries(dir / "b.onnx")["w0"]["location"], "weights.bin");
  for (const char* name : {"a.onnx", "b.onnx", "c.onnx"}) {
    auto loaded = format::LoadModel((dir / name).string());
    ASSERT_TRUE(loaded.ok()) << name << ": " << loaded.status().message();
    ExpectSameValues(m, *loaded);
  }
}

TEST(ExternalDataWrite, LocationsOutsideTheModelFolderAreRefusedAndNothingIsWritten) {
  fs::path root = TempDir("escape");
  fs::create_directories(root / "out");
  ir::Model m = ModelWith({5000});
  for (const char* location : {"../escape.data", "sub/x.data", "/tmp/onyx_escape.data", "..", "", "m.onnx"}) {
    format::SaveOptions so;
    so.external_data = format::SaveOptions::ExternalData::kAlways;
    so.external_data_location = location;
    if (std::string(location).empty()) continue;  // empty means the default name
    Status st = format::SaveModel(m, (root / "out" / "m.onnx").string(), so);
    ASSERT_FALSE(st.ok()) << location;
    EXPECT_NE(st.message().find("external data"), std::string::npos) << st.message();
  }
  EXPECT_TRUE(Listing(root / "out").empty());
  EXPECT_EQ(Listing(root), (std::vector<std::string>{"out"}));
  EXPECT_FALSE(fs::exists("/tmp/onyx_escape.data"));
}

TEST(ExternalDataWrite, APlantedSymlinkIsReplacedNotFollowed) {
  fs::path root = TempDir("symlink");
  fs::create_directories(root / "out");
  {
    std::ofstream victim(root / "victim.bin");
    victim << "precious";
  }
  fs::create_symlink(root / "victim.bin", root / "out" / "m.onnx.data");
  fs::create_symlink(root / "victim.bin", root / "out" / "m.onnx");
  format::SaveOptions so;
  so.external_data = format::SaveOptions::ExternalData::kAlways;
  ASSERT_TRUE(format::SaveModel(ModelWith({5000}), (root / "out" / "m.onnx").string(), so).ok());
  std::ifstream victim(root / "victim.bin");
  std::string content;
  victim >> content;
  EXPECT_EQ(content, "precious");
  EXPECT_FALSE(fs::is_symlink(root / "out" / "m.onnx.data"));
  EXPECT_FALSE(fs::is_symlink(root / "out" / "m.onnx"));
  EXPECT_TRUE(format::LoadModel((root / "out" / "m.onnx").string()).ok());
}

TEST(ExternalDataWrite, RewritingAModelOverItsOwnMappedDataKeepsTheLoadedTensorsIntact) {
  fs::path dir = TempDir("inplace");
  ir::Model original = ModelWith({70000, 90000});
  format::SaveOptions so;
  so.external_data = format::SaveOptions::ExternalData::kAlways;
  const std::string path = (dir / "m.onnx").string();
  ASSERT_TRUE(format::SaveModel(original, path, so).ok());
  auto loaded = format::LoadModel(path);  // its tensors are mapped from m.onnx.data
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  // Save the loaded model over itself with the tensors in the other order: every byte of the data file changes.
  std::swap(loaded->graph.initializers[0], loaded->graph.initializers[1]);
  ASSERT_TRUE(format::SaveModel(*loaded, path, so).ok());
  std::swap(loaded->graph.initializers[0], loaded->graph.initializers[1]);
  ExpectSameValues(original, *loaded);  // the old mapping still reads the old bytes
  auto reloaded = format::LoadModel(path);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().message();
  EXPECT_EQ(reloaded->graph.initializers[0].name, "w1");
  EXPECT_EQ(0, std::memcmp(reloaded->graph.initializers[0].tensor.raw(), original.graph.initializers[1].tensor.raw(),
                           original.graph.initializers[1].tensor.nbytes()));
  EXPECT_EQ(Listing(dir), (std::vector<std::string>{"m.onnx", "m.onnx.data"}));  // no temporary files left
}

}  // namespace
}  // namespace onyx

// The SavedModel reader's bounded parts: the SSTable reader and the tensor bundle (checkpoint) reader, on real
// checkpoints written by TensorFlow (../shared/models/tf/saved_model) and on tables built here and then corrupted:
// truncated files, handles and offsets past the end, bad CRCs, sizes too large to allocate. Every case must give an
// error naming the file, never a crash. The conversions themselves are run by tests/convert/tf/run_saved_models.sh.
#include "convert/tf/saved_model.h"

#include <gtest/gtest.h>
#include <snappy.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "convert/tf/sstable.h"
#include "convert/tf/tensor_bundle.h"
#include "proto/tf_saved_model.pb.h"

namespace onyx::convert::tf {
namespace {

namespace fs = std::filesystem;

const std::string kSavedModels = std::string(ONYX_SHARED_DIR) + "/models/tf/saved_model";

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutFixed32(std::string* out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out->append(b, 4);
}

// A LevelDB-format table built here: one data block (compressed with Snappy if asked), an index block pointing at
// it, an empty metaindex block and the footer.
struct TableBuilder {
  std::vector<std::pair<std::string, std::string>> entries;  // in key order
  bool snappy = false;

  static std::string Block(const std::vector<std::pair<std::string, std::string>>& kv) {
    std::string b;
    for (const auto& [k, v] : kv) {
      PutVarint(&b, 0);  // no prefix shared: every entry a restart point would also be valid
      PutVarint(&b, k.size());
      PutVarint(&b, v.size());
      b += k + v;
    }
    PutFixed32(&b, 0);  // one restart point at 0
    PutFixed32(&b, 1);
    return b;
  }
  // Appends `contents` with its trailer; returns its handle.
  static std::pair<uint64_t, uint64_t> Append(std::string* file, const std::string& contents, char type) {
    const uint64_t offset = file->size();
    *file += contents;
    file->push_back(type);
    PutFixed32(file, MaskCrc32c(Crc32cExtend(Crc32c(contents), std::string_view(&type, 1))));
    return {offset, contents.size()};
  }
  std::string Build() const {
    std::string file;
    std::string data = Block(entries);
    if (snappy) {
      std::string z;
      snappy::Compress(data.data(), data.size(), &z);
      data = z;
    }
    auto data_handle = Append(&file, data, snappy ? 1 : 0);
    std::string handle;
    PutVarint(&handle, data_handle.first);
    PutVarint(&handle, data_handle.second);
    auto meta = Append(&file, Block({}), 0);
    auto index = Append(&file, Block({{entries.empty() ? "" : entries.back().first, handle}}), 0);
    std::string footer;
    PutVarint(&footer, meta.first);
    PutVarint(&footer, meta.second);
    PutVarint(&footer, index.first);
    PutVarint(&footer, index.second);
    footer.resize(40, '\0');
    const uint64_t magic = 0xdb4775248b80fb57ull;
    footer.append(reinterpret_cast<const char*>(&magic), 8);
    return file + footer;
  }
};

// Appends an empty metaindex block and the footer pointing at `index` (a handle TableBuilder::Append returned).
std::string Finish(std::string file, std::pair<uint64_t, uint64_t> index) {
  auto meta = TableBuilder::Append(&file, TableBuilder::Block({}), 0);
  std::string footer;
  for (uint64_t v : {meta.first, meta.second, index.first, index.second}) PutVarint(&footer, v);
  footer.resize(40, '\0');
  const uint64_t magic = 0xdb4775248b80fb57ull;
  footer.append(reinterpret_cast<const char*>(&magic), 8);
  return file + footer;
}

// A table of one data block holding `block` (raw contents, written with compression `type`).
std::string TableOfBlock(const std::string& block, char type, const std::string& last_key = "a") {
  std::string file;
  auto data = TableBuilder::Append(&file, block, type);
  std::string handle;
  PutVarint(&handle, data.first);
  PutVarint(&handle, data.second);
  auto index = TableBuilder::Append(&file, TableBuilder::Block({{last_key, handle}}), 0);
  return Finish(file, index);
}

std::string Entry(int dtype, std::vector<int64_t> dims, int64_t offset, int64_t size, std::string_view data,
                  int shard = 0) {
  tfpb::BundleEntryProto e;
  e.set_dtype(static_cast<tfpb::DataType>(dtype));
  for (int64_t d : dims) e.mutable_shape()->add_dim()->set_size(d);
  e.set_shard_id(shard);
  e.set_offset(offset);
  e.set_size(size);
  e.set_crc32c(MaskCrc32c(Crc32c(data)));
  return e.SerializeAsString();
}

std::string Header(int shards = 1) {
  tfpb::BundleHeaderProto h;
  h.set_num_shards(shards);
  return h.SerializeAsString();
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("onyx_saved_model_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string Write(const std::string& name, const std::string& bytes) const {
    const std::string p = (path_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  std::string Prefix() const { return (path_ / "variables").string(); }

 private:
  fs::path path_;
  static inline int counter_ = 0;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Crc32c, KnownValues) {
  EXPECT_EQ(Crc32c(""), 0u);
  EXPECT_EQ(Crc32c("123456789"), 0xe3069283u);  // the CRC-32C check value
  EXPECT_EQ(UnmaskCrc32c(MaskCrc32c(0x12345678u)), 0x12345678u);
  EXPECT_NE(MaskCrc32c(0x12345678u), 0x12345678u);
}

TEST(Sstable, ReadsBuiltTablesPlainAndSnappy) {
  for (bool compressed : {false, true}) {
    TableBuilder t;
    t.snappy = compressed;
    t.entries = {{"", "header"}, {"a", std::string(100, 'x')}, {"b/c", "value"}};
    auto entries = ReadSstable(t.Build(), "t.index");
    ASSERT_TRUE(entries.ok()) << entries.status().message();
    EXPECT_EQ(*entries, t.entries);
  }
}

TEST(Sstable, PrefixCompressedKeys) {
  std::string block;
  for (auto [shared, key] : std::vector<std::pair<int, std::string>>{{0, "conv/kernel"}, {5, "bias"}}) {
    PutVarint(&block, shared);
    PutVarint(&block, key.size());
    PutVarint(&block, 1);
    block += key + "v";
  }
  PutFixed32(&block, 0);
  PutFixed32(&block, 1);
  // Wrap by hand: the builder writes unshared keys only.
  auto entries = ReadSstable(TableOfBlock(block, 0, "conv/bias"), "t.index");
  ASSERT_TRUE(entries.ok()) << entries.status().message();
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[1].first, "conv/bias");
}

TEST(Sstable, TruncatedFilesFailWithTheFileName) {
  TableBuilder t;
  t.entries = {{"", "h"}, {"a", "1234"}};
  const std::string good = t.Build();
  for (size_t n : {size_t{0}, size_t{1}, size_t{47}, good.size() / 2, good.size() - 1}) {
    auto r = ReadSstable(std::string_view(good).substr(0, n), "cut.index");
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_NE(r.status().message().find("cut.index"), std::string::npos) << r.status().message();
  }
  // The real index of a TensorFlow checkpoint, cut anywhere: never a crash, always the file named.
  const std::string real =
      ReadAll(kSavedModels + "/saved_model_half_plus_two_tf2_cpu/00000123/variables/variables.index");
  ASSERT_GT(real.size(), 48u);
  for (size_t n = 0; n < real.size(); ++n) {
    auto r = ReadSstable(std::string_view(real).substr(0, n), "real.index");
    EXPECT_FALSE(r.ok()) << n;
  }
}

TEST(Sstable, EveryFlippedByteIsCaught) {
  // Each byte of every block is covered by its CRC, the footer by the magic number and the handles' checks.
  const std::string real = ReadAll(kSavedModels + "/saved_model_half_plus_two_cpu/00000123/variables/variables.index");
  ASSERT_TRUE(ReadSstable(real, "real.index").ok());
  int caught = 0, total = 0;
  for (size_t i = 0; i < real.size(); ++i) {
    std::string bad = real;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    auto r = ReadSstable(bad, "flipped.index");
    ++total;
    if (!r.ok()) {
      ++caught;
      EXPECT_NE(r.status().message().find("flipped.index"), std::string::npos);
    } else {
      // Only the footer's padding may change without notice.
      EXPECT_GE(i, real.size() - 48) << "byte " << i << " changed silently";
    }
  }
  EXPECT_GT(caught, total / 2);
}

TEST(Sstable, BadHandlesCrcsAndSizes) {
  TableBuilder t;
  t.entries = {{"", "h"}, {"a", "1234"}};
  std::string good = t.Build();
  // Index handle pointing past the end of the file.
  {
    std::string file;
    TableBuilder::Append(&file, TableBuilder::Block({{"a", "1"}}), 0);
    auto r = ReadSstable(Finish(file, {uint64_t{1} << 40, 16}), "t.index");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("past the end"), std::string::npos) << r.status().message();
  }
  // A data byte changed: the block's CRC.
  {
    std::string bad = good;
    bad[2] ^= 1;
    auto r = ReadSstable(bad, "t.index");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("CRC32C"), std::string::npos) << r.status().message();
  }
  // A Snappy block claiming 4 GiB uncompressed (CRC valid): refused before allocating.
  {
    std::string z;
    PutVarint(&z, 0xfffffff0u);
    z += "xx";
    auto r = ReadSstable(TableOfBlock(z, 1), "t.index");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("limit"), std::string::npos) << r.status().message();
  }
  // A Snappy block whose contents do not decompress to the length it states.
  {
    std::string z;
    PutVarint(&z, 100);
    z += std::string("\0abc", 4);
    auto r = ReadSstable(TableOfBlock(z, 1), "t.index");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("decompress"), std::string::npos) << r.status().message();
  }
  // A block whose restart count claims more than it holds; an entry whose value runs past the block.
  {
    std::string block = TableBuilder::Block({{"a", "1"}});
    block.replace(block.size() - 4, 4, std::string("\xff\xff\xff\x0f", 4));
    auto r = ReadSstable(TableOfBlock(block, 0), "t.index");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("restart"), std::string::npos) << r.status().message();
  }
  {
    std::string block;
    PutVarint(&block, 0);
    PutVarint(&block, 1);
    PutVarint(&block, uint64_t{1} << 40);  // value length
    block += "a";
    PutFixed32(&block, 0);
    PutFixed32(&block, 1);
    auto r = ReadSstable(TableOfBlock(block, 0), "t.index");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("runs past"), std::string::npos) << r.status().message();
  }
  // An entry sharing more key bytes than the previous key has.
  {
    std::string block;
    PutVarint(&block, 4);
    PutVarint(&block, 1);
    PutVarint(&block, 1);
    block += "ab";
    PutFixed32(&block, 0);
    PutFixed32(&block, 1);
    auto r = ReadSstable(TableOfBlock(block, 0), "t.index");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("shares"), std::string::npos) << r.status().message();
  }
}

TEST(TensorBundle, ReadsRealCheckpoints) {
  // TF1 (names are the variables'): half_plus_two's a = 0.5, b = 2, c = 3 (models/README.md).
  auto tf1 = TensorBundle::Open(kSavedModels + "/saved_model_half_plus_two_cpu/00000123/variables/variables");
  ASSERT_TRUE(tf1.ok()) << tf1.status().message();
  auto a = tf1->Read("a");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->type(), DataType::kFloat);
  EXPECT_EQ(a->data<float>()[0], 0.5f);
  EXPECT_EQ(tf1->Read("b")->data<float>()[0], 2.0f);
  EXPECT_EQ(tf1->Read("c")->data<float>()[0], 3.0f);
  EXPECT_FALSE(tf1->Read("missing").ok());
  // TF2: object-graph keys, and the object graph itself as a string tensor.
  auto tf2 = TensorBundle::Open(kSavedModels + "/saved_model_half_plus_two_tf2_cpu/00000123/variables/variables");
  ASSERT_TRUE(tf2.ok()) << tf2.status().message();
  EXPECT_EQ(tf2->Read("a/.ATTRIBUTES/VARIABLE_VALUE")->data<float>()[0], 0.5f);
  auto graph = tf2->ReadStrings("_CHECKPOINTABLE_OBJECT_GRAPH");
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  ASSERT_EQ(graph->size(), 1u);
  tfpb::TrackableObjectGraph objects;
  ASSERT_TRUE(objects.ParseFromString((*graph)[0]));
  EXPECT_GT(objects.nodes_size(), 3);
  EXPECT_FALSE(tf2->Read("_CHECKPOINTABLE_OBJECT_GRAPH").ok());  // a string tensor is not numeric
}

TEST(TensorBundle, CorruptEntriesAndShards) {
  const float values[3] = {1.5f, -2.0f, 4.25f};
  const std::string data(reinterpret_cast<const char*>(values), sizeof(values));
  auto open = [&](const std::vector<std::pair<std::string, std::string>>& entries, const std::string& shard,
                  const TempDir& dir) {
    TableBuilder t;
    t.entries = entries;
    dir.Write("variables.index", t.Build());
    dir.Write("variables.data-00000-of-00001", shard);
    return TensorBundle::Open(dir.Prefix());
  };
  {
    TempDir dir;
    auto b = open({{"", Header()}, {"w", Entry(1, {3}, 0, 12, data)}}, data, dir);
    ASSERT_TRUE(b.ok()) << b.status().message();
    auto w = b->Read("w");
    ASSERT_TRUE(w.ok()) << w.status().message();
    EXPECT_EQ(w->shape(), (Shape{3}));
    EXPECT_EQ(w->data<float>()[2], 4.25f);
  }
  struct Case {
    const char* what;
    std::string entry;
    std::string shard;
    const char* expect;
  };
  const std::vector<Case> cases = {
      {"offset past the shard", Entry(1, {3}, 8, 12, data), data, "past the end"},
      {"shard truncated", Entry(1, {3}, 0, 12, data), data.substr(0, 10), "past the end"},
      {"size not the shape's", Entry(1, {4}, 0, 12, data), data, "elements"},
      {"huge shape", Entry(1, {int64_t{1} << 40, int64_t{1} << 40}, 0, 12, data), data, "larger than"},
      {"huge size", Entry(1, {int64_t{1} << 60}, 0, int64_t{1} << 62, data), data, "past the end"},
      {"bad data CRC", Entry(1, {3}, 0, 12, "other bytes"), data, "CRC32C"},
      {"unknown type", Entry(21, {3}, 0, 12, data), data, "not supported"},
  };
  for (const auto& c : cases) {
    TempDir dir;
    auto b = open({{"", Header()}, {"w", c.entry}}, c.shard, dir);
    ASSERT_TRUE(b.ok()) << c.what << ": " << b.status().message();
    auto w = b->Read("w");
    ASSERT_FALSE(w.ok()) << c.what;
    EXPECT_NE(w.status().message().find(c.expect), std::string::npos) << c.what << ": " << w.status().message();
    EXPECT_NE(w.status().message().find("variables"), std::string::npos) << c.what << ": " << w.status().message();
  }
  // Errors in the index itself: no header, a shard beyond the header's count, an entry that does not parse.
  for (const auto& [what, entries, expect] :
       std::vector<std::tuple<std::string, std::vector<std::pair<std::string, std::string>>, std::string>>{
           {"no header", {{"w", Entry(1, {3}, 0, 12, data)}}, "header"},
           {"shard out of range", {{"", Header()}, {"w", Entry(1, {3}, 0, 12, data, 5)}}, "shard 5"},
           {"entry garbage", {{"", Header()}, {"w", "\xff\xff\xff"}}, "does not parse"},
           {"shard count", {{"", Header(0)}}, "shards"}}) {
    TempDir dir;
    auto b = open(entries, data, dir);
    ASSERT_FALSE(b.ok()) << what;
    EXPECT_NE(b.status().message().find(expect), std::string::npos) << what << ": " << b.status().message();
    EXPECT_NE(b.status().message().find("variables.index"), std::string::npos) << b.status().message();
  }
  // A string tensor whose lengths' checksum is wrong.
  {
    TempDir dir;
    std::string s;
    PutVarint(&s, 3);
    PutFixed32(&s, 0);  // wrong checksum
    s += "abc";
    auto b = open({{"", Header()}, {"s", Entry(7, {}, 0, static_cast<int64_t>(s.size()), s)}}, s, dir);
    ASSERT_TRUE(b.ok()) << b.status().message();
    auto r = b->ReadStrings("s");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("CRC32C"), std::string::npos) << r.status().message();
  }
}

TEST(SavedModel, SignatureKeysNameInputsAndOutputs) {
  SavedModelOptions options;
  auto m = ConvertSavedModel(kSavedModels + "/saved_model_half_plus_two_cpu/00000123", options);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->graph.inputs.size(), 1u);
  EXPECT_EQ(m->graph.inputs[0].name, "x");
  ASSERT_EQ(m->graph.outputs.size(), 1u);
  EXPECT_EQ(m->graph.outputs[0].name, "y");
  // The tf.Example parsing behind x (ParseExample), the save/restore subgraphs and the other signatures are gone.
  for (const auto& n : m->graph.nodes) EXPECT_NE(n.op_type, "ParseExample");
  EXPECT_LE(m->graph.nodes.size(), 4u);
  EXPECT_FALSE(IsSavedModelDir(kSavedModels));
  EXPECT_TRUE(IsSavedModelDir(kSavedModels + "/matrix_half_plus_two/1"));
}

}  // namespace
}  // namespace onyx::convert::tf

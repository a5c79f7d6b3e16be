// The bounds-checked FlexBuffers reader (custom_options of TFLite custom operators). The well-formed buffers were
// written by the FlexBuffers library (python3-flatbuffers' flexbuffers.Dumps); truncated, mutated and hand-made
// hostile buffers must give errors, never reads outside the buffer.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "convert/tflite/flexbuffer.h"

namespace onyx::convert::tflite {
namespace {

// flexbuffers.Dumps({'dimensions': 3, 'scale': 0.5, 'name': 'abc', 'sizes': [4, 5, 600],
//                    'mixed': [1, 2.5, 'x', True, None], 'neg': -300, 'big': 70000, 'flag': True,
//                    'pi': 3.14159265358979})
const uint8_t kMap[] = {
    0x64, 0x69, 0x6d, 0x65, 0x6e, 0x73, 0x69, 0x6f, 0x6e, 0x73, 0x00, 0x73, 0x63, 0x61, 0x6c, 0x65, 0x00, 0x6e, 0x61,
    0x6d, 0x65, 0x00, 0x03, 0x61, 0x62, 0x63, 0x00, 0x73, 0x69, 0x7a, 0x65, 0x73, 0x00, 0x00, 0x03, 0x00, 0x04, 0x00,
    0x05, 0x00, 0x58, 0x02, 0x05, 0x05, 0x05, 0x6d, 0x69, 0x78, 0x65, 0x64, 0x00, 0x01, 0x78, 0x00, 0x00, 0x00, 0x05,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x40, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x06, 0x0e, 0x14, 0x6a, 0x02, 0x6e, 0x65, 0x67, 0x00, 0x62, 0x69, 0x67, 0x00, 0x66, 0x6c,
    0x61, 0x67, 0x00, 0x70, 0x69, 0x00, 0x09, 0x0d, 0x67, 0x0b, 0x3c, 0x59, 0x16, 0x0a, 0x62, 0x53, 0x00, 0x0a, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x70, 0x11, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x91, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0xd4, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x11, 0x2d, 0x44, 0x54, 0xfb, 0x21,
    0x09, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0x3f, 0xa4, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,
    0x07, 0x6b, 0x2a, 0x14, 0x07, 0x0f, 0x0f, 0x29, 0x51, 0x27, 0x01};
// flexbuffers.Dumps([7, -8])
const uint8_t kVector[] = {0x02, 0x07, 0xf8, 0x04, 0x04, 0x04, 0x28, 0x01};

std::string Bytes(const uint8_t* p, size_t n) { return std::string(reinterpret_cast<const char*>(p), n); }

// FlexValue views its buffer: the hand-made ones live as long as the test binary.
std::string_view Keep(std::string bytes) {
  static std::vector<std::unique_ptr<std::string>> kept;
  kept.push_back(std::make_unique<std::string>(std::move(bytes)));
  return *kept.back();
}

FlexValue Value(const std::optional<FlexValue>& v) {
  EXPECT_TRUE(v.has_value());
  return *v;
}

TEST(FlexBufferTest, ReadsAMapWrittenByTheLibrary) {
  const std::string buf = Bytes(kMap, sizeof(kMap));
  auto root = FlexValue::Root(buf);
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  ASSERT_TRUE(root->IsMap());
  auto keys = root->Keys();
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(*keys,
            (std::vector<std::string>{"big", "dimensions", "flag", "mixed", "name", "neg", "pi", "scale", "sizes"}));
  auto get = [&](const char* k) {
    auto v = root->Get(k);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return Value(*v);
  };
  EXPECT_EQ(*get("dimensions").AsInt(), 3);
  EXPECT_EQ(*get("neg").AsInt(), -300);
  EXPECT_EQ(*get("big").AsInt(), 70000);
  EXPECT_TRUE(*get("flag").AsBool());
  EXPECT_DOUBLE_EQ(*get("scale").AsDouble(), 0.5);
  EXPECT_DOUBLE_EQ(*get("pi").AsDouble(), 3.14159265358979);
  EXPECT_DOUBLE_EQ(*get("dimensions").AsDouble(), 3.0);
  EXPECT_EQ(*get("name").AsString(), "abc");
  FlexValue sizes = get("sizes");
  ASSERT_TRUE(sizes.IsVector());
  ASSERT_EQ(*sizes.Size(), 3u);
  EXPECT_EQ(*sizes.At(0)->AsInt(), 4);
  EXPECT_EQ(*sizes.At(2)->AsInt(), 600);
  EXPECT_FALSE(sizes.At(3).ok());
  FlexValue mixed = get("mixed");
  ASSERT_EQ(*mixed.Size(), 5u);
  EXPECT_EQ(*mixed.At(0)->AsInt(), 1);
  EXPECT_DOUBLE_EQ(*mixed.At(1)->AsDouble(), 2.5);
  EXPECT_EQ(*mixed.At(2)->AsString(), "x");
  EXPECT_TRUE(*mixed.At(3)->AsBool());
  EXPECT_TRUE(mixed.At(4)->IsNull());
  auto absent = root->Get("nothing");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
  // Wrong-type reads are errors.
  EXPECT_FALSE(get("name").AsInt().ok());
  EXPECT_FALSE(get("dimensions").AsString().ok());
  EXPECT_FALSE(get("dimensions").Size().ok());
  EXPECT_FALSE(root->AsInt().ok());
}

TEST(FlexBufferTest, ReadsATypedVector) {
  const std::string buf = Bytes(kVector, sizeof(kVector));  // FlexValue views the buffer: keep it alive
  auto root = FlexValue::Root(buf);
  ASSERT_TRUE(root.ok());
  ASSERT_TRUE(root->IsVector());
  EXPECT_FALSE(root->IsMap());
  EXPECT_FALSE(root->Keys().ok());
  ASSERT_EQ(*root->Size(), 2u);
  EXPECT_EQ(*root->At(0)->AsInt(), 7);
  EXPECT_EQ(*root->At(1)->AsInt(), -8);
}

// Visits everything reachable (depth-bounded: an offset of 0 makes a value its own element).
void Walk(const FlexValue& v, int depth) {
  if (depth > 8) return;
  (void)v.AsInt();
  (void)v.AsDouble();
  (void)v.AsString();
  if (v.IsMap()) {
    auto keys = v.Keys();
    if (keys.ok()) {
      for (const auto& k : *keys) (void)v.Get(k);
    }
  }
  auto n = v.Size();
  if (!n.ok()) return;
  for (size_t i = 0; i < std::min<size_t>(*n, 64); ++i) {
    auto e = v.At(i);
    if (e.ok()) Walk(*e, depth + 1);
  }
}

TEST(FlexBufferTest, TruncatedBuffersGiveErrorsOrValuesInsideThem) {
  const std::string full = Bytes(kMap, sizeof(kMap));
  int errors = 0;
  for (size_t n = 0; n < full.size(); ++n) {
    // A prefix keeps its bytes but loses the root at the end: reading is bounded by the copy's size.
    const std::string prefix = full.substr(0, n);
    auto root = FlexValue::Root(prefix);
    if (!root.ok()) {
      ++errors;
      continue;
    }
    Walk(*root, 0);
  }
  EXPECT_GE(errors, 3);  // 0, 1 and 2 bytes at least
  // A suffix keeps the root but loses what its offsets point to.
  for (size_t cut = 1; cut < full.size(); ++cut) {
    const std::string suffix = full.substr(cut);
    auto root = FlexValue::Root(suffix);
    if (!root.ok()) continue;
    auto keys = root->Keys();
    EXPECT_FALSE(keys.ok() && keys->size() == 9 && (*keys)[0] == "big") << "cut " << cut;
    Walk(*root, 0);
  }
}

TEST(FlexBufferTest, HostileBuffersGiveErrors) {
  // Root width 3 (not a power of two) and width larger than the buffer.
  EXPECT_FALSE(FlexValue::Root(Keep(std::string("\x01\x04\x03", 3))).ok());
  EXPECT_FALSE(FlexValue::Root(Keep(std::string("\x01\x04\x08", 3))).ok());
  // An unknown type (63).
  EXPECT_FALSE(FlexValue::Root(Keep(std::string("\x01\xfc\x01", 3))).ok());
  // A vector whose offset points before the buffer.
  auto far = FlexValue::Root(Keep(std::string("\x7f\x28\x01", 3)));  // a vector at offset 127
  ASSERT_TRUE(far.ok());
  EXPECT_FALSE(far->Size().ok());
  EXPECT_FALSE(far->At(0).ok());
  // A vector claiming 255 elements in a 7-byte buffer.
  auto huge = FlexValue::Root(Keep(std::string("\xff\x01\x02\x03\x03\x2c\x01", 7)));
  ASSERT_TRUE(huge.ok());
  EXPECT_FALSE(huge->Size().ok());
  // A string whose length leaves no room for its terminator.
  auto str =
      FlexValue::Root(Keep(std::string("\x05"
                                       "ab\x02\x14\x01",
                                       6)));
  ASSERT_TRUE(str.ok());
  EXPECT_FALSE(str->AsString().ok());
  // A map of one value whose keys vector's offset points before the buffer.
  auto map = FlexValue::Root(Keep(std::string("\x7f\x01\x01\x00\x04\x02\x24\x01", 8)));
  ASSERT_TRUE(map.ok());
  ASSERT_TRUE(map->IsMap());
  EXPECT_EQ(*map->Size(), 1u);
  EXPECT_FALSE(map->Keys().ok());
  EXPECT_FALSE(map->Get("x").ok());
}

TEST(FlexBufferTest, MutatedBuffersNeverReadOutside) {
  const std::string full = Bytes(kMap, sizeof(kMap));
  std::mt19937 rng(20261201);
  for (int k = 0; k < 3000; ++k) {
    std::string b = full;
    const int flips = 1 + static_cast<int>(rng() % 6);
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] = static_cast<char>(rng() % 256);
    auto root = FlexValue::Root(b);
    if (root.ok()) Walk(*root, 0);
  }
}

}  // namespace
}  // namespace onyx::convert::tflite

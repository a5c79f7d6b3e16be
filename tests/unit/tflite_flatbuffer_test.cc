// The bounds-checked FlatBuffers reader under the TFLite converter: fields through the vtable, defaults for absent
// fields, and errors (not out-of-bounds reads) for offsets and lengths that leave the buffer.
#include <gtest/gtest.h>

#include <cstring>

#include "convert/tflite/flatbuffer.h"
#include "convert/tflite/tflite_model.h"

namespace onyx::convert::tflite {
namespace {

// root uoffset -> table at 12 (vtable at 4: two fields, at +4 an int32 and at +8 a uoffset to an int vector).
std::string TinyBuffer(uint32_t vector_length = 2) {
  std::string b(36, '\0');
  auto put32 = [&](size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); };
  auto put16 = [&](size_t at, uint16_t v) { std::memcpy(&b[at], &v, 2); };
  put32(0, 12);                   // root table
  put16(4, 8);                    // vtable size: 4 + 2 fields * 2
  put16(6, 12);                   // table size
  put16(8, 4);                    // field 0 at table + 4
  put16(10, 8);                   // field 1 at table + 8
  put32(12, 8);                   // table - vtable
  put32(16, 42);                  // field 0
  put32(20, 4);                   // field 1: vector at 24
  put32(24, vector_length);       // vector length
  put32(28, 7);                   // elements
  put32(32, static_cast<uint32_t>(-3));
  return b;
}

TEST(FlatTable, ReadsFieldsAndDefaults) {
  const std::string b = TinyBuffer();
  auto root = FlatTable::Root(b);
  ASSERT_TRUE(root.ok()) << root.status().message();
  EXPECT_EQ(*root->Int32(0), 42);
  EXPECT_EQ(*root->Int32s(1), (std::vector<int32_t>{7, -3}));
  EXPECT_FALSE(root->Has(2));
  EXPECT_EQ(*root->Int32(2, 5), 5);  // absent: the default
  EXPECT_TRUE(root->Int32s(3)->empty());
  EXPECT_FALSE(root->Table(3)->valid());
}

TEST(FlatTable, OutOfBoundsOffsetsAndLengthsAreErrors) {
  // A vector claiming more elements than the buffer holds.
  const std::string long_vector = TinyBuffer(1000000);
  auto root = FlatTable::Root(long_vector);
  ASSERT_TRUE(root.ok());
  auto v = root->Int32s(1);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("past the end"), std::string::npos) << v.status().message();
  // A root offset outside the buffer, and a buffer too short for one.
  std::string bad_root = TinyBuffer();
  const uint32_t far = 1u << 30;
  std::memcpy(&bad_root[0], &far, 4);
  EXPECT_FALSE(FlatTable::Root(bad_root).ok());
  EXPECT_FALSE(FlatTable::Root(std::string("\x01", 1)).ok());
  // Not a TFLite file at all.
  auto model = ParseTflite(TinyBuffer());
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("TFL3"), std::string::npos);
}

}  // namespace
}  // namespace onyx::convert::tflite

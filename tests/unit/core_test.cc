// Core types: element types, float16/bfloat16 rounding, tensors, shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/data_type.h"
#include "core/tensor.h"
#include "core/value.h"

namespace onyx {
namespace {

TEST(DataType, NamesAndSizes) {
  EXPECT_EQ(DataTypeName(DataType::kFloat), "float");
  EXPECT_EQ(DataTypeName(DataType::kFloat8E4M3FNUZ), "float8e4m3fnuz");
  EXPECT_EQ(DataTypeName(DataType::kInt2), "int2");
  EXPECT_EQ(TensorTypeString(DataType::kBool), "tensor(bool)");
  EXPECT_EQ(*DataTypeFromName("bfloat16"), DataType::kBFloat16);
  EXPECT_FALSE(DataTypeFromName("float33").ok());
  EXPECT_EQ(DataTypeStorageBytes(DataType::kInt4, 3), 2u);   // packed two per byte
  EXPECT_EQ(DataTypeStorageBytes(DataType::kUint2, 5), 2u);  // four per byte
  EXPECT_EQ(DataTypeStorageBytes(DataType::kDouble, 3), 24u);
  EXPECT_EQ(DataTypeStorageBytes(DataType::kComplex128, 1), 16u);
  EXPECT_FALSE(IsValidDataType(0));
  EXPECT_FALSE(IsValidDataType(27));
}

TEST(Float16, RoundsToNearestEven) {
  EXPECT_EQ(Float16(1.0f).bits, 0x3c00);
  EXPECT_EQ(Float16(-2.0f).bits, 0xc000);
  EXPECT_EQ(Float16(65504.0f).bits, 0x7bff);
  EXPECT_EQ(Float16(65520.0f).bits, 0x7c00);  // rounds up to infinity
  EXPECT_EQ(Float16(1e-8f).bits, 0x0000);     // underflow
  EXPECT_EQ(Float16(5.9604645e-8f).bits, 0x0001);  // smallest subnormal
  // 1 + 2^-11 is halfway between 1 and the next half: ties to even (1.0).
  EXPECT_EQ(Float16(1.0f + std::ldexp(1.0f, -11)).bits, 0x3c00);
  EXPECT_EQ(Float16(1.0f + 3 * std::ldexp(1.0f, -11)).bits, 0x3c02);
  EXPECT_TRUE(std::isnan(static_cast<float>(Float16(NAN))));
  EXPECT_TRUE(std::isinf(static_cast<float>(Float16(INFINITY))));
  for (uint32_t b = 0; b < 0x7c00; ++b) {  // every finite half survives half -> float -> half
    Float16 h = Float16::FromBits(static_cast<uint16_t>(b));
    ASSERT_EQ(Float16(static_cast<float>(h)).bits, b);
  }
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(BFloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(BFloat16(1.00390625f).bits, 0x3f80);  // halfway, ties to even
  EXPECT_EQ(BFloat16(1.01171875f).bits, 0x3f82);  // halfway, ties to even (up)
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(NAN))));
  EXPECT_EQ(static_cast<float>(BFloat16(3.0f)), 3.0f);
}

TEST(Tensor, ShapesAndStorage) {
  auto t = Tensor::Create(DataType::kFloat, {2, 3}, true);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->size(), 6);
  EXPECT_EQ(t->nbytes(), 24u);
  EXPECT_EQ(t->data<float>()[5], 0.0f);
  auto r = t->Reshaped({3, 2});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->shares_storage_with(*t));
  EXPECT_FALSE(t->Reshaped({4, 2}).ok());
  Tensor c = t->Clone();
  EXPECT_FALSE(c.shares_storage_with(*t));
  EXPECT_FALSE(Tensor::Create(DataType::kFloat, {-1, 2}).ok());
  EXPECT_FALSE(Tensor::Create(DataType::kFloat, {int64_t{1} << 40, int64_t{1} << 40}).ok());
  EXPECT_EQ(RowMajorStrides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(ShapeToString({}), "[]");
}

TEST(Tensor, StringsAndScalars) {
  Tensor s = Tensor::FromVector<std::string>({"a", "bc"}, {2});
  Tensor c = s.Clone();
  c.data<std::string>()[0] = "z";
  EXPECT_EQ(s.data<std::string>()[0], "a");
  Tensor i = Tensor::Scalar<int32_t>(-7);
  EXPECT_EQ(i.rank(), 0);
  EXPECT_EQ(i.IntAt(0), -7);
  EXPECT_EQ(i.DoubleAt(0), -7.0);
  EXPECT_EQ(Tensor::FromVector<int64_t>({1, 2, 3}, {3}).ToInt64Vector(), (std::vector<int64_t>{1, 2, 3}));
}

TEST(Value, Kinds) {
  Value none = Value::None();
  EXPECT_TRUE(none.is_none());
  Value t(Tensor::Scalar<float>(1.0f));
  EXPECT_TRUE(t.is_tensor());
  SequenceValue seq;
  seq.items.push_back(t);
  Value s(seq);
  EXPECT_EQ(s.sequence().items.size(), 1u);
  EXPECT_TRUE(Value().empty());
}

TEST(Dispatch, RejectsTypesOutsideTheList) {
  int seen = 0;
  Status ok = Dispatch<FloatTypes>(DataType::kDouble, [&](auto tag) {
    using T = typename decltype(tag)::type;
    seen = sizeof(T);
    return Status::Ok();
  });
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(seen, 8);
  Status bad = Dispatch<FloatTypes>(DataType::kInt8, [&](auto) { return Status::Ok(); });
  EXPECT_EQ(bad.code(), StatusCode::kUnsupported);
  EXPECT_NE(bad.message().find("int8"), std::string::npos);
}

}  // namespace
}  // namespace onyx

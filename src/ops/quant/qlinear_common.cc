#include "ops/quant/qlinear_common.h"

#include <string>

#include "kernels/int8_quantize.h"
#include "ops/common/op_util.h"

namespace onyx::ops::quant {

// (Names as C strings: a std::string built per run would be a heap allocation per parameter and node.)
Result<float> ScalarScale(const Tensor& t, const char* name) {
  if (t.type() != DataType::kFloat || t.size() != 1) {
    return InvalidArgument(std::string(name) + " must be one float32 value, got " +
                           std::string(DataTypeName(t.type())) + " " + ShapeToString(t.shape()));
  }
  return t.data<float>()[0];
}

Result<int32_t> ScalarZeroPoint(const Tensor* t, DataType type, const char* name) {
  if (t == nullptr) return 0;
  if (t->type() != type || t->size() != 1) {
    return InvalidArgument(std::string(name) + " must be one " + std::string(DataTypeName(type)) + " value, got " +
                           std::string(DataTypeName(t->type())) + " " + ShapeToString(t->shape()));
  }
  return type == DataType::kUint8 ? int32_t{t->data<uint8_t>()[0]} : int32_t{t->data<int8_t>()[0]};
}

void BuildQLinearTable(DataType type, float x_scale, int32_t x_zp, float y_scale, int32_t y_zp, const FloatMapping& f,
                       uint8_t* table) {
  float dequantized[256], mapped[256];
  for (int b = 0; b < 256; ++b) dequantized[b] = x_scale * static_cast<float>(ByteValue(type, b) - x_zp);
  const float* values = dequantized;
  if (f) {
    f(dequantized, mapped, 256);
    values = mapped;
  }
  if (type == DataType::kUint8) {
    kernels::QuantizeFloat<uint8_t>(values, 256, y_scale, y_zp, static_cast<uint8_t>(y_zp), table);
  } else {
    kernels::QuantizeFloat<int8_t>(values, 256, y_scale, y_zp, static_cast<int8_t>(y_zp),
                                   reinterpret_cast<int8_t*>(table));
  }
}

}  // namespace onyx::ops::quant

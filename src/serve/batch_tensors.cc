#include "serve/batch_tensors.h"

#include <cstring>
#include <string>

namespace onyx::serve {
namespace {

// Elements per row (the product of the dims after the first).
int64_t RowElements(const Tensor& t) {
  int64_t n = 1;
  for (size_t i = 1; i < t.shape().size(); ++i) n *= t.shape()[i];
  return n;
}

// Copies `count` elements from `src` at `src_offset` to `dst` at `dst_offset` (elements, not bytes). Strings are
// copied one by one; every other type the batcher meets is byte-addressable (sub-byte types are refused before).
void CopyElements(const Tensor& src, int64_t src_offset, Tensor& dst, int64_t dst_offset, int64_t count) {
  if (count == 0) return;
  if (src.type() == DataType::kString) {
    const std::string* from = src.data<std::string>() + src_offset;
    std::string* to = dst.data<std::string>() + dst_offset;
    for (int64_t i = 0; i < count; ++i) to[i] = from[i];
    return;
  }
  const size_t element_bytes = static_cast<size_t>(DataTypeBits(src.type()) / 8);
  std::memcpy(static_cast<char*>(dst.raw()) + static_cast<size_t>(dst_offset) * element_bytes,
              static_cast<const char*>(src.raw()) + static_cast<size_t>(src_offset) * element_bytes,
              static_cast<size_t>(count) * element_bytes);
}

Status CheckBatchable(const Tensor& t) {
  if (t.shape().empty()) return InvalidArgument("a scalar has no batch dim");
  if (t.type() != DataType::kString && DataTypeBits(t.type()) % 8 != 0) {
    return Unsupported("sub-byte element type " + std::string(DataTypeName(t.type())) + " is not batched");
  }
  return Status::Ok();
}

}  // namespace

bool SameBatchShape(const Tensor& a, const Tensor& b) {
  if (a.type() != b.type() || a.shape().empty() || a.shape().size() != b.shape().size()) return false;
  for (size_t i = 1; i < a.shape().size(); ++i) {
    if (a.shape()[i] != b.shape()[i]) return false;
  }
  return true;
}

Result<Tensor> StackBatch(const std::vector<const Tensor*>& parts) {
  if (parts.empty()) return InvalidArgument("no tensors to stack");
  const Tensor& first = *parts[0];
  ONYX_RETURN_IF_ERROR(CheckBatchable(first));
  Shape shape = first.shape();
  shape[0] = 0;
  for (const Tensor* p : parts) {
    if (!SameBatchShape(first, *p)) {
      return InvalidArgument("cannot stack " + ShapeToString(p->shape()) + " with " + ShapeToString(first.shape()));
    }
    shape[0] += p->shape()[0];
  }
  ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(first.type(), shape));
  int64_t offset = 0;
  for (const Tensor* p : parts) {
    CopyElements(*p, 0, out, offset, p->size());
    offset += p->size();
  }
  return out;
}

Result<Tensor> SliceBatch(const Tensor& batched, int64_t begin, int64_t count) {
  ONYX_RETURN_IF_ERROR(CheckBatchable(batched));
  if (begin < 0 || count < 0 || begin + count > batched.shape()[0]) {
    return InvalidArgument("rows [" + std::to_string(begin) + ", " + std::to_string(begin + count) +
                           ") are outside a batch of " + std::to_string(batched.shape()[0]));
  }
  Shape shape = batched.shape();
  shape[0] = count;
  ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(batched.type(), shape));
  const int64_t row = RowElements(batched);
  CopyElements(batched, begin * row, out, 0, count * row);
  return out;
}

}  // namespace onyx::serve

#include "core/tensor.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace onyx {

Result<int64_t> CheckedNumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return InvalidArgument("negative dimension " + std::to_string(d) + " in shape " + ShapeToString(shape));
    // 2^52 elements: far beyond any real tensor, and small enough that byte counts of every type fit in 64 bits.
    if (d != 0 && n > (int64_t{1} << 52) / d) return InvalidArgument("shape " + ShapeToString(shape) + " is too large");
    n *= d;
  }
  return n;
}

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

namespace {

constexpr size_t kAlignment = 64;

// The deleter of blocks from AllocateBlock; it records the block's size, which Dismantle reads back through
// std::get_deleter to tell such blocks (a buffer pool's, reusable for any tensor that fits) from any other storage.
struct AlignedBlockDeleter {
  size_t capacity = 0;
  std::shared_ptr<Tensor::BlockHome> home;  // takes the block back, where set
  void operator()(void* p) const noexcept {
    if (home == nullptr || !home->Take(p, capacity)) std::free(p);
  }
};

std::shared_ptr<void> AllocateStorage(DataType type, int64_t count, bool zero) {
  if (type == DataType::kString) {
    auto strings = std::shared_ptr<std::string[]>(new std::string[static_cast<size_t>(count > 0 ? count : 1)]);
    return std::shared_ptr<void>(strings, strings.get());
  }
  // Not an AllocateBlock block: a buffer pool takes back only its own blocks (sized by its classes), so that
  // tensors kernels allocate for themselves every run return to malloc instead of piling up in a pool.
  size_t bytes = DataTypeStorageBytes(type, static_cast<size_t>(count));
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) throw std::bad_alloc();
  if (zero) std::memset(p, 0, rounded);
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

}  // namespace

std::shared_ptr<void> Tensor::AllocateBlock(size_t bytes, std::shared_ptr<BlockHome> home) {
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) throw std::bad_alloc();
  return AdoptBlock(p, rounded, std::move(home));
}

std::shared_ptr<void> Tensor::AdoptBlock(void* block, size_t capacity, std::shared_ptr<BlockHome> home) {
  return std::shared_ptr<void>(block, AlignedBlockDeleter{capacity, std::move(home)});
}

Tensor::BlockHome* Tensor::HomeOf(const std::shared_ptr<void>& block) {
  const auto* deleter = std::get_deleter<AlignedBlockDeleter>(block);
  return deleter != nullptr ? deleter->home.get() : nullptr;
}

size_t Tensor::writable_bytes() const {
  if (type_ == DataType::kString || IsSubByte(type_) || storage_ == nullptr || data_ == nullptr) return 0;
  const auto* deleter = std::get_deleter<AlignedBlockDeleter>(storage_);
  if (deleter == nullptr) return 0;
  const auto used = static_cast<size_t>(static_cast<const char*>(data_) - static_cast<const char*>(storage_.get()));
  return deleter->capacity > used ? deleter->capacity - used : 0;
}

Tensor::Parts Tensor::Dismantle() {
  Parts parts;
  parts.shape = std::move(shape_);
  parts.shape.clear();
  // The last holder of a block gives it back even when it is a view into part of it (a Split or Slice output).
  if (type_ != DataType::kString && storage_ != nullptr && storage_.use_count() == 1) {
    if (const auto* deleter = std::get_deleter<AlignedBlockDeleter>(storage_)) {
      parts.capacity = deleter->capacity;
      parts.block = std::move(storage_);
    }
  }
  storage_.reset();
  type_ = DataType::kUndefined;
  size_ = 0;
  data_ = nullptr;
  shape_.clear();
  return parts;
}

void Tensor::Reset() {
  storage_.reset();
  type_ = DataType::kUndefined;
  size_ = 0;
  data_ = nullptr;
  shape_.clear();
}

Result<Tensor> Tensor::Create(DataType type, Shape shape, bool zero) {
  if (!IsValidDataType(static_cast<int32_t>(type))) {
    return InvalidArgument("invalid element type " + std::to_string(static_cast<int32_t>(type)));
  }
  ONYX_ASSIGN_OR_RETURN(int64_t n, CheckedNumElements(shape));
  (void)n;
  return Allocate(type, std::move(shape), zero);
}

Tensor Tensor::Allocate(DataType type, Shape shape, bool zero) {
  Tensor t;
  t.type_ = type;
  t.size_ = NumElements(shape);
  t.shape_ = std::move(shape);
  t.storage_ = AllocateStorage(type, t.size_, zero);
  t.data_ = t.storage_.get();
  return t;
}

Tensor Tensor::Borrow(DataType type, Shape shape, void* data, std::shared_ptr<void> keeper) {
  Tensor t;
  t.type_ = type;
  t.size_ = NumElements(shape);
  t.shape_ = std::move(shape);
  t.storage_ = std::move(keeper);
  t.data_ = data;
  return t;
}

Result<Tensor> Tensor::Reshaped(Shape new_shape) const {
  ONYX_ASSIGN_OR_RETURN(int64_t n, CheckedNumElements(new_shape));
  if (n != size_) {
    return InvalidArgument("cannot reshape " + ShapeToString(shape_) + " to " + ShapeToString(new_shape));
  }
  return View(type_, std::move(new_shape), 0);  // not a copy of *this: that would copy the old shape first
}

Tensor Tensor::View(DataType type, Shape shape, size_t byte_offset) const {
  Tensor t;
  t.type_ = type;
  t.size_ = NumElements(shape);
  t.shape_ = std::move(shape);
  t.storage_ = storage_;
  t.data_ = static_cast<char*>(data_) + byte_offset;
  return t;
}

Result<Tensor> Tensor::ReinterpretAs(DataType type) const {
  if (type == DataType::kString || type_ == DataType::kString || DataTypeBits(type) != DataTypeBits(type_)) {
    return InvalidArgument("cannot view " + std::string(DataTypeName(type_)) + " data as " +
                           std::string(DataTypeName(type)));
  }
  Tensor t = *this;
  t.type_ = type;
  return t;
}

Tensor Tensor::Clone() const {
  Tensor t = Allocate(type_, shape_);
  if (type_ == DataType::kString) {
    for (int64_t i = 0; i < size_; ++i) t.data<std::string>()[i] = data<std::string>()[i];
  } else if (nbytes() > 0) {
    std::memcpy(t.data_, data_, nbytes());
  }
  return t;
}

int64_t Tensor::IntAt(int64_t i) const {
  switch (type_) {
    case DataType::kInt64: return data<int64_t>()[i];
    case DataType::kInt32: return data<int32_t>()[i];
    case DataType::kInt16: return data<int16_t>()[i];
    case DataType::kInt8: return data<int8_t>()[i];
    case DataType::kUint8: return data<uint8_t>()[i];
    case DataType::kUint16: return data<uint16_t>()[i];
    case DataType::kUint32: return data<uint32_t>()[i];
    case DataType::kUint64: return static_cast<int64_t>(data<uint64_t>()[i]);
    case DataType::kBool: return data<bool>()[i] ? 1 : 0;
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kBFloat16: return static_cast<int64_t>(DoubleAt(i));
    default: return 0;  // not a numeric type kernels read as integers
  }
}

std::vector<int64_t> Tensor::ToInt64Vector() const {
  std::vector<int64_t> v(static_cast<size_t>(size_));
  for (int64_t i = 0; i < size_; ++i) v[static_cast<size_t>(i)] = IntAt(i);
  return v;
}

double Tensor::DoubleAt(int64_t i) const {
  switch (type_) {
    case DataType::kFloat: return data<float>()[i];
    case DataType::kDouble: return data<double>()[i];
    case DataType::kFloat16: return static_cast<float>(data<Float16>()[i]);
    case DataType::kBFloat16: return static_cast<float>(data<BFloat16>()[i]);
    case DataType::kUint64: return static_cast<double>(data<uint64_t>()[i]);
    case DataType::kInt64:
    case DataType::kInt32:
    case DataType::kInt16:
    case DataType::kInt8:
    case DataType::kUint8:
    case DataType::kUint16:
    case DataType::kUint32:
    case DataType::kBool: return static_cast<double>(IntAt(i));
    default: return 0;  // not a numeric type kernels read as numbers
  }
}

}  // namespace onyx

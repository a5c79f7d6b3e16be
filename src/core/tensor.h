// Tensor: an element type, a concrete shape and bytes. The bytes are owned (allocated here), borrowed (a view
// kept alive by whoever owns them) or memory-mapped (external data); all three share one representation:
// a shared_ptr that keeps the storage alive plus a data pointer into it. Copies of a Tensor share storage.
// String tensors hold an array of std::string. Sub-byte types (int4, float4e2m1, int2...) stay packed as ONNX
// packs them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/data_type.h"
#include "core/status.h"

namespace onyx {

using Shape = std::vector<int64_t>;

// Element count of a shape; error on negative dims or overflow past 2^62.
Result<int64_t> CheckedNumElements(const Shape& shape);
// Element count when the shape is known to be valid.
int64_t NumElements(const Shape& shape);
std::string ShapeToString(const Shape& shape);  // "[2, 3, 4]"
// Row-major strides in elements.
std::vector<int64_t> RowMajorStrides(const Shape& shape);

class Tensor {
 public:
  Tensor() = default;

  // Allocates uninitialized storage (strings default-constructed, other types zero-filled when `zero`).
  static Result<Tensor> Create(DataType type, Shape shape, bool zero = false);
  // Like Create, for shapes already validated (kernels computing output shapes from valid inputs).
  static Tensor Allocate(DataType type, Shape shape, bool zero = false);
  // A view over bytes owned elsewhere; `keeper` keeps them alive (may be null when the caller guarantees it).
  static Tensor Borrow(DataType type, Shape shape, void* data, std::shared_ptr<void> keeper);
  // Where a block goes when its last holder lets go of it outside the pool that made it (a session's output, which
  // the caller drops after its next run): Take keeps it for reuse or returns false (then it is freed). Thread-safe.
  class BlockHome {
   public:
    virtual ~BlockHome() = default;
    virtual bool Take(void* block, size_t capacity) noexcept = 0;
  };
  // A block of `bytes` (64-byte aligned, uninitialized) for a buffer pool (runtime/buffer_pool.h): Borrow over it,
  // keeping the block as the keeper, gives a tensor whose storage Dismantle hands back; once released by its last
  // holder it goes to `home` where given. (Allocate's own storage is not such a block: it returns to malloc.)
  static std::shared_ptr<void> AllocateBlock(size_t bytes, std::shared_ptr<BlockHome> home = nullptr);
  // The same over a block of `capacity` bytes that `home` took back (from AllocateBlock with 64-byte alignment).
  static std::shared_ptr<void> AdoptBlock(void* block, size_t capacity, std::shared_ptr<BlockHome> home);
  // The home `block` (from AllocateBlock or AdoptBlock) goes back to, null for none or for other storage.
  static BlockHome* HomeOf(const std::shared_ptr<void>& block);
  // A scalar or 1-D tensor from values.
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values, Shape shape);
  template <typename T>
  static Tensor Scalar(T value) {
    return FromVector<T>({value}, {});
  }

  bool defined() const { return type_ != DataType::kUndefined; }
  DataType type() const { return type_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim(int64_t i) const { return shape_[static_cast<size_t>(i)]; }
  int64_t size() const { return size_; }  // number of elements
  size_t nbytes() const { return DataTypeStorageBytes(type_, static_cast<size_t>(size_)); }

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  template <typename T>
  T* data() {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }
  template <typename T>
  std::span<const T> values() const {
    return {data<T>(), static_cast<size_t>(size_)};
  }
  template <typename T>
  std::span<T> mutable_values() {
    return {data<T>(), static_cast<size_t>(size_)};
  }

  // Same storage, new shape with the same element count.
  Result<Tensor> Reshaped(Shape new_shape) const;
  // Same storage and shape viewed as another element type of the same width (e.g. uint16 bits as bfloat16).
  Result<Tensor> ReinterpretAs(DataType type) const;
  // A view of `shape` elements of `type` starting `byte_offset` bytes into this tensor's data, sharing its storage
  // (the caller keeps it within bounds; not for strings). Lets producers write into part of a larger buffer.
  Tensor View(DataType type, Shape shape, size_t byte_offset) const;
  // A deep copy with its own storage.
  Tensor Clone() const;
  // Whether the storage is shared with another tensor (copy-on-write decisions).
  bool shares_storage_with(const Tensor& other) const { return storage_ == other.storage_; }
  // Whether this tensor is the only holder of its storage (no copy, view or borrower shares it).
  bool owns_storage_alone() const { return storage_ != nullptr && storage_.use_count() == 1; }
  // Bytes from data() to the end of its buffer-pool block (AllocateBlock), 0 for any other storage: the room an
  // owner may grow the tensor into (a loop's accumulator appended to in place).
  size_t writable_bytes() const;

  // What Dismantle leaves: the shape's vector, and the storage when it can be reused for another tensor.
  struct Parts {
    Shape shape;
    std::shared_ptr<void> block;  // null unless this tensor was the last holder of an AllocateBlock block
    size_t capacity = 0;          // the block's bytes
  };
  // Takes the tensor apart, leaving it undefined (a buffer pool reuses the parts without allocating).
  Parts Dismantle();
  // Makes the tensor undefined and drops its storage, keeping the shape vector's capacity, so that assigning a
  // tensor to it again copies the shape without allocating (a session's feed slots, reassigned every run).
  void Reset();

  // Reads element i of an integer tensor (any integer type) as int64; for shape-like inputs.
  int64_t IntAt(int64_t i) const;
  // The values of a 0-D or 1-D integer tensor as int64.
  std::vector<int64_t> ToInt64Vector() const;
  // Reads element i of a numeric tensor as double.
  double DoubleAt(int64_t i) const;

 private:
  DataType type_ = DataType::kUndefined;
  Shape shape_;
  int64_t size_ = 0;
  std::shared_ptr<void> storage_;
  void* data_ = nullptr;
};

template <typename T>
Tensor Tensor::FromVector(const std::vector<T>& values, Shape shape) {
  Tensor t = Allocate(DataTypeOf<T>::value, std::move(shape));
  T* out = t.data<T>();
  for (size_t i = 0; i < values.size() && static_cast<int64_t>(i) < t.size(); ++i) out[i] = values[i];
  return t;
}

}  // namespace onyx

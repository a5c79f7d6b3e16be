// BufferPool: the tensor buffers of one execution frame, kept between runs so that a session running the same
// shapes again allocates nothing for its activations. A value released after its last reader gives its block
// (and its shape's vector) back to the pool when nothing else holds it; the next request of the same size class
// (or a free block up to twice the request) takes it again. Runs of one shape signature repeat the same requests in
// the same order, so after the first runs every request finds a block and peak memory stays near that of
// lifetime-based reuse (a buffer at most twice its tensor).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "core/tensor.h"
#include "core/value.h"

namespace onyx {

class BufferPool {
 public:
  BufferPool();
  // A tensor of `type` and `shape` (uninitialized) over a free block of the size class, or a new block; with
  // `min_bytes`, a block of at least that many bytes (room to grow the tensor into: Tensor::writable_bytes).
  Tensor Allocate(DataType type, Shape shape, size_t min_bytes = 0);
  // The same with a copy of `shape` made in a recycled vector.
  Tensor AllocateCopyingShape(DataType type, const Shape& shape) { return Allocate(type, CopyShape(shape)); }
  // A copy of `shape` in a vector of a released tensor (no allocation once tensors of that rank were released).
  Shape CopyShape(const Shape& shape);
  // Empties `v`; a tensor's block returns to the pool when `v` was its only holder (else the reference is dropped).
  void Release(Value& v);

  size_t free_blocks() const { return free_.size(); }
  // Bytes a request of `bytes` takes: a multiple of 64 up to 4 KiB, then 8 steps per power of two.
  static size_t ClassBytes(size_t bytes);

 private:
  struct Block {
    size_t capacity = 0;
    std::shared_ptr<void> storage;
  };
  std::vector<Block> free_;
  std::vector<Shape> spare_shapes_;  // vectors of released tensors' shapes, reused for copies of shapes
};

}  // namespace onyx

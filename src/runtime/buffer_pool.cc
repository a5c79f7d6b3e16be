#include "runtime/buffer_pool.h"

#include <algorithm>
#include <bit>
#include <cstdlib>

namespace onyx {
namespace {

// Shapes are small; past this many spare vectors a release simply frees its shape.
constexpr size_t kMaxSpareShapes = 1024;
// A shape vector CopyShape has to (re)allocate gets room for this many dims at least: spare vectors are taken in any
// order, and one sized for rank 2 would otherwise reallocate the next time a rank-4 shape gets it.
constexpr size_t kMinShapeCapacity = 8;

// The index of the smallest of `blocks` (capacity(block) bytes each) that holds `need` bytes and is at most `largest`,
// or blocks.size() where none is: the pool's rule for reusing a block (Allocate).
template <class Blocks, class Capacity>
size_t SmallestFit(const Blocks& blocks, size_t need, size_t largest, Capacity capacity) {
  size_t best = blocks.size();
  for (size_t i = 0; i < blocks.size(); ++i) {
    const size_t c = capacity(blocks[i]);
    if (c >= need && c <= largest && (best == blocks.size() || c < capacity(blocks[best]))) best = i;
  }
  return best;
}

}  // namespace

bool BufferPool::Returns::Take(void* block, size_t capacity) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!open_ || blocks_.size() >= kMaxBlocks || bytes_ + capacity > kMaxBytes) return false;
  try {
    blocks_.emplace_back(block, capacity);
  } catch (...) {
    return false;
  }
  bytes_ += capacity;
  return true;
}

std::pair<void*, size_t> BufferPool::Returns::TakeBack(size_t need, size_t largest) {
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t best = SmallestFit(blocks_, need, largest, [](const auto& b) { return b.second; });
  if (best == blocks_.size()) return {nullptr, 0};
  const std::pair<void*, size_t> taken = blocks_[best];
  blocks_[best] = blocks_.back();
  blocks_.pop_back();
  bytes_ -= taken.second;
  return taken;
}

size_t BufferPool::Returns::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return blocks_.size();
}

void BufferPool::Returns::Close() {
  std::lock_guard<std::mutex> lock(mutex_);
  open_ = false;
  for (const auto& [block, capacity] : blocks_) std::free(block);
  blocks_.clear();
  bytes_ = 0;
}

BufferPool::~BufferPool() { returns_->Close(); }

size_t BufferPool::returned_blocks() const { return returns_->size(); }

BufferPool::BufferPool() : returns_(std::make_shared<Returns>()) {
  // The lists grow during the first runs only (to the number of blocks ever live at once); reserved up front so
  // that most graphs never grow them at all.
  free_.reserve(256);
  spare_shapes_.reserve(256);
}

size_t BufferPool::ClassBytes(size_t bytes) {
  const size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded <= 4096) return rounded == 0 ? 64 : rounded;
  const size_t step = std::bit_floor(rounded) / 8;
  return (rounded + step - 1) / step * step;
}

Tensor BufferPool::Allocate(DataType type, Shape shape, size_t min_bytes) {
  if (type == DataType::kString) return Tensor::Allocate(type, std::move(shape));
  const size_t need = std::max(min_bytes, DataTypeStorageBytes(type, static_cast<size_t>(NumElements(shape))));
  const size_t limit = ClassBytes(need);
  // The smallest free block that holds `need`, up to twice its size: a block of another class serves as well as a new
  // one (its memory is held anyway) where shapes vary within a run (a detector's pyramid levels and boxes:
  // RetinaNet's pool 273 -> 204 MB), while a small tensor never pins a much larger block that a later request needs.
  const size_t largest = std::max(limit, 2 * need);
  const size_t best = SmallestFit(free_, need, largest, [](const Block& b) { return b.capacity; });
  std::shared_ptr<void> block;
  if (best < free_.size()) {
    block = std::move(free_[best].storage);
    free_[best] = std::move(free_.back());
    free_.pop_back();
  } else if (const auto [returned, capacity] = returns_->TakeBack(need, largest); returned != nullptr) {
    block = Tensor::AdoptBlock(returned, capacity, returns_);
  } else {
    block = Tensor::AllocateBlock(limit, returns_);
  }
  void* data = block.get();
  return Tensor::Borrow(type, std::move(shape), data, std::move(block));
}

Shape BufferPool::CopyShape(const Shape& shape) {
  Shape copy;
  if (!spare_shapes_.empty()) {
    copy = std::move(spare_shapes_.back());
    spare_shapes_.pop_back();
  }
  if (copy.capacity() < shape.size()) copy.reserve(std::max(shape.size(), kMinShapeCapacity));
  copy.assign(shape.begin(), shape.end());
  return copy;
}

void BufferPool::Release(Value& v) {
  if (v.is_tensor()) {
    Tensor::Parts parts = v.tensor().Dismantle();
    if (parts.block != nullptr) {
      free_.push_back(Block{parts.capacity, std::move(parts.block)});
    }
    if (parts.shape.capacity() > 0 && spare_shapes_.size() < kMaxSpareShapes) {
      spare_shapes_.push_back(std::move(parts.shape));
    }
  }
  v = Value();
}

}  // namespace onyx

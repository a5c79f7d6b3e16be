#include "runtime/buffer_pool.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <new>

#include "runtime/memory_plan.h"

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

// The arena's alignment, that of every pool block.
constexpr size_t kArenaAlignment = 64;
// Runs of more requests than this are not planned: the planner's time grows with their square (4000 lifetimes of
// a chain with long-lived branches: 27 ms once, on the Zen 5 of session 50; 20000: 0.7 s, a stall in some run).
constexpr size_t kMaxPlannedRequests = 4000;

}  // namespace

// The planned memory, and the home of the blocks over it: a block dropped outside the pool (a tensor kept past the
// run by a caller) comes back here, from any thread, and the pool marks its bytes free at its next request.
class BufferPool::Arena : public Tensor::BlockHome {
 public:
  explicit Arena(size_t bytes) : bytes_(bytes), base_(static_cast<char*>(std::aligned_alloc(kArenaAlignment, bytes))) {
    if (base_ == nullptr) throw std::bad_alloc();
  }
  ~Arena() override { std::free(base_); }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  char* base() const { return base_; }
  size_t bytes() const { return bytes_; }
  bool Take(void* block, size_t /*capacity*/) noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      returned_.push_back(block);
    } catch (...) {
      // Unrecorded, its bytes stay taken for the pool: later requests over them get blocks of their own.
    }
    return true;  // the arena's memory, freed with it
  }
  // The blocks returned since the last call.
  void Drain(std::vector<void*>& out) {
    std::lock_guard<std::mutex> lock(mutex_);
    out.swap(returned_);
    returned_.clear();
  }

 private:
  size_t bytes_;
  char* base_;
  std::mutex mutex_;
  std::vector<void*> returned_;
};

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

void BufferPool::Returns::Free(void* block) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < blocks_.size(); ++i) {
    if (blocks_[i].first != block) continue;
    std::free(block);
    bytes_ -= blocks_[i].second;
    blocks_[i] = blocks_.back();
    blocks_.pop_back();
    return;
  }
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

BufferPool::~BufferPool() {
  // The slots' blocks before the returned ones are freed: dropping them only marks their bytes in the arena.
  slots_.clear();
  stray_.clear();
  returns_->Close();
}

size_t BufferPool::arena_bytes() const { return arena_ != nullptr ? arena_->bytes() : 0; }

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
  if (!in_run_) return AllocateDynamic(type, std::move(shape), need);
  const size_t r = run_.size();
  run_.push_back(Request{need, events_++, kNever});
  if (arena_ != nullptr && !diverged_) {
    if (r >= plan_run_.size() || plan_run_[r].need != need) {
      diverged_ = true;
    } else if (slots_[r].bytes > 0) {
      if (std::shared_ptr<void> block = TakeSlot(r)) {
        ++planned_requests_;
        void* data = block.get();
        open_.emplace_back(data, r);
        return Tensor::Borrow(type, std::move(shape), data, std::move(block));
      }
      diverged_ = true;  // its bytes are held: the requests after it may find theirs held too
    }
  }
  Tensor t = AllocateDynamic(type, std::move(shape), need);
  open_.emplace_back(t.raw(), r);
  return t;
}

std::shared_ptr<void> BufferPool::TakeSlot(size_t r) {
  Slot& slot = slots_[r];
  const auto overlaps_live = [&] {
    for (size_t l : live_slots_) {
      const Slot& o = slots_[l];
      if (o.offset < slot.offset + slot.bytes && slot.offset < o.offset + o.bytes) return true;
    }
    return false;
  };
  if (slot.live || overlaps_live()) {
    DrainArenaReturns();
    if (slot.live || overlaps_live()) return nullptr;
  }
  if (slot.block == nullptr) slot.block = Tensor::AdoptBlock(arena_->base() + slot.offset, slot.bytes, arena_);
  slot.live = true;
  live_slots_.push_back(r);
  return std::move(slot.block);
}

BufferPool::Slot* BufferPool::EndLiveSlot(const void* block) {
  for (size_t i = 0; i < live_slots_.size(); ++i) {
    Slot& s = slots_[live_slots_[i]];
    if (arena_->base() + s.offset != block) continue;
    s.live = false;
    live_slots_[i] = live_slots_.back();
    live_slots_.pop_back();
    return &s;
  }
  return nullptr;
}

void BufferPool::DrainArenaReturns() {
  std::vector<void*> returned;
  arena_->Drain(returned);
  for (void* p : returned) EndLiveSlot(p);
}

void BufferPool::BeginRun() {
  in_run_ = true;
  diverged_ = false;
  events_ = 0;
  planned_requests_ = 0;
  run_.clear();
  open_.clear();
  if (arena_ != nullptr) DrainArenaReturns();
}

void BufferPool::EndRun() {
  if (!in_run_) return;
  in_run_ = false;
  open_.clear();
  if (arena_ != nullptr) {
    if (run_ == plan_run_) return;
    DropPlan();
  }
  if (run_ != last_run_) {
    run_.swap(last_run_);
    plan_tried_ = false;
    return;
  }
  if (plan_tried_) return;
  plan_tried_ = true;
  AdoptPlan();
}

void BufferPool::AdoptPlan() {
  if (last_run_.size() > kMaxPlannedRequests) return;
  std::vector<BufferLifetime> lifetimes;
  std::vector<size_t> planned;  // the request of each lifetime
  for (size_t r = 0; r < last_run_.size(); ++r) {
    const Request& q = last_run_[r];
    if (q.last == kNever) continue;
    lifetimes.push_back(BufferLifetime{q.need, q.first, q.last});
    planned.push_back(r);
  }
  if (lifetimes.empty()) return;
  const ArenaPlan plan = PlanArena(lifetimes, kArenaAlignment);
  // Only where it holds no more than the blocks it replaces: those free now, and the blocks the requests kept past
  // the run (the outputs) may have taken from the planned ones, counted at the size they would take.
  size_t replaced = 0;
  for (const Block& b : free_) replaced += b.capacity;
  for (const Request& q : last_run_) replaced += q.last == kNever ? ClassBytes(q.need) : 0;
  if (plan.arena_bytes > replaced) return;
  FreeFreeBlocks();  // before the arena is allocated: never both at once
  arena_ = std::make_shared<Arena>(plan.arena_bytes);
  plan_run_ = last_run_;
  slots_.assign(last_run_.size(), Slot{});
  for (size_t i = 0; i < planned.size(); ++i) {
    Slot& s = slots_[planned[i]];
    s.offset = plan.offsets[i];
    s.bytes = ArenaBufferBytes(lifetimes[i].bytes, kArenaAlignment);  // what the plan placed
    // Each block made once here, so that the runs taking them allocate nothing.
    s.block = Tensor::AdoptBlock(arena_->base() + s.offset, s.bytes, arena_);
  }
  live_slots_.clear();
  live_slots_.reserve(slots_.size());
}

void BufferPool::DropPlan() {
  // Blocks of the old arena still held elsewhere keep it alive; released later, they are dropped (Release).
  slots_.clear();
  live_slots_.clear();
  stray_.clear();
  plan_run_.clear();
  arena_.reset();
}

void BufferPool::FreeFreeBlocks() {
  // A dropped free block goes to `returns_`, which frees it at once here.
  for (Block& b : free_) {
    void* p = b.storage.get();
    b.storage.reset();
    returns_->Free(p);
  }
  free_.clear();
}

Tensor BufferPool::AllocateDynamic(DataType type, Shape shape, size_t need) {
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
      const void* data = parts.block.get();
      if (in_run_) {
        for (size_t i = open_.size(); i-- > 0;) {  // the latest block at that address: the one held now
          if (open_[i].first != data) continue;
          run_[open_[i].second].last = events_++;
          open_.erase(open_.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        }
      }
      Tensor::BlockHome* home = Tensor::HomeOf(parts.block);
      if (arena_ != nullptr && home == arena_.get()) {
        if (Slot* s = EndLiveSlot(data)) {
          s->block = std::move(parts.block);
        } else {
          // Not found (none should be): kept aside, so that its bytes are never marked free (Arena::Take) while a
          // later slot over them is live.
          stray_.push_back(std::move(parts.block));
        }
      } else if (dynamic_cast<Arena*>(home) == nullptr) {
        // Not a block of an arena dropped since (those stay out of the free list: they overlap).
        free_.push_back(Block{parts.capacity, std::move(parts.block)});
      }
    }
    if (parts.shape.capacity() > 0 && spare_shapes_.size() < kMaxSpareShapes) {
      spare_shapes_.push_back(std::move(parts.shape));
    }
  }
  v = Value();
}

}  // namespace onyx

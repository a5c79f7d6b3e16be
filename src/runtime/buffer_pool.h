// BufferPool: the tensor buffers of one execution frame, kept between runs so that a session running the same
// shapes again allocates nothing for its activations. A value released after its last reader gives its block
// (and its shape's vector) back to the pool when nothing else holds it; the next request of the same size class
// (or a free block up to twice the request) takes it again. Runs of one shape signature repeat the same requests in
// the same order, so after the first runs every request finds a block and peak memory stays near that of
// lifetime-based reuse (a buffer at most twice its tensor).
//
// Blocks that leave the pool (a session's outputs, handed to the caller) come back when their last holder lets go
// of them, from any thread: a decoder's caller drops the last step's present key/values (and logits) after the next
// step, whose outputs then take those blocks instead of fresh memory (each fresh block, past glibc's mmap threshold,
// was mapped, zeroed page by page on first touch and unmapped again: 8-10% of a GPT-2-like prompt's time in the
// kernel).
//
// A frame kept between runs marks them (BeginRun/EndRun). The pool records each run's requests and releases; when a
// run repeats the previous one exactly (same bytes requested in the same order, released at the same points), the
// buffers released within the run get offsets in one arena by their lifetimes (runtime/memory_plan.h) and the next
// runs take them there: the activations of a CNN in about half the memory the size classes held (MobileNet-v2 6.7 ->
// 3.8 MB), so that more of them stay in cache from one run to the next. Tensors that outlive the run (the outputs)
// keep blocks of their own. A request that differs from the plan, or whose bytes are still held (a tensor kept
// past its planned release), gets a block as before, and a run that differs drops the plan until runs repeat again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "core/value.h"

namespace onyx {

class BufferPool {
 public:
  BufferPool();
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  // A tensor of `type` and `shape` (uninitialized) over a free block of the size class, or a new block; with
  // `min_bytes`, a block of at least that many bytes (room to grow the tensor into: Tensor::writable_bytes).
  Tensor Allocate(DataType type, Shape shape, size_t min_bytes = 0);
  // The same with a copy of `shape` made in a recycled vector.
  Tensor AllocateCopyingShape(DataType type, const Shape& shape) { return Allocate(type, CopyShape(shape)); }
  // A copy of `shape` in a vector of a released tensor (no allocation once tensors of that rank were released).
  Shape CopyShape(const Shape& shape);
  // Empties `v`; a tensor's block returns to the pool when `v` was its only holder (else the reference is dropped).
  void Release(Value& v);

  // The bounds of a run of a frame kept between runs (ExecutionFrame::BeginRun/EndRun), for the plan.
  void BeginRun();
  void EndRun();

  size_t free_blocks() const { return free_.size(); }
  // The planned arena's bytes, 0 while there is no plan.
  size_t arena_bytes() const;
  // Requests of the current run served from the arena so far.
  size_t planned_requests() const { return planned_requests_; }
  // Blocks given back by holders outside the pool since they were last taken (returned_blocks_test).
  size_t returned_blocks() const;
  // Bytes a request of `bytes` takes: a multiple of 64 up to 4 KiB, then 8 steps per power of two.
  static size_t ClassBytes(size_t bytes);

 private:
  struct Block {
    size_t capacity = 0;
    std::shared_ptr<void> storage;
  };
  // The blocks' home: takes back blocks released outside the pool, until the pool closes it.
  class Returns : public Tensor::BlockHome {
   public:
    bool Take(void* block, size_t capacity) noexcept override;
    // The smallest returned block that holds `need`, up to `largest` bytes: {block, capacity}, or {nullptr, 0}.
    std::pair<void*, size_t> TakeBack(size_t need, size_t largest);
    size_t size() const;
    // Frees `block` if it was returned (a free block the pool drops: BufferPool::FreeFreeBlocks).
    void Free(void* block);
    // Frees every returned block; later releases free theirs.
    void Close();

   private:
    // Bounds on what is kept (beyond them a released block is freed): a caller that collects the outputs of many
    // runs and drops them at once would otherwise leave them all with the pool until the session ends.
    static constexpr size_t kMaxBlocks = 256;
    static constexpr size_t kMaxBytes = size_t{512} << 20;
    mutable std::mutex mutex_;
    bool open_ = true;
    std::vector<std::pair<void*, size_t>> blocks_;
    size_t bytes_ = 0;
  };
  // One request of a run: its bytes, and the events (requests and releases, counted from the run's start) of the
  // request and of its block's release back to the pool; kNever when not released within the run.
  struct Request {
    size_t need = 0;
    uint32_t first = 0, last = 0;
    bool operator==(const Request&) const = default;
  };
  static constexpr uint32_t kNever = UINT32_MAX;
  class Arena;
  // Per request of the planned run: where its bytes are (bytes 0: not planned, an output), the block over them
  // while the pool holds it, and whether a tensor holds it now.
  struct Slot {
    size_t offset = 0, bytes = 0;
    std::shared_ptr<void> block;
    bool live = false;
  };
  Tensor AllocateDynamic(DataType type, Shape shape, size_t need);
  // Request `r`'s planned block, or nothing where bytes it overlaps are still held.
  std::shared_ptr<void> TakeSlot(size_t r);
  // The live slot whose block is `block`, marked not live, or null where none is.
  Slot* EndLiveSlot(const void* block);
  // Marks the slots whose blocks came back from outside the pool as free.
  void DrainArenaReturns();
  void AdoptPlan();
  void DropPlan();
  // Frees the free blocks (not to `returns_`).
  void FreeFreeBlocks();

  std::vector<Block> free_;
  std::shared_ptr<Returns> returns_;
  std::vector<Shape> spare_shapes_;  // vectors of released tensors' shapes, reused for copies of shapes

  bool in_run_ = false;
  bool diverged_ = false;    // this run left the plan (the rest of it allocates as without one)
  bool plan_tried_ = false;  // last_run_ was planned already (or its plan was not smaller)
  uint32_t events_ = 0;
  size_t planned_requests_ = 0;
  std::vector<Request> run_, last_run_;
  std::vector<std::pair<const void*, size_t>> open_;  // blocks handed out in this run and the request of each
  std::shared_ptr<Arena> arena_;
  std::vector<Request> plan_run_;  // the run the plan was made for
  std::vector<Slot> slots_;        // per request of plan_run_
  std::vector<size_t> live_slots_;
  std::vector<std::shared_ptr<void>> stray_;  // arena blocks released without a live slot (Release)
};

}  // namespace onyx

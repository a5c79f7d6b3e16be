// oneDNN plumbing shared by the kernels that call its primitives: one CPU engine for the process, a stream per
// thread, and the conversion of oneDNN's exceptions into onyx's Status (library code never lets them escape).
#pragma once

#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/status.h"

namespace onyx::kernels {

const dnnl::engine& DnnlEngine();
dnnl::stream& DnnlStream();

// Whether oneDNN runs channel-blocked float convolutions (nChw16c with AVX-512, nChw8c with AVX2: see
// kernels/cpu_isa.h, NchwcBlockSize) with its JIT kernels on this CPU, as limited by ONYX_MAX_ISA. Elsewhere it would
// fall back to its reference loops, hundreds of times slower, so the blocked-layout pass stays off.
bool BlockedConvolutionIsFast();

// Below this many floating-point operations a primitive runs on one thread: splitting it costs more than it
// saves (measured here: ~20 us per oneDNN parallel region on 2 threads, against a few us of work in the small
// convolutions of MobileNet-style and audio models). 2M measured best over the benchmark models at 2 threads:
// 4M favoured PaddleOCR and BlazeFace by ~7% but cost MobileNet-v2 ~6%; 1M the reverse.
inline constexpr int64_t kSmallPrimitiveFlops = int64_t{2} << 20;

// A primitive that streams at least this many bytes of an operand from memory takes the threads even when its flops
// are few: it is bandwidth-bound, and every core's share of the bandwidth helps (a decoder's per-token step, 1 x 512
// by a 512 x 1536 weight: 2 threads gave 1.5x the tokens/s of 1).
inline constexpr int64_t kLargeStreamBytes = int64_t{1} << 20;

// The thread count to build and run a primitive of `flops` work that streams `streamed_bytes` of operands (0 when
// not worth counting), given the session's `threads`.
inline int PrimitiveThreads(int64_t flops, int threads, int64_t streamed_bytes = 0) {
  return flops < kSmallPrimitiveFlops && streamed_bytes < kLargeStreamBytes ? 1 : threads;
}

// Sets OpenMP's thread count for the calling thread (oneDNN reads it when it creates and runs a primitive) and
// restores it when it goes out of scope; does nothing when `threads` already is the count.
class ScopedOmpThreads {
 public:
  explicit ScopedOmpThreads(int threads);
  ~ScopedOmpThreads();
  ScopedOmpThreads(const ScopedOmpThreads&) = delete;
  ScopedOmpThreads& operator=(const ScopedOmpThreads&) = delete;

 private:
  int saved_ = 0;
};

// A primitive's arguments, built once and pointed at each run's buffers. oneDNN's C++ calls made afresh per run
// (a dnnl::memory per argument, an args map, execute's vector of C arguments) cost ~5 heap allocations per
// argument and execution (issue 18: no allocation per run in steady state); this keeps them. Not thread-safe: a
// kernel whose runs may overlap uses it under a try_lock and builds arguments per call when it is busy.
class DnnlArgs {
 public:
  // Adds argument `arg` (DNNL_ARG_SRC, ...) of layout `md`; Set gives its data before each Execute.
  void Add(int arg, const dnnl::memory::desc& md);
  // Adds argument `arg` as `memory` itself (weights reordered once, say): no Set needed.
  void Add(int arg, const dnnl::memory& memory);
  // For a primitive created with scratchpad_mode::user (UserScratchpadAttr): its scratchpad of `md`'s size, held
  // here (grown only when a rebuilt primitive needs more), instead of oneDNN's own per execution.
  void AddScratchpad(const dnnl::memory::desc& md);
  // For a primitive created with UserScratchpadAttr: the scratchpad of `md`'s size is the executing thread's
  // (ThreadScratchpad's buffer, shared by the primitives a thread runs one after another), pointed at by Execute.
  void AddThreadScratchpad(const dnnl::memory::desc& md);
  // Points argument `arg` at `data`.
  void Set(int arg, const void* data);
  // Runs `primitive` on the calling thread's stream with these arguments; waits unless `wait` is false (the caller
  // then waits on DnnlStream() before reading the results).
  void Execute(const dnnl::primitive& primitive, bool wait = true) const;
  void Clear();
  bool empty() const { return args_.empty(); }

 private:
  std::vector<dnnl::memory> memories_;  // per argument, in args_' order
  std::vector<dnnl_exec_arg_t> args_;
  std::shared_ptr<void> scratchpad_;
  size_t scratchpad_bytes_ = 0;
  int thread_scratchpad_ = -1;  // the index in args_ of a thread scratchpad, -1 for none
  size_t thread_scratchpad_bytes_ = 0;
};

// Primitive attributes that leave the scratchpad to the caller (DnnlArgs::AddScratchpad, ThreadScratchpad).
//
// Every primitive a kernel keeps between runs must be created so: oneDNN (as Debian builds it, without
// ONEDNN_ENABLE_CONCURRENT_EXEC) gives a primitive in its default scratchpad mode ONE scratchpad, which two runs of a
// session executing the primitive at once would share (wrong results, crashes: tests/unit/concurrent_runs_test.cc).
dnnl::primitive_attr UserScratchpadAttr();
// The calling thread's scratchpad as a memory of `md` (a primitive's scratchpad_desc()): one buffer per thread, grown
// when a primitive needs more, shared by the primitives the thread runs one after another.
dnnl::memory ThreadScratchpad(const dnnl::memory::desc& md);
// The calling thread's scratchpad buffer, at least `bytes` long and 64-byte aligned (what ThreadScratchpad wraps).
void* ThreadScratchpadData(size_t bytes);
// Adds DNNL_ARG_SCRATCHPAD (the thread's) to `args` when `pd` (created with UserScratchpadAttr) needs one.
void AddThreadScratchpad(const dnnl::primitive_desc_base& pd, std::unordered_map<int, dnnl::memory>& args);

// Runs f (which may throw dnnl::error) and turns a failure into an Internal error naming `what`.
template <typename F>
Status DnnlCall(const std::string& what, F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const dnnl::error& e) {
    return Internal(what + ": oneDNN: " + e.what());
  }
  return Status::Ok();
}

}  // namespace onyx::kernels

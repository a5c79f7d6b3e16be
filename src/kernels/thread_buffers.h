// Per-thread working buffers, grown to the largest request and reused by every kernel the thread runs. A kernel's
// temporaries (oneDNN's scratchpad, onyx's own Winograd tiles, the buffer between two primitives of one node) then
// cost the largest node's size once per thread, where a buffer kept per node cost every node's size for the session's
// lifetime (RetinaNet-ResNet50-FPN: ~185 MB of per-node Winograd tiles and intermediates).
//
// A slot's buffer stays valid until the same thread asks that slot for more bytes: a kernel takes each slot once per
// run, and the slots a kernel uses at the same time are distinct.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onyx::kernels {

enum class ThreadBufferSlot {
  kDnnlScratchpad,  // oneDNN primitives' scratchpads (ThreadScratchpad, kernels/dnnl_util.h)
  kKernelScratch,   // an onyx kernel's own temporaries
  kIntermediate,    // a tensor passed between two steps of one node
  kIntermediate2,   // a second one, alive together with kIntermediate
  kCount,
};

// The calling thread's buffer for `slot`, at least `bytes` long, 64-byte aligned, contents unspecified.
void* ThreadBuffer(ThreadBufferSlot slot, size_t bytes);

inline float* ThreadFloats(ThreadBufferSlot slot, int64_t count) {
  return static_cast<float*>(ThreadBuffer(slot, static_cast<size_t>(count > 0 ? count : 1) * sizeof(float)));
}

}  // namespace onyx::kernels

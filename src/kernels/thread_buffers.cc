#include "kernels/thread_buffers.h"

#include <memory>

namespace onyx::kernels {

void* ThreadBuffer(ThreadBufferSlot slot, size_t bytes) {
  struct Buffer {
    std::unique_ptr<uint8_t[]> data;
    size_t bytes = 0;
  };
  thread_local Buffer buffers[static_cast<size_t>(ThreadBufferSlot::kCount)];
  Buffer& buffer = buffers[static_cast<size_t>(slot)];
  if (bytes > buffer.bytes || buffer.data == nullptr) {
    buffer.data.reset();  // the old block goes before the new one is taken: one of them at a time
    buffer.data.reset(new uint8_t[bytes + 64]);
    buffer.bytes = bytes;
  }
  void* aligned = buffer.data.get();
  size_t space = buffer.bytes + 64;
  std::align(64, bytes, aligned, space);
  return aligned;
}

}  // namespace onyx::kernels

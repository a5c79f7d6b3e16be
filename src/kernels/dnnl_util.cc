#include "kernels/dnnl_util.h"

#include <omp.h>

#include <cstdlib>
#include <memory>
#include <new>

#include "kernels/cpu_isa.h"
#include "kernels/thread_buffers.h"

namespace onyx::kernels {

const dnnl::engine& DnnlEngine() {
  static const dnnl::engine engine = [] {
    ApplyIsaCap();  // before oneDNN picks its kernels' ISA
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return engine;
}

dnnl::stream& DnnlStream() {
  thread_local dnnl::stream stream(DnnlEngine());
  return stream;
}

ScopedOmpThreads::ScopedOmpThreads(int threads) {
  const int current = omp_get_max_threads();
  if (threads > 0 && threads != current) {
    saved_ = current;
    omp_set_num_threads(threads);
  }
}

ScopedOmpThreads::~ScopedOmpThreads() {
  if (saved_ > 0) omp_set_num_threads(saved_);
}

void DnnlArgs::Add(int arg, const dnnl::memory::desc& md) {
  memories_.emplace_back(md, DnnlEngine(), static_cast<void*>(DNNL_MEMORY_NONE));
  args_.push_back(dnnl_exec_arg_t{arg, memories_.back().get()});
}

void DnnlArgs::Add(int arg, const dnnl::memory& memory) {
  memories_.push_back(memory);
  args_.push_back(dnnl_exec_arg_t{arg, memories_.back().get()});
}

void DnnlArgs::AddThreadScratchpad(const dnnl::memory::desc& md) {
  const size_t bytes = md.get_size();
  if (bytes == 0) return;
  thread_scratchpad_ = static_cast<int>(args_.size());
  thread_scratchpad_bytes_ = bytes;
  Add(DNNL_ARG_SCRATCHPAD, md);
}

void DnnlArgs::AddScratchpad(const dnnl::memory::desc& md) {
  const size_t bytes = md.get_size();
  if (bytes == 0) return;
  if (bytes > scratchpad_bytes_) {
    const size_t rounded = (bytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (p == nullptr) throw std::bad_alloc();
    scratchpad_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
    scratchpad_bytes_ = rounded;
  }
  memories_.emplace_back(md, DnnlEngine(), scratchpad_.get());
  args_.push_back(dnnl_exec_arg_t{DNNL_ARG_SCRATCHPAD, memories_.back().get()});
}

void DnnlArgs::Set(int arg, const void* data) {
  for (size_t i = 0; i < args_.size(); ++i) {
    if (args_[i].arg == arg) {
      memories_[i].set_data_handle(const_cast<void*>(data));
      return;
    }
  }
  throw dnnl::error(dnnl_invalid_arguments, "DnnlArgs::Set: no such argument");
}

void DnnlArgs::Execute(const dnnl::primitive& primitive, bool wait) const {
  dnnl::stream& stream = DnnlStream();
  if (thread_scratchpad_ >= 0) {
    memories_[static_cast<size_t>(thread_scratchpad_)].set_data_handle(ThreadScratchpadData(thread_scratchpad_bytes_));
  }
  dnnl::error::wrap_c_api(
      dnnl_primitive_execute(primitive.get(), stream.get(), static_cast<int>(args_.size()), args_.data()),
      "could not execute a primitive");
  if (wait) stream.wait();
}

void DnnlArgs::Clear() {
  args_.clear();
  memories_.clear();
  thread_scratchpad_ = -1;
  thread_scratchpad_bytes_ = 0;
}

dnnl::primitive_attr UserScratchpadAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

bool BlockedConvolutionIsFast() { return NchwcBlockSize() > 0; }

void* ThreadScratchpadData(size_t bytes) { return ThreadBuffer(ThreadBufferSlot::kDnnlScratchpad, bytes); }

dnnl::memory ThreadScratchpad(const dnnl::memory::desc& md) {
  return dnnl::memory(md, DnnlEngine(), ThreadScratchpadData(md.get_size()));
}

void AddThreadScratchpad(const dnnl::primitive_desc_base& pd, std::unordered_map<int, dnnl::memory>& args) {
  const dnnl::memory::desc md = pd.scratchpad_desc();
  if (md.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, ThreadScratchpad(md));
}

}  // namespace onyx::kernels

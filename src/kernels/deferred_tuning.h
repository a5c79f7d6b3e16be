// Tuning deferred to the end of a run. A kernel that finds no cached choice for a shape (kernels/tuning_cache.h, mode
// cache) runs that run by its fixed rule and queues the timing here; the session times the queued shapes after the
// run, those with most to gain first, while the process's miss budget lasts, and the kernels take the winners from
// the next run on. Timed in graph order instead, a cold cache spent its budget on the first layers whatever they were
// worth: ResNet-50's first process timed 5 of its 27 convolution shapes (AVX-512 Xeon), the early 1x1 ones whose
// fixed rule was already right, and none of the 3x3 ones whose choice moves their time by 1.4-1.7x. Where the timing
// changed a kernel's implementation the session computes that run again (Session::BindAndExecute), so that its
// answers all come from the same kernels (another algorithm, e.g. Winograd, rounds differently). For the same reason
// the session runs the queue only before any of its runs has returned outputs and while no other run executes its
// kernels (Session::Execute); otherwise the queue is dropped and a later session times those shapes.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace onyx::kernels {

class DeferredTuning {
 public:
  // Queues `tune`, which installs the cached choice of its shape if one was recorded since (by an earlier request
  // for the same shape), else times the candidates and installs the winner while the process's miss budget lasts
  // (TuningCache::MissBudgetLeft), else does nothing (the fixed rule's choice stays; so on any failure); it returns
  // whether the kernel now computes otherwise than in the run (a choice other than the fixed rule's).
  // `priority` orders the requests of one run: the kernel's estimate of what timing can gain, comparable between
  // kernels (NchwcConv: FLOPs times the kinds of algorithm it may choose between). Requests of one `key` (the shape's
  // tuning signature: nodes of one shape share the timing, the first request times it and the others find its
  // choice cached) count together: their priorities add up, and they run one after the other.
  void Add(const std::string& key, double priority, std::function<bool()> tune);
  bool empty() const;
  // Runs the queued requests, keys of the highest total priority first (ties in the order they were first queued),
  // and empties the queue. Those that find the budget spent keep the fixed rule in this process; the next process
  // times them. Returns whether any request changed its kernel's implementation.
  bool RunAll();

 private:
  struct Request {
    std::string key;
    double priority = 0;
    std::function<bool()> tune;
  };
  mutable std::mutex mutex_;
  std::vector<Request> requests_;
};

}  // namespace onyx::kernels

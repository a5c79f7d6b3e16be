#include "serve/run_queue.h"

#include <algorithm>

namespace onyx::serve {

RunQueue::RunQueue(int max_concurrent_runs, int64_t max_waiting)
    : max_concurrent_runs_(std::clamp(max_concurrent_runs, 1, 1024)),
      slots_(max_concurrent_runs_),
      max_waiting_(std::max<int64_t>(max_waiting, 1)) {}

RunQueue::Ticket& RunQueue::Ticket::operator=(Ticket&& o) noexcept {
  if (this != &o) {
    Release();
    queue_ = o.queue_;
    o.queue_ = nullptr;
  }
  return *this;
}

void RunQueue::Ticket::Release() {
  if (queue_ != nullptr) queue_->waiting_.fetch_sub(1);
  queue_ = nullptr;
}

RunQueue::Ticket RunQueue::Admit() {
  if (waiting_.fetch_add(1) >= max_waiting_) {
    waiting_.fetch_sub(1);
    return Ticket();
  }
  return Ticket(this);
}

}  // namespace onyx::serve

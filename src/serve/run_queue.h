// The server-wide limits on inference work: how many model runs go at once (--concurrency: one keeps each run's
// intra-op threads to themselves) and how many requests may wait for one (--max-queue). A request over the queue
// limit is refused at once (503) rather than piling up memory and latency.
#pragma once

#include <atomic>
#include <cstdint>
#include <semaphore>

namespace onyx::serve {

class RunQueue {
 public:
  RunQueue(int max_concurrent_runs, int64_t max_waiting);

  // A place in the queue: held from admission until the request's run starts (or it fails). Movable, RAII.
  class Ticket {
   public:
    Ticket() = default;
    explicit Ticket(RunQueue* queue) : queue_(queue) {}
    Ticket(Ticket&& o) noexcept : queue_(o.queue_) { o.queue_ = nullptr; }
    Ticket& operator=(Ticket&& o) noexcept;
    ~Ticket() { Release(); }
    explicit operator bool() const { return queue_ != nullptr; }
    void Release();

   private:
    RunQueue* queue_ = nullptr;
  };
  // A ticket, or an empty one when max_waiting requests already wait.
  Ticket Admit();

  // A run slot, held for the duration of one model run.
  class Slot {
   public:
    explicit Slot(RunQueue& queue) : queue_(queue) {
      queue_.slots_.acquire();
      queue_.running_.fetch_add(1, std::memory_order_relaxed);
    }
    ~Slot() {
      queue_.running_.fetch_sub(1, std::memory_order_relaxed);
      queue_.slots_.release();
    }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;

   private:
    RunQueue& queue_;
  };

  int max_concurrent_runs() const { return max_concurrent_runs_; }
  int64_t waiting() const { return waiting_.load(); }
  int running() const { return running_.load(std::memory_order_relaxed); }
  // No model run in progress and none waiting for one.
  bool idle() const { return running() == 0 && waiting() == 0; }
  int64_t max_waiting() const { return max_waiting_; }

 private:
  const int max_concurrent_runs_;
  std::counting_semaphore<1024> slots_;
  std::atomic<int64_t> waiting_{0};
  std::atomic<int> running_{0};
  const int64_t max_waiting_;
};

}  // namespace onyx::serve

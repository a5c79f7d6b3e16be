// The dynamic batcher of one model version (as Triton's): requests that arrive within `max_queue_delay_us` of the
// oldest waiting one are stacked along the first dim, up to `max_batch_size` rows, run once and split back. Only
// requests that agree on input names, element types, the dims after the first and the outputs asked for share a
// batch; others wait for the next. Requests are validated before they get here, and should a batched run still
// fail, its requests are run one by one so that each gets its own answer: a bad request never fails its
// batch-mates. As many worker threads as the server runs models at once (--concurrency), each forming and running
// its own batches, so that batching does not cap a model at one run at a time; they drain what is queued before the
// destructor returns.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "runtime/session.h"
#include "serve/metrics.h"
#include "serve/run_queue.h"

namespace onyx::serve {

using Feeds = std::vector<std::pair<std::string, Value>>;

// Where an answered request spent its time.
struct RunTiming {
  double queue_seconds = 0;    // admitted -> its run started
  double compute_seconds = 0;  // the run (of its whole batch)
};

class DynamicBatcher {
 public:
  // `session`, `runs` and `metrics` outlive the batcher.
  DynamicBatcher(const Session& session, int64_t max_batch_size, int64_t max_queue_delay_us, RunQueue& runs,
                 InferenceMetrics& metrics);
  ~DynamicBatcher();
  DynamicBatcher(const DynamicBatcher&) = delete;
  DynamicBatcher& operator=(const DynamicBatcher&) = delete;

  // Runs one request as part of a batch; blocks until it is answered. Every feed is a tensor whose first dim is the
  // request's row count (the same for all feeds, at most max_batch_size). `ticket` is released once the run starts.
  Result<std::vector<Value>> Run(Feeds feeds, const std::vector<std::string>& output_names, RunQueue::Ticket ticket,
                                 RunTiming* timing);

 private:
  struct Pending;
  void Loop();
  int64_t CompatibleRows() const;  // rows of the queued requests that could join the oldest one's batch
  void Execute(std::vector<Pending*>& batch);

  const Session& session_;
  const int64_t max_batch_size_;
  const std::chrono::microseconds max_delay_;
  RunQueue& runs_;
  InferenceMetrics& metrics_;

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Pending*> queue_;  // each owned by the thread blocked in Run()
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace onyx::serve

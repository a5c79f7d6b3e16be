#include "serve/batcher.h"

#include <algorithm>
#include <future>

#include "serve/batch_tensors.h"

namespace onyx::serve {

using Clock = std::chrono::steady_clock;

struct DynamicBatcher::Pending {
  Feeds feeds;  // sorted by name
  const std::vector<std::string>* output_names;
  int64_t rows = 0;
  RunQueue::Ticket ticket;
  Clock::time_point enqueued = Clock::now();
  RunTiming timing;
  std::promise<Result<std::vector<Value>>> answer;
};

namespace {

bool Compatible(const Feeds& a, const std::vector<std::string>& a_outputs, const Feeds& b,
                const std::vector<std::string>& b_outputs) {
  if (a.size() != b.size() || a_outputs != b_outputs) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first || !SameBatchShape(a[i].second.tensor(), b[i].second.tensor())) return false;
  }
  return true;
}

}  // namespace

DynamicBatcher::DynamicBatcher(const Session& session, int64_t max_batch_size, int64_t max_queue_delay_us,
                               RunQueue& runs, InferenceMetrics& metrics)
    : session_(session),
      max_batch_size_(std::max<int64_t>(max_batch_size, 1)),
      max_delay_(max_queue_delay_us),
      runs_(runs),
      metrics_(metrics) {
  const int workers = std::clamp(runs.max_concurrent_runs(), 1, 64);
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { Loop(); });
}

DynamicBatcher::~DynamicBatcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& w : workers_) w.join();
}

Result<std::vector<Value>> DynamicBatcher::Run(Feeds feeds, const std::vector<std::string>& output_names,
                                               RunQueue::Ticket ticket, RunTiming* timing) {
  Pending pending;
  std::sort(feeds.begin(), feeds.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  pending.rows = feeds.empty() ? 0 : feeds[0].second.tensor().shape()[0];
  pending.feeds = std::move(feeds);
  pending.output_names = &output_names;
  pending.ticket = std::move(ticket);
  auto answer = pending.answer.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(&pending);
  }
  cv_.notify_all();
  Result<std::vector<Value>> result = answer.get();
  if (timing != nullptr) *timing = pending.timing;
  return result;
}

int64_t DynamicBatcher::CompatibleRows() const {
  const Pending& first = *queue_.front();
  int64_t rows = 0;
  for (const Pending* p : queue_) {
    if (Compatible(first.feeds, *first.output_names, p->feeds, *p->output_names)) rows += p->rows;
  }
  return rows;
}

void DynamicBatcher::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    // Wait for the batch to fill, at most max_delay_ after the oldest request arrived. When stopping, what is
    // queued runs at once. Another worker may take the oldest request meanwhile: then start over.
    const Pending* oldest = queue_.front();
    const Clock::time_point deadline = oldest->enqueued + max_delay_;
    auto still_oldest = [&] { return !queue_.empty() && queue_.front() == oldest; };
    while (!stop_ && still_oldest() && CompatibleRows() < max_batch_size_ && Clock::now() < deadline) {
      cv_.wait_until(lock, deadline);
    }
    if (!still_oldest()) continue;
    std::vector<Pending*> batch = {queue_.front()};
    queue_.pop_front();
    int64_t rows = batch[0]->rows;
    for (auto it = queue_.begin(); it != queue_.end() && rows < max_batch_size_;) {
      Pending* p = *it;
      if (rows + p->rows <= max_batch_size_ &&
          Compatible(batch[0]->feeds, *batch[0]->output_names, p->feeds, *p->output_names)) {
        batch.push_back(p);
        rows += p->rows;
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
    lock.unlock();
    Execute(batch);
    lock.lock();
  }
}

void DynamicBatcher::Execute(std::vector<Pending*>& batch) {
  RunQueue::Slot slot(runs_);
  const Clock::time_point started = Clock::now();
  for (Pending* p : batch) {
    p->ticket.Release();
    p->timing.queue_seconds = std::chrono::duration<double>(started - p->enqueued).count();
  }
  const std::vector<std::string>& output_names = *batch[0]->output_names;

  // Each request on its own: a batch of one, or the fallback when the batched run fails.
  auto run_alone = [&](Pending* p) {
    const Clock::time_point t0 = Clock::now();
    std::vector<Value> outputs;
    Status st = session_.Run(p->feeds, output_names, &outputs);
    p->timing.compute_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    metrics_.RecordBatch(1);
    if (st.ok()) {
      p->answer.set_value(std::move(outputs));
    } else {
      p->answer.set_value(st);
    }
  };
  if (batch.size() == 1) {
    run_alone(batch[0]);
    return;
  }

  // Stack, run once, split back; anything unexpected (an output without the batch dim, a failed run) falls back.
  auto batched = [&]() -> Result<std::vector<std::vector<Value>>> {
    Feeds stacked;
    int64_t total = 0;
    for (const Pending* p : batch) total += p->rows;
    for (size_t i = 0; i < batch[0]->feeds.size(); ++i) {
      std::vector<const Tensor*> parts;
      for (const Pending* p : batch) parts.push_back(&p->feeds[i].second.tensor());
      ONYX_ASSIGN_OR_RETURN(Tensor t, StackBatch(parts));
      stacked.emplace_back(batch[0]->feeds[i].first, Value(std::move(t)));
    }
    std::vector<Value> outputs;
    ONYX_RETURN_IF_ERROR(session_.Run(stacked, output_names, &outputs));
    std::vector<std::vector<Value>> split(batch.size());
    for (size_t o = 0; o < outputs.size(); ++o) {
      if (!outputs[o].is_tensor() || outputs[o].tensor().shape().empty() || outputs[o].tensor().shape()[0] != total) {
        return Unsupported("output " + std::to_string(o) + " has no batch dim");
      }
      int64_t begin = 0;
      for (size_t r = 0; r < batch.size(); ++r) {
        ONYX_ASSIGN_OR_RETURN(Tensor part, SliceBatch(outputs[o].tensor(), begin, batch[r]->rows));
        split[r].emplace_back(std::move(part));
        begin += batch[r]->rows;
      }
    }
    return split;
  };
  const Clock::time_point t0 = Clock::now();
  auto result = batched();
  if (!result.ok()) {
    for (Pending* p : batch) run_alone(p);
    return;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  metrics_.RecordBatch(static_cast<int64_t>(batch.size()));
  for (size_t r = 0; r < batch.size(); ++r) {
    batch[r]->timing.compute_seconds = seconds;
    batch[r]->answer.set_value(std::move((*result)[r]));
  }
}

}  // namespace onyx::serve

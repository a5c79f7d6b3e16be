// One loaded version of a served model: its session (shared by every request; Session::Run is thread-safe), the
// names clients use, request validation, and the run itself, through the dynamic batcher when the model batches.
// Requests hold a shared_ptr to it, so an unloaded version lives until its in-flight requests finish, and its
// memory goes back then (the destructor).
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/session.h"
#include "serve/batcher.h"
#include "serve/inference_protocol.h"
#include "serve/metrics.h"
#include "serve/model_config.h"
#include "serve/run_queue.h"

namespace onyx::serve {

// The server's defaults for what a model's config.json leaves unset (the command line's options).
struct ServingDefaults {
  SessionOptions session;
  int64_t max_batch_size = 0;  // 0: no dynamic batching
  int64_t max_queue_delay_us = 0;
};

class ServedModel {
 public:
  // Loads `path` (an ONNX file, or a Keras/TensorFlow/TFLite file or SavedModel folder, converted at opset 17).
  // `runs` outlives the model. A config that asks for batching a model cannot batch is an error; a server-wide
  // default (no max_batch_size in the config) just leaves such a model unbatched.
  static Result<std::shared_ptr<ServedModel>> Load(const std::string& name, const std::string& version,
                                                   const std::string& path, const ModelConfig& config,
                                                   const ServingDefaults& defaults, RunQueue& runs,
                                                   std::shared_ptr<InferenceMetrics> metrics);
  ~ServedModel();
  ServedModel(const ServedModel&) = delete;
  ServedModel& operator=(const ServedModel&) = delete;

  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }
  const std::string& path() const { return path_; }
  int64_t max_batch_size() const { return batcher_ ? max_batch_size_ : 0; }
  InferenceMetrics& metrics() const { return *metrics_; }

  // GET /v2/models/{name}[/versions/{v}]: inputs and outputs under their served names; `versions` are the model's
  // loaded versions.
  nlohmann::json Metadata(const std::vector<std::string>& versions) const;

  // Checks a parsed request against the model before it queues (names, element types, ranks, static dims; with
  // batching, a shared first dim up to max_batch_size), and renames served names to the graph's. Every error is a
  // client error (InvalidArgument) naming the input or output. Fills `served_outputs` with the outputs' served
  // names, in answer order.
  Status Prepare(InferRequest& request, std::vector<std::string>* served_outputs) const;

  // Runs a prepared request, batched with others when the model batches; `ticket` is released when its run starts.
  Result<std::vector<Value>> Run(InferRequest& request, RunQueue::Ticket ticket, RunTiming* timing) const;

 private:
  ServedModel() = default;

  std::string name_, version_, path_;
  std::unique_ptr<const Session> session_;
  std::shared_ptr<InferenceMetrics> metrics_;
  RunQueue* runs_ = nullptr;
  int64_t max_batch_size_ = 0;
  std::unique_ptr<DynamicBatcher> batcher_;
  std::map<std::string, std::string> input_served_, output_served_;  // graph name -> served name
  std::map<std::string, std::string> input_graph_, output_graph_;    // served name -> graph name
};

}  // namespace onyx::serve

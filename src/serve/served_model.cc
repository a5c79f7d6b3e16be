#include "serve/served_model.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "convert/convert_file.h"

namespace onyx::serve {
namespace {

std::string Served(const std::map<std::string, std::string>& names, const std::string& graph_name) {
  auto it = names.find(graph_name);
  return it == names.end() ? graph_name : it->second;
}

Result<std::unique_ptr<Session>> OpenSession(const std::string& path, const SessionOptions& options) {
  if (!convert::IsConvertibleFile(path)) return Session::Load(path, options);
  ONYX_ASSIGN_OR_RETURN(ir::Model model, convert::ConvertFile(path, 17));
  return Session::Create(std::move(model), options);
}

// Why the model's inputs cannot be stacked along their first dim ("" when they can).
std::string WhyNotBatchable(const Session& session) {
  if (session.inputs().empty()) return "the model has no inputs";
  for (const ir::ValueInfo* in : session.inputs()) {
    if (!in->type || !in->type->is_tensor() || !in->type->shape || in->type->shape->empty()) {
      return "input '" + in->name + "' has no known rank >= 1";
    }
    if ((*in->type->shape)[0].is_value()) {
      return "input '" + in->name + "' has a fixed first dim " + std::to_string((*in->type->shape)[0].value);
    }
  }
  return "";
}

}  // namespace

Result<std::shared_ptr<ServedModel>> ServedModel::Load(const std::string& name, const std::string& version,
                                                       const std::string& path, const ModelConfig& config,
                                                       const ServingDefaults& defaults, RunQueue& runs,
                                                       std::shared_ptr<InferenceMetrics> metrics) {
  SessionOptions options = defaults.session;
  if (config.threads) options.intra_op_num_threads = *config.threads;
  if (config.optimization_level) options.optimization_level = *config.optimization_level;
  ONYX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, OpenSession(path, options));

  std::shared_ptr<ServedModel> model(new ServedModel());
  model->name_ = name;
  model->version_ = version;
  model->path_ = path;
  model->metrics_ = std::move(metrics);
  model->runs_ = &runs;
  // Served names: config overrides must name real inputs and outputs.
  for (const auto& renamed : config.input_names) {
    const std::string& graph_name = renamed.first;  // a plain reference: clang < 16 cannot capture bindings
    const bool found = std::any_of(session->inputs().begin(), session->inputs().end(),
                                   [&](const ir::ValueInfo* v) { return v->name == graph_name; });
    if (!found) return InvalidArgument("config.json renames input '" + graph_name + "', which the model lacks");
  }
  for (const auto& renamed : config.output_names) {
    const std::string& graph_name = renamed.first;
    const bool found = std::any_of(session->outputs().begin(), session->outputs().end(),
                                   [&](const ir::ValueInfo& v) { return v.name == graph_name; });
    if (!found) return InvalidArgument("config.json renames output '" + graph_name + "', which the model lacks");
  }
  for (const ir::ValueInfo* in : session->inputs()) {
    const std::string served = Served(config.input_names, in->name);
    if (!model->input_graph_.emplace(served, in->name).second) {
      return InvalidArgument("config.json serves two inputs as '" + served + "'");
    }
    model->input_served_[in->name] = served;
  }
  for (const ir::ValueInfo& out : session->outputs()) {
    const std::string served = Served(config.output_names, out.name);
    if (!model->output_graph_.emplace(served, out.name).second) {
      return InvalidArgument("config.json serves two outputs as '" + served + "'");
    }
    model->output_served_[out.name] = served;
  }

  const int64_t max_batch = config.max_batch_size.value_or(defaults.max_batch_size);
  if (max_batch > 0) {
    const std::string why_not = WhyNotBatchable(*session);
    if (!why_not.empty() && config.max_batch_size) {
      return InvalidArgument("config.json sets max_batch_size " + std::to_string(max_batch) +
                             " but the model cannot be batched: " + why_not);
    }
    if (why_not.empty()) {
      model->max_batch_size_ = max_batch;
      model->batcher_ = std::make_unique<DynamicBatcher>(
          *session, max_batch, config.max_queue_delay_us.value_or(defaults.max_queue_delay_us), runs, *model->metrics_);
    }
  }
  model->session_ = std::move(session);
  return model;
}

ServedModel::~ServedModel() {
  batcher_.reset();  // drains its queue (empty by now: every request holds the model) and joins its thread
  session_.reset();
  // glibc keeps freed blocks for reuse by later runs (session.cc's mallopt); an unloaded model's go back now.
  malloc_trim(0);
}

nlohmann::json ServedModel::Metadata(const std::vector<std::string>& versions) const {
  nlohmann::json meta = ModelMetadata(*session_, name_);
  meta["versions"] = versions;
  for (auto& in : meta["inputs"]) in["name"] = Served(input_served_, in["name"].get<std::string>());
  for (auto& out : meta["outputs"]) out["name"] = Served(output_served_, out["name"].get<std::string>());
  if (batcher_) meta["parameters"] = {{"max_batch_size", max_batch_size_}};
  return meta;
}

Status ServedModel::Prepare(InferRequest& request, std::vector<std::string>* served_outputs) const {
  std::set<std::string> seen, fed;  // served names, graph names
  int64_t rows = -1;
  for (auto& [name, value] : request.feeds) {
    auto graph_name = input_graph_.find(name);
    if (graph_name == input_graph_.end()) {
      std::string known;
      for (const auto& [served, g] : input_graph_) known += (known.empty() ? "" : ", ") + served;
      return InvalidArgument("model '" + name_ + "' has no input '" + name + "' (inputs: " + known + ")");
    }
    if (!seen.insert(name).second) return InvalidArgument("input '" + name + "' is given twice");
    const ir::ValueInfo* info = nullptr;
    for (const ir::ValueInfo* in : session_->inputs()) {
      if (in->name == graph_name->second) info = in;
    }
    const Tensor& t = value.tensor();
    if (info->type && info->type->is_tensor()) {
      if (t.type() != info->type->elem_type) {
        return InvalidArgument("input '" + name + "': the model takes " +
                               std::string(DataTypeName(info->type->elem_type)) + ", the request sends " +
                               std::string(DataTypeName(t.type())));
      }
      if (info->type->shape) {
        const auto& dims = *info->type->shape;
        bool fits = dims.size() == t.shape().size();
        for (size_t i = 0; fits && i < dims.size(); ++i) fits = !dims[i].is_value() || dims[i].value == t.shape()[i];
        if (!fits) {
          std::string want;
          for (const auto& d : dims) want += (want.empty() ? "" : ",") + d.ToString();
          return InvalidArgument("input '" + name + "': shape " + ShapeToString(t.shape()) +
                                 " does not fit the model's [" + want + "]");
        }
      }
    }
    if (batcher_) {
      if (t.shape().empty() || t.shape()[0] < 1) {
        return InvalidArgument("input '" + name + "': a batched model needs a first (batch) dim of at least 1");
      }
      if (rows >= 0 && t.shape()[0] != rows) {
        return InvalidArgument("input '" + name + "': batch dim " + std::to_string(t.shape()[0]) +
                               " differs from the other inputs' " + std::to_string(rows));
      }
      rows = t.shape()[0];
      if (rows > max_batch_size_) {
        return InvalidArgument("input '" + name + "': batch dim " + std::to_string(rows) + " is over the model's " +
                               "max_batch_size " + std::to_string(max_batch_size_));
      }
    }
    name = graph_name->second;
    fed.insert(name);
  }
  // Checked here rather than left to the run: the answer names the input as the client knows it, and with batching
  // a request without inputs would otherwise queue with no rows.
  for (const ir::ValueInfo* in : session_->model().graph.RealInputs()) {
    if (fed.count(in->name) == 0) {
      return InvalidArgument("model '" + name_ + "' needs input '" + Served(input_served_, in->name) +
                             "', which the request does not give");
    }
  }
  served_outputs->clear();
  if (request.output_names.empty()) {
    for (const auto& out : session_->outputs()) served_outputs->push_back(Served(output_served_, out.name));
    return Status::Ok();
  }
  for (auto& name : request.output_names) {
    auto graph_name = output_graph_.find(name);
    if (graph_name == output_graph_.end()) {
      return InvalidArgument("model '" + name_ + "' has no output '" + name + "'");
    }
    served_outputs->push_back(name);
    name = graph_name->second;
  }
  return Status::Ok();
}

Result<std::vector<Value>> ServedModel::Run(InferRequest& request, RunQueue::Ticket ticket, RunTiming* timing) const {
  if (batcher_) return batcher_->Run(std::move(request.feeds), request.output_names, std::move(ticket), timing);
  using Clock = std::chrono::steady_clock;
  const auto queued = Clock::now();
  RunQueue::Slot slot(*runs_);
  ticket.Release();
  const auto started = Clock::now();
  std::vector<Value> outputs;
  Status st = session_->Run(request.feeds, request.output_names, &outputs);
  timing->queue_seconds = std::chrono::duration<double>(started - queued).count();
  timing->compute_seconds = std::chrono::duration<double>(Clock::now() - started).count();
  metrics_->RecordBatch(1);
  if (!st.ok()) return st;
  return outputs;
}

}  // namespace onyx::serve

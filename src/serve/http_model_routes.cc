// The per-model routes of InferenceServer: metadata, readiness and inference.
#include <httplib.h>

#include <algorithm>
#include <chrono>

#include "serve/http_server.h"
#include "serve/http_util.h"
#include "serve/inference_protocol.h"

namespace onyx::serve {
namespace {

using nlohmann::json;

// "/v2/models/{name}" with an optional "/versions/{version}".
constexpr const char* kModelPath = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";

// Decimal digits only (what Content-Length and Inference-Header-Content-Length carry).
bool IsByteCount(const std::string& text) {
  return !text.empty() && text.size() <= 19 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string VersionOf(const httplib::Request& req) {
  return req.matches.size() > 2 ? std::string(req.matches[2]) : std::string();
}

// Counts a request that reached a model, whichever way its handler returns; `success` is set once the answer is
// built.
struct Outcome {
  explicit Outcome(InferenceMetrics& m) : metrics(m) {}
  ~Outcome() {
    const std::chrono::duration<double> total = std::chrono::steady_clock::now() - start;
    metrics.Record(success, timing.queue_seconds, timing.compute_seconds, total.count());
  }
  InferenceMetrics& metrics;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  RunTiming timing;
  bool success = false;
};

}  // namespace

void InferenceServer::AddModelRoutes() {
  http_->Get(kModelPath, [this](const httplib::Request& req, httplib::Response& res) {
    auto model = repository_.Find(req.matches[1], VersionOf(req));
    if (!model.ok()) {
      SendError(res, 404, model.status().message());
      return;
    }
    SendJson(res, 200, (*model)->Metadata(repository_.Versions((*model)->name())));
  });
  http_->Get(std::string(kModelPath) + "/ready", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.matches[1];
    auto model = repository_.Find(name, VersionOf(req));
    if (!model.ok()) {
      SendJson(res, 404, {{"name", name}, {"ready", false}, {"error", model.status().message()}});
      return;
    }
    SendJson(res, 200, {{"name", name}, {"version", (*model)->version()}, {"ready", true}});
  });
  // Read through a content reader: httplib parses (and caps at 8 KB) bodies sent as form data otherwise, which is
  // what clients that set no Content-Type (Python's urllib) send.
  http_->Post(std::string(kModelPath) + "/infer", [this](const httplib::Request& req, httplib::Response& res,
                                                         const httplib::ContentReader& read) {
    // httplib reads a Content-Length that is not a number as 0: the body would then be parsed as the
    // next request. Say what is wrong instead.
    if (req.has_header("Content-Length") && !IsByteCount(req.get_header_value("Content-Length"))) {
      res.set_header("Connection", "close");
      SendError(res, 400, "Content-Length '" + req.get_header_value("Content-Length") + "' is not a byte count");
      return;
    }
    auto found = repository_.Find(req.matches[1], VersionOf(req));
    if (!found.ok()) {
      // The body stays unread: the connection cannot carry another request.
      res.set_header("Connection", "close");
      SendError(res, 404, found.status().message());
      return;
    }
    // Held to the end: an unload meanwhile frees the model only after this request is answered.
    const std::shared_ptr<ServedModel> model = std::move(found).value();
    Outcome outcome(model->metrics());
    std::string body;
    // One buffer of the announced size (httplib hands the body over in 4 KB pieces: growing the string as they
    // come copied an image-sized body several times). Capped: the payload limit refuses more anyway.
    if (req.has_header("Content-Length")) {
      body.reserve(std::min<size_t>(std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10),
                                    options_.max_request_bytes));
    }
    if (!ReadBody(read, std::chrono::seconds(options_.request_timeout_s), res, &body)) return;
    size_t json_size = body.size();
    if (req.has_header("Inference-Header-Content-Length")) {
      const std::string h = req.get_header_value("Inference-Header-Content-Length");
      if (!IsByteCount(h)) {
        SendError(res, 400, "Inference-Header-Content-Length '" + h + "' is not a byte count");
        return;
      }
      json_size = static_cast<size_t>(std::stoull(h));
    }
    auto request = ParseInferRequest(body, json_size, options_.max_tensor_elements);
    if (!request.ok()) {
      SendError(res, 400, request.status().message());
      return;
    }
    body = std::string();  // the tensors hold their own copies now
    std::vector<std::string> served_outputs;
    if (Status st = model->Prepare(*request, &served_outputs); !st.ok()) {
      SendError(res, 400, st.message());
      return;
    }
    RunQueue::Ticket ticket = runs_.Admit();
    if (!ticket) {
      res.set_header("Retry-After", "1");
      SendError(res, 503,
                "the server is busy: " + std::to_string(runs_.max_waiting()) +
                    " inference requests already wait (--max-queue); retry later");
      return;
    }
    auto outputs = model->Run(*request, std::move(ticket), &outcome.timing);
    if (!outputs.ok()) {
      SendError(res, HttpStatusOf(outputs.status()), outputs.status().message());
      return;
    }
    size_t response_json_size = 0;
    auto response =
        BuildInferResponse(model->name(), *request, served_outputs, *outputs, &response_json_size, model->version());
    if (!response.ok()) {
      SendError(res, HttpStatusOf(response.status()), response.status().message());
      return;
    }
    res.status = 200;
    outcome.success = true;
    if (response_json_size != response->size()) {
      res.set_header("Inference-Header-Content-Length", std::to_string(response_json_size));
      res.set_content(std::move(response).value(), "application/octet-stream");
    } else {
      res.set_content(std::move(response).value(), "application/json");
    }
  });
}

}  // namespace onyx::serve

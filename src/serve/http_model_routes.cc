// The per-model routes of InferenceServer: metadata, readiness and inference.
#include <httplib.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <memory>
#include <optional>
#include <string_view>

#include "serve/connection_socket.h"
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

// Below this, httplib's 4 KB pieces cost little next to finding the connection's socket.
constexpr size_t kDirectReadMinBytes = 64 << 10;

// A block for a request body of `bytes`: the one this thread used for its previous request when nothing holds it
// any more (the request's tensors are views of it) and it is large enough. Saves a large malloc and free per request
// (and the page faults of memory glibc gave back); blocks of up to kKeptBodyBytes are kept, one per HTTP thread.
constexpr size_t kKeptBodyBytes = 8 << 20;
std::shared_ptr<void> BodyBlock(size_t bytes) {
  thread_local std::shared_ptr<void> kept;
  thread_local size_t kept_bytes = 0;
  if (kept != nullptr && kept.use_count() == 1 && kept_bytes >= bytes) return kept;
  std::shared_ptr<void> block = Tensor::AllocateBlock(bytes);
  if (bytes <= kKeptBodyBytes) {
    kept = block;
    kept_bytes = bytes;
  }
  return block;
}

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
    // Both sizes as announced (digits that fit in 64 bits; checked again against what arrives).
    auto byte_count = [&](const char* header) -> std::optional<size_t> {
      if (!req.has_header(header)) return std::nullopt;
      const std::string v = req.get_header_value(header);
      size_t n = 0;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (!IsByteCount(v) || ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
      return n;
    };
    const std::optional<size_t> content_length = byte_count("Content-Length");
    const std::optional<size_t> header_length = byte_count("Inference-Header-Content-Length");
    if (req.has_header("Inference-Header-Content-Length") && !header_length) {
      res.set_header("Connection", "close");  // the body stays unread
      SendError(res, 400,
                "Inference-Header-Content-Length '" + req.get_header_value("Inference-Header-Content-Length") +
                    "' is not a byte count");
      return;
    }
    const auto timeout = std::chrono::seconds(options_.request_timeout_s);
    std::shared_ptr<void> block;  // the body, when read into a block its binary tensors can be views of
    std::string body_text;
    std::string_view body;
    if (content_length && header_length && *header_length <= *content_length &&
        *content_length <= options_.max_request_bytes) {
      // Placed so that the binary part starts 64-byte aligned: an input tensor whose bytes come first is then a view
      // of the body (no copy of an image-sized input).
      const size_t pad = (64 - *header_length % 64) % 64;
      block = BodyBlock(*content_length + pad);
      char* start = static_cast<char*>(block.get()) + pad;
      size_t got = 0;
      // The socket is read directly only where httplib would pass the bytes on as they come.
      std::optional<int> socket;
      if (!tls() && !req.has_header("Content-Encoding") && !req.has_header("Transfer-Encoding") &&
          *content_length > kDirectReadMinBytes) {
        socket = ConnectionSocket(req);
      }
      if (!ReadBodyInto(read, timeout, res, start, *content_length, &got, socket)) return;
      body = std::string_view(start, got);
    } else {
      // One buffer of the announced size (httplib hands the body over in 4 KB pieces).
      if (content_length) body_text.reserve(std::min(*content_length, options_.max_request_bytes));
      if (!ReadBody(read, timeout, res, &body_text)) return;
      body = body_text;
    }
    const size_t json_size = header_length ? *header_length : body.size();
    auto request = ParseInferRequest(body, json_size, options_.max_tensor_elements, block);
    if (!request.ok()) {
      SendError(res, 400, request.status().message());
      return;
    }
    body_text = std::string();  // the tensors hold their own copies (or share `block`) now
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

#include "serve/http_server.h"

#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "onyx_version.h"
#include "serve/inference_protocol.h"

namespace onyx::serve {
namespace {

using nlohmann::json;

// "/v2/models/{name}" with an optional "/versions/{version}" (only version 1 exists).
constexpr const char* kModelPath = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";

void SendJson(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

void SendError(httplib::Response& res, int status, const std::string& message) {
  SendJson(res, status, {{"error", message}});
}

int HttpStatusOf(const Status& st) {
  switch (st.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kUnsupported:
      return 400;
    default:
      return 500;
  }
}

}  // namespace

InferenceServer::InferenceServer(std::shared_ptr<const Session> session, ServerOptions options)
    : session_(std::move(session)),
      options_(std::move(options)),
      http_(std::make_unique<httplib::Server>()),
      run_slots_(std::clamp(options_.max_concurrent_runs, 1, 1024)) {
  http_->set_payload_max_length(options_.max_request_bytes);
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, with which a second server on a busy port starts
  // silently and the kernel splits the connections between the two.
  // httplib writes a response's headers and body separately: without TCP_NODELAY the body waits for the client's
  // delayed ACK of the headers (Nagle), ~20 ms a request.
  http_->set_tcp_nodelay(true);
  http_->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  if (options_.log) {
    http_->set_logger([this](const httplib::Request& req, const httplib::Response& res) {
      options_.log(req.method + " " + req.path + " " + std::to_string(res.status));
    });
  }
  AddRoutes();
}

InferenceServer::~InferenceServer() { Stop(); }

void InferenceServer::AddRoutes() {
  // Whether the request names the served model (and version 1, when it names one); answers 404 otherwise.
  auto is_our_model = [this](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.matches[1];
    const std::string version = req.matches.size() > 2 ? std::string(req.matches[2]) : "";
    if (name != options_.model_name) {
      SendError(res, 404, "model '" + name + "' not found (this server serves '" + options_.model_name + "')");
      return false;
    }
    if (!version.empty() && version != "1") {
      SendError(res, 404, "model '" + name + "' has no version '" + version + "' (only '1')");
      return false;
    }
    return true;
  };

  http_->Get("/v2/health/live", [](const httplib::Request&, httplib::Response& res) {
    SendJson(res, 200, {{"live", true}});
  });
  http_->Get("/v2/health/ready", [](const httplib::Request&, httplib::Response& res) {
    SendJson(res, 200, {{"ready", true}});
  });
  http_->Get("/v2", [](const httplib::Request&, httplib::Response& res) {
    SendJson(res, 200, {{"name", "onyx"}, {"version", ONYX_VERSION_STRING}, {"extensions", {"binary_tensor_data"}}});
  });
  http_->Get(kModelPath, [this, is_our_model](const httplib::Request& req, httplib::Response& res) {
    if (is_our_model(req, res)) SendJson(res, 200, ModelMetadata(*session_, options_.model_name));
  });
  http_->Get(std::string(kModelPath) + "/ready",
             [this, is_our_model](const httplib::Request& req, httplib::Response& res) {
               if (is_our_model(req, res)) SendJson(res, 200, {{"name", options_.model_name}, {"ready", true}});
             });
  // Read through a content reader: httplib parses (and caps at 8 KB) bodies sent as form data otherwise, which is
  // what clients that set no Content-Type (Python's urllib) send.
  http_->Post(std::string(kModelPath) + "/infer", [this, is_our_model](const httplib::Request& req,
                                                                      httplib::Response& res,
                                                                      const httplib::ContentReader& read) {
    if (!is_our_model(req, res)) return;
    // Recorded whichever way the handler returns; `success` is set once the response is built.
    struct Outcome {
      InferenceMetrics& metrics;
      std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
      double queue_seconds = 0, compute_seconds = 0;
      bool success = false;
      ~Outcome() {
        const std::chrono::duration<double> total = std::chrono::steady_clock::now() - start;
        metrics.Record(success, queue_seconds, compute_seconds, total.count());
      }
    } outcome{metrics_};
    std::string body;
    read([&body](const char* data, size_t length) {
      body.append(data, length);
      return true;
    });
    size_t json_size = body.size();
    if (req.has_header("Inference-Header-Content-Length")) {
      const std::string h = req.get_header_value("Inference-Header-Content-Length");
      char* end = nullptr;
      const unsigned long long n = std::strtoull(h.c_str(), &end, 10);
      if (h.empty() || *end != '\0') {
        SendError(res, 400, "Inference-Header-Content-Length '" + h + "' is not a byte count");
        return;
      }
      json_size = static_cast<size_t>(n);
    }
    auto request = ParseInferRequest(body, json_size);
    if (!request.ok()) {
      SendError(res, 400, request.status().message());
      return;
    }
    std::vector<std::string> names = request->output_names;
    if (names.empty()) {
      for (const auto& out : session_->outputs()) names.push_back(out.name);
    }
    std::vector<Value> outputs;
    Status st;
    {
      using Clock = std::chrono::steady_clock;
      const auto queued = Clock::now();
      struct RunSlot {
        std::counting_semaphore<1024>& slots;
        explicit RunSlot(std::counting_semaphore<1024>& s) : slots(s) { slots.acquire(); }
        ~RunSlot() { slots.release(); }
      } slot(run_slots_);
      const auto started = Clock::now();
      st = session_->Run(request->feeds, request->output_names, &outputs);
      outcome.queue_seconds = std::chrono::duration<double>(started - queued).count();
      outcome.compute_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    }
    if (!st.ok()) {
      SendError(res, HttpStatusOf(st), st.message());
      return;
    }
    size_t response_json_size = 0;
    auto response = BuildInferResponse(options_.model_name, *request, names, outputs, &response_json_size);
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
  http_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.status = 200;
    res.set_content(metrics_.PrometheusText(options_.model_name), "text/plain; version=0.0.4");
  });
  http_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    // Only fill in bodies for statuses no handler wrote (unknown paths, methods, oversized payloads).
    if (!res.body.empty()) return;
    if (res.status == 404) {
      SendError(res, 404, "no such endpoint: " + req.method + " " + req.path);
    } else if (res.status == 413) {
      SendError(res, 413, "the request is larger than the server's limit");
    } else {
      SendError(res, res.status, "HTTP error " + std::to_string(res.status));
    }
  });
  http_->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    SendError(res, 500, "internal error: " + what);
  });
}

Result<int> InferenceServer::Bind() {
  int port = options_.port;
  if (port == 0) {
    port = http_->bind_to_any_port(options_.host);
    if (port < 0) return IoError("cannot bind a port on " + options_.host);
  } else if (!http_->bind_to_port(options_.host, port)) {
    return IoError("cannot listen on " + options_.host + ":" + std::to_string(port) +
                   " (in use, or not an address of this machine)");
  }
  return port;
}

Status InferenceServer::Listen() {
  if (!http_->listen_after_bind()) return IoError("the HTTP server stopped with an error");
  return Status::Ok();
}

void InferenceServer::Stop() {
  if (http_) http_->stop();
}

}  // namespace onyx::serve

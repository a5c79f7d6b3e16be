// The HTTP face of `onyx serve`: the Open Inference Protocol (KServe v2 REST) over a model repository, as Triton and
// KServe expose it:
//   GET  /v2/health/live, /v2/health/ready            liveness, readiness (never behind the token)
//   GET  /v2                                          server metadata
//   GET  /v2/models/{m}[/versions/{v}]                model metadata (inputs, outputs, datatypes, shapes)
//   GET  /v2/models/{m}[/versions/{v}]/ready          model readiness (200 ready, 4xx not)
//   POST /v2/models/{m}[/versions/{v}]/infer          inference (JSON tensors or the binary tensor extension)
//   POST /v2/repository/index                         the repository's models with state and reason
//   POST /v2/repository/models/{m}/load | /unload     model control (--model-control-mode explicit)
//   GET  /metrics                                     Prometheus text, per model and version
//   GET  /, /ui/{file}                                the web page (static files built in; no token needed)
//   GET  /v2/models/{m}[/versions/{v}]/graph.svg      the model's graph picture (`onyx visualize`'s SVG)
// Errors answer {"error": "..."}: 400 bad request (naming the input and the problem), 401 no or wrong token, 403 model
// control not enabled, 404 unknown model, version or path, 408 body too slow, 413 body too large, 431 headers too
// large, 503 queue full, 500 when running the model fails otherwise. Every response carries X-Request-Id (the
// client's, or one made up) which the access log records.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/status.h"
#include "serve/access_log.h"
#include "serve/metrics.h"
#include "serve/model_repository.h"
#include "serve/run_queue.h"

namespace httplib {
class Server;
}

namespace onyx::serve {

class GraphPictures;

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8000;  // 0: any free port (Bind returns it)
  // Connections served at once (httplib's worker threads; an idle keep-alive connection holds one until
  // keep_alive_timeout_s). Further connections wait to be accepted.
  int http_threads = 32;
  size_t max_request_bytes = size_t{64} << 20;
  size_t max_header_bytes = size_t{16} << 10;  // all header lines together
  int64_t max_tensor_elements = int64_t{1} << 27;
  // Slow clients: each socket read or write may wait this long; a request body must arrive within
  // request_timeout_s in all.
  int read_timeout_s = 10, write_timeout_s = 10, keep_alive_timeout_s = 5, request_timeout_s = 60;
  // Requests one keep-alive connection may carry before the server closes it (httplib's default is 5: a client
  // sending one request after another then paid a new connection, and a thread handoff, every fifth request).
  int keep_alive_max_requests = 10000;
  // After answering, while no model run is in progress or waiting, the worker polls its open connection for the
  // next request this long before it sleeps. Why: a vCPU that halts waits 0.1 ms or more to be woken (a VM exit),
  // the largest part of what serving adds to a run at concurrency 1; a client that sends its next request within
  // this window finds the worker awake. Never while other requests need the CPU. 0: sleep at once.
  int next_request_spin_us = 500;
  std::string auth_token;         // empty: no authentication
  std::string tls_cert, tls_key;  // both set: HTTPS
  // Called once per request with "METHOD path status" (a plain access log); may be empty.
  std::function<void(const std::string&)> log;
  AccessLog* access_log = nullptr;  // the JSON-lines access log; may be null
};

class InferenceServer {
 public:
  // `repository`, `metrics` and `runs` outlive the server.
  InferenceServer(ModelRepository& repository, MetricsRegistry& metrics, RunQueue& runs, ServerOptions options);
  ~InferenceServer();
  InferenceServer(const InferenceServer&) = delete;
  InferenceServer& operator=(const InferenceServer&) = delete;

  // Binds the listening socket; returns the port (the chosen one when options.port is 0).
  Result<int> Bind();
  // Serves requests on the bound socket until Stop() (from any thread); requests in flight are answered first.
  Status Listen();
  void Stop();
  bool tls() const { return !options_.tls_cert.empty(); }

 private:
  void AddRoutes();
  void AddModelRoutes();
  void AddRepositoryRoutes();
  void AddWebRoutes();  // web_routes.cc
  void AddGuards();

  ModelRepository& repository_;
  MetricsRegistry& metrics_;
  RunQueue& runs_;
  ServerOptions options_;
  std::unique_ptr<httplib::Server> http_;
  // The listening socket, seen by httplib's socket-options hook before it binds: Bind raises its accept backlog.
  std::atomic<int> listen_socket_{-1};
  std::unique_ptr<GraphPictures> graphs_;  // the web page's graph pictures, per loaded model version
  std::atomic<uint64_t> next_request_id_{1};
  std::string request_id_prefix_;
};

}  // namespace onyx::serve

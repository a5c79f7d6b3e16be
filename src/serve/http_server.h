// An HTTP server for one model over the Open Inference Protocol (KServe v2 REST), as Triton and KServe expose:
//   GET  /v2/health/live, /v2/health/ready       liveness, readiness
//   GET  /v2                                     server metadata
//   GET  /v2/models/{name}[/versions/1]          model metadata (inputs, outputs, datatypes, shapes)
//   GET  /v2/models/{name}[/versions/1]/ready    model readiness
//   POST /v2/models/{name}[/versions/1]/infer    inference (JSON tensors or the binary tensor extension)
//   GET  /metrics                                request counts and times, Prometheus text format
// Errors answer {"error": "..."}: 400 for bad requests (the message names the input and the problem), 404 for an
// unknown model or path, 500 when running the model fails for another reason.
#pragma once

#include <functional>
#include <memory>
#include <semaphore>
#include <string>

#include "core/status.h"
#include "runtime/session.h"
#include "serve/metrics.h"

namespace httplib {
class Server;
}

namespace onyx::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8000;  // 0: any free port (Bind returns it)
  std::string model_name = "model";
  // Inferences that run at once; further requests wait. One keeps each run's intra-op threads to themselves.
  int max_concurrent_runs = 1;
  size_t max_request_bytes = size_t{1} << 30;
  // Called once per request with "METHOD path status" (an access log); may be empty.
  std::function<void(const std::string&)> log;
};

class InferenceServer {
 public:
  InferenceServer(std::shared_ptr<const Session> session, ServerOptions options);
  ~InferenceServer();
  InferenceServer(const InferenceServer&) = delete;
  InferenceServer& operator=(const InferenceServer&) = delete;

  // Binds the listening socket; returns the port (the chosen one when options.port is 0).
  Result<int> Bind();
  // Serves requests on the bound socket until Stop() (from any thread).
  Status Listen();
  void Stop();

 private:
  void AddRoutes();

  std::shared_ptr<const Session> session_;
  ServerOptions options_;
  std::unique_ptr<httplib::Server> http_;
  std::counting_semaphore<1024> run_slots_;
  InferenceMetrics metrics_;
};

}  // namespace onyx::serve

// The gRPC face of `onyx serve` (--grpc-port): the Open Inference Protocol's GRPCInferenceService (KServe v2,
// proto/grpc_predict_v2.proto) on its own port, sharing everything with the HTTP server (http_server.h): the model
// repository, the run queue and its admission, the dynamic batcher, the metrics (served on HTTP's /metrics), the
// access log, the bearer token and TLS certificate, and the limits (largest message = the HTTP body limit; the
// tensor element limit).
//   ServerLive, ServerReady                           liveness, readiness (never behind the token)
//   ServerMetadata, ModelMetadata, ModelReady         as GET /v2, /v2/models/{m}[/versions/{v}][/ready]
//   ModelInfer                                        typed contents or raw_input_contents in; raw_output_contents
//                                                     out, or typed contents for outputs asked with binary_data=false
//   RepositoryIndex, RepositoryModelLoad|Unload       the repository extension (load/unload: explicit model control)
// Errors are gRPC status codes whose messages name the input or model and the problem: INVALID_ARGUMENT (a bad
// request), NOT_FOUND (unknown model or version), UNAVAILABLE (a model the repository holds that failed to load or
// was unloaded), UNAUTHENTICATED (no or wrong 'authorization: Bearer <token>' metadata), RESOURCE_EXHAUSTED
// (--max-queue requests already wait, or a message over the size limit), FAILED_PRECONDITION (load/unload without
// explicit model control), INTERNAL.
// The generated gRPC code stays behind this header: the CLI includes it alone.
#pragma once

#include <memory>
#include <mutex>

#include "core/status.h"
#include "serve/http_server.h"
#include "serve/model_repository.h"
#include "serve/run_queue.h"

namespace grpc {
class Server;
}

namespace onyx::serve {

class GrpcInferenceService;

class GrpcServer {
 public:
  // `repository` and `runs` outlive the server; `options` are the HTTP server's (host, token, TLS, limits, logs;
  // its port is not used); `port` is the gRPC port (0: any free one).
  GrpcServer(ModelRepository& repository, RunQueue& runs, ServerOptions options, int port);
  ~GrpcServer();
  GrpcServer(const GrpcServer&) = delete;
  GrpcServer& operator=(const GrpcServer&) = delete;

  // Binds the port and starts serving (on gRPC's own threads); returns the port (the chosen one when it was 0).
  Result<int> Start();
  // Stops taking RPCs and waits for those in flight (cancelled after a grace period of kShutdownGraceSeconds).
  // Callable from any thread, more than once.
  void Shutdown();
  bool tls() const { return !options_.tls_cert.empty(); }

  static constexpr int kShutdownGraceSeconds = 30;

 private:
  ModelRepository& repository_;
  RunQueue& runs_;
  const ServerOptions options_;
  const int port_;
  std::unique_ptr<GrpcInferenceService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::once_flag shutdown_once_;
};

}  // namespace onyx::serve

// The RPCs of the KServe v2 GRPCInferenceService (proto/grpc_predict_v2.proto) over onyx's model repository: what
// GrpcServer (grpc_server.h) registers. Each RPC checks the bearer token (but ServerLive and ServerReady), runs, and
// writes the access log; ModelInfer shares the HTTP side's path through ServedModel::Prepare, the run queue's
// admission and ServedModel::Run (the dynamic batcher), and records the model's metrics.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "proto/grpc_predict_v2.grpc.pb.h"
#include "serve/http_server.h"
#include "serve/model_repository.h"
#include "serve/run_queue.h"

namespace onyx::serve {

class GrpcInferenceService final : public inference::GRPCInferenceService::Service {
 public:
  // `repository` and `runs` outlive the service; `options` are the server's (token, limits, logs).
  GrpcInferenceService(ModelRepository& repository, RunQueue& runs, ServerOptions options);

  grpc::Status ServerLive(grpc::ServerContext* context, const inference::ServerLiveRequest* request,
                          inference::ServerLiveResponse* response) override;
  grpc::Status ServerReady(grpc::ServerContext* context, const inference::ServerReadyRequest* request,
                           inference::ServerReadyResponse* response) override;
  grpc::Status ModelReady(grpc::ServerContext* context, const inference::ModelReadyRequest* request,
                          inference::ModelReadyResponse* response) override;
  grpc::Status ServerMetadata(grpc::ServerContext* context, const inference::ServerMetadataRequest* request,
                              inference::ServerMetadataResponse* response) override;
  grpc::Status ModelMetadata(grpc::ServerContext* context, const inference::ModelMetadataRequest* request,
                             inference::ModelMetadataResponse* response) override;
  grpc::Status ModelInfer(grpc::ServerContext* context, const inference::ModelInferRequest* request,
                          inference::ModelInferResponse* response) override;
  grpc::Status RepositoryIndex(grpc::ServerContext* context, const inference::RepositoryIndexRequest* request,
                               inference::RepositoryIndexResponse* response) override;
  grpc::Status RepositoryModelLoad(grpc::ServerContext* context, const inference::RepositoryModelLoadRequest* request,
                                   inference::RepositoryModelLoadResponse* response) override;
  grpc::Status RepositoryModelUnload(grpc::ServerContext* context,
                                     const inference::RepositoryModelUnloadRequest* request,
                                     inference::RepositoryModelUnloadResponse* response) override;

 private:
  // Runs one RPC: the request id, the token (unless `open`), `body`, the logs.
  template <typename Body>
  grpc::Status Serve(grpc::ServerContext* context, const char* rpc, bool open, const google::protobuf::Message& request,
                     const google::protobuf::Message& response, Body&& body);
  // The status for a model that Find() did not return: NOT_FOUND, or UNAVAILABLE for one the repository holds but
  // does not serve now (it failed to load, or was unloaded).
  grpc::Status ModelMissing(const std::string& name, const std::string& version, const Status& found) const;

  ModelRepository& repository_;
  RunQueue& runs_;
  const ServerOptions options_;
  std::atomic<uint64_t> next_request_id_{1};
  std::string request_id_prefix_;
};

}  // namespace onyx::serve

#include "serve/grpc/grpc_service.h"

#include <chrono>
#include <cstdio>
#include <random>

#include "onyx_version.h"
#include "serve/auth.h"
#include "serve/grpc/grpc_tensors.h"

namespace onyx::serve {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// The metadata value of `key` (gRPC lower-cases keys), or "".
std::string MetadataValue(const grpc::ServerContext& context, const std::string& key) {
  const auto& md = context.client_metadata();
  auto it = md.find(key);
  return it == md.end() ? std::string() : std::string(it->second.data(), it->second.size());
}

// A client's x-request-id is kept when short and printable (as the HTTP side keeps X-Request-Id).
bool UsableRequestId(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    if (c < 0x21 || c > 0x7e || c == '"' || c == '\\') return false;
  }
  return true;
}

// "ipv4:127.0.0.1:5000" -> "127.0.0.1", "ipv6:[::1]:5000" -> "::1" (the access log's "remote", as HTTP writes it).
std::string PeerAddress(const std::string& peer) {
  std::string p = peer.substr(peer.find(':') + 1);
  if (!p.empty() && p[0] == '[') return p.substr(1, p.find(']') - 1);
  const size_t colon = p.rfind(':');
  return colon == std::string::npos ? p : p.substr(0, colon);
}

// The HTTP status a gRPC code stands for (Google's mapping of google.rpc.Code), for the access log, whose readers
// count statuses >= 400 as failures whichever protocol served the request.
int HttpEquivalent(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return 200;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
      return 400;
    case grpc::StatusCode::UNAUTHENTICATED:
      return 401;
    case grpc::StatusCode::PERMISSION_DENIED:
      return 403;
    case grpc::StatusCode::NOT_FOUND:
      return 404;
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::ABORTED:
      return 409;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return 429;
    case grpc::StatusCode::CANCELLED:
      return 499;
    case grpc::StatusCode::UNIMPLEMENTED:
      return 501;
    case grpc::StatusCode::UNAVAILABLE:
      return 503;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return 504;
    default:
      return 500;
  }
}

// A failed inference: the request's fault (bad input, a name the model lacks) INVALID_ARGUMENT, the rest INTERNAL
// (the HTTP side's 400 / 500 split).
grpc::Status InferenceError(const Status& st) {
  switch (st.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:  // from Session::Run: a feed or output the model lacks
    case StatusCode::kUnsupported:
      return {grpc::StatusCode::INVALID_ARGUMENT, st.message()};
    default:
      return {grpc::StatusCode::INTERNAL, st.message()};
  }
}

// Counts a request that reached a model, however its RPC returns; `success` is set once the answer is built.
struct Outcome {
  explicit Outcome(InferenceMetrics& m) : metrics(m) {}
  ~Outcome() {
    const std::chrono::duration<double> total = Clock::now() - start;
    metrics.Record(success, timing.queue_seconds, timing.compute_seconds, total.count());
  }
  InferenceMetrics& metrics;
  Clock::time_point start = Clock::now();
  RunTiming timing;
  bool success = false;
};

void FillTensorMetadata(const json& items,
                        google::protobuf::RepeatedPtrField<inference::ModelMetadataResponse::TensorMetadata>* out) {
  for (const auto& item : items) {
    auto* t = out->Add();
    t->set_name(item.value("name", ""));
    t->set_datatype(item.value("datatype", ""));
    if (auto shape = item.find("shape"); shape != item.end() && shape->is_array()) {
      for (const auto& d : *shape) t->add_shape(d.get<int64_t>());
    }
  }
}

}  // namespace

GrpcInferenceService::GrpcInferenceService(ModelRepository& repository, RunQueue& runs, ServerOptions options)
    : repository_(repository), runs_(runs), options_(std::move(options)) {
  // Request ids: a random prefix per server run and a counter, unique across restarts in one log.
  std::random_device random;
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "%08x", random());
  request_id_prefix_ = std::string(prefix) + "-g";
}

template <typename Body>
grpc::Status GrpcInferenceService::Serve(grpc::ServerContext* context, const char* rpc, bool open,
                                         const google::protobuf::Message& request,
                                         const google::protobuf::Message& response, Body&& body) {
  const Clock::time_point start = Clock::now();
  std::string id = MetadataValue(*context, "x-request-id");
  if (!UsableRequestId(id)) id = request_id_prefix_ + std::to_string(next_request_id_++);
  context->AddInitialMetadata("x-request-id", id);
  grpc::Status status;
  if (!open && !options_.auth_token.empty()) {
    const std::string authorization = MetadataValue(*context, "authorization");
    if (!BearerTokenMatches(authorization, options_.auth_token)) {
      status = {grpc::StatusCode::UNAUTHENTICATED,
                authorization.empty() ? "this server needs the metadata 'authorization: Bearer <token>'"
                                      : "the bearer token is wrong"};
    }
  }
  if (status.ok()) status = body();
  const std::string path = std::string("/inference.GRPCInferenceService/") + rpc;
  const int http_status = HttpEquivalent(status.error_code());
  if (options_.log) {
    options_.log("GRPC " + path + " " + std::to_string(http_status) +
                 (status.ok() ? "" : " (" + std::to_string(static_cast<int>(status.error_code())) + ")"));
  }
  if (options_.access_log != nullptr) {
    AccessRecord r;
    r.request_id = id;
    r.remote = PeerAddress(context->peer());
    r.method = "GRPC";
    r.path = path;
    r.status = http_status;
    r.bytes_in = request.ByteSizeLong();
    r.bytes_out = status.ok() ? response.ByteSizeLong() : 0;
    r.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    options_.access_log->Write(r);
  }
  return status;
}

grpc::Status GrpcInferenceService::ModelMissing(const std::string& name, const std::string& version,
                                                const Status& found) const {
  // Find() says NotFound in every case; the index tells a model that failed to load or was unloaded (UNAVAILABLE:
  // it is there, and a load may bring it) from one the repository does not hold (NOT_FOUND).
  for (const auto& item : repository_.Index(false)) {
    if (item.value("name", "") != name || item.value("state", "") != "UNAVAILABLE") continue;
    if (version.empty() || item.value("version", "") == version) {
      return {grpc::StatusCode::UNAVAILABLE, found.message()};
    }
  }
  return {grpc::StatusCode::NOT_FOUND, found.message()};
}

grpc::Status GrpcInferenceService::ServerLive(grpc::ServerContext* context, const inference::ServerLiveRequest* request,
                                              inference::ServerLiveResponse* response) {
  return Serve(context, "ServerLive", /*open=*/true, *request, *response, [&] {
    response->set_live(true);
    return grpc::Status::OK;
  });
}

grpc::Status GrpcInferenceService::ServerReady(grpc::ServerContext* context,
                                               const inference::ServerReadyRequest* request,
                                               inference::ServerReadyResponse* response) {
  // Ready once the startup loads are done (the server starts after them), as on HTTP.
  return Serve(context, "ServerReady", /*open=*/true, *request, *response, [&] {
    response->set_ready(true);
    return grpc::Status::OK;
  });
}

grpc::Status GrpcInferenceService::ModelReady(grpc::ServerContext* context, const inference::ModelReadyRequest* request,
                                              inference::ModelReadyResponse* response) {
  // Not ready is an answer, not an error (HTTP's 404 has no gRPC counterpart that clients read as "false").
  return Serve(context, "ModelReady", /*open=*/false, *request, *response, [&] {
    response->set_ready(repository_.Find(request->name(), request->version()).ok());
    return grpc::Status::OK;
  });
}

grpc::Status GrpcInferenceService::ServerMetadata(grpc::ServerContext* context,
                                                  const inference::ServerMetadataRequest* request,
                                                  inference::ServerMetadataResponse* response) {
  return Serve(context, "ServerMetadata", /*open=*/false, *request, *response, [&] {
    response->set_name("onyx");
    response->set_version(ONYX_VERSION_STRING);
    response->add_extensions("model_repository");
    return grpc::Status::OK;
  });
}

grpc::Status GrpcInferenceService::ModelMetadata(grpc::ServerContext* context,
                                                 const inference::ModelMetadataRequest* request,
                                                 inference::ModelMetadataResponse* response) {
  return Serve(context, "ModelMetadata", /*open=*/false, *request, *response, [&] {
    auto model = repository_.Find(request->name(), request->version());
    if (!model.ok()) return ModelMissing(request->name(), request->version(), model.status());
    // The HTTP answer's JSON, so that both faces describe a model the same way.
    const json meta = (*model)->Metadata(repository_.Versions((*model)->name()));
    response->set_name(meta.value("name", ""));
    for (const auto& v : meta.value("versions", json::array())) response->add_versions(v.get<std::string>());
    response->set_platform(meta.value("platform", ""));
    FillTensorMetadata(meta.value("inputs", json::array()), response->mutable_inputs());
    FillTensorMetadata(meta.value("outputs", json::array()), response->mutable_outputs());
    return grpc::Status::OK;
  });
}

grpc::Status GrpcInferenceService::ModelInfer(grpc::ServerContext* context, const inference::ModelInferRequest* request,
                                              inference::ModelInferResponse* response) {
  return Serve(context, "ModelInfer", /*open=*/false, *request, *response, [&]() -> grpc::Status {
    auto found = repository_.Find(request->model_name(), request->model_version());
    if (!found.ok()) return ModelMissing(request->model_name(), request->model_version(), found.status());
    // Held to the end: an unload meanwhile frees the model only after this request is answered.
    const std::shared_ptr<ServedModel> model = std::move(found).value();
    Outcome outcome(model->metrics());
    auto parsed = InferRequestFromProto(*request, options_.max_tensor_elements);
    if (!parsed.ok()) return {grpc::StatusCode::INVALID_ARGUMENT, parsed.status().message()};
    std::vector<std::string> served_outputs;
    if (Status st = model->Prepare(*parsed, &served_outputs); !st.ok()) {
      return {grpc::StatusCode::INVALID_ARGUMENT, st.message()};
    }
    RunQueue::Ticket ticket = runs_.Admit();
    if (!ticket) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED, "the server is busy: " + std::to_string(runs_.max_waiting()) +
                                                        " inference requests already wait (--max-queue); retry later"};
    }
    auto outputs = model->Run(*parsed, std::move(ticket), &outcome.timing);
    if (!outputs.ok()) return InferenceError(outputs.status());
    if (Status st = FillInferResponse(model->name(), model->version(), *parsed, served_outputs, *outputs, response);
        !st.ok()) {
      return InferenceError(st);
    }
    outcome.success = true;
    return grpc::Status::OK;
  });
}

grpc::Status GrpcInferenceService::RepositoryIndex(grpc::ServerContext* context,
                                                   const inference::RepositoryIndexRequest* request,
                                                   inference::RepositoryIndexResponse* response) {
  // One repository: repository_name, whatever it says, means it (as an empty name means every repository).
  return Serve(context, "RepositoryIndex", /*open=*/false, *request, *response, [&] {
    for (const auto& item : repository_.Index(request->ready())) {
      auto* m = response->add_models();
      m->set_name(item.value("name", ""));
      m->set_version(item.value("version", ""));
      m->set_state(item.value("state", ""));
      m->set_reason(item.value("reason", ""));
    }
    return grpc::Status::OK;
  });
}

grpc::Status GrpcInferenceService::RepositoryModelLoad(grpc::ServerContext* context,
                                                       const inference::RepositoryModelLoadRequest* request,
                                                       inference::RepositoryModelLoadResponse* response) {
  return Serve(context, "RepositoryModelLoad", /*open=*/false, *request, *response, [&]() -> grpc::Status {
    const std::string& name = request->model_name();
    if (repository_.mode() != ModelControlMode::kExplicit) {
      return {grpc::StatusCode::FAILED_PRECONDITION, "cannot load '" + name +
                                                         "': models are loaded and unloaded only with "
                                                         "--model-control-mode explicit"};
    }
    // Triton's load parameters ("config", "file:...") override the repository's files; onyx loads the files as
    // they are, so a request that asks for an override is refused rather than silently served something else.
    if (!request->parameters().empty()) {
      return {grpc::StatusCode::INVALID_ARGUMENT, "cannot load '" + name + "' with parameter '" +
                                                      request->parameters().begin()->first +
                                                      "': onyx loads the repository's files as they are"};
    }
    const Status st = repository_.Load(name);
    if (st.ok()) return grpc::Status::OK;
    return {st.code() == StatusCode::kNotFound ? grpc::StatusCode::NOT_FOUND : grpc::StatusCode::INVALID_ARGUMENT,
            st.message()};
  });
}

grpc::Status GrpcInferenceService::RepositoryModelUnload(grpc::ServerContext* context,
                                                         const inference::RepositoryModelUnloadRequest* request,
                                                         inference::RepositoryModelUnloadResponse* response) {
  // Parameters (Triton's "unload_dependents") change nothing: onyx models have no dependents.
  return Serve(context, "RepositoryModelUnload", /*open=*/false, *request, *response, [&]() -> grpc::Status {
    const std::string& name = request->model_name();
    if (repository_.mode() != ModelControlMode::kExplicit) {
      return {grpc::StatusCode::FAILED_PRECONDITION, "cannot unload '" + name +
                                                         "': models are loaded and unloaded only with "
                                                         "--model-control-mode explicit"};
    }
    const Status st = repository_.Unload(name);
    if (st.ok()) return grpc::Status::OK;
    return {st.code() == StatusCode::kNotFound ? grpc::StatusCode::NOT_FOUND : grpc::StatusCode::INVALID_ARGUMENT,
            st.message()};
  });
}

}  // namespace onyx::serve

#include "serve/grpc/grpc_server.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <fstream>
#include <sstream>

#include "serve/grpc/grpc_service.h"

namespace onyx::serve {
namespace {

Result<std::string> ReadPem(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty()) return IoError("cannot read the TLS " + std::string(what) + " '" + path + "'");
  return text.str();
}

// "host:port", with an IPv6 address in brackets.
std::string Address(const std::string& host, int port) {
  const bool ipv6 = host.find(':') != std::string::npos && host.front() != '[';
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace

GrpcServer::GrpcServer(ModelRepository& repository, RunQueue& runs, ServerOptions options, int port)
    : repository_(repository), runs_(runs), options_(std::move(options)), port_(port) {}

GrpcServer::~GrpcServer() { Shutdown(); }

Result<int> GrpcServer::Start() {
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (tls()) {
    grpc::SslServerCredentialsOptions ssl;
    grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
    ONYX_ASSIGN_OR_RETURN(pair.private_key, ReadPem(options_.tls_key, "key"));
    ONYX_ASSIGN_OR_RETURN(pair.cert_chain, ReadPem(options_.tls_cert, "certificate"));
    ssl.pem_key_cert_pairs.push_back(std::move(pair));
    credentials = grpc::SslServerCredentials(ssl);
  }
  service_ = std::make_unique<GrpcInferenceService>(repository_, runs_, options_);
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(Address(options_.host, port_), credentials, &bound_port);
  builder.RegisterService(service_.get());
  // The HTTP body limit applies to a whole request message; gRPC refuses larger ones with RESOURCE_EXHAUSTED.
  builder.SetMaxReceiveMessageSize(static_cast<int>(std::min<size_t>(options_.max_request_bytes, INT_MAX)));
  builder.SetMaxSendMessageSize(INT_MAX);
  // gRPC sets SO_REUSEPORT by default: a second server on a busy port would then start silently and the kernel
  // split the connections between the two (the HTTP side sets SO_REUSEADDR only, for the same reason).
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // Each sync RPC holds a thread from its arrival to its answer, through the wait for a run: the run queue, not the
  // thread pool, is what refuses excess inference work (with its own RESOURCE_EXHAUSTED naming --max-queue), so the
  // pool has room for every request the queue may hold, plus 64 for those running (each request of a batch holds
  // its thread while the batch runs) and --http-threads for metadata calls. Beyond that gRPC answers
  // RESOURCE_EXHAUSTED itself: a bound on threads under a flood of calls.
  grpc::ResourceQuota quota("onyx-serve-grpc");
  const int64_t threads = int64_t{options_.http_threads} + runs_.max_waiting() + 64;
  quota.SetMaxThreads(static_cast<int>(std::min<int64_t>(threads, 1 << 16)));
  builder.SetResourceQuota(quota);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || bound_port == 0) {
    server_.reset();
    if (tls()) {
      return InvalidArgument("cannot start the gRPC server on " + Address(options_.host, port_) +
                             " with certificate '" + options_.tls_cert + "' and key '" + options_.tls_key +
                             "' (the port is in use, or the certificate and key are not a PEM pair)");
    }
    return IoError("cannot listen for gRPC on " + Address(options_.host, port_) +
                   " (in use, or not an address of this machine)");
  }
  return bound_port;
}

void GrpcServer::Shutdown() {
  std::call_once(shutdown_once_, [this] {
    if (server_ == nullptr) return;
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(kShutdownGraceSeconds));
    server_->Wait();
  });
}

}  // namespace onyx::serve

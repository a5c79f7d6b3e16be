// onyx serve MODEL | --model-repository DIR: serves models over HTTP with the Open Inference Protocol (KServe v2
// REST), and over gRPC with its GRPCInferenceService on --grpc-port, as Triton and KServe do (docs/serve.md).
#include <malloc.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "cli.h"
#include "core/cpu_count.h"
#include "serve/auth.h"
#include "serve/http_server.h"
#ifdef ONYX_HAVE_GRPC
#include "serve/grpc/grpc_server.h"
#endif

namespace onyx::cli {

namespace {

void Help() {
  std::printf(
      "usage: onyx serve MODEL [options]\n"
      "       onyx serve --model-repository DIR [options]\n\n"
      "Serves models over HTTP with the Open Inference Protocol (KServe v2 REST, as Triton and KServe speak it):\n"
      "  GET  /v2/health/live | /v2/health/ready      liveness, readiness (open without the token)\n"
      "  GET  /v2                                     server metadata\n"
      "  GET  /v2/models/NAME[/versions/V]            inputs and outputs with datatypes and shapes\n"
      "  GET  /v2/models/NAME[/versions/V]/ready      model readiness\n"
      "  POST /v2/models/NAME[/versions/V]/infer      inference (JSON tensors or the binary tensor extension)\n"
      "  POST /v2/repository/index                    models with state and reason\n"
      "  POST /v2/repository/models/NAME/load|unload  model control (--model-control-mode explicit)\n"
      "  GET  /metrics                                Prometheus metrics per model and version\n"
      "and, with --grpc-port, the same over gRPC (KServe v2 GRPCInferenceService, package inference: ServerLive,\n"
      "ServerReady, ModelReady, ServerMetadata, ModelMetadata, ModelInfer, RepositoryIndex, RepositoryModelLoad,\n"
      "RepositoryModelUnload).\n"
      "Prints 'listening on http[s]://HOST:PORT' (then 'listening on grpc[s]://HOST:PORT') once ready; SIGINT/SIGTERM\n"
      "answer the requests in flight, then stop.\n\n"
      "models:\n"
      "  MODEL                      one model file (.onnx, or .keras/.h5/model.json/.pb/.tflite/SavedModel folder,\n"
      "                             converted at load), served as version 1\n"
      "  --name NAME                its name in URLs (default: the file name without the extension)\n"
      "  --model-repository DIR     Triton's layout: DIR/<model>/<version>/model.onnx, optional "
      "DIR/<model>/config.json\n"
      "  --model-control-mode M     none (load all at start), poll (also rescan), explicit (load/unload requests)\n"
      "  --repository-poll-secs N   rescan interval with poll (default 15)\n"
      "  --load-model NAME          with explicit: load NAME at start (repeatable)\n"
      "  --threads N                intra-op threads per run (default: every usable CPU; config.json 'threads' wins)\n"
      "  --opt-level LEVEL          graph optimization: disabled, basic, extended or all (default all)\n"
      "  --max-batch-size N         dynamic batching up to N rows for models whose config sets none (default 0: off)\n"
      "  --max-queue-delay-us N     how long a batch waits to fill (default 0)\n"
      "limits:\n"
      "  --concurrency N            model runs at once; more requests wait (default 1)\n"
      "  --max-queue N              requests waiting for a run before 503s (default 256)\n"
      "  --http-threads N           connections served at once (default 32)\n"
      "  --keep-alive-requests N    requests one connection may carry before it is closed (default 10000)\n"
      "  --next-request-spin-us N   after a response, with no run in progress, poll the connection this long\n"
      "                             before sleeping (default 500; 0: sleep at once; see docs/serve.md)\n"
      "  --max-request-mb N         largest request body (default 64)\n"
      "  --max-header-kb N          largest request header block (default 16)\n"
      "  --max-tensor-elements N    largest input tensor (default 134217728)\n"
      "  --read-timeout-s N, --write-timeout-s N   per socket read/write (default 10)\n"
      "  --request-timeout-s N      a request body must arrive within N s (default 60)\n"
      "security and operations:\n"
      "  --host HOST                address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)\n"
      "  --port N                   port (default 8000; 0 picks a free one)\n"
      "  --grpc-port N              also serve gRPC on port N (0 picks a free one; default: no gRPC)\n"
      "  --auth-token-file FILE     require 'Authorization: Bearer <token>' (the file's first line) but on health\n"
      "  --tls-cert FILE --tls-key FILE   HTTPS with this PEM certificate and key\n"
      "  --access-log FILE|-        JSON-lines access log with request ids (- for standard output)\n"
      "  --quiet                    no plain access log on stderr\n");
}

// Options that take a value, and what each sets.
struct Parsed {
  std::string model_path, repository, control = "none", token_file, access_log;
  std::vector<std::string> load_models;
  int poll_secs = 15, concurrency = 1, max_request_mb = 64, max_header_kb = 16;
  int grpc_port = -1;  // -1: no gRPC server
  int64_t max_queue = 256, max_tensor_elements = int64_t{1} << 27;
  bool quiet = false;
  serve::ServerOptions server;
  serve::ServingDefaults defaults;
  std::string model_name;
};

// Returns kExitOk, or kExitUsage after printing the problem.
int ParseArgs(const std::vector<std::string>& args, Parsed* p) {
  static const std::vector<std::string> kValueOptions = {"--host",
                                                         "--port",
                                                         "--grpc-port",
                                                         "--name",
                                                         "--threads",
                                                         "--concurrency",
                                                         "--max-request-mb",
                                                         "--opt-level",
                                                         "-O",
                                                         "--model-repository",
                                                         "--model-control-mode",
                                                         "--repository-poll-secs",
                                                         "--load-model",
                                                         "--max-batch-size",
                                                         "--max-queue-delay-us",
                                                         "--max-queue",
                                                         "--http-threads",
                                                         "--keep-alive-requests",
                                                         "--next-request-spin-us",
                                                         "--max-header-kb",
                                                         "--max-tensor-elements",
                                                         "--read-timeout-s",
                                                         "--write-timeout-s",
                                                         "--request-timeout-s",
                                                         "--auth-token-file",
                                                         "--tls-cert",
                                                         "--tls-key",
                                                         "--access-log"};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (std::find(kValueOptions.begin(), kValueOptions.end(), a) != kValueOptions.end()) {
      if (i + 1 >= args.size()) {
        Error(a + " needs a value");
        return kExitUsage;
      }
      const std::string& v = args[++i];
      bool ok = true;
      if (a == "--host") {
        p->server.host = v;
      } else if (a == "--name") {
        ok = !v.empty() && v.find('/') == std::string::npos;
        if (!ok) Error("--name must be a non-empty name without '/'");
        p->model_name = v;
      } else if (a == "--port") {
        ok = ParseIntArg(a, v, 0, 65535, &p->server.port);
      } else if (a == "--grpc-port") {
        ok = ParseIntArg(a, v, 0, 65535, &p->grpc_port);
      } else if (a == "--threads") {
        ok = ParseIntArg(a, v, 0, 4096, &p->defaults.session.intra_op_num_threads);
      } else if (a == "--concurrency") {
        ok = ParseIntArg(a, v, 1, 1024, &p->concurrency);
      } else if (a == "--max-request-mb") {
        ok = ParseIntArg(a, v, 1, 1 << 20, &p->max_request_mb);
      } else if (a == "--max-header-kb") {
        ok = ParseIntArg(a, v, 1, 1 << 20, &p->max_header_kb);
      } else if (a == "--opt-level" || a == "-O") {
        auto level = optimizer::ParseOptLevel(v);
        ok = level.ok();
        if (!ok) Error(level.status().message());
        if (ok) p->defaults.session.optimization_level = *level;
      } else if (a == "--model-repository") {
        p->repository = v;
      } else if (a == "--model-control-mode") {
        ok = serve::ParseModelControlMode(v).ok();
        if (!ok) Error("--model-control-mode must be none, poll or explicit, got '" + v + "'");
        p->control = v;
      } else if (a == "--repository-poll-secs") {
        ok = ParseIntArg(a, v, 1, 86400, &p->poll_secs);
      } else if (a == "--load-model") {
        p->load_models.push_back(v);
      } else if (a == "--max-batch-size") {
        ok = ParseIntArg(a, v, int64_t{0}, int64_t{1} << 16, &p->defaults.max_batch_size);
      } else if (a == "--max-queue-delay-us") {
        ok = ParseIntArg(a, v, int64_t{0}, int64_t{10'000'000}, &p->defaults.max_queue_delay_us);
      } else if (a == "--max-queue") {
        ok = ParseIntArg(a, v, int64_t{1}, int64_t{1} << 20, &p->max_queue);
      } else if (a == "--http-threads") {
        ok = ParseIntArg(a, v, 1, 4096, &p->server.http_threads);
      } else if (a == "--keep-alive-requests") {
        ok = ParseIntArg(a, v, 1, 1 << 30, &p->server.keep_alive_max_requests);
      } else if (a == "--next-request-spin-us") {
        ok = ParseIntArg(a, v, 0, 1'000'000, &p->server.next_request_spin_us);
      } else if (a == "--max-tensor-elements") {
        ok = ParseIntArg(a, v, int64_t{1}, int64_t{1} << 40, &p->max_tensor_elements);
      } else if (a == "--read-timeout-s") {
        ok = ParseIntArg(a, v, 1, 3600, &p->server.read_timeout_s);
      } else if (a == "--write-timeout-s") {
        ok = ParseIntArg(a, v, 1, 3600, &p->server.write_timeout_s);
      } else if (a == "--request-timeout-s") {
        ok = ParseIntArg(a, v, 1, 3600, &p->server.request_timeout_s);
      } else if (a == "--auth-token-file") {
        p->token_file = v;
      } else if (a == "--tls-cert") {
        p->server.tls_cert = v;
      } else if (a == "--tls-key") {
        p->server.tls_key = v;
      } else if (a == "--access-log") {
        p->access_log = v;
      }
      if (!ok) return kExitUsage;
    } else if (a == "--quiet") {
      p->quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      Error("unknown option '" + a + "'");
      return kExitUsage;
    } else if (p->model_path.empty()) {
      p->model_path = a;
    } else {
      Error("one model file at a time (got '" + p->model_path + "' and '" + a +
            "'); serve several with "
            "--model-repository");
      return kExitUsage;
    }
  }
  if (p->model_path.empty() == p->repository.empty()) {
    Error(p->model_path.empty() ? "no model given (see 'onyx serve --help')"
                                : "give a MODEL or --model-repository, not both");
    return kExitUsage;
  }
  if (p->server.tls_cert.empty() != p->server.tls_key.empty()) {
    Error("--tls-cert and --tls-key go together");
    return kExitUsage;
  }
  if (!p->model_path.empty() && (p->control != "none" || !p->load_models.empty())) {
    Error("--model-control-mode and --load-model need --model-repository");
    return kExitUsage;
  }
  if (!p->load_models.empty() && p->control != "explicit") {
    Error("--load-model needs --model-control-mode explicit");
    return kExitUsage;
  }
  p->server.max_request_bytes = static_cast<size_t>(p->max_request_mb) << 20;
  p->server.max_header_bytes = static_cast<size_t>(p->max_header_kb) << 10;
  p->server.max_tensor_elements = p->max_tensor_elements;
  return kExitOk;
}

// Rescans the repository every `secs` until stopped (--model-control-mode poll).
class Poller {
 public:
  Poller(serve::ModelRepository& repository, int secs)
      : thread_([this, &repository, secs] {
          std::unique_lock<std::mutex> lock(mutex_);
          while (!cv_.wait_for(lock, std::chrono::seconds(secs), [this] { return stop_; })) {
            lock.unlock();
            repository.Poll();
            lock.lock();
          }
        }) {}
  ~Poller() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the rest is constructed
};

}  // namespace

int ServeMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    Help();
    return kExitOk;
  }
  Parsed p;
  if (int rc = ParseArgs(args, &p); rc != kExitOk) return rc;
  // glibc gives each of the server's many threads (HTTP, gRPC, batchers) an arena of its own, up to 8 per core; memory
  // freed in one (an unloaded model's, a large request's) is then rarely reused by the others, and RSS grew ~20% over
  // 100 unload/load cycles. As many arenas as cores keep allocations from contending without that spread.
  mallopt(M_ARENA_MAX, std::max(2, UsableCpuCount()));

  if (!p.token_file.empty()) {
    auto token = serve::ReadTokenFile(p.token_file);
    if (!token.ok()) {
      Error(token.status().message());
      return kExitFailure;
    }
    p.server.auth_token = *token;
  }
  std::unique_ptr<serve::AccessLog> access_log;
  if (!p.access_log.empty()) {
    auto opened = serve::AccessLog::Open(p.access_log);
    if (!opened.ok()) {
      Error(opened.status().message());
      return kExitFailure;
    }
    access_log = std::move(opened).value();
    p.server.access_log = access_log.get();
  }
  if (!p.quiet) p.server.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };

  // SIGINT/SIGTERM are taken by one thread that stops the server (stop() is not async-signal-safe, so no handler
  // calls it); they are blocked here before any thread starts (model loading, batchers, the server's
  // workers), so all inherit the mask and none is killed by them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGUSR1);  // sent by this function to end the waiting thread
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  serve::RepositoryOptions repo_options;
  repo_options.mode = *serve::ParseModelControlMode(p.control);
  repo_options.defaults = p.defaults;
  repo_options.load_threads = std::max(2, UsableCpuCount());
  if (!p.model_path.empty()) {
    repo_options.single_path = p.model_path;
    std::string name = p.model_name;
    if (name.empty()) name = std::filesystem::path(p.model_path).stem().string();
    repo_options.single_name = name.empty() ? "model" : name;
  } else {
    repo_options.root = p.repository;
  }
  serve::MetricsRegistry metrics;
  serve::RunQueue runs(p.concurrency, p.max_queue);
  serve::ModelRepository repository(repo_options, runs, metrics);
  if (Status st = repository.LoadStartup(p.load_models); !st.ok()) {
    Error(st.message());
    return kExitFailure;
  }
  if (!p.model_path.empty()) {
    // One model: failing to load it is failing to start.
    auto model = repository.Find(repo_options.single_name, "");
    if (!model.ok()) {
      Error(repository.Index(false)[0].value("reason", model.status().message()));
      return kExitFailure;
    }
  } else {
    for (const auto& item : repository.Index(false)) {
      std::fprintf(stderr, "model %s%s: %s%s\n", item.value("name", "").c_str(),
                   item.contains("version") ? (" version " + item.value("version", "")).c_str() : "",
                   item.value("state", "not loaded").c_str(),
                   item.contains("reason") ? (" (" + item.value("reason", "") + ")").c_str() : "");
    }
  }

  serve::InferenceServer server(repository, metrics, runs, p.server);
  auto port = server.Bind();
  if (!port.ok()) {
    Error(port.status().message());
    return kExitFailure;
  }
#ifdef ONYX_HAVE_GRPC
  std::optional<serve::GrpcServer> grpc_server;
  int grpc_port = 0;
  if (p.grpc_port >= 0) {
    grpc_server.emplace(repository, runs, p.server, p.grpc_port);
    auto bound = grpc_server->Start();
    if (!bound.ok()) {
      Error(bound.status().message());
      return kExitFailure;
    }
    grpc_port = *bound;
  }
#else
  if (p.grpc_port >= 0) {
    Error("--grpc-port: this onyx was built without gRPC");
    return kExitFailure;
  }
#endif
  std::optional<Poller> poller;
  if (repo_options.mode == serve::ModelControlMode::kPoll) poller.emplace(repository, p.poll_secs);
  std::thread signal_waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    // Both servers stop taking requests at once; each answers those in flight (the gRPC one waits for its own
    // here, HTTP's Listen() for its own).
    server.Stop();
#ifdef ONYX_HAVE_GRPC
    if (grpc_server) grpc_server->Shutdown();
#endif
  });
  if (!p.model_path.empty()) {
    std::printf("serving '%s' as model '%s'\n", p.model_path.c_str(), repo_options.single_name.c_str());
  } else {
    std::printf("serving the model repository '%s' (model control: %s)\n", p.repository.c_str(), p.control.c_str());
  }
  std::printf("listening on %s://%s:%d\n", server.tls() ? "https" : "http", p.server.host.c_str(), *port);
#ifdef ONYX_HAVE_GRPC
  if (grpc_server) {
    std::printf("listening on %s://%s:%d\n", grpc_server->tls() ? "grpcs" : "grpc", p.server.host.c_str(), grpc_port);
  }
#endif
  std::fflush(stdout);
  Status st = server.Listen();  // returns once the requests in flight are answered
  pthread_kill(signal_waiter.native_handle(), SIGUSR1);
  signal_waiter.join();
  poller.reset();
  if (!st.ok()) {
    Error(st.message());
    return kExitFailure;
  }
  std::fprintf(stderr, "onyx serve: stopped\n");
  return kExitOk;
}

}  // namespace onyx::cli

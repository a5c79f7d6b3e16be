// onyx serve MODEL: serves a model over HTTP with the Open Inference Protocol (KServe v2 REST).
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <thread>

#include "cli.h"
#include "open_model.h"
#include "serve/http_server.h"

namespace onyx::cli {

namespace {

void Help() {
  std::printf(
      "usage: onyx serve MODEL [options]\n\n"
      "Serves MODEL over HTTP with the Open Inference Protocol (KServe v2 REST, as Triton and KServe speak it):\n"
      "  GET  /v2/health/live | /v2/health/ready      liveness, readiness\n"
      "  GET  /v2                                     server metadata\n"
      "  GET  /v2/models/NAME                         inputs and outputs with datatypes and shapes\n"
      "  GET  /v2/models/NAME/ready                   model readiness\n"
      "  POST /v2/models/NAME/infer                   inference: {\"inputs\": [{\"name\", \"shape\", \"datatype\",\n"
      "                                               \"data\"}]} -> {\"outputs\": [...]}; the binary tensor\n"
      "                                               extension (Inference-Header-Content-Length) for raw bytes\n"
      "Prints 'listening on http://HOST:PORT' once ready; stops cleanly on SIGINT or SIGTERM.\n\n"
      "options:\n"
      "  --host HOST         address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)\n"
      "  --port N            port (default 8000; 0 picks a free one)\n"
      "  --name NAME         the model's name in URLs (default: the file name without .onnx)\n"
      "  --threads N         intra-op threads per inference (default: all cores)\n"
      "  --concurrency N     inferences running at once; more requests wait (default 1)\n"
      "  --max-request-mb N  largest request body accepted (default 1024)\n"
      "  --opt-level LEVEL   graph optimization: disabled, basic, extended or all (default all)\n"
      "  --quiet             no access log on stderr\n");
}

bool ParseInt(const std::string& s, int min, int max, int* out) {
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < min || v > max) return false;
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

int ServeMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    Help();
    return kExitOk;
  }
  std::string model_path;
  serve::ServerOptions options;
  options.model_name.clear();
  SessionOptions session_options;
  bool quiet = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--host" || a == "--port" || a == "--name" || a == "--threads" || a == "--concurrency" ||
        a == "--max-request-mb" || a == "--opt-level" || a == "-O") {
      if (i + 1 >= args.size()) {
        Error(a + " needs a value");
        return kExitUsage;
      }
      const std::string& v = args[++i];
      int n = 0;
      if (a == "--host") {
        options.host = v;
      } else if (a == "--name") {
        if (v.empty() || v.find('/') != std::string::npos) {
          Error("--name must be a non-empty name without '/'");
          return kExitUsage;
        }
        options.model_name = v;
      } else if (a == "--port") {
        if (!ParseInt(v, 0, 65535, &n)) {
          Error("--port needs a number from 0 to 65535, got '" + v + "'");
          return kExitUsage;
        }
        options.port = n;
      } else if (a == "--threads") {
        if (!ParseInt(v, 0, 4096, &n)) {
          Error("--threads needs a non-negative number, got '" + v + "'");
          return kExitUsage;
        }
        session_options.intra_op_num_threads = n;
      } else if (a == "--concurrency") {
        if (!ParseInt(v, 1, 1024, &n)) {
          Error("--concurrency needs a number from 1 to 1024, got '" + v + "'");
          return kExitUsage;
        }
        options.max_concurrent_runs = n;
      } else if (a == "--max-request-mb") {
        if (!ParseInt(v, 1, 1 << 20, &n)) {
          Error("--max-request-mb needs a positive number, got '" + v + "'");
          return kExitUsage;
        }
        options.max_request_bytes = static_cast<size_t>(n) << 20;
      } else {
        auto level = optimizer::ParseOptLevel(v);
        if (!level.ok()) {
          Error(level.status().message());
          return kExitUsage;
        }
        session_options.optimization_level = *level;
      }
    } else if (a == "--quiet") {
      quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      Error("unknown option '" + a + "'");
      return kExitUsage;
    } else if (model_path.empty()) {
      model_path = a;
    } else {
      Error("one model at a time (got '" + model_path + "' and '" + a + "')");
      return kExitUsage;
    }
  }
  if (model_path.empty()) {
    Error("no model given (see 'onyx serve --help')");
    return kExitUsage;
  }
  if (options.model_name.empty()) options.model_name = std::filesystem::path(model_path).stem().string();
  if (options.model_name.empty()) options.model_name = "model";

  auto session = OpenModel(model_path, session_options);
  if (!session.ok()) {
    Error(session.status().message());
    return session.status().code() == StatusCode::kUnsupported ? kExitUnsupported : kExitFailure;
  }
  if (!quiet) options.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };

  // SIGINT/SIGTERM are taken by one thread that stops the server (stop() is not async-signal-safe, so no handler
  // calls it); they are blocked here before the server's threads start, so those inherit the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGUSR1);  // sent by this function to end the waiting thread
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  serve::InferenceServer server(std::shared_ptr<const Session>(std::move(session).value()), options);
  auto port = server.Bind();
  if (!port.ok()) {
    Error(port.status().message());
    return kExitFailure;
  }
  std::thread signal_waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    server.Stop();
  });
  std::printf("serving '%s' as model '%s'\nlistening on http://%s:%d\n", model_path.c_str(),
              options.model_name.c_str(), options.host.c_str(), *port);
  std::fflush(stdout);
  Status st = server.Listen();
  pthread_kill(signal_waiter.native_handle(), SIGUSR1);
  signal_waiter.join();
  if (!st.ok()) {
    Error(st.message());
    return kExitFailure;
  }
  std::fprintf(stderr, "onyx serve: stopped\n");
  return kExitOk;
}

}  // namespace onyx::cli

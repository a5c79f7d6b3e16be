#include "serve/http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <random>

#include "onyx_version.h"
#include "serve/auth.h"
#include "serve/connection_socket.h"
#include "serve/http_util.h"
#include "serve/web_graph.h"

namespace onyx::serve {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// When the worker thread began the request it is handling (set by the pre-routing guard, read by the logger: both
// run on the thread that handles the request).
thread_local Clock::time_point request_start;
thread_local bool request_started = false;

// A client's X-Request-Id is kept when short and printable; anything else is replaced.
bool UsableRequestId(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    if (c < 0x21 || c > 0x7e || c == '"' || c == '\\') return false;
  }
  return true;
}

// The web page's static shell (GET / and /ui/*) is public, as the health routes: it holds no data, asks for the
// token, and sends it with every API call it makes.
bool IsPublic(const httplib::Request& req) {
  if (req.path.rfind("/v2/health/", 0) == 0) return true;
  return (req.method == "GET" || req.method == "HEAD") && (req.path == "/" || req.path.rfind("/ui/", 0) == 0);
}

}  // namespace

InferenceServer::InferenceServer(ModelRepository& repository, MetricsRegistry& metrics, RunQueue& runs,
                                 ServerOptions options)
    : repository_(repository),
      metrics_(metrics),
      runs_(runs),
      options_(std::move(options)),
      graphs_(std::make_unique<GraphPictures>()) {
  if (tls()) {
    http_ = std::make_unique<httplib::SSLServer>(options_.tls_cert.c_str(), options_.tls_key.c_str());
  } else {
    http_ = std::make_unique<httplib::Server>();
  }
  // Request ids: a random prefix per server run and a counter, unique across restarts in one log.
  std::random_device random;
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "%08x", random());
  request_id_prefix_ = prefix;

  const int threads = std::max(options_.http_threads, 1);
  // httplib's hook wants a new'd queue it then owns (its own API's convention).
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  http_->set_payload_max_length(options_.max_request_bytes);
  http_->set_read_timeout(options_.read_timeout_s, 0);
  http_->set_write_timeout(options_.write_timeout_s, 0);
  http_->set_keep_alive_timeout(options_.keep_alive_timeout_s);
  http_->set_keep_alive_max_count(static_cast<size_t>(options_.keep_alive_max_requests));
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, with which a second server on a busy port starts
  // silently and the kernel splits the connections between the two.
  // httplib writes a response's headers and body separately: without TCP_NODELAY the body waits for the client's
  // delayed ACK of the headers (Nagle), ~20 ms a request.
  http_->set_tcp_nodelay(true);
  http_->set_socket_options([this](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listen_socket_ = static_cast<int>(sock);
  });
  http_->set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    if (options_.log) options_.log(req.method + " " + req.path + " " + std::to_string(res.status));
    if (options_.access_log != nullptr) {
      AccessRecord r;
      r.request_id = res.get_header_value("X-Request-Id");
      r.remote = req.remote_addr;
      r.method = req.method;
      r.path = req.path;
      r.status = res.status;
      r.bytes_in = static_cast<size_t>(std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10));
      r.bytes_out = res.body.size();
      if (request_started)
        r.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - request_start).count();
      options_.access_log->Write(r);
    }
    request_started = false;
    // httplib calls the logger once the response is written: the client may send its next request now.
    if (options_.next_request_spin_us > 0 && res.get_header_value("Connection") != "close" &&
        req.get_header_value("Connection") != "close") {
      if (auto socket = ConnectionSocket(req)) {
        WaitAwakeForNextRequest(*socket, std::chrono::microseconds(options_.next_request_spin_us),
                                [this] { return runs_.idle(); });
      }
    }
  });
  AddGuards();
  AddRoutes();
  AddModelRoutes();
  AddRepositoryRoutes();
  AddWebRoutes();
}

InferenceServer::~InferenceServer() { Stop(); }

void InferenceServer::AddGuards() {
  // Before routing (and before any body is read): the request id, the header size limit, the token.
  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    request_start = Clock::now();
    request_started = true;
    std::string id = req.get_header_value("X-Request-Id");
    if (!UsableRequestId(id)) id = request_id_prefix_ + "-" + std::to_string(next_request_id_++);
    res.set_header("X-Request-Id", id);
    size_t header_bytes = 0;
    for (const auto& [k, v] : req.headers) header_bytes += k.size() + v.size() + 4;
    if (header_bytes > options_.max_header_bytes) {
      res.set_header("Connection", "close");
      SendError(res, 431,
                "the request's headers hold " + std::to_string(header_bytes) + " bytes, over the limit of " +
                    std::to_string(options_.max_header_bytes));
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!options_.auth_token.empty() && !IsPublic(req) &&
        !BearerTokenMatches(req.get_header_value("Authorization"), options_.auth_token)) {
      res.set_header("WWW-Authenticate", "Bearer");
      res.set_header("Connection", "close");
      SendError(res, 401,
                req.has_header("Authorization") ? "the bearer token is wrong"
                                                : "this server needs 'Authorization: Bearer <token>'");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    // Only fill in bodies for statuses no handler wrote (unknown paths, methods, oversized payloads).
    if (!res.body.empty()) return;
    if (res.status == 404) {
      SendError(res, 404, "no such endpoint: " + req.method + " " + req.path);
    } else if (res.status == 413) {
      SendError(res, 413, "the request is larger than the server's limit (--max-request-mb)");
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

void InferenceServer::AddRoutes() {
  http_->Get("/v2/health/live", [](const httplib::Request&, httplib::Response& res) {
    SendJson(res, 200, {{"live", true}});
  });
  // Ready once the startup loads are done (the port opens after them); models that failed do not hold the server
  // back: their own ready endpoints and the index say so.
  http_->Get("/v2/health/ready", [](const httplib::Request&, httplib::Response& res) {
    SendJson(res, 200, {{"ready", true}});
  });
  http_->Get("/v2", [](const httplib::Request&, httplib::Response& res) {
    SendJson(res, 200,
             {{"name", "onyx"},
              {"version", ONYX_VERSION_STRING},
              {"extensions", {"binary_tensor_data", "model_repository"}}});
  });
  http_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.status = 200;
    res.set_content(metrics_.PrometheusText(), "text/plain; version=0.0.4");
  });
}

void InferenceServer::AddRepositoryRoutes() {
  http_->Post("/v2/repository/index",
              [this](const httplib::Request&, httplib::Response& res, const httplib::ContentReader& read) {
                std::string body;
                if (!ReadBody(read, std::chrono::seconds(options_.request_timeout_s), res, &body)) return;
                bool ready_only = false;
                if (!body.empty()) {
                  const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
                  if (j.is_discarded() || !j.is_object()) {
                    SendError(res, 400, "the index request body must be a JSON object ({\"ready\": true|false})");
                    return;
                  }
                  if (auto r = j.find("ready"); r != j.end() && r->is_boolean()) ready_only = r->get<bool>();
                }
                SendJson(res, 200, repository_.Index(ready_only));
              });
  http_->Post(R"(/v2/repository/models/([^/]+)/(load|unload))",
              [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& read) {
                std::string body;
                if (!ReadBody(read, std::chrono::seconds(options_.request_timeout_s), res, &body)) return;
                const std::string name = req.matches[1], action = req.matches[2];
                if (repository_.mode() != ModelControlMode::kExplicit) {
                  SendError(res, 403,
                            "cannot " + action + " '" + name +
                                "': models are loaded and unloaded only with "
                                "--model-control-mode explicit");
                  return;
                }
                const Status st = action == "load" ? repository_.Load(name) : repository_.Unload(name);
                if (!st.ok()) {
                  SendError(res, st.code() == StatusCode::kNotFound ? 404 : 400, st.message());
                  return;
                }
                SendJson(res, 200, json::object());
              });
}

Result<int> InferenceServer::Bind() {
  if (!http_->is_valid()) {
    return InvalidArgument("cannot set up TLS with certificate '" + options_.tls_cert + "' and key '" +
                           options_.tls_key + "' (unreadable, not PEM, or not a pair)");
  }
  int port = options_.port;
  if (port == 0) {
    port = http_->bind_to_any_port(options_.host);
    if (port < 0) return IoError("cannot bind a port on " + options_.host);
  } else if (!http_->bind_to_port(options_.host, port)) {
    return IoError("cannot listen on " + options_.host + ":" + std::to_string(port) +
                   " (in use, or not an address of this machine)");
  }
  // httplib listens with a backlog of 5 (compiled into Debian's library): a burst of more new connections than that
  // while every connection thread is busy overflows the accept queue (the kernel's ListenOverflows counter rose in
  // every run of ctest serve_abuse), and those clients wait out handshake retransmissions of 1 s and more; the likely
  // cause too of the 3 resets among 8,016 valid requests that run once saw. Listening again on the bound socket sets
  // the system's maximum; where that fails the small backlog stays.
  if (const int sock = listen_socket_.load(); sock >= 0) (void)::listen(sock, SOMAXCONN);
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

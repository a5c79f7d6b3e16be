// The web page routes of InferenceServer: the static files built into the library (GET / and /ui/*) and the graph
// picture of a served model (GET /v2/models/{m}[/versions/{v}]/graph.svg). The page itself talks to the protocol's
// own endpoints (repository index, metadata, infer, /metrics).
#include <httplib.h>

#include <string>

#include "serve/http_server.h"
#include "serve/http_util.h"
#include "serve/web_assets.h"
#include "serve/web_graph.h"

namespace onyx::serve {
namespace {

// The page loads only what the server itself serves: no CDN, no inline script, graph pictures as blob: images.
constexpr const char* kPagePolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

void SendAsset(const httplib::Request& req, httplib::Response& res, const WebAsset& asset) {
  res.set_header("ETag", std::string(asset.etag));
  // Revalidated on every load (a 304 when unchanged), so a new binary's page is never mixed with an old script.
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("Content-Security-Policy", kPagePolicy);
  if (req.get_header_value("If-None-Match") == asset.etag) {
    res.status = 304;
    return;
  }
  res.status = 200;
  res.set_content(std::string(asset.body), std::string(asset.content_type));
}

}  // namespace

void InferenceServer::AddWebRoutes() {
  http_->Get("/", [](const httplib::Request& req, httplib::Response& res) {
    auto asset = FindWebAsset("/index.html");
    if (!asset) {
      SendError(res, 404, "this build of onyx has no web page");
      return;
    }
    SendAsset(req, res, *asset);
  });
  http_->Get(R"(/ui/([A-Za-z0-9._-]+))", [](const httplib::Request& req, httplib::Response& res) {
    auto asset = FindWebAsset("/" + std::string(req.matches[1]));
    if (!asset) {
      SendError(res, 404, "no such file of the web page: " + req.path);
      return;
    }
    SendAsset(req, res, *asset);
  });
  http_->Get(R"(/v2/models/([^/]+)(?:/versions/([^/]+))?/graph\.svg)",
             [this](const httplib::Request& req, httplib::Response& res) {
               const std::string version = req.matches.size() > 2 ? std::string(req.matches[2]) : std::string();
               auto model = repository_.Find(req.matches[1], version);
               if (!model.ok()) {
                 SendError(res, 404, model.status().message());
                 return;
               }
               auto svg = graphs_->Svg(*model);
               if (!svg.ok()) {
                 // Too big to lay out is the graph's nature, not the request's fault nor the server's.
                 SendError(res, svg.status().code() == StatusCode::kUnsupported ? 422 : 500, svg.status().message());
                 return;
               }
               res.status = 200;
               res.set_header("Cache-Control", "private, no-cache");
               res.set_header("X-Content-Type-Options", "nosniff");
               // Graphviz's SVG has no scripts; opened on its own, none may run.
               res.set_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
               res.set_content(**svg, "image/svg+xml");
             });
}

}  // namespace onyx::serve

// The static files of `onyx serve`'s web page (src/serve/web/), compiled into the library by cmake/onyx_web.cmake
// (the definition of FindWebAsset is generated: ${build}/gen/onyx_web_assets.cc).
#pragma once

#include <optional>
#include <string_view>

namespace onyx::serve {

struct WebAsset {
  std::string_view body;  // the file's bytes, valid for the life of the process
  std::string_view content_type;
  std::string_view etag;  // quoted, from the file's SHA-256: changes with the file
};

// The file at `path` ("/index.html", "/app.js": the file name under src/serve/web/ with a leading slash), or
// nullopt when there is none.
std::optional<WebAsset> FindWebAsset(std::string_view path);

}  // namespace onyx::serve

// The graph picture of `onyx serve`'s web page: `onyx visualize`'s SVG of a served model version, drawn from the
// model as loaded from its file (before the session's optimizations), rendered once per loaded version and kept
// while that version stays loaded.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/status.h"
#include "serve/served_model.h"

namespace onyx::serve {

class GraphPictures {
 public:
  // Graphs with more nodes are refused (Unsupported): Graphviz's dot layout takes minutes on them (the limit
  // `onyx visualize` renders by default), too long for a request.
  static constexpr size_t kMaxNodes = 5000;

  // The SVG of `model`'s graph. Unsupported for a graph over kMaxNodes; other errors when the model file cannot be
  // read again or Graphviz fails.
  Result<std::shared_ptr<const std::string>> Svg(const std::shared_ptr<ServedModel>& model);

 private:
  struct Entry {
    std::weak_ptr<ServedModel> model;  // the version drawn: a reload under the same version draws again
    std::shared_ptr<const std::string> svg;
  };
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;  // by "name/version"
};

}  // namespace onyx::serve

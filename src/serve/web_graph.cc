#include "serve/web_graph.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "convert/convert_file.h"
#include "format/model_io.h"
#include "visualize/graph_dot.h"
#include "visualize/render.h"

namespace onyx::serve {
namespace {

// The model the server loaded, again: the session holds only the optimized graph, while the picture shows the
// graph as its author wrote it (as `onyx visualize` does).
Result<ir::Model> LoadForDrawing(const std::string& path) {
  if (convert::IsConvertibleFile(path)) return convert::ConvertFile(path, 17);
  return format::LoadModel(path);
}

// A temporary file, removed when this goes out of scope.
class TempFile {
 public:
  TempFile() {
    std::string pattern = (std::filesystem::temp_directory_path() / "onyx-graph-XXXXXX.svg").string();
    const int fd = mkstemps(pattern.data(), 4);
    if (fd >= 0) {
      close(fd);
      path_ = pattern;
    }
  }
  ~TempFile() {
    if (!path_.empty()) unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// visualize::RenderDot writes files only: the SVG goes through a temporary file.
Result<std::string> RenderSvg(const std::string& dot) {
  TempFile file;
  if (file.path().empty()) return IoError("cannot create a temporary file for the graph picture");
  ONYX_RETURN_IF_ERROR(visualize::RenderDot(dot, "svg", file.path()));
  std::ifstream in(file.path(), std::ios::binary);
  std::ostringstream svg;
  svg << in.rdbuf();
  if (!in) return IoError("cannot read back the rendered graph picture '" + file.path() + "'");
  return svg.str();
}

Result<std::string> Draw(const ServedModel& served) {
  ONYX_ASSIGN_OR_RETURN(ir::Model model, LoadForDrawing(served.path()));
  const size_t nodes = visualize::CountNodes(model.graph);
  if (nodes > GraphPictures::kMaxNodes) {
    return Unsupported("the graph has " + std::to_string(nodes) +
                       " nodes, more than Graphviz lays out in reasonable time (" +
                       std::to_string(GraphPictures::kMaxNodes) + "); draw it with `onyx visualize " + served.path() +
                       " -o graph.dot`");
  }
  ONYX_ASSIGN_OR_RETURN(std::string dot, visualize::ModelToDot(model));
  return RenderSvg(dot);
}

}  // namespace

Result<std::shared_ptr<const std::string>> GraphPictures::Svg(const std::shared_ptr<ServedModel>& model) {
  const std::string key = model->name() + "/" + model->version();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.model.lock() == model) return it->second.svg;
  }
  // Drawn without the lock (Graphviz serializes renders itself): other models' cached pictures are not held up.
  // Two first requests for one model may both draw it; the second's copy replaces the first's.
  auto drawn = Draw(*model);
  if (!drawn.ok()) return drawn.status().WithContext("graph picture of model '" + key + "'");
  auto svg = std::make_shared<const std::string>(std::move(drawn).value());
  std::lock_guard<std::mutex> lock(mutex_);
  // Entries of unloaded versions go with the next insertion, so the cache holds loaded versions only.
  std::erase_if(entries_, [](const auto& entry) { return entry.second.model.expired(); });
  entries_[key] = Entry{model, svg};
  return svg;
}

}  // namespace onyx::serve

#include "visualize/render.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>

namespace onyx::visualize {

namespace {

// Graphviz reports errors through a process-wide callback without user data: it lands here while the render
// mutex is held.
std::mutex g_render_mutex;
std::string* g_messages = nullptr;

int CaptureMessage(char* text) {
  if (g_messages && text) g_messages->append(text);
  return 0;
}

// Routes Graphviz's messages into `messages` for the lifetime of this object, then restores what was there.
class MessageCapture {
 public:
  explicit MessageCapture(std::string* messages) : previous_(agseterrf(CaptureMessage)) {
    g_messages = messages;
    agreseterrors();
  }
  ~MessageCapture() {
    g_messages = nullptr;
    agseterrf(previous_);
  }
  MessageCapture(const MessageCapture&) = delete;
  MessageCapture& operator=(const MessageCapture&) = delete;

 private:
  agusererrf previous_;
};

struct GraphDeleter {
  void operator()(Agraph_t* g) const { agclose(g); }
};
struct RenderDataDeleter {
  void operator()(char* data) const { gvFreeRenderData(data); }
};
using GraphPtr = std::unique_ptr<Agraph_t, GraphDeleter>;
using RenderDataPtr = std::unique_ptr<char, RenderDataDeleter>;

// One Graphviz context for the whole process, created on first use and never freed (callers hold g_render_mutex).
// Debian's Graphviz 2.42 keeps the text-span cache of its pango plugin (font names) across contexts: after
// gvFreeContext, the next context's layout reads the freed names (valgrind and ASan: heap-use-after-free in
// textspan_size during gvLayout of the second render in a process). One context for good avoids that.
GVC_t* ProcessContext() {
  static GVC_t* const gvc = gvContext();
  return gvc;
}

// Holds a layout and frees it before the graph goes (declared after the GraphPtr it refers to).
class Layout {
 public:
  Layout(GVC_t* gvc, Agraph_t* g) : gvc_(gvc), g_(g) {}
  ~Layout() { gvFreeLayout(gvc_, g_); }
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;

 private:
  GVC_t* gvc_;   // not owned
  Agraph_t* g_;  // not owned
};

// "Error: syntax error in line 3 near '}'\n" -> "syntax error in line 3 near '}'" (several lines joined).
std::string Tidy(const std::string& messages) {
  std::string out;
  size_t start = 0;
  while (start < messages.size()) {
    size_t end = messages.find('\n', start);
    if (end == std::string::npos) end = messages.size();
    std::string line = messages.substr(start, end - start);
    for (const char* prefix : {"Error: ", "Warning: "}) {
      if (line.rfind(prefix, 0) == 0) line.erase(0, std::strlen(prefix));
    }
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    if (!line.empty()) out += (out.empty() ? "" : "; ") + line;
    start = end + 1;
  }
  return out;
}

Status GraphvizError(const std::string& what, const std::string& messages) {
  std::string tidy = Tidy(messages);
  return Internal("graphviz: " + what + (tidy.empty() ? "" : ": " + tidy));
}

}  // namespace

bool IsRenderFormat(const std::string& format) { return format == "svg" || format == "png" || format == "pdf"; }

Status RenderDot(const std::string& dot, const std::string& format, const std::string& out_path) {
  if (!IsRenderFormat(format)) {
    return InvalidArgument("cannot render '" + format + "' (formats: svg, png, pdf)");
  }
  std::lock_guard<std::mutex> lock(g_render_mutex);
  std::string messages;
  MessageCapture capture(&messages);
  GVC_t* gvc = ProcessContext();
  if (gvc == nullptr) return GraphvizError("cannot create a context", messages);
  GraphPtr graph(agmemread(dot.c_str()));
  if (!graph) return InvalidArgument("graphviz: cannot parse the DOT text: " + Tidy(messages));
  if (gvLayout(gvc, graph.get(), "dot") != 0) return GraphvizError("dot layout failed", messages);
  Layout layout(gvc, graph.get());
  char* raw = nullptr;
  unsigned int length = 0;
  // Into memory rather than gvRenderFilename: Graphviz exits the process when it cannot open an output file.
  int rc = gvRenderData(gvc, graph.get(), format.c_str(), &raw, &length);
  RenderDataPtr data(raw);
  if (rc != 0 || !data) return GraphvizError("rendering " + format + " failed", messages);
  if (length == 0) return GraphvizError("rendering " + format + " produced nothing", messages);
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  if (!out) return IoError("cannot open '" + out_path + "' for writing: " + std::strerror(errno));
  out.write(data.get(), static_cast<std::streamsize>(length));
  out.close();
  if (!out) return IoError("cannot write '" + out_path + "': " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace onyx::visualize

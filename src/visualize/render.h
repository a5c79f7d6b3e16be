// DOT text to SVG, PNG or PDF in-process, through Graphviz's libgvc (the `dot` layout engine). Graphviz keeps
// global state (its error handler, the parser), so calls are serialized.
#pragma once

#include <string>

#include "core/status.h"

namespace onyx::visualize {

// The formats RenderDot writes: "svg", "png", "pdf".
bool IsRenderFormat(const std::string& format);

// Lays `dot` out and writes it to `out_path` in `format`. Syntax errors in `dot` and Graphviz's complaints come
// back in the Status message; `out_path` is only written once rendering succeeded.
Status RenderDot(const std::string& dot, const std::string& format, const std::string& out_path);

}  // namespace onyx::visualize

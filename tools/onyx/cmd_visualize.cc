// onyx visualize MODEL [-o OUT]: a picture of the model's graph, as DOT text or rendered by Graphviz.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli.h"
#include "open_model.h"
#include "visualize/graph_dot.h"
#include "visualize/render.h"

namespace onyx::cli {

namespace {

// Above this many nodes Graphviz's dot layout takes minutes (its crossing minimization grows faster than
// linearly; docs/visualize.md has timings), so the DOT text is written instead of the picture. Edge labels
// (--shapes) enter the layout as nodes of their own, so they halve the limit.
constexpr size_t kDefaultMaxRenderNodes = 5000;

void PrintUsage() {
  std::printf(
      "usage: onyx visualize MODEL [-o OUT] [--shapes] [--no-initializers] [--rankdir TB|LR] [--max-nodes N]\n\n"
      "Draws MODEL's graph as Netron does: a box per node with its operator, name and key attributes, the\n"
      "weights it reads listed inside it (W⟨64×3×7×7⟩), inputs and outputs as ellipses with their types,\n"
      "If/Loop/Scan bodies as clusters beside their node, colours by operator category. OUT's extension picks\n"
      "the format: .dot or .gv (Graphviz text), .svg, .png or .pdf (laid out by Graphviz's dot). Without -o\n"
      "the DOT text goes to stdout.\n"
      "  -o OUT             where to write the drawing\n"
      "  --shapes           label edges with their values' types and shapes (shape inference; where it fails,\n"
      "                     the model's declared value_info)\n"
      "  --no-initializers  leave weights and other initializers out of the boxes\n"
      "  --rankdir TB|LR    top to bottom (default) or left to right\n"
      "  --max-nodes N      render at most N nodes, half as many with --shapes (default %zu, 0: no limit);\n"
      "                     a larger graph is written as DOT beside OUT instead (exit 3), since dot's layout\n"
      "                     would take minutes\n",
      kDefaultMaxRenderNodes);
}

// ".SVG" -> "svg"; "" when there is no extension.
std::string FormatOf(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (!ext.empty()) ext.erase(0, 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

Status WriteText(const std::string& text, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return IoError("cannot open '" + path + "' for writing: " + std::strerror(errno));
  out << text;
  out.close();
  if (!out) return IoError("cannot write '" + path + "': " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace

int VisualizeMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    PrintUsage();
    return kExitOk;
  }
  std::string model_path, out_path;
  visualize::DotOptions options;
  size_t max_nodes = kDefaultMaxRenderNodes;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if ((a == "-o" || a == "--output") && has_value) {
      out_path = args[++i];
    } else if (a == "--shapes") {
      options.shapes = true;
    } else if (a == "--no-initializers") {
      options.initializers = false;
    } else if (a == "--rankdir" && has_value) {
      options.rankdir = args[++i];
      if (options.rankdir != "TB" && options.rankdir != "LR") {
        Error("--rankdir takes TB or LR, not '" + options.rankdir + "'");
        return kExitUsage;
      }
    } else if (a == "--max-nodes" && has_value) {
      char* end = nullptr;
      errno = 0;
      unsigned long long n = std::strtoull(args[++i].c_str(), &end, 10);
      if (args[i].empty() || *end != '\0' || errno != 0 || args[i][0] == '-') {
        Error("--max-nodes takes a count, not '" + args[i] + "'");
        return kExitUsage;
      }
      max_nodes = static_cast<size_t>(n);
    } else if (a == "-o" || a == "--output" || a == "--rankdir" || a == "--max-nodes") {
      Error(a + " needs a value");
      return kExitUsage;
    } else if (!a.empty() && a[0] == '-') {
      Error("unknown option '" + a + "' (see 'onyx visualize --help')");
      return kExitUsage;
    } else if (model_path.empty()) {
      model_path = a;
    } else {
      Error("one model at a time ('" + model_path + "' and '" + a + "')");
      return kExitUsage;
    }
  }
  if (model_path.empty()) {
    PrintUsage();
    return kExitUsage;
  }
  std::string format = out_path.empty() ? "dot" : FormatOf(out_path);
  if (format == "gv") format = "dot";
  if (format != "dot" && !visualize::IsRenderFormat(format)) {
    Error("cannot tell the format of '" + out_path + "' from its extension" +
          (format.empty() ? std::string() : " '." + format + "'") + " (use .dot, .gv, .svg, .png or .pdf)");
    return kExitUsage;
  }

  auto model = LoadAnyModel(model_path);
  if (!model.ok()) {
    Error(model.status().message());
    return kExitFailure;
  }
  std::vector<std::string> warnings;
  options.warnings = &warnings;
  auto dot = visualize::ModelToDot(*model, options);
  for (const auto& w : warnings) std::fprintf(stderr, "onyx: warning: %s: %s\n", model_path.c_str(), w.c_str());
  if (!dot.ok()) {
    Error(model_path + ": " + dot.status().message());
    return kExitFailure;
  }

  if (out_path.empty()) {
    std::fwrite(dot->data(), 1, dot->size(), stdout);
    return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
  }
  if (format == "dot") {
    Status st = WriteText(*dot, out_path);
    if (!st.ok()) {
      Error(st.message());
      return kExitFailure;
    }
    return kExitOk;
  }
  const size_t nodes = visualize::CountNodes(model->graph);
  if (options.shapes) max_nodes /= 2;
  if (max_nodes != 0 && nodes > max_nodes) {
    std::string dot_path = std::filesystem::path(out_path).replace_extension(".dot").string();
    Status st = WriteText(*dot, dot_path);
    if (!st.ok()) {
      Error(st.message());
      return kExitFailure;
    }
    Error(model_path + " has " + std::to_string(nodes) + " nodes, more than dot lays out in reasonable time (" +
          std::to_string(max_nodes) + (options.shapes ? " with --shapes" : "") + "): wrote " + dot_path +
          " instead of " + out_path + " (--max-nodes 0 renders anyway)");
    return kExitUnsupported;
  }
  Status st = visualize::RenderDot(*dot, format, out_path);
  if (!st.ok()) {
    Error(out_path + ": " + st.message());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace onyx::cli

// onyx run MODEL: runs a model once on given or random inputs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cli.h"
#include "feeds.h"
#include "format/npy.h"
#include "open_model.h"
#include "runtime/session.h"

namespace onyx::cli {

namespace {

void Help() {
  std::printf(
      "usage: onyx run MODEL [options]\n\n"
      "Runs MODEL once and prints each output's type, shape and a summary of its values, and the time taken.\n"
      "Inputs not given are filled with random values (floats in [0,1), integers in [0,10), bools).\n\n"
      "options:\n"
      "  --input NAME=FILE   an input from a .npy or .pb (TensorProto) file; repeatable\n"
      "  --dim NAME=VALUE    value of a symbolic dimension for random inputs (default 1)\n"
      "  --seed N            seed of the random inputs (default 0)\n"
      "  --output-dir DIR    write every output as DIR/<name>.npy\n"
      "  --threads N         intra-op threads (default: every usable CPU)\n"
      "  --opt-level LEVEL   graph optimization: disabled, basic, extended or all (default all)\n"
      "  --ort-order on|off  float sums in ONNX Runtime's order, bit-identical to its unoptimized graph (default:\n"
      "                      on at --opt-level disabled, off otherwise; docs/kernels.md)\n"
      "  --optimized-model FILE  write the model as optimized to FILE\n");
}

std::string Summary(const Value& v) {
  if (v.is_none()) return "none";
  if (v.is_sequence()) return "sequence of " + std::to_string(v.sequence().items.size()) + " items";
  if (v.is_map()) return "map of " + std::to_string(v.map().keys.size()) + " entries";
  const Tensor& t = v.tensor();
  std::string s = TensorTypeString(t.type()) + " " + ShapeToString(t.shape());
  if (t.size() == 0) return s + " (empty)";
  if (t.type() == DataType::kString) return s + " first \"" + t.data<std::string>()[0] + "\"";
  if (!IsFloatingPoint(t.type()) && !IsInteger(t.type()) && t.type() != DataType::kBool) return s;
  double mn = INFINITY, mx = -INFINITY, sum = 0;
  int64_t argmax = 0;
  for (int64_t i = 0; i < t.size(); ++i) {
    double x = t.DoubleAt(i);
    if (x > mx) {
      mx = x;
      argmax = i;
    }
    mn = std::min(mn, x);
    sum += x;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "  min %.6g  max %.6g (at %lld)  mean %.6g", mn, mx, static_cast<long long>(argmax),
                sum / static_cast<double>(t.size()));
  std::string out = s + buf + "  first:";
  for (int64_t i = 0; i < std::min<int64_t>(t.size(), 5); ++i) {
    std::snprintf(buf, sizeof buf, " %.6g", t.DoubleAt(i));
    out += buf;
  }
  return out;
}

}  // namespace

int RunMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    Help();
    return kExitOk;
  }
  std::string model_path, output_dir;
  FeedSources sources;
  SessionOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--input" || a == "--dim" || a == "--seed" || a == "--output-dir" || a == "--threads" ||
        a == "--opt-level" || a == "--ort-order" || a == "--optimized-model") {
      if (i + 1 >= args.size()) {
        Error(a + " needs a value");
        return kExitUsage;
      }
      const std::string& v = args[++i];
      size_t eq = v.find('=');
      if ((a == "--input" || a == "--dim") && eq == std::string::npos) {
        Error(a + " takes NAME=VALUE, got '" + v + "'");
        return kExitUsage;
      }
      if (a == "--input") sources.files[v.substr(0, eq)] = v.substr(eq + 1);
      if (a == "--dim") {
        int64_t dim = 0;
        if (!ParseIntArg("--dim " + v.substr(0, eq), v.substr(eq + 1), 0, INT64_MAX, &dim)) return kExitUsage;
        sources.dims[v.substr(0, eq)] = dim;
      }
      if (a == "--seed") {
        int64_t seed = 0;
        if (!ParseIntArg(a, v, 0, INT64_MAX, &seed)) return kExitUsage;
        sources.seed = static_cast<uint64_t>(seed);
      }
      if (a == "--output-dir") output_dir = v;
      if (a == "--threads" && !ParseIntArg(a, v, 0, 4096, &options.intra_op_num_threads)) return kExitUsage;
      if (a == "--optimized-model") options.optimized_model_path = v;
      if (a == "--ort-order") {
        bool on = false;
        if (!ParseOnOffArg(a, v, &on)) return kExitUsage;
        options.ort_summation_order = on;
      }
      if (a == "--opt-level") {
        auto level = optimizer::ParseOptLevel(v);
        if (!level.ok()) {
          Error(level.status().message());
          return kExitUsage;
        }
        options.optimization_level = *level;
      }
    } else if (!a.empty() && a[0] == '-') {
      Error("unknown option '" + a + "'");
      return kExitUsage;
    } else if (model_path.empty()) {
      model_path = a;
    } else {
      Error("unexpected argument '" + a + "'");
      return kExitUsage;
    }
  }
  if (model_path.empty()) {
    Error("no model given (see 'onyx run --help')");
    return kExitUsage;
  }
  auto t0 = std::chrono::steady_clock::now();
  auto session = OpenModel(model_path, options);
  if (!session.ok()) {
    Error(session.status().message());
    return session.status().code() == StatusCode::kUnsupported ? kExitUnsupported : kExitFailure;
  }
  auto t1 = std::chrono::steady_clock::now();
  const auto& graph = (*session)->model().graph;
  bool usage_error = false;
  auto feeds = BuildFeeds(graph, sources, &usage_error);
  if (!feeds.ok()) {
    Error(feeds.status().message());
    return usage_error ? kExitUsage : kExitFailure;
  }
  for (const auto& [name, v] : feeds->values) {
    if (std::find(feeds->random.begin(), feeds->random.end(), name) == feeds->random.end()) continue;
    std::printf("input  %-24s %s (random, seed %llu)\n", name.c_str(), Summary(v).c_str(),
                static_cast<unsigned long long>(sources.seed));
  }
  std::vector<Value> outputs;
  auto t2 = std::chrono::steady_clock::now();
  Status st = (*session)->Run(feeds->values, {}, &outputs);
  auto t3 = std::chrono::steady_clock::now();
  if (!st.ok()) {
    Error(st.message());
    return kExitFailure;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = graph.outputs[i].name;
    std::printf("output %-24s %s\n", name.c_str(), Summary(outputs[i]).c_str());
    if (!output_dir.empty() && outputs[i].is_tensor()) {
      std::error_code ec;  // a path that is a file, FIFO or device: an error, not an uncaught filesystem_error
      std::filesystem::create_directories(output_dir, ec);
      if (ec) {
        Error("--output-dir '" + output_dir + "': " + ec.message());
        return kExitFailure;
      }
      std::string safe = name;
      for (char& c : safe) {
        if (c == '/' || c == '\\' || c == ':') c = '_';
      }
      Status w = format::SaveNpy(outputs[i].tensor(), (std::filesystem::path(output_dir) / (safe + ".npy")).string());
      if (!w.ok()) {
        Error(w.message());
        return kExitFailure;
      }
    }
  }
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  const auto& stats = (*session)->optimizer_stats();
  std::printf("optimizer: %s, %lld -> %lld nodes (%.1f ms)\n",
              std::string(optimizer::OptLevelName(options.optimization_level)).c_str(),
              static_cast<long long>(stats.nodes_before), static_cast<long long>(stats.nodes_after),
              stats.milliseconds);
  if (!stats.rewrites_by_pass.empty()) {
    std::string passes;
    for (const auto& [pass, n] : stats.rewrites_by_pass) passes += " " + pass + " " + std::to_string(n);
    std::printf("rewrites:%s\n", passes.c_str());
  }
  // The passes that took longest (session creation on graphs of thousands of nodes is mostly the optimizer's).
  std::vector<std::pair<double, std::string>> slow;
  for (const auto& [pass, pass_ms] : stats.ms_by_pass) {
    if (pass_ms >= 1.0) slow.emplace_back(pass_ms, pass);
  }
  std::sort(slow.rbegin(), slow.rend());
  if (!slow.empty()) {
    std::string passes;
    for (size_t i = 0; i < slow.size() && i < 6; ++i) {
      char buf[96];
      std::snprintf(buf, sizeof(buf), " %s %.1f ms", slow[i].second.c_str(), slow[i].first);
      passes += buf;
    }
    std::printf("slowest passes:%s\n", passes.c_str());
  }
  std::printf("time: session %.1f ms, run %.1f ms\n", ms(t0, t1), ms(t2, t3));
  return kExitOk;
}

}  // namespace onyx::cli

// onyx tune MODEL: fills the tuning cache (kernels/tuning_cache.h) ahead of time. It creates a session and runs the
// model once, which times the candidates of every operation with a choice on its real shape, and prints what each
// shape got.
#include <cstdio>
#include <limits>
#include <map>

#include "cli.h"
#include "feeds.h"
#include "kernels/tuning_cache.h"
#include "open_model.h"
#include "runtime/session.h"

namespace onyx::cli {

namespace {

void Help() {
  std::printf(
      "usage: onyx tune MODEL [options]\n\n"
      "Times the candidate implementations of every operation in MODEL that has a choice (blocked-layout\n"
      "convolutions: oneDNN direct or Winograd, one thread or the session's), on the model's real shapes, and\n"
      "stores the fastest in the tuning cache of this CPU ($XDG_CACHE_HOME/onyx/tuning/<cpu>.json, default\n"
      "~/.cache/onyx/tuning/), where later sessions find them (ONYX_TUNING=cache, the default). Shapes already in\n"
      "the cache are kept unless --force. Prints each shape's choice and the measured times.\n\n"
      "options:\n"
      "  --threads N         intra-op threads (default: every usable CPU); choices are kept per thread count\n"
      "  --force             re-time shapes the cache already holds (as ONYX_TUNING=always)\n"
      "  --dim NAME=VALUE    value of a symbolic dimension (default 1)\n"
      "  --inputs DIR        feed DIR/input_N.pb (ONNX test-data layout) instead of random inputs\n"
      "  --cache-dir DIR     the cache folder (default as above)\n");
}

}  // namespace

int TuneMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    Help();
    return kExitOk;
  }
  std::string model_path, cache_dir;
  bool force = false;
  FeedSources sources;
  SessionOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--threads" || a == "--dim" || a == "--inputs" || a == "--cache-dir") {
      if (i + 1 >= args.size()) {
        Error(a + " needs a value");
        return kExitUsage;
      }
      const std::string& v = args[++i];
      if (a == "--threads" && !ParseIntArg(a, v, 0, 4096, &options.intra_op_num_threads)) return kExitUsage;
      if (a == "--inputs") sources.dir = v;
      if (a == "--cache-dir") cache_dir = v;
      if (a == "--dim") {
        const size_t eq = v.find('=');
        if (eq == std::string::npos) {
          Error("--dim takes NAME=VALUE, got '" + v + "'");
          return kExitUsage;
        }
        int64_t dim = 0;
        if (!ParseIntArg("--dim " + v.substr(0, eq), v.substr(eq + 1), 0, INT64_MAX, &dim)) return kExitUsage;
        sources.dims[v.substr(0, eq)] = dim;
      }
    } else if (a == "--force") {
      force = true;
    } else if (!a.empty() && a[0] == '-') {
      Error("unknown option '" + a + "'");
      return kExitUsage;
    } else if (!model_path.empty()) {
      Error("more than one model given ('" + model_path + "', '" + a + "')");
      return kExitUsage;
    } else {
      model_path = a;
    }
  }
  if (model_path.empty()) {
    Error("no model given (see 'onyx tune --help')");
    return kExitUsage;
  }
  if (!cache_dir.empty()) kernels::TuningCache::ResetProcess(cache_dir);
  auto cache = kernels::TuningCache::Process();
  if (cache->path().empty()) {
    Error("no cache folder: set XDG_CACHE_HOME or HOME, or give --cache-dir");
    return kExitUsage;
  }
  kernels::SetTuningModeOverride(force ? kernels::TuningMode::kAlways : kernels::TuningMode::kCache);
  cache->SetMissBudget(std::numeric_limits<double>::infinity());  // every miss timed, however long it takes
  auto session = OpenModel(model_path, options);
  if (!session.ok()) {
    Error(session.status().message());
    return session.status().code() == StatusCode::kUnsupported ? kExitUnsupported : kExitFailure;
  }
  bool usage_error = false;
  auto feeds = BuildFeeds((*session)->model().graph, sources, &usage_error);
  if (!feeds.ok()) {
    Error(feeds.status().message());
    return usage_error ? kExitUsage : kExitFailure;
  }
  std::vector<Value> outputs;
  // The first run builds every kernel's primitives for these shapes, which is where the candidates are timed.
  if (Status st = (*session)->Run(feeds->values, {}, &outputs); !st.ok()) {
    Error(st.message());
    return kExitFailure;
  }
  // One line per distinct shape (several nodes of one shape share a decision).
  std::map<std::string, kernels::TuningDecision> decided;
  for (const auto& d : cache->Decisions()) decided.emplace(d.signature, d);
  int measured = 0;
  for (const auto& [signature, d] : decided) {
    measured += d.measured;
    std::string times;
    for (const auto& t : d.entry.times) {
      char buf[96];
      std::snprintf(buf, sizeof(buf), "%s%s %.3f ms", times.empty() ? "" : ", ", t.candidate.c_str(), t.ms);
      times += buf;
    }
    std::printf("%-8s %-13s %s%s%s\n", d.measured ? "measured" : "cached", d.entry.choice.c_str(), signature.c_str(),
                times.empty() ? "" : "  [", times.empty() ? "" : (times + "]").c_str());
  }
  std::printf("%zu shapes with a choice: %d measured, %zu from the cache; cache %s\n", decided.size(), measured,
              decided.size() - static_cast<size_t>(measured), cache->path().c_str());
  for (const auto& w : cache->warnings()) std::printf("warning: %s\n", w.c_str());
  return kExitOk;
}

}  // namespace onyx::cli

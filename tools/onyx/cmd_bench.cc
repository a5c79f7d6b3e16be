// onyx bench MODEL: session-creation time, run latency statistics and peak memory.
#include <dlfcn.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <numeric>

#include "cli.h"
#include "feeds.h"
#include "open_model.h"
#include "runtime/session.h"

namespace onyx::cli {

namespace {

void Help() {
  std::printf(
      "usage: onyx bench MODEL [options]\n\n"
      "Creates a session, runs the model on random inputs and prints create_ms, median_ms, min_ms, mean_ms,\n"
      "p90_ms, peak_rss_mb (the process's peak resident memory) and arena_mb (the arena the runs' activations\n"
      "take once two runs repeat, runtime/buffer_pool.h). Run under the malloc-counting hook\n"
      "(LD_PRELOAD=liballoc_counter.so, built from tests/alloc/alloc_counter.c) it also prints allocs_per_run, the\n"
      "heap allocations per timed run.\n\n"
      "options:\n"
      "  --threads N         intra-op threads (default: every usable CPU)\n"
      "  --runs N            timed runs (default 50)\n"
      "  --warmup N          untimed runs first (default 5)\n"
      "  --dim NAME=VALUE    value of a symbolic dimension (default 1)\n"
      "  --inputs DIR        feed DIR/input_N.pb (ONNX test-data layout) instead of random inputs\n"
      "  --json              one JSON line instead of text\n"
      "  --into              write the outputs into tensors allocated once (Session::RunInto) instead of Run\n"
      "  --profile           also print the time per operator type over the timed runs\n"
      "  --profile-nodes     the same per node\n"
      "  --opt-level LEVEL   graph optimization: disabled, basic, extended or all (default all)\n"
      "  --ort-order on|off  float sums in ONNX Runtime's order, bit-identical to its unoptimized graph (default:\n"
      "                      on at --opt-level disabled, off otherwise; docs/kernels.md)\n"
      "  --optimized-model FILE  write the model as optimized to FILE\n");
}

double PeakRssMb() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// The allocation count of the malloc-counting hook (tests/alloc/alloc_counter.c) when it is preloaded, else null.
using AllocCounter = unsigned long long (*)();
AllocCounter FindAllocCounter() {
  return reinterpret_cast<AllocCounter>(dlsym(RTLD_DEFAULT, "onyx_alloc_counter_count"));
}

}  // namespace

int BenchMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    Help();
    return kExitOk;
  }
  std::string model_path;
  int runs = 50, warmup = 5;
  bool json = false;
  bool into = false;
  std::map<std::string, int64_t> dims;
  std::string inputs_dir;
  SessionOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--threads" || a == "--runs" || a == "--warmup" || a == "--dim" || a == "--opt-level" ||
        a == "--ort-order" || a == "--optimized-model" || a == "--inputs") {
      if (i + 1 >= args.size()) {
        Error(a + " needs a value");
        return kExitUsage;
      }
      const std::string& v = args[++i];
      if (a == "--threads" && !ParseIntArg(a, v, 0, 4096, &options.intra_op_num_threads)) return kExitUsage;
      if (a == "--runs" && !ParseIntArg(a, v, 1, 100000000, &runs)) return kExitUsage;
      if (a == "--warmup" && !ParseIntArg(a, v, 0, 100000000, &warmup)) return kExitUsage;
      if (a == "--optimized-model") options.optimized_model_path = v;
      if (a == "--inputs") inputs_dir = v;
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
      if (a == "--dim") {
        size_t eq = v.find('=');
        if (eq == std::string::npos) {
          Error("--dim takes NAME=VALUE, got '" + v + "'");
          return kExitUsage;
        }
        int64_t dim = 0;
        if (!ParseIntArg("--dim " + v.substr(0, eq), v.substr(eq + 1), 0, INT64_MAX, &dim)) return kExitUsage;
        dims[v.substr(0, eq)] = dim;
      }
    } else if (a == "--json") {
      json = true;
    } else if (a == "--into") {
      into = true;
    } else if (a == "--profile" || a == "--profile-nodes") {
      options.enable_profiling = true;
      options.profile_per_node = options.profile_per_node || a == "--profile-nodes";
    } else if (!a.empty() && a[0] == '-') {
      Error("unknown option '" + a + "'");
      return kExitUsage;
    } else {
      model_path = a;
    }
  }
  if (model_path.empty()) {
    Error("no model given (see 'onyx bench --help')");
    return kExitUsage;
  }
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  auto t0 = Clock::now();
  auto session = OpenModel(model_path, options);
  auto t1 = Clock::now();
  if (!session.ok()) {
    Error(session.status().message());
    return session.status().code() == StatusCode::kUnsupported ? kExitUnsupported : kExitFailure;
  }
  FeedSources sources;
  sources.dir = inputs_dir;
  sources.dims = dims;
  bool usage_error = false;
  auto built = BuildFeeds((*session)->model().graph, sources, &usage_error);
  if (!built.ok()) {
    Error(built.status().message());
    return kExitFailure;
  }
  const std::vector<std::pair<std::string, Value>> feeds = std::move(built->values);
  std::vector<Value> outputs;
  std::vector<Tensor> into_outputs;  // --into: allocated once from a first Run's outputs
  if (into) {
    Status st = (*session)->Run(feeds, {}, &outputs);
    for (const Value& v : outputs) {
      if (st.ok() && !v.is_tensor()) st = InvalidArgument("--into needs tensor outputs");
      if (st.ok()) into_outputs.push_back(Tensor::Allocate(v.tensor().type(), v.tensor().shape()));
    }
    if (!st.ok()) {
      Error(st.message());
      return kExitFailure;
    }
  }
  const AllocCounter alloc_counter = FindAllocCounter();
  unsigned long long allocs_before = 0;
  std::vector<double> times;
  times.reserve(static_cast<size_t>(runs));
  for (int i = 0; i < warmup + runs; ++i) {
    if (i == warmup && alloc_counter != nullptr) allocs_before = alloc_counter();
    auto s = Clock::now();
    Status st = into ? (*session)->RunInto(feeds, {}, into_outputs) : (*session)->Run(feeds, {}, &outputs);
    auto e = Clock::now();
    if (!st.ok()) {
      Error(st.message());
      return kExitFailure;
    }
    if (i >= warmup) times.push_back(ms(s, e));
    if (i + 1 == warmup) (*session)->ClearProfile();
  }
  // Allocations of the timed runs (the timing's own vector was reserved before).
  const double allocs_per_run =
      alloc_counter != nullptr ? static_cast<double>(alloc_counter() - allocs_before) / static_cast<double>(runs) : -1;
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  const double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  const double mean = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(n);
  const double p90 = times[std::min(n - 1, static_cast<size_t>(0.9 * static_cast<double>(n)))];
  const double create = ms(t0, t1);
  const std::string level(optimizer::OptLevelName(options.optimization_level));
  const auto nodes = static_cast<long long>((*session)->optimizer_stats().nodes_after);
  const double arena_mb = static_cast<double>((*session)->activation_arena_bytes()) / (1024.0 * 1024.0);
  if (json) {
    std::printf(
        "{\"create_ms\": %.3f, \"median_ms\": %.3f, \"min_ms\": %.3f, \"mean_ms\": %.3f, \"p90_ms\": %.3f, "
        "\"peak_rss_mb\": %.1f, \"arena_mb\": %.2f, \"runs\": %zu, \"opt_level\": \"%s\", \"nodes\": %lld, "
        "\"threads\": %d",
        create, median, times[0], mean, p90, PeakRssMb(), arena_mb, n, level.c_str(), nodes, (*session)->num_threads());
    if (allocs_per_run >= 0) std::printf(", \"allocs_per_run\": %.1f", allocs_per_run);
    std::printf("}\n");
  } else {
    std::printf("model:       %s\n", model_path.c_str());
    std::printf("create_ms:   %.3f\nmedian_ms:   %.3f\nmin_ms:      %.3f\nmean_ms:     %.3f\np90_ms:      %.3f\n",
                create, median, times[0], mean, p90);
    std::printf("peak_rss_mb: %.1f\narena_mb:    %.2f\nruns:        %zu\n", PeakRssMb(), arena_mb, n);
    std::printf("opt_level:   %s (%lld nodes)\n", level.c_str(), nodes);
    std::printf("threads:     %d\n", (*session)->num_threads());
    if (allocs_per_run >= 0) std::printf("allocs_per_run: %.1f\n", allocs_per_run);
  }
  if (options.enable_profiling) {
    const auto profile = (*session)->Profile();
    double total = 0;
    for (const auto& p : profile) total += p.total_ms;
    const double all_runs = static_cast<double>(runs);
    std::printf("%-48s %10s %8s %7s\n", "operator", "ms/run", "calls", "share");
    for (const auto& p : profile) {
      std::printf("%-48s %10.3f %8lld %6.1f%%\n", p.op.c_str(), p.total_ms / all_runs,
                  static_cast<long long>(p.calls / runs), total > 0 ? 100.0 * p.total_ms / total : 0.0);
    }
  }
  return kExitOk;
}

}  // namespace onyx::cli

// The C API's cost per run: a 1-element Identity model (tests/embed/data/identity.onnx) through onyx_session_run
// (output handed back as an owned value) and onyx_session_run_into (output copied into the caller's buffer). The
// model does no work, so the time is the API's and the session's fixed overhead. Target: < 2 us per call.
//
// Build (off by default; Debian libbenchmark-dev):
//   cmake -S . -B build -DONYX_BUILD_BENCHMARKS=ON && cmake --build build --target onyx_api_overhead
//   build/bin/onyx_api_overhead [tests/embed/data/identity.onnx]
// or against an installed onyx: g++ -O2 -std=c++17 bench/api_overhead.cc $(pkg-config --cflags --libs onyx) -lbenchmark
#include <benchmark/benchmark.h>
#include <onyx/onyx_c_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

std::string g_model = "tests/embed/data/identity.onnx";

void Check(onyx_status* status) {
  if (status == nullptr) return;
  std::fprintf(stderr, "api_overhead: %s\n", onyx_status_get_message(status));
  std::exit(1);
}

onyx_session* LoadIdentity() {
  onyx_session_options* options = nullptr;
  Check(onyx_session_options_create(&options));
  Check(onyx_session_options_set_threads(options, 1));
  onyx_session* session = nullptr;
  Check(onyx_session_create(g_model.c_str(), options, &session));
  onyx_session_options_release(options);
  return session;
}

void BM_RunIdentity(benchmark::State& state) {
  onyx_session* session = LoadIdentity();
  float x = 1.5f;
  const int64_t shape[1] = {1};
  const onyx_tensor_view input = {ONYX_ELEMENT_FLOAT, shape, 1, &x, sizeof x};
  const char* in_name = "x";
  const char* out_name = "y";
  for (auto _ : state) {
    onyx_value* y = nullptr;
    Check(onyx_session_run(session, &in_name, &input, 1, &out_name, 1, &y));
    benchmark::DoNotOptimize(y);
    onyx_value_release(y);
  }
  onyx_session_release(session);
}
BENCHMARK(BM_RunIdentity);

void BM_RunIntoIdentity(benchmark::State& state) {
  onyx_session* session = LoadIdentity();
  float x = 1.5f, y = 0;
  const int64_t shape[1] = {1};
  const onyx_tensor_view input = {ONYX_ELEMENT_FLOAT, shape, 1, &x, sizeof x};
  onyx_tensor_view output = {ONYX_ELEMENT_FLOAT, shape, 1, &y, sizeof y};
  const char* in_name = "x";
  const char* out_name = "y";
  for (auto _ : state) {
    Check(onyx_session_run_into(session, &in_name, &input, 1, &out_name, 1, &output));
    benchmark::DoNotOptimize(y);
  }
  if (y != x) {
    std::fprintf(stderr, "api_overhead: Identity returned %g for %g\n", static_cast<double>(y), static_cast<double>(x));
    std::exit(1);
  }
  onyx_session_release(session);
}
BENCHMARK(BM_RunIntoIdentity);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc > 1) g_model = argv[1];
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

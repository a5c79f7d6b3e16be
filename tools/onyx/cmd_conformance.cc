// onyx conformance DIR...: runs ONNX backend test cases.
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "testing/conformance.h"

namespace onyx::cli {

namespace {

void Help() {
  std::printf(
      "usage: onyx conformance [options] DIR...\n\n"
      "Runs ONNX backend test cases: each DIR is a case folder (model.onnx + test_data_set_N/), a folder of case\n"
      "folders (searched recursively), or a folder of light_<name>.onnx models. Outputs are compared like ONNX's\n"
      "runner (rtol 1e-3, atol 1e-7; exact for integers, bools and strings; NaN equals NaN). One line per case:\n"
      "PASS, FAIL with the first mismatch, or UNSUPPORTED naming the operators; then 'N passed, N failed, N skipped'.\n"
      "Models that draw random values (Bernoulli, Random*, Multinomial: the spec leaves the values to each\n"
      "implementation) have their outputs checked by element type, shape and 0/1 support instead of by value.\n\n"
      "options:\n"
      "  --json FILE         write per-case results as JSON\n"
      "  --expect FILE       expectations file: cases not yet passing (one per line, '#' comments). The run fails\n"
      "                      only when a case outside the file does not pass, and lists cases that newly pass.\n"
      "  --filter TEXT       only cases whose name contains TEXT\n"
      "  --timeout SECONDS   per-case time limit (default 120)\n"
      "  --rtol X, --atol X  tolerances (defaults 1e-3 and 1e-7, as ONNX's runner; real models whose outputs\n"
      "                      sum many terms need --atol 1e-5, ONNX Runtime's onnx_test_runner default)\n"
      "  --no-isolate        run cases in this process (faster; a crash then ends the run)\n"
      "  --quiet             print only the cases that do not pass\n"
      "  --opt-level LEVEL   graph optimization: disabled, basic, extended or all (default all); -O is the same\n"
      "  --runs N            run each data set N times in the same session, checking every run (default 1)\n"
      "  --optimized-model FILE  write the optimized model of the (single) case to FILE\n");
}

}  // namespace

int ConformanceMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    Help();
    return kExitOk;
  }
  std::vector<std::string> dirs;
  std::string json_path;
  std::string expect_path;
  std::string filter;
  bool quiet = false;
  testing::ConformanceOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&]() -> const std::string* { return i + 1 < args.size() ? &args[++i] : nullptr; };
    if (a == "--json" || a == "--expect" || a == "--filter" || a == "--timeout" || a == "-O" || a == "--rtol" ||
        a == "--atol" || a == "--opt-level" || a == "--optimized-model" || a == "--runs") {
      const std::string* v = next();
      if (v == nullptr) {
        Error(a + " needs a value");
        return kExitUsage;
      }
      if (a == "--json") json_path = *v;
      if (a == "--expect") expect_path = *v;
      if (a == "--filter") filter = *v;
      if (a == "--timeout" && !ParseIntArg(a, *v, 1, 86400, &options.timeout_seconds)) return kExitUsage;
      if (a == "--optimized-model") options.optimized_model_path = *v;
      if (a == "--runs" && !ParseIntArg(a, *v, 1, 1000000, &options.runs_per_set)) return kExitUsage;
      if (a == "-O" || a == "--opt-level") {
        auto level = optimizer::ParseOptLevel(*v);
        if (!level.ok()) {
          Error(level.status().message());
          return kExitUsage;
        }
        options.optimization_level = *level;
      }
      if (a == "--rtol" && !ParseFloatArg(a, *v, 0.0, 1e30, &options.tolerance.rtol)) return kExitUsage;
      if (a == "--atol" && !ParseFloatArg(a, *v, 0.0, 1e30, &options.tolerance.atol)) return kExitUsage;
    } else if (a == "--no-isolate") {
      options.isolate = false;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      Error("unknown option '" + a + "'");
      return kExitUsage;
    } else {
      dirs.push_back(a);
    }
  }
  if (dirs.empty()) {
    Error("no test folder given (see 'onyx conformance --help')");
    return kExitUsage;
  }
  auto cases = testing::DiscoverCases(dirs);
  if (!cases.ok()) {
    Error(cases.status().message());
    return kExitFailure;
  }
  if (!filter.empty()) {
    std::erase_if(*cases, [&](const testing::TestCase& c) { return c.name.find(filter) == std::string::npos; });
  }
  std::set<std::string> expected_failures;
  if (!expect_path.empty()) {
    auto e = testing::LoadExpectations(expect_path);
    if (!e.ok()) {
      Error(e.status().message());
      return kExitUsage;
    }
    expected_failures = std::move(e).value();
  }
  int passed = 0, failed = 0, skipped = 0, random_passed = 0;
  std::vector<std::string> unexpected, newly_passing;
  auto results = testing::RunConformance(*cases, options, [&](const testing::CaseResult& r) {
    if (r.outcome == testing::CaseOutcome::kPass) ++passed;
    if (r.outcome == testing::CaseOutcome::kPass && r.random_draws) ++random_passed;
    if (r.outcome == testing::CaseOutcome::kFail) ++failed;
    if (r.outcome == testing::CaseOutcome::kUnsupported) ++skipped;
    const bool listed = expected_failures.count(r.name) > 0;
    if (r.outcome != testing::CaseOutcome::kPass && !listed) unexpected.push_back(r.name);
    if (r.outcome == testing::CaseOutcome::kPass && listed) newly_passing.push_back(r.name);
    if (quiet && r.outcome == testing::CaseOutcome::kPass) return;
    std::string msg = r.message;
    if (r.outcome == testing::CaseOutcome::kPass && r.random_draws) {
      msg = "random draws: element type, shape and 0/1 values checked, not the values";
    }
    if (msg.size() > 400) msg = msg.substr(0, 400) + "...";
    for (char& c : msg) {
      if (c == '\n') c = ' ';
    }
    std::printf("%s %s%s%s%s\n", testing::OutcomeName(r.outcome).c_str(), r.name.c_str(), msg.empty() ? "" : ": ",
                msg.c_str(), (!expect_path.empty() && listed && r.outcome != testing::CaseOutcome::kPass) ? " (expected)" : "");
    std::fflush(stdout);
  });
  if (!json_path.empty()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : results) {
      j.push_back({{"name", r.name}, {"result", testing::OutcomeName(r.outcome)}, {"message", r.message},
                   {"random_draws", r.random_draws}, {"seconds", r.seconds}});
    }
    std::ofstream(json_path) << j.dump(1) << "\n";
  }
  if (!expect_path.empty()) {
    for (const auto& n : newly_passing) std::printf("NEWLY PASSING (remove from %s): %s\n", expect_path.c_str(), n.c_str());
    for (const auto& n : unexpected) std::printf("UNEXPECTED (not in %s): %s\n", expect_path.c_str(), n.c_str());
    std::printf("expectations: %zu unexpected, %zu newly passing\n", unexpected.size(), newly_passing.size());
  }
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  if (random_passed > 0) {
    std::printf("(%d of the passed cases draw random values: checked by element type, shape and 0/1 support)\n",
                random_passed);
  }
  if (!expect_path.empty()) return unexpected.empty() ? kExitOk : kExitFailure;
  return failed == 0 && skipped == 0 ? kExitOk : kExitFailure;
}

}  // namespace onyx::cli

#include "testing/conformance.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/safe_file.h"
#include "format/model_io.h"
#include "format/tensor_proto.h"
#include "runtime/session.h"

namespace onyx::testing {
namespace fs = std::filesystem;

std::string OutcomeName(CaseOutcome o) {
  switch (o) {
    case CaseOutcome::kPass:
      return "PASS";
    case CaseOutcome::kFail:
      return "FAIL";
    case CaseOutcome::kUnsupported:
      return "UNSUPPORTED";
  }
  return "?";
}

Result<std::vector<TestCase>> DiscoverCases(const std::vector<std::string>& paths) {
  std::vector<TestCase> cases;
  std::function<void(const fs::path&)> walk = [&](const fs::path& dir) {
    if (fs::exists(dir / "model.onnx")) {
      TestCase c;
      c.name = dir.parent_path().filename().string() + "/" + dir.filename().string();
      c.model_path = (dir / "model.onnx").string();
      c.dir = dir.string();
      cases.push_back(std::move(c));
      return;
    }
    std::vector<fs::path> entries;
    for (const auto& e : fs::directory_iterator(dir)) entries.push_back(e.path());
    std::sort(entries.begin(), entries.end());
    for (const auto& p : entries) {
      const std::string file = p.filename().string();
      if (fs::is_directory(p)) {
        if (p.filename() == "testdata" && !fs::exists(p / "model.onnx")) continue;  // reference data of real models
        walk(p);
      } else if (p.extension() == ".onnx" && fs::is_directory(dir / "testdata" / p.stem())) {
        // A folder of real models with reference data in testdata/<model>/test_data_set_N (../shared/models/onnx).
        TestCase c;
        c.name = dir.filename().string() + "/" + p.stem().string();
        c.model_path = p.string();
        c.dir = (dir / "testdata" / p.stem()).string();
        cases.push_back(std::move(c));
      } else if (file.rfind("light_", 0) == 0 && p.extension() == ".onnx") {
        fs::path expected = p.parent_path() / (p.stem().string() + "_output_0.pb");
        if (!fs::exists(expected)) continue;
        TestCase c;
        c.name = dir.filename().string() + "/" + p.stem().string();
        c.model_path = p.string();
        c.light_output = expected.string();
        cases.push_back(std::move(c));
      }
    }
  };
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) return NotFound("'" + p + "' is not a folder of ONNX test cases");
    walk(fs::path(p));
  }
  return cases;
}

namespace {

// ONNX 1.12's test data stores bfloat16 tensors as uint16 (numpy has no bfloat16): read those bits as bfloat16
// where the graph declares bfloat16.
Value FixBFloat16Storage(Value v, const ir::ValueInfo& decl) {
  if (v.is_tensor() && v.tensor().type() == DataType::kUint16 && decl.type && decl.type->is_tensor() &&
      decl.type->elem_type == DataType::kBFloat16) {
    auto t = v.tensor().ReinterpretAs(DataType::kBFloat16);
    if (t.ok()) return Value(std::move(t).value());
  }
  return v;
}

// The light/ input convention: arange(n).reshape(shape) / n as float32, unknown dims set to 1.
Result<Value> LightInput(const ir::ValueInfo& in) {
  if (!in.type || !in.type->is_tensor() || in.type->elem_type != DataType::kFloat) {
    return Unsupported("light model input '" + in.name + "' is not a float tensor");
  }
  Shape shape;
  if (in.type->shape) {
    for (const auto& d : *in.type->shape) shape.push_back(d.is_value() ? d.value : 1);
  }
  Tensor t = Tensor::Allocate(DataType::kFloat, shape);
  const int64_t n = t.size();
  for (int64_t i = 0; i < n; ++i)
    t.data<float>()[i] = static_cast<float>(static_cast<double>(i) / static_cast<double>(n));
  return Value(std::move(t));
}

}  // namespace

Result<std::vector<std::pair<std::string, Value>>> LoadDataSetInputs(const ir::Graph& graph,
                                                                     const std::string& set_dir) {
  const auto real_inputs = graph.RealInputs();
  std::vector<std::pair<std::string, Value>> feeds;
  for (size_t i = 0;; ++i) {
    fs::path f = fs::path(set_dir) / ("input_" + std::to_string(i) + ".pb");
    if (!fs::exists(f)) break;
    if (i >= real_inputs.size()) return InvalidArgument("test data has more inputs than the model");
    const ir::ValueInfo* decl = real_inputs[i];
    ONYX_ASSIGN_OR_RETURN(Value v, format::LoadValueFile(f.string(), decl->type ? &*decl->type : nullptr));
    feeds.emplace_back(decl->name, FixBFloat16Storage(std::move(v), *decl));
  }
  return feeds;
}

namespace {

// Operators whose outputs are random draws: the spec leaves their values to each implementation, even with a seed
// ("may not produce the same values in different implementations"), so ONNX's expected outputs for them are one
// sample, informational only.
bool DrawsRandomValues(const ir::Graph& graph) {
  static const std::set<std::string> kGenerators = {"Bernoulli",        "Multinomial",   "RandomNormal",
                                                    "RandomNormalLike", "RandomUniform", "RandomUniformLike"};
  for (const auto& [op, count] : ir::OperatorHistogram(graph)) {
    if (kGenerators.count(op) > 0) return true;
  }
  return false;
}

Status RunDataSet(const Session& session, const fs::path& set_dir, const Tolerance& tol, bool random_draws) {
  const auto& g = session.model().graph;
  ONYX_ASSIGN_OR_RETURN(auto feeds, LoadDataSetInputs(g, set_dir.string()));
  std::vector<Value> outputs;
  ONYX_RETURN_IF_ERROR(session.Run(feeds, {}, &outputs));
  size_t expected_count = 0;
  while (fs::exists(set_dir / ("output_" + std::to_string(expected_count) + ".pb"))) ++expected_count;
  if (expected_count != outputs.size()) {
    return InvalidArgument("model gave " + std::to_string(outputs.size()) + " outputs, test data has " +
                           std::to_string(expected_count));
  }
  for (size_t i = 0; i < expected_count; ++i) {
    const ir::ValueInfo& decl = g.outputs[i];
    ONYX_ASSIGN_OR_RETURN(Value expected,
                          format::LoadValueFile((set_dir / ("output_" + std::to_string(i) + ".pb")).string(),
                                                decl.type ? &*decl.type : nullptr));
    expected = FixBFloat16Storage(std::move(expected), decl);
    Status st = random_draws ? CompareRandomDraws(outputs[i], expected) : CompareValues(outputs[i], expected, tol);
    if (!st.ok()) return st.WithContext(set_dir.filename().string() + ", output '" + decl.name + "'");
  }
  return Status::Ok();
}

CaseResult RunCaseInProcess(const TestCase& test, const ConformanceOptions& options) {
  CaseResult r;
  r.name = test.name;
  SessionOptions so;
  so.intra_op_num_threads = 1;
  so.optimization_level = options.optimization_level;
  so.optimized_model_path = options.optimized_model_path;
  auto session = Session::Load(test.model_path, so);
  if (!session.ok()) {
    r.outcome = session.status().code() == StatusCode::kUnsupported ? CaseOutcome::kUnsupported : CaseOutcome::kFail;
    r.message = session.status().message();
    return r;
  }
  Status st;
  if (!test.light_output.empty()) {
    const auto& g = (*session)->model().graph;
    std::vector<std::pair<std::string, Value>> feeds;
    for (const auto* in : g.RealInputs()) {
      auto v = LightInput(*in);
      if (!v.ok()) {
        st = v.status();
        break;
      }
      feeds.emplace_back(in->name, std::move(v).value());
    }
    for (int run = 0; run < options.runs_per_set && st.ok(); ++run) {
      std::vector<Value> outputs;
      st = (*session)->Run(feeds, {}, &outputs);
      if (st.ok()) {
        auto expected = format::LoadTensorFile(test.light_output);
        st = expected.ok() ? CompareValues(outputs.at(0), Value(*expected), options.tolerance).WithContext("output 0")
                           : expected.status();
      }
    }
  } else {
    std::vector<fs::path> sets;
    for (const auto& e : fs::directory_iterator(test.dir)) {
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
    }
    std::sort(sets.begin(), sets.end());
    r.random_draws = DrawsRandomValues((*session)->model().graph);
    if (sets.empty()) st = NotFound("no test_data_set_N folder");
    for (const auto& s : sets) {
      for (int run = 0; run < options.runs_per_set && st.ok(); ++run) {
        st = RunDataSet(**session, s, options.tolerance, r.random_draws);
        if (!st.ok() && run > 0) st = st.WithContext("run " + std::to_string(run + 1) + " of the same session");
      }
      if (!st.ok()) break;
    }
  }
  r.outcome = st.ok() ? CaseOutcome::kPass
                      : (st.code() == StatusCode::kUnsupported ? CaseOutcome::kUnsupported : CaseOutcome::kFail);
  r.message = st.ok() ? "" : st.message();
  return r;
}

// Runs the case in a child process so that a crash or a hang in one case is reported as its failure.
CaseResult RunCaseIsolated(const TestCase& test, const ConformanceOptions& options) {
  int fds[2];
  if (pipe(fds) != 0) return RunCaseInProcess(test, options);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return RunCaseInProcess(test, options);
  }
  if (pid == 0) {
    close(fds[0]);
    alarm(static_cast<unsigned>(options.timeout_seconds));
    CaseResult r = RunCaseInProcess(test, options);
    std::string msg =
        std::to_string(static_cast<int>(r.outcome)) + " " + (r.random_draws ? "1" : "0") + "\n" + r.message;
    const char* p = msg.data();
    size_t left = msg.size();
    while (left > 0) {
      ssize_t w = write(fds[1], p, left);
      if (w <= 0) break;
      p += w;
      left -= static_cast<size_t>(w);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string data;
  char buf[4096];
  ssize_t got;
  while ((got = read(fds[0], buf, sizeof buf)) > 0) data.append(buf, static_cast<size_t>(got));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  CaseResult r;
  r.name = test.name;
  if (WIFSIGNALED(status)) {
    r.outcome = CaseOutcome::kFail;
    int sig = WTERMSIG(status);
    r.message = sig == SIGALRM ? "timed out after " + std::to_string(options.timeout_seconds) + " s"
                               : std::string("crashed with signal ") + strsignal(sig);
    return r;
  }
  size_t nl = data.find('\n');
  if (nl == std::string::npos) {
    r.outcome = CaseOutcome::kFail;
    r.message = "the case process ended without a result";
    return r;
  }
  std::istringstream header(data.substr(0, nl));
  int outcome = 0;
  int random_draws = 0;
  header >> outcome >> random_draws;
  r.outcome = static_cast<CaseOutcome>(outcome);
  r.random_draws = random_draws != 0;
  r.message = data.substr(nl + 1);
  return r;
}

}  // namespace

CaseResult RunCase(const TestCase& test, const ConformanceOptions& options) {
  auto start = std::chrono::steady_clock::now();
  CaseResult r = options.isolate ? RunCaseIsolated(test, options) : RunCaseInProcess(test, options);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::vector<CaseResult> RunConformance(const std::vector<TestCase>& cases, const ConformanceOptions& options,
                                       const std::function<void(const CaseResult&)>& report) {
  std::vector<CaseResult> results;
  for (const auto& c : cases) {
    results.push_back(RunCase(c, options));
    if (report) report(results.back());
  }
  return results;
}

Result<std::set<std::string>> LoadExpectations(const std::string& path) {
  // Through ReadOnlyFile: a folder, FIFO or device named by mistake is an error, not a hang or an endless read.
  auto file = ReadOnlyFile::Open(path);
  if (!file.ok()) return file.status().WithContext("expectations file");
  ONYX_ASSIGN_OR_RETURN(std::string text, file->ReadAll());
  std::istringstream in(text);
  std::set<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream ss(line);
    std::string name;
    if (ss >> name) names.insert(name);
  }
  return names;
}

}  // namespace onyx::testing

// onyx compare A [B]: how far two models (or one model run two ways, or one model and reference data) are apart.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "feeds.h"
#include "format/tensor_proto.h"
#include "open_model.h"
#include "runtime/session.h"
#include "testing/value_diff.h"

namespace onyx::cli {

namespace {

void Help() {
  std::printf(
      "usage: onyx compare MODEL_A [MODEL_B] [options]\n\n"
      "Runs two models on the same inputs, or one model two ways, and reports how far B's outputs are from A's\n"
      "(A is the reference): per output the max absolute and relative difference, the mean absolute difference,\n"
      "cosine similarity, argmax agreement along the last axis, and the elements out of tolerance\n"
      "(|b - a| <= atol + rtol * |a|). Exit 0 when every output is within tolerance, 1 when one is not.\n\n"
      "  onyx compare model.onnx converted.onnx      a converted or edited model against its source\n"
      "  onyx compare model.onnx                     one model unoptimized (A) against fully optimized (B)\n"
      "  onyx compare model.onnx --reference DIR     the model against DIR/output_N.pb for DIR/input_N.pb\n"
      "  onyx compare model.onnx --per-node          ... and every intermediate value, naming the first node\n"
      "                                              whose output goes out of tolerance\n\n"
      "options:\n"
      "  --input NAME=FILE   an input from a .npy or .pb file; repeatable; others are random (--seed, --dim)\n"
      "  --inputs DIR        inputs from DIR/input_N.pb (ONNX test-data layout)\n"
      "  --seed N            seed of the random inputs (default 0)\n"
      "  --dim NAME=VALUE    value of a symbolic dimension for random inputs (default 1)\n"
      "  --reference DIR     expected outputs DIR/output_N.pb (inputs from DIR/input_N.pb) instead of model A\n"
      "  --opt-level-a L, --opt-level-b L\n"
      "                      graph optimization of each side: disabled, basic, extended, all (defaults: all for\n"
      "                      two models, disabled with --per-node; disabled for A and all for B with one model)\n"
      "  --threads N         intra-op threads of both sides (default: every usable CPU)\n"
      "  --ort-order on|off  float sums in ONNX Runtime's order on both sides (default off: A and B then differ only\n"
      "                      by what the optimizer rewrote; on reproduces ONNX Runtime at level disabled bit for bit)\n"
      "  --rtol X, --atol X  tolerances (defaults 1e-3 and 1e-5)\n"
      "  --per-node          also compare the intermediate values both runs compute under the same name, in A's\n"
      "                      order; prints the first out of tolerance and the worst (--top N, default 10)\n"
      "  --json FILE         write the results as JSON\n");
}

struct Side {
  std::string model_path;
  SessionOptions options;
  std::unique_ptr<Session> session;
};

// An intermediate value recorded by the observer, with the node that produced it.
struct Recorded {
  std::string node;  // "node 'conv1' (Conv)"
  Value value;
};

// Collects copies of every main-graph value a run produces, in execution order (copies: later nodes may write
// into a buffer in place).
class ValueRecorder {
 public:
  ValueObserver Observer() {
    return [this](const ir::Node& node, size_t output_index, const Value& v) {
      if (output_index >= node.outputs.size() || !v.is_tensor()) return;
      const std::string& name = node.outputs[output_index];
      if (index_.count(name)) return;
      index_[name] = order_.size();
      order_.push_back({name, Recorded{node.Describe(), Value(v.tensor().Clone())}});
    };
  }
  const std::vector<std::pair<std::string, Recorded>>& order() const { return order_; }
  const Recorded* Find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &order_[it->second].second;
  }

 private:
  std::vector<std::pair<std::string, Recorded>> order_;
  std::map<std::string, size_t> index_;
};

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string ShapeOf(const Value& v) { return v.is_tensor() ? ShapeToString(v.tensor().shape()) : v.KindName(); }

void PrintHeader() {
  std::printf("%-28s %-18s %-10s %-10s %-10s %-10s %-11s %s\n", "value", "shape", "max_abs", "max_rel", "mean_abs",
              "cosine", "argmax", "out of tolerance");
}

void PrintRow(const std::string& name, const Value& reference, const testing::ValueDiff& d) {
  // Exported names share long scope prefixes ("StatefulPartitionedCall/functional_1/..."): keep the tail.
  std::string label = name.size() > 28 ? "..." + name.substr(name.size() - 25) : name;
  if (!d.comparable) {
    std::printf("%-28s %-18s not comparable: %s\n", label.c_str(), ShapeOf(reference).c_str(), d.note.c_str());
    return;
  }
  std::string argmax = d.argmax_rows > 0 ? std::to_string(d.argmax_same) + "/" + std::to_string(d.argmax_rows) : "-";
  std::printf("%-28s %-18s %-10s %-10s %-10s %-10.6f %-11s %lld/%lld%s\n", label.c_str(), ShapeOf(reference).c_str(),
              Num(d.max_abs).c_str(), Num(d.max_rel).c_str(), Num(d.mean_abs).c_str(), d.cosine, argmax.c_str(),
              static_cast<long long>(d.mismatches), static_cast<long long>(d.elements),
              d.within_tolerance() ? "" : "  <- out of tolerance");
}

nlohmann::json DiffJson(const std::string& name, const testing::ValueDiff& d) {
  nlohmann::json j = {{"name", name}, {"comparable", d.comparable}};
  if (!d.comparable) {
    j["note"] = d.note;
    return j;
  }
  j.update({{"elements", d.elements},
            {"mismatches", d.mismatches},
            {"max_abs", d.max_abs},
            {"max_rel", d.max_rel},
            {"mean_abs", d.mean_abs},
            {"cosine", d.cosine},
            {"worst_index", d.worst_index},
            {"within_tolerance", d.within_tolerance()}});
  if (d.argmax_rows > 0) j["argmax"] = {{"rows", d.argmax_rows}, {"same", d.argmax_same}};
  return j;
}

// B's feeds from A's: by name where B has the same input, otherwise by position.
Result<std::vector<std::pair<std::string, Value>>> FeedsForB(const ir::Graph& b,
                                                             const std::vector<std::pair<std::string, Value>>& a) {
  std::vector<std::pair<std::string, Value>> out;
  const auto inputs = b.RealInputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto same = std::find_if(a.begin(), a.end(), [&](const auto& f) { return f.first == inputs[i]->name; });
    if (same != a.end()) {
      out.emplace_back(inputs[i]->name, same->second);
    } else if (i < a.size()) {
      out.emplace_back(inputs[i]->name, a[i].second);
    } else {
      return InvalidArgument("model B's input '" + inputs[i]->name + "' has no counterpart in model A's inputs");
    }
  }
  return out;
}

}  // namespace

int CompareMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    Help();
    return kExitOk;
  }
  Side a, b;
  FeedSources sources;
  std::string reference_dir, json_path;
  testing::Tolerance tol{1e-3, 1e-5};
  bool per_node = false;
  bool level_a_set = false, level_b_set = false;
  int top = 10;
  bool ort_order = false;  // --ort-order
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--input" || arg == "--inputs" || arg == "--seed" || arg == "--dim" || arg == "--reference" ||
        arg == "--opt-level-a" || arg == "--opt-level-b" || arg == "--threads" || arg == "--ort-order" ||
        arg == "--rtol" || arg == "--atol" || arg == "--json" || arg == "--top") {
      if (i + 1 >= args.size()) {
        Error(arg + " needs a value");
        return kExitUsage;
      }
      const std::string& v = args[++i];
      const size_t eq = v.find('=');
      if ((arg == "--input" || arg == "--dim") && eq == std::string::npos) {
        Error(arg + " takes NAME=VALUE, got '" + v + "'");
        return kExitUsage;
      }
      if (arg == "--input") sources.files[v.substr(0, eq)] = v.substr(eq + 1);
      if (arg == "--dim") {
        int64_t dim = 0;
        if (!ParseIntArg("--dim " + v.substr(0, eq), v.substr(eq + 1), 0, INT64_MAX, &dim)) return kExitUsage;
        sources.dims[v.substr(0, eq)] = dim;
      }
      if (arg == "--inputs") sources.dir = v;
      if (arg == "--seed") {
        int64_t seed = 0;
        if (!ParseIntArg(arg, v, 0, INT64_MAX, &seed)) return kExitUsage;
        sources.seed = static_cast<uint64_t>(seed);
      }
      if (arg == "--reference") reference_dir = v;
      if (arg == "--json") json_path = v;
      if (arg == "--top" && !ParseIntArg(arg, v, 1, 1000000, &top)) return kExitUsage;
      if (arg == "--rtol" && !ParseFloatArg(arg, v, 0.0, 1e30, &tol.rtol)) return kExitUsage;
      if (arg == "--atol" && !ParseFloatArg(arg, v, 0.0, 1e30, &tol.atol)) return kExitUsage;
      if (arg == "--threads") {
        if (!ParseIntArg(arg, v, 0, 4096, &a.options.intra_op_num_threads)) return kExitUsage;
        b.options.intra_op_num_threads = a.options.intra_op_num_threads;
      }
      if (arg == "--ort-order" && !ParseOnOffArg(arg, v, &ort_order)) return kExitUsage;
      if (arg == "--opt-level-a" || arg == "--opt-level-b") {
        auto level = optimizer::ParseOptLevel(v);
        if (!level.ok()) {
          Error(level.status().message());
          return kExitUsage;
        }
        (arg == "--opt-level-a" ? a : b).options.optimization_level = *level;
        (arg == "--opt-level-a" ? level_a_set : level_b_set) = true;
      }
    } else if (arg == "--per-node") {
      per_node = true;
    } else if (!arg.empty() && arg[0] == '-') {
      Error("unknown option '" + arg + "'");
      return kExitUsage;
    } else if (a.model_path.empty()) {
      a.model_path = arg;
    } else if (b.model_path.empty()) {
      b.model_path = arg;
    } else {
      Error("at most two models (got '" + arg + "' as a third)");
      return kExitUsage;
    }
  }
  if (a.model_path.empty()) {
    Error("no model given (see 'onyx compare --help')");
    return kExitUsage;
  }
  if (!reference_dir.empty()) {
    if (!b.model_path.empty() || per_node) {
      Error("--reference compares one model with stored outputs: no second model, no --per-node");
      return kExitUsage;
    }
    if (!sources.dir.empty() || !sources.files.empty()) {
      Error("--reference takes its inputs from the same folder: no --input/--inputs");
      return kExitUsage;
    }
    sources.dir = reference_dir;
  }
  // With one model (and no reference) the two sides are the same model run two ways.
  const bool one_model = b.model_path.empty();
  if (one_model) {
    b.model_path = a.model_path;
    if (!level_a_set && reference_dir.empty()) a.options.optimization_level = optimizer::OptLevel::kDisabled;
  } else if (per_node) {
    // Two models compared node by node: their own graphs, not the fused ones, so that values keep their names.
    if (!level_a_set) a.options.optimization_level = optimizer::OptLevel::kDisabled;
    if (!level_b_set) b.options.optimization_level = optimizer::OptLevel::kDisabled;
  }
  a.options.ort_summation_order = ort_order;
  b.options.ort_summation_order = ort_order;

  // Model B is the one under test; with --reference, the model itself (at --opt-level-b) against the files.
  for (Side* side : {&a, &b}) {
    if (side == &a && !reference_dir.empty()) continue;
    auto session = OpenModel(side->model_path, side->options);
    if (!session.ok()) {
      Error(side->model_path + ": " + session.status().message());
      return session.status().code() == StatusCode::kUnsupported ? kExitUnsupported : kExitFailure;
    }
    side->session = std::move(session).value();
  }
  const Session& test = *b.session;
  const ir::Graph& feed_graph = reference_dir.empty() ? a.session->model().graph : test.model().graph;
  bool usage_error = false;
  auto feeds = BuildFeeds(feed_graph, sources, &usage_error);
  if (!feeds.ok()) {
    Error(feeds.status().message());
    return usage_error ? kExitUsage : kExitFailure;
  }

  auto describe = [](const Side& s) {
    return s.model_path + " (opt-level " + std::string(optimizer::OptLevelName(s.options.optimization_level)) + ")";
  };
  std::printf("A: %s\n", reference_dir.empty() ? describe(a).c_str() : (reference_dir + "/output_N.pb").c_str());
  std::printf("B: %s\n", describe(b).c_str());
  for (const auto& [name, v] : feeds->values) {
    const bool random = std::find(feeds->random.begin(), feeds->random.end(), name) != feeds->random.end();
    std::printf("input %s %s%s\n", name.c_str(), ShapeOf(v).c_str(),
                random ? (" random (seed " + std::to_string(sources.seed) + ")").c_str() : "");
  }

  // Reference outputs: model A's run, or the stored files.
  std::vector<std::string> names;
  std::vector<Value> reference;
  ValueRecorder recorded_a, recorded_b;
  if (reference_dir.empty()) {
    RunOptions run_a;
    if (per_node) run_a.observer = recorded_a.Observer();
    Status st = a.session->Run(feeds->values, {}, &reference, run_a);
    if (!st.ok()) {
      Error("model A: " + st.message());
      return kExitFailure;
    }
    for (const auto& out : a.session->outputs()) names.push_back(out.name);
  } else {
    for (const auto& out : test.outputs()) {
      const std::string file = reference_dir + "/output_" + std::to_string(names.size()) + ".pb";
      auto v = format::LoadValueFile(file, out.type ? &*out.type : nullptr);
      if (!v.ok()) {
        Error(file + ": " + v.status().message());
        return kExitFailure;
      }
      names.push_back(out.name);
      reference.push_back(std::move(v).value());
    }
  }
  std::vector<std::pair<std::string, Value>> feeds_b = feeds->values;
  if (reference_dir.empty() && !one_model) {
    auto mapped = FeedsForB(test.model().graph, feeds->values);
    if (!mapped.ok()) {
      Error(mapped.status().message());
      return kExitFailure;
    }
    feeds_b = std::move(mapped).value();
  }
  std::vector<Value> outputs;
  RunOptions run_b;
  if (per_node) run_b.observer = recorded_b.Observer();
  Status st = test.Run(feeds_b, {}, &outputs, run_b);
  if (!st.ok()) {
    Error("model B: " + st.message());
    return kExitFailure;
  }

  // Outputs by name where B has A's names, otherwise by position.
  nlohmann::json report = {{"a", reference_dir.empty() ? describe(a) : reference_dir}, {"b", describe(b)}};
  report["outputs"] = nlohmann::json::array();
  bool all_within = true;
  std::printf("\noutputs (B against A, rtol %g, atol %g):\n", tol.rtol, tol.atol);
  PrintHeader();
  for (size_t i = 0; i < names.size(); ++i) {
    size_t j = 0;
    while (j < test.outputs().size() && test.outputs()[j].name != names[i]) ++j;
    if (j == test.outputs().size()) j = i;
    if (j >= outputs.size()) {
      std::printf("%-28s missing in B\n", names[i].c_str());
      all_within = false;
      continue;
    }
    testing::ValueDiff d = testing::DiffValues(outputs[j], reference[i], tol);
    PrintRow(names[i], reference[i], d);
    all_within = all_within && d.within_tolerance();
    report["outputs"].push_back(DiffJson(names[i], d));
  }

  if (per_node) {
    struct NodeDiff {
      std::string name;
      const Recorded* ref;
      testing::ValueDiff diff;
    };
    std::vector<NodeDiff> diffs;
    int64_t shared = 0, not_comparable = 0;
    const NodeDiff* first_bad = nullptr;
    for (const auto& [name, rec] : recorded_a.order()) {
      const Recorded* other = recorded_b.Find(name);
      if (other == nullptr) continue;
      ++shared;
      testing::ValueDiff d = testing::DiffValues(other->value, rec.value, tol);
      if (!d.comparable) ++not_comparable;
      diffs.push_back({name, &rec, std::move(d)});
    }
    for (const auto& nd : diffs) {
      if (nd.diff.comparable && !nd.diff.within_tolerance()) {
        first_bad = &nd;
        break;
      }
    }
    std::printf("\nper node: %lld values computed by both (A: %zu, B: %zu), %lld not comparable (layout or shape)\n",
                static_cast<long long>(shared), recorded_a.order().size(), recorded_b.order().size(),
                static_cast<long long>(not_comparable));
    nlohmann::json nodes = nlohmann::json::array();
    if (first_bad == nullptr) {
      std::printf("every shared value is within tolerance\n");
    } else {
      std::printf("first out of tolerance, in A's order: '%s' from %s\n", first_bad->name.c_str(),
                  first_bad->ref->node.c_str());
      PrintHeader();
      PrintRow(first_bad->name, first_bad->ref->value, first_bad->diff);
      report["first_out_of_tolerance"] = {{"value", first_bad->name}, {"node", first_bad->ref->node}};
    }
    std::vector<const NodeDiff*> worst;
    for (const auto& nd : diffs) {
      if (nd.diff.comparable) worst.push_back(&nd);
    }
    std::sort(worst.begin(), worst.end(), [](const NodeDiff* x, const NodeDiff* y) {
      return x->diff.mismatches != y->diff.mismatches ? x->diff.mismatches > y->diff.mismatches
                                                      : x->diff.max_abs > y->diff.max_abs;
    });
    if (worst.size() > static_cast<size_t>(top)) worst.resize(static_cast<size_t>(top));
    if (!worst.empty()) {
      std::printf("\nlargest differences (by elements out of tolerance, then size):\n");
      PrintHeader();
      for (const auto* nd : worst) PrintRow(nd->name, nd->ref->value, nd->diff);
    }
    for (const auto& nd : diffs) {
      nlohmann::json j = DiffJson(nd.name, nd.diff);
      j["node"] = nd.ref->node;
      nodes.push_back(std::move(j));
    }
    report["nodes"] = std::move(nodes);
  }
  report["within_tolerance"] = all_within;
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << report.dump(1) << "\n";
    if (!out) {
      Error("cannot write '" + json_path + "'");
      return kExitFailure;
    }
  }
  std::printf("\n%s\n", all_within ? "outputs within tolerance" : "OUTPUTS DIFFER beyond tolerance");
  return all_within ? kExitOk : kExitFailure;
}

}  // namespace onyx::cli

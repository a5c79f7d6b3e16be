#include "runtime/session.h"

#include <malloc.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <new>
#include <set>
#include <stdexcept>
#include <thread>
#include <unordered_set>

#include "format/model_io.h"
#include "ir/function_inliner.h"
#include "ir/gradient.h"
#include "ir/session_constants.h"
#include "kernels/dnnl_util.h"
#include "kernels/int8_gemm.h"
#include "optimizer/int8_nhwc_layout.h"
#include "optimizer/nchwc_layout.h"
#include "runtime/kernel_registry.h"
#include "schema/op_versions.h"

namespace onyx {

const Value* ExecutionFrame::Lookup(const std::string& name) const {
  auto it = plan_.slot_of.find(name);
  if (it != plan_.slot_of.end()) {
    const Value& v = slots_[static_cast<size_t>(it->second)];
    if (!v.empty()) return &v;
  }
  return parent_ != nullptr ? parent_->Lookup(name) : nullptr;
}

std::optional<Tensor> ExecutionFrame::PlaceOutput(int step, size_t output, DataType type, const Shape& shape) {
  if (plan_.concat_in_place.empty()) return std::nullopt;
  const auto& outs = plan_.steps[static_cast<size_t>(step)].outputs;
  if (output >= outs.size() || outs[output] < 0) return std::nullopt;
  return plan_.concat_in_place.PlaceOutput(concat_run_, outs[output], type, shape);
}

namespace {

struct CompileContext {
  const ir::Model* model;
  const KernelRegistry* registry;
};

// Finds the Concats whose producers can write into their output (runtime/concat_in_place.h); `readers` counts the
// reads of each slot.
void PlanConcatsInPlace(GraphPlan& plan, const std::vector<int>& readers) {
  const auto n = static_cast<size_t>(plan.num_slots);
  std::vector<int> producer(n, -1);
  std::vector<bool> kept(n, false);
  for (int s : plan.output_slots) kept[static_cast<size_t>(s)] = true;
  std::vector<ConcatInPlace::ConcatStep> concats;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const GraphPlan::Step& step = plan.steps[i];
    for (int s : step.outputs) {
      if (s >= 0) producer[static_cast<size_t>(s)] = static_cast<int>(i);
    }
    if (step.node->op_type == "Concat" && ir::CanonicalDomain(step.node->domain) == "ai.onnx" &&
        step.outputs.size() == 1 && step.outputs[0] >= 0) {
      concats.push_back({static_cast<int>(i), step.node, step.inputs});
    }
  }
  plan.concat_in_place.Plan(concats, producer, readers, kept);
}

std::string OpsetLabel(const ir::Node& node, int64_t opset) {
  return node.Describe().substr(0, node.Describe().size() - 1) + ", opset " + std::to_string(opset) + ")";
}

Result<std::shared_ptr<const GraphPlan>> CompileGraph(const ir::Graph& graph, const CompileContext& cc, bool is_main) {
  auto plan = std::make_shared<GraphPlan>();
  plan->graph = &graph;
  auto slot = [&](const std::string& name) {
    auto [it, inserted] = plan->slot_of.emplace(name, plan->num_slots);
    if (inserted) ++plan->num_slots;
    return it->second;
  };
  for (const auto& in : graph.inputs) plan->input_slots.push_back(slot(in.name));
  for (const auto& init : graph.initializers) plan->constants.emplace_back(slot(init.name), Value(init.tensor));
  std::unordered_set<std::string> defined;
  for (const auto& in : graph.inputs) defined.insert(in.name);
  for (const auto& init : graph.initializers) defined.insert(init.name);
  for (const auto& n : graph.nodes) {
    for (const auto& o : n.outputs) {
      if (!o.empty()) defined.insert(o);
    }
  }
  for (const auto& name : ir::FreeNames(graph)) {
    if (is_main) {
      // A main graph has no enclosing scope: a name nothing defines is an error.
      return InvalidArgument("value '" + name +
                             "' is used but never defined (not an input, initializer or node output)");
    }
    plan->outer_refs.emplace_back(name, slot(name));
  }

  // Values no feed can change (ir/session_constants.h): kernels may prepack them.
  const std::unordered_map<std::string, const Tensor*> constants = ir::SessionConstants(graph);
  auto constant_lookup = [&constants](const std::string& name) -> const Tensor* {
    auto it = constants.find(name);
    return it == constants.end() ? nullptr : it->second;
  };

  std::vector<std::string> unsupported;
  std::vector<std::string> errors;
  for (const auto& node : graph.nodes) {
    GraphPlan::Step step;
    step.node = &node;
    auto opset = cc.model->OpsetVersion(node.domain);
    if (!opset) {
      errors.push_back(node.Describe() + ": domain '" + std::string(ir::CanonicalDomain(node.domain)) +
                       "' is not in the model's opset_import");
      continue;
    }
    step.description = OpsetLabel(node, *opset);
    // onyx's own helper operators (emitted by rewrites such as the Gradient expansion) have one version.
    auto since = node.domain == ir::kInternalDomain ? std::optional<int>(1)
                                                    : ResolveSinceVersion(node.domain, node.op_type, *opset);
    // Operators outside ONNX's tables that onyx implements (ONNX Runtime's com.microsoft contrib operators and its
    // SimplifiedLayerNormalization in the default domain) have one version.
    if (!since && cc.registry->HasOperator(node.domain, node.op_type)) since = 1;
    const KernelFactory* factory = since ? cc.registry->Find(node.domain, node.op_type, *since) : nullptr;
    if (factory == nullptr) {
      std::string op =
          std::string(ir::CanonicalDomain(node.domain)) == "ai.onnx" ? node.op_type : node.domain + "." + node.op_type;
      if (!since) {
        unsupported.push_back(op + " (not an operator of " + std::string(ir::CanonicalDomain(node.domain)) + " opset " +
                              std::to_string(*opset) + ")");
      } else {
        unsupported.push_back(op + "-" + std::to_string(*since));
      }
      continue;
    }
    KernelInfo info(
        node, *opset, *since, [&cc](const ir::Graph& sub) { return CompileGraph(sub, cc, false); }, constant_lookup);
    auto kernel = (*factory)(info);
    if (!kernel.ok()) {
      errors.push_back(kernel.status().message().rfind("node ", 0) == 0
                           ? kernel.status().message()
                           : step.description + ": " + kernel.status().message());
      continue;
    }
    step.kernel = std::move(kernel).value();
    for (const auto& in : node.inputs) step.inputs.push_back(in.empty() ? -1 : slot(in));
    for (const auto& out : node.outputs) step.outputs.push_back(out.empty() ? -1 : slot(out));
    plan->steps.push_back(std::move(step));
  }
  if (!unsupported.empty()) {
    std::sort(unsupported.begin(), unsupported.end());
    unsupported.erase(std::unique(unsupported.begin(), unsupported.end()), unsupported.end());
    std::string msg = "unsupported operator";
    msg += unsupported.size() > 1 ? "s: " : ": ";
    for (size_t i = 0; i < unsupported.size(); ++i) msg += (i ? ", " : "") + unsupported[i];
    return Unsupported(msg);
  }
  if (!errors.empty()) {
    std::string msg = errors[0];
    for (size_t i = 1; i < errors.size(); ++i) msg += "; " + errors[i];
    return InvalidArgument(msg);
  }
  for (const auto& out : graph.outputs) {
    if (!defined.count(out.name) && !plan->slot_of.count(out.name)) {
      return InvalidArgument("graph output '" + out.name + "' is never computed");
    }
    plan->output_slots.push_back(slot(out.name));
  }
  // Lifetimes: a slot is released after its last reader, unless it is an output or an outer reference.
  std::vector<int> last_reader(static_cast<size_t>(plan->num_slots), -1);
  std::vector<int> readers(static_cast<size_t>(plan->num_slots), 0);  // reads per slot, subgraph reads included
  for (size_t i = 0; i < plan->steps.size(); ++i) {
    for (const auto& name : ir::NodeReads(*plan->steps[i].node)) {
      auto it = plan->slot_of.find(name);
      if (it == plan->slot_of.end()) continue;
      last_reader[static_cast<size_t>(it->second)] = static_cast<int>(i);
      ++readers[static_cast<size_t>(it->second)];
    }
  }
  std::unordered_set<int> keep(plan->output_slots.begin(), plan->output_slots.end());
  for (size_t s = 0; s < last_reader.size(); ++s) {
    if (last_reader[s] >= 0 && !keep.count(static_cast<int>(s))) {
      plan->steps[static_cast<size_t>(last_reader[s])].release_after.push_back(static_cast<int>(s));
    }
  }
  for (auto& step : plan->steps) {
    step.last_read.assign(step.inputs.size(), false);
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      const int s = step.inputs[i];
      step.last_read[i] = s >= 0 && std::count(step.inputs.begin(), step.inputs.end(), s) == 1 &&
                          std::count(step.release_after.begin(), step.release_after.end(), s) == 1;
    }
  }
  PlanConcatsInPlace(*plan, readers);
  return std::shared_ptr<const GraphPlan>(std::move(plan));
}

}  // namespace

Status ExecutePlan(const GraphPlan& plan, ExecutionFrame& frame, std::vector<Value>* outputs) {
  auto& slots = frame.slots();
  for (size_t step_index = 0; step_index < plan.steps.size(); ++step_index) {
    const GraphPlan::Step& step = plan.steps[step_index];
    std::vector<const Value*> ins(step.inputs.size(), nullptr);
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      if (step.inputs[i] < 0) continue;
      const Value& v = slots[static_cast<size_t>(step.inputs[i])];
      if (v.empty()) {
        return Internal(step.description + ": input '" + step.node->inputs[i] + "' has no value");
      }
      ins[i] = &v;
    }
    std::vector<Value> outs(step.outputs.size());
    const int concat_group = plan.concat_in_place.GroupOfStep(static_cast<int>(step_index));
    Status st;
    const auto start =
        frame.profile != nullptr ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    if (concat_group >= 0 && plan.concat_in_place.Assemble(frame.concat_run(), concat_group, ins, &outs[0])) {
      // Every input was written in place: the output is already assembled.
    } else {
      KernelContext ctx(ins, &outs, &frame, frame.num_threads, static_cast<int>(step_index));
      try {
        st = step.kernel->Compute(ctx);
      } catch (const std::bad_alloc&) {
        st = Status(StatusCode::kIoError, "out of memory");
      } catch (const std::length_error&) {
        st = Status(StatusCode::kInvalidArgument, "a tensor would be too large");
      }
      if (st.ok() && concat_group >= 0) plan.concat_in_place.Learn(frame.concat_run(), concat_group, ins, outs[0]);
    }
    if (frame.profile != nullptr) {
      const auto& node = *step.node;
      std::string key =
          node.domain.empty() || node.domain == "ai.onnx" ? node.op_type : node.domain + "." + node.op_type;
      if (frame.profile_per_node) key = node.name + " (" + key + ")";
      OpProfile& p = (*frame.profile)[key];
      p.op = key;
      p.total_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      ++p.calls;
    }
    if (!st.ok()) {
      if (st.message().rfind("node ", 0) == 0) return st;
      return st.WithContext(step.description);
    }
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      if (step.outputs[i] < 0) continue;
      if (outs[i].empty()) {
        // Optional outputs a kernel does not produce stay unset; a reader would report it.
        continue;
      }
      slots[static_cast<size_t>(step.outputs[i])] = std::move(outs[i]);
      if (frame.observer != nullptr) (*frame.observer)(*step.node, i, slots[static_cast<size_t>(step.outputs[i])]);
    }
    for (int s : step.release_after) slots[static_cast<size_t>(s)] = Value();
  }
  outputs->clear();
  for (size_t i = 0; i < plan.output_slots.size(); ++i) {
    const Value& v = slots[static_cast<size_t>(plan.output_slots[i])];
    if (v.empty()) {
      const std::string& name = plan.graph->outputs[i].name;
      const Value* outer = frame.Lookup(name);
      if (outer == nullptr) return Internal("graph output '" + name + "' was not computed");
      outputs->push_back(*outer);
    } else {
      outputs->push_back(v);
    }
  }
  return Status::Ok();
}

namespace {

// glibc returns large freed blocks (mmap'd above 128 KiB, or trimmed off the heap top) to the kernel, so every run
// that allocates its activations again pays for page faults and zeroing: a third of ResNet-50's time. Keeping freed
// memory in the process lets the next run reuse the same pages (what ORT's arena does), at no cost in peak RSS.
void KeepFreedMemoryMapped() {
  static const bool done = [] {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    return true;
  }();
  (void)done;
}

}  // namespace

optimizer::ConstantModelRunner ConstantModelRunner(int num_threads) {
  return [num_threads](ir::Model model) -> Result<std::vector<Value>> {
    SessionOptions so;
    so.optimization_level = optimizer::OptLevel::kDisabled;
    so.intra_op_num_threads = num_threads;
    ONYX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(std::move(model), so));
    std::vector<Value> outs;
    ONYX_RETURN_IF_ERROR(session->Run({}, {}, &outs));
    return outs;
  };
}

Result<std::unique_ptr<Session>> Session::Create(ir::Model model, const SessionOptions& options) {
  std::unique_ptr<Session> s(new Session());
  s->options_ = options;
  s->num_threads_ = options.intra_op_num_threads > 0
                        ? options.intra_op_num_threads
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  KeepFreedMemoryMapped();
  // oneDNN's kernels use OpenMP's thread count (process-wide: the last session created sets it).
  omp_set_num_threads(s->num_threads_);
  ONYX_RETURN_IF_ERROR(ir::InlineModelFunctions(model));
  ONYX_RETURN_IF_ERROR(ir::ExpandGradients(model));
  optimizer::OptimizerOptions opt;
  opt.level = options.optimization_level;
  opt.num_threads = s->num_threads_;
  opt.run_constant_model = ConstantModelRunner(s->num_threads_);
  ONYX_RETURN_IF_ERROR(optimizer::OptimizeModel(model, opt, &s->optimizer_stats_));
  if (options.optimization_level >= optimizer::OptLevel::kAll && kernels::BlockedConvolutionIsFast()) {
    // Layout (like ORT's NCHWc transformer, level "all"): after the other passes, so that it sees the folded
    // BatchNormalizations and the graph it rewrites no longer changes.
    ONYX_RETURN_IF_ERROR(optimizer::ApplyNchwcLayout(model).status());
  }
  if (options.optimization_level >= optimizer::OptLevel::kAll && kernels::Int8GemmIsExact()) {
    // 8-bit activations channels last between the int8 convolutions (where oneDNN's int8 kernels are exact).
    ONYX_RETURN_IF_ERROR(optimizer::ApplyInt8NhwcLayout(model).status());
  }
  if (!options.optimized_model_path.empty()) {
    // A large model's weights go to an external-data file beside it (SaveModel decides: a protobuf holds 2 GiB).
    ONYX_RETURN_IF_ERROR(format::SaveModel(model, options.optimized_model_path));
  }
  s->model_ = std::make_unique<ir::Model>(std::move(model));
  CompileContext cc{s->model_.get(), &KernelRegistry::Global()};
  ONYX_ASSIGN_OR_RETURN(s->plan_, CompileGraph(s->model_->graph, cc, true));
  for (const auto& in : s->model_->graph.inputs) s->inputs_.push_back(&in);
  for (const ir::ValueInfo* in : s->model_->graph.RealInputs()) {
    s->required_inputs_.push_back(static_cast<size_t>(in - s->model_->graph.inputs.data()));
  }
  return s;
}

Result<std::unique_ptr<Session>> Session::Load(const std::string& path, const SessionOptions& options) {
  ONYX_ASSIGN_OR_RETURN(ir::Model model, format::LoadModel(path));
  auto s = Create(std::move(model), options);
  if (!s.ok()) return s.status().WithContext("'" + path + "'");
  return s;
}

namespace {

Status CheckFeed(const ir::ValueInfo& decl, const Value& v) {
  if (!decl.type) return Status::Ok();
  const auto& t = *decl.type;
  if (t.kind == ir::TypeInfo::Kind::kTensor) {
    if (!v.is_tensor()) return InvalidArgument("input '" + decl.name + "' expects a tensor, got a " + v.KindName());
    const Tensor& x = v.tensor();
    if (t.elem_type != DataType::kUndefined && x.type() != t.elem_type) {
      return InvalidArgument("input '" + decl.name + "' expects " + TensorTypeString(t.elem_type) + ", got " +
                             TensorTypeString(x.type()));
    }
    if (t.shape) {
      if (static_cast<int64_t>(t.shape->size()) != x.rank()) {
        return InvalidArgument("input '" + decl.name + "' expects rank " + std::to_string(t.shape->size()) +
                               ", got shape " + ShapeToString(x.shape()));
      }
      for (size_t i = 0; i < t.shape->size(); ++i) {
        const auto& d = (*t.shape)[i];
        if (d.is_value() && d.value != x.dim(static_cast<int64_t>(i))) {
          return InvalidArgument("input '" + decl.name + "' expects dimension " + std::to_string(i) + " to be " +
                                 std::to_string(d.value) + ", got shape " + ShapeToString(x.shape()));
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

std::vector<OpProfile> Session::Profile() const {
  std::lock_guard<std::mutex> lock(profile_mutex_);
  std::vector<OpProfile> out;
  for (const auto& [key, p] : profile_) out.push_back(p);
  std::sort(out.begin(), out.end(), [](const OpProfile& a, const OpProfile& b) { return a.total_ms > b.total_ms; });
  return out;
}

void Session::ClearProfile() {
  std::lock_guard<std::mutex> lock(profile_mutex_);
  profile_.clear();
}

Status Session::Run(const std::vector<std::pair<std::string, Value>>& feeds,
                    const std::vector<std::string>& output_names, std::vector<Value>* outputs) const {
  return Run(feeds, output_names, outputs, RunOptions{});
}

Status Session::Run(const std::vector<std::pair<std::string, Value>>& feeds,
                    const std::vector<std::string>& output_names, std::vector<Value>* outputs,
                    const RunOptions& run_options) const {
  const ir::Graph& g = model_->graph;
  ExecutionFrame frame(*plan_, nullptr);
  frame.num_threads = num_threads_;
  if (run_options.observer) frame.observer = &run_options.observer;
  auto& slots = frame.slots();
  for (const auto& [slot, value] : plan_->constants) slots[static_cast<size_t>(slot)] = value;
  // Which declared inputs were fed, by position (no per-run containers of names: Run is on the hot path of small
  // models, where a set of strings cost more than the model).
  std::vector<uint8_t> fed(g.inputs.size(), 0);
  for (const auto& [name, value] : feeds) {
    // (A plain reference, not the structured binding, in the lambda: clang before 16 cannot capture bindings.)
    const std::string& feed_name = name;
    auto it = std::find_if(g.inputs.begin(), g.inputs.end(),
                           [&](const ir::ValueInfo& vi) { return vi.name == feed_name; });
    if (it == g.inputs.end()) return InvalidArgument("'" + name + "' is not an input of the model");
    ONYX_RETURN_IF_ERROR(CheckFeed(*it, value));
    slots[static_cast<size_t>(plan_->slot_of.at(name))] = value;
    fed[static_cast<size_t>(it - g.inputs.begin())] = 1;
  }
  for (size_t i : required_inputs_) {
    if (!fed[i]) return InvalidArgument("input '" + g.inputs[i].name + "' was not fed");
  }
  std::vector<Value> all;
  std::unordered_map<std::string, OpProfile> profile;
  if (options_.enable_profiling) frame.profile = &profile;
  frame.profile_per_node = options_.profile_per_node;
  ONYX_RETURN_IF_ERROR(ExecutePlan(*plan_, frame, &all));
  if (options_.enable_profiling) {
    std::lock_guard<std::mutex> lock(profile_mutex_);
    for (const auto& [key, p] : profile) {
      OpProfile& total = profile_[key];
      total.op = key;
      total.total_ms += p.total_ms;
      total.calls += p.calls;
    }
  }
  if (output_names.empty()) {
    *outputs = std::move(all);
    return Status::Ok();
  }
  outputs->clear();
  for (const auto& name : output_names) {
    size_t i = 0;
    while (i < g.outputs.size() && g.outputs[i].name != name) ++i;
    if (i == g.outputs.size()) return InvalidArgument("'" + name + "' is not an output of the model");
    outputs->push_back(all[i]);
  }
  return Status::Ok();
}

}  // namespace onyx

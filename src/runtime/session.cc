#include "runtime/session.h"

#include <malloc.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <set>
#include <stdexcept>
#include <thread>
#include <unordered_set>

#include "core/cpu_count.h"
#include "format/model_io.h"
#include "ir/function_inliner.h"
#include "ir/gradient.h"
#include "ir/session_constants.h"
#include "kernels/deferred_tuning.h"
#include "kernels/dnnl_util.h"
#include "kernels/int8_gemm.h"
#include "kernels/int8_pointwise_nhwc.h"
#include "kernels/tuning_cache.h"
#include "optimizer/elementwise_chain_fusion.h"
#include "optimizer/int8_nhwc_layout.h"
#include "optimizer/int8_residual_fusion.h"
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

Tensor ExecutionFrame::AllocateOutput(int step, size_t output, DataType type, Shape shape, size_t min_bytes) {
  if (min_bytes > 0) return pool_.Allocate(type, std::move(shape), min_bytes);
  if (step >= 0 && !plan_.concat_in_place.empty()) {
    const auto& outs = plan_.steps[static_cast<size_t>(step)].outputs;
    if (output < outs.size() && outs[output] >= 0) {
      if (std::optional<Tensor> placed =
              plan_.concat_in_place.PlaceOutput(concat_run_, outs[output], type, std::move(shape), &pool_)) {
        return std::move(*placed);
      }
    }
  }
  return pool_.Allocate(type, std::move(shape));
}

namespace {

// Whether slot value `v` is constant `c` itself (same storage, data, type and shape), as a reused frame keeps it.
bool HoldsConstant(const Value& v, const Value& c) {
  if (!v.is_tensor() || !c.is_tensor()) return false;
  const Tensor& a = v.tensor();
  const Tensor& b = c.tensor();
  return a.shares_storage_with(b) && a.raw() == b.raw() && a.type() == b.type() && a.shape() == b.shape();
}

}  // namespace

void ExecutionFrame::BeginRun() {
  pool_.BeginRun();
  plan_.concat_in_place.RestartRun(concat_run_);
  for (const auto& [slot, value] : plan_.constants) {
    Value& v = slots_[static_cast<size_t>(slot)];
    if (!HoldsConstant(v, value)) v = value;
  }
}

void ExecutionFrame::EndRun() {
  for (size_t s = 0; s < slots_.size(); ++s) {
    Value& v = slots_[s];
    const int c = s < plan_.constant_of_slot.size() ? plan_.constant_of_slot[s] : -1;
    if (c >= 0 && HoldsConstant(v, plan_.constants[static_cast<size_t>(c)].second)) continue;
    if (s < plan_.is_input_slot.size() && plan_.is_input_slot[s] && v.is_tensor()) {
      v.tensor().Reset();  // the next run's feed copies its shape into this vector
      continue;
    }
    pool_.Release(v);
  }
  pool_.EndRun();
}

namespace {

struct CompileContext {
  const ir::Model* model;
  const KernelRegistry* registry;
  bool ort_summation_order;
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
      concats.push_back({static_cast<int>(i), step.node, step.inputs, step.outputs[0]});
    }
  }
  plan.concat_in_place.Plan(concats, producer, readers, kept);
}

std::string OpsetLabel(const ir::Node& node, int64_t opset) {
  return node.Describe().substr(0, node.Describe().size() - 1) + ", opset " + std::to_string(opset) + ")";
}

// Initializers whose every reader adopted them (KernelInfo::AdoptConstantInput) become shells in the plan: type and
// shape, no bytes; the kernels' own references keep the weights while they need them. Not a graph output's.
void ReleaseAdoptedConstants(GraphPlan& plan,
                             const std::unordered_map<std::string, std::unordered_set<const ir::Node*>>& adopted_by) {
  if (adopted_by.empty()) return;
  std::unordered_map<std::string, int> readers;  // steps reading each name (subgraph reads included)
  std::unordered_map<std::string, int> adopters;
  for (const auto& step : plan.steps) {
    for (const auto& name : ir::NodeReads(*step.node)) {
      ++readers[name];
      auto it = adopted_by.find(name);
      if (it != adopted_by.end() && it->second.count(step.node)) ++adopters[name];
    }
  }
  const std::unordered_set<int> outputs(plan.output_slots.begin(), plan.output_slots.end());
  for (const auto& [name, slot] : plan.slot_of) {
    auto r = readers.find(name);
    if (r == readers.end() || adopters[name] != r->second || outputs.count(slot)) continue;
    for (auto& [constant_slot, value] : plan.constants) {
      if (constant_slot != slot || !value.is_tensor()) continue;
      const Tensor& t = value.tensor();
      value = Value(Tensor::Borrow(t.type(), t.shape(), nullptr, nullptr));
      plan.released_constants.push_back(name);
    }
  }
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
  std::unordered_map<std::string, std::unordered_set<const ir::Node*>> adopted_by;  // KernelInfo::AdoptConstantInput
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
        node, *opset, *since, [&cc](const ir::Graph& sub) { return CompileGraph(sub, cc, false); }, constant_lookup,
        cc.ort_summation_order);
    std::vector<std::string> adopted;
    if (is_main) info.set_adopted_constants(&adopted);
    auto kernel = (*factory)(info);
    for (auto& name : adopted) adopted_by[name].insert(&node);
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
  ReleaseAdoptedConstants(*plan, adopted_by);
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
  plan->constant_of_slot.assign(static_cast<size_t>(plan->num_slots), -1);
  for (size_t c = 0; c < plan->constants.size(); ++c) {
    plan->constant_of_slot[static_cast<size_t>(plan->constants[c].first)] = static_cast<int>(c);
  }
  plan->is_input_slot.assign(static_cast<size_t>(plan->num_slots), 0);
  for (int s : plan->input_slots) plan->is_input_slot[static_cast<size_t>(s)] = 1;
  std::unordered_set<int> keep(plan->output_slots.begin(), plan->output_slots.end());
  // Initializers stay for the whole run (and across runs of a reused frame): the model holds their storage, so
  // releasing them would free nothing.
  for (const auto& [s, value] : plan->constants) keep.insert(s);
  // A main graph's inputs too: the caller's feeds hold their storage for the whole run, and a session's frame keeps
  // the slot's shape vector for the next run's feed (ExecutionFrame::EndRun). (A subgraph's inputs are its own:
  // they are released, and a kernel may compute in place over them.)
  if (is_main) keep.insert(plan->input_slots.begin(), plan->input_slots.end());
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

Status ExecuteSteps(const GraphPlan& plan, ExecutionFrame& frame) {
  auto& slots = frame.slots();
  // One list of inputs and one of outputs for every step (reused: no vectors per step).
  std::vector<const Value*>& ins = frame.step_inputs;
  std::vector<Value>& outs = frame.step_outputs;
  for (size_t step_index = 0; step_index < plan.steps.size(); ++step_index) {
    const GraphPlan::Step& step = plan.steps[step_index];
    ins.assign(step.inputs.size(), nullptr);
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      if (step.inputs[i] < 0) continue;
      const Value& v = slots[static_cast<size_t>(step.inputs[i])];
      if (v.empty()) {
        return Internal(step.description + ": input '" + step.node->inputs[i] + "' has no value");
      }
      ins[i] = &v;
    }
    outs.clear();
    outs.resize(step.outputs.size());
    const int concat_group = plan.concat_in_place.GroupOfStep(static_cast<int>(step_index));
    Status st;
    const auto start =
        frame.profile != nullptr ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    if (concat_group >= 0 &&
        plan.concat_in_place.Assemble(frame.concat_run(), static_cast<int>(step_index), ins, &outs[0])) {
      // Every input was written in place: the output is already assembled.
    } else {
      KernelContext ctx(std::span<const Value* const>(ins), &outs, &frame, frame.num_threads,
                        static_cast<int>(step_index));
      try {
        st = step.kernel->Compute(ctx);
      } catch (const std::bad_alloc&) {
        st = Status(StatusCode::kIoError, "out of memory");
      } catch (const std::length_error&) {
        st = Status(StatusCode::kInvalidArgument, "a tensor would be too large");
      }
      if (st.ok() && concat_group >= 0)
        plan.concat_in_place.Learn(frame.concat_run(), static_cast<int>(step_index), ins, outs[0]);
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
    for (int s : step.release_after) frame.ReleaseSlot(s);
  }
  outs.clear();
  return Status::Ok();
}

Status ExecutePlan(const GraphPlan& plan, ExecutionFrame& frame, std::vector<Value>* outputs) {
  ONYX_RETURN_IF_ERROR(ExecuteSteps(plan, frame));
  auto& slots = frame.slots();
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
  return CreateAfterLoading(std::move(model), options, 0);
}

Result<std::unique_ptr<Session>> Session::CreateAfterLoading(ir::Model model, const SessionOptions& options,
                                                             double loading_ms) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<Session> s(new Session());
  s->options_ = options;
  s->num_threads_ = options.intra_op_num_threads > 0
                        ? options.intra_op_num_threads
                        : UsableCpuCount();  // the affinity mask and a container's CPU quota, not the host's cores
  KeepFreedMemoryMapped();
  // oneDNN's kernels use OpenMP's thread count (process-wide: the last session created sets it).
  omp_set_num_threads(s->num_threads_);
  ONYX_RETURN_IF_ERROR(ir::InlineModelFunctions(model));
  ONYX_RETURN_IF_ERROR(ir::ExpandGradients(model));
  optimizer::OptimizerOptions opt;
  opt.level = options.optimization_level;
  opt.num_threads = s->num_threads_;
  opt.run_constant_model = ConstantModelRunner(s->num_threads_);
  // ONNX Runtime's summation order asked for at a fusing level: fuse as it does, so that its bytes come out.
  opt.ort_fusions = options.ort_summation_order.value_or(false);
  ONYX_RETURN_IF_ERROR(optimizer::OptimizeModel(model, opt, &s->optimizer_stats_));
  if (options.optimization_level >= optimizer::OptLevel::kAll && kernels::BlockedConvolutionIsFast()) {
    // Layout (like ORT's NCHWc transformer, level "all"): after the other passes, so that it sees the folded
    // BatchNormalizations and the graph it rewrites no longer changes.
    ONYX_RETURN_IF_ERROR(optimizer::ApplyNchwcLayout(model).status());
  }
  const kernels::Int8Arithmetic int8 = kernels::Int8GemmArithmetic();
  if (options.optimization_level >= optimizer::OptLevel::kAll &&
      (int8 == kernels::Int8Arithmetic::kExact || int8 == kernels::Int8Arithmetic::kSaturatingPairs)) {
    // 8-bit activations channels last between the int8 convolutions, where oneDNN's int8 convolutions take any
    // weights (not under ONYX_INT8_EXACT=1 without VNNI: QLinearConv's im2col + split GEMM path runs there).
    ONYX_RETURN_IF_ERROR(optimizer::ApplyInt8NhwcLayout(model).status());
    if (kernels::PointwiseNhwcInt8::Supported()) {
      // Where onyx's int8 convolution kernels run (AVX-512 VNNI), residual adds go into the convolutions before them.
      ONYX_RETURN_IF_ERROR(optimizer::FuseInt8ResidualAdds(model).status());
    }
  }
  if (options.optimization_level >= optimizer::OptLevel::kExtended) {
    // Last: the chains of elementwise operators the layout passes left (on blocked values or plain) run in one pass.
    ONYX_RETURN_IF_ERROR(optimizer::FuseElementwiseChains(model).status());
  }
  if (!options.optimized_model_path.empty()) {
    // A large model's weights go to an external-data file beside it (SaveModel decides: a protobuf holds 2 GiB).
    ONYX_RETURN_IF_ERROR(format::SaveModel(model, options.optimized_model_path));
  }
  s->model_ = std::make_unique<ir::Model>(std::move(model));
  CompileContext cc{s->model_.get(), &KernelRegistry::Global(),
                    options.ort_summation_order.value_or(options.optimization_level == optimizer::OptLevel::kDisabled)};
  ONYX_ASSIGN_OR_RETURN(s->plan_, CompileGraph(s->model_->graph, cc, true));
  if (!s->plan_->released_constants.empty()) {
    // The model's copies of the released initializers go too (their kernels hold the bytes).
    const std::unordered_set<std::string> released(s->plan_->released_constants.begin(),
                                                   s->plan_->released_constants.end());
    for (auto& init : s->model_->graph.initializers) {
      if (released.count(init.name)) {
        init.tensor = Tensor::Borrow(init.tensor.type(), init.tensor.shape(), nullptr, nullptr);
      }
    }
  }
  for (const auto& in : s->model_->graph.inputs) s->inputs_.push_back(&in);
  for (const ir::ValueInfo* in : s->model_->graph.RealInputs()) {
    s->required_inputs_.push_back(static_cast<size_t>(in - s->model_->graph.inputs.data()));
  }
  // The kernels time their implementations on the first run where the tuning cache has no entry yet: at most about
  // as long as this session took to load and create (tuning_cache.h), so that a cold cache does not multiply the
  // time to the first result of a small model.
  kernels::TuningCache::Process()->AllowMissTime(
      loading_ms + std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return s;
}

Result<std::unique_ptr<Session>> Session::Load(const std::string& path, const SessionOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  ONYX_ASSIGN_OR_RETURN(ir::Model model, format::LoadModel(path));
  auto s =
      CreateAfterLoading(std::move(model), options,
                         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
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

// A frame for one run: an idle one of an earlier run (its buffer pool warm) or a new one; given back cleaned.
class Session::FrameLease {
 public:
  explicit FrameLease(const Session& session) : session_(session) {
    {
      std::lock_guard<std::mutex> lock(session.frames_mutex_);
      if (!session.idle_frames_.empty()) {
        frame_ = std::move(session.idle_frames_.back());
        session.idle_frames_.pop_back();
      }
    }
    if (frame_ == nullptr) frame_ = std::make_unique<ExecutionFrame>(*session.plan_, nullptr);
    frame_->num_threads = session.num_threads_;
    frame_->observer = nullptr;
    frame_->profile = nullptr;
    frame_->profile_per_node = session.options_.profile_per_node;
    frame_->BeginRun();
  }
  ~FrameLease() {
    frame_->EndRun();
    frame_->observer = nullptr;
    frame_->profile = nullptr;
    std::lock_guard<std::mutex> lock(session_.frames_mutex_);
    session_.idle_frames_.push_back(std::move(frame_));
  }
  FrameLease(const FrameLease&) = delete;
  FrameLease& operator=(const FrameLease&) = delete;
  ExecutionFrame& frame() { return *frame_; }

 private:
  const Session& session_;
  std::unique_ptr<ExecutionFrame> frame_;
};

size_t Session::activation_arena_bytes() const {
  std::lock_guard<std::mutex> lock(frames_mutex_);
  size_t bytes = 0;
  for (const auto& frame : idle_frames_) bytes += frame->pool().arena_bytes();
  return bytes;
}

Status Session::BindFeeds(ExecutionFrame& frame, const std::vector<std::pair<std::string, Value>>& feeds) const {
  const ir::Graph& g = model_->graph;
  auto& slots = frame.slots();
  // Which declared inputs were fed, by position (no per-run containers of names: Run is on the hot path of small
  // models, where a set of strings cost more than the model).
  std::vector<uint8_t>& fed = frame.fed;
  fed.assign(g.inputs.size(), 0);
  for (const auto& [name, value] : feeds) {
    // (A plain reference, not the structured binding, in the lambda: clang before 16 cannot capture bindings.)
    const std::string& feed_name = name;
    auto it =
        std::find_if(g.inputs.begin(), g.inputs.end(), [&](const ir::ValueInfo& vi) { return vi.name == feed_name; });
    if (it == g.inputs.end()) return InvalidArgument("'" + name + "' is not an input of the model");
    ONYX_RETURN_IF_ERROR(CheckFeed(*it, value));
    // A copy into the slot's tensor, whose shape vector is kept from the last run (ExecutionFrame::EndRun).
    slots[static_cast<size_t>(plan_->slot_of.at(name))] = value;
    fed[static_cast<size_t>(it - g.inputs.begin())] = 1;
  }
  for (size_t i : required_inputs_) {
    if (!fed[i]) return InvalidArgument("input '" + g.inputs[i].name + "' was not fed");
  }
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    // An optional input left out: its initializer (set by BeginRun) or nothing.
    const auto s = static_cast<size_t>(plan_->input_slots[i]);
    if (!fed[i] && plan_->constant_of_slot[s] < 0) slots[s] = Value();
  }
  return Status::Ok();
}

Status Session::BindAndExecute(ExecutionFrame& frame, const std::vector<std::pair<std::string, Value>>& feeds) const {
  ONYX_RETURN_IF_ERROR(BindFeeds(frame, feeds));
  bool retuned = false;
  ONYX_RETURN_IF_ERROR(Execute(frame, &retuned));
  if (retuned) {
    frame.EndRun();
    frame.BeginRun();
    ONYX_RETURN_IF_ERROR(BindFeeds(frame, feeds));
    ONYX_RETURN_IF_ERROR(Execute(frame, &retuned));
  }
  return Status::Ok();
}

Status Session::Execute(ExecutionFrame& frame, bool* retuned) const {
  // OpenMP's thread count is a per-thread setting: a run from any thread but the one that created the session (a
  // server's HTTP worker, a Python or batch worker thread) would otherwise get OpenMP's default, every core, in
  // oneDNN's primitives and onyx's own parallel loops alike, whatever intra_op_num_threads says.
  kernels::ScopedOmpThreads omp_threads(num_threads_);
  // Shapes the tuning cache lacks run by the kernels' fixed rules in this run and are timed after it, most to gain
  // first (kernels/deferred_tuning.h); a failed run drops them. Not under an observer, which would see the run's
  // values twice (BindAndExecute): there the kernels time their misses where they meet them.
  kernels::DeferredTuning deferred;
  struct Unset {
    ExecutionFrame& frame;
    ~Unset() { frame.deferred_tuning = nullptr; }
  } unset{frame};
  frame.deferred_tuning = frame.observer == nullptr ? &deferred : nullptr;
  {
    std::shared_lock<std::shared_mutex> running(kernels_mutex_);
    if (!options_.enable_profiling) {
      ONYX_RETURN_IF_ERROR(ExecuteSteps(*plan_, frame));
    } else {
      std::unordered_map<std::string, OpProfile> profile;
      frame.profile = &profile;
      ONYX_RETURN_IF_ERROR(ExecuteSteps(*plan_, frame));
      std::lock_guard<std::mutex> lock(profile_mutex_);
      for (const auto& [key, p] : profile) {
        OpProfile& total = profile_[key];
        total.op = key;
        total.total_ms += p.total_ms;
        total.calls += p.calls;
      }
    }
    // Counted before the kernels are released: a tuning (which needs them exclusively) then sees every run that
    // computed with the kernels it would replace, including one that has not returned yet.
    runs_executed_.fetch_add(1);
  }
  *retuned = false;
  if (deferred.empty()) return Status::Ok();
  // The timing may change kernels, whose roundings differ: so only when this run is the only one that has computed
  // with the session's kernels (it then runs again with the new ones, and all the session's answers come from the
  // same kernels) and while no other run executes them; else it is left out (waiting for the others could wait
  // forever under a steady load), the fixed rules stay in this session and a later one (or `onyx tune`) times the
  // shapes. The timings are quieter for it too. (Counting returned runs instead left a window: a run that had
  // computed but not yet returned when another retuned answered with the old kernels.)
  std::unique_lock<std::shared_mutex> tuning(kernels_mutex_, std::try_to_lock);
  if (tuning.owns_lock() && runs_executed_.load() == 1) *retuned = deferred.RunAll();
  return Status::Ok();
}

Result<size_t> Session::OutputIndex(const std::string& name) const {
  const auto& outs = model_->graph.outputs;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].name == name) return i;
  }
  return InvalidArgument("'" + name + "' is not an output of the model");
}

Status Session::Run(const std::vector<std::pair<std::string, Value>>& feeds,
                    const std::vector<std::string>& output_names, std::vector<Value>* outputs,
                    const RunOptions& run_options) const {
  FrameLease lease(*this);
  ExecutionFrame& frame = lease.frame();
  if (run_options.observer) frame.observer = &run_options.observer;
  ONYX_RETURN_IF_ERROR(BindAndExecute(frame, feeds));
  // The main graph has no enclosing scope: every output is in its slot (a graph input or initializer included).
  auto& slots = frame.slots();
  auto output_value = [&](size_t i) -> Result<const Value*> {
    const Value& v = slots[static_cast<size_t>(plan_->output_slots[i])];
    if (v.empty()) return Internal("graph output '" + model_->graph.outputs[i].name + "' was not computed");
    return &v;
  };
  if (output_names.empty()) {
    for (size_t i = 0; i < plan_->output_slots.size(); ++i) ONYX_RETURN_IF_ERROR(output_value(i).status());
    outputs->clear();
    for (size_t i = 0; i < plan_->output_slots.size(); ++i) outputs->push_back(**output_value(i));
    return Status::Ok();
  }
  for (const auto& name : output_names) {
    ONYX_ASSIGN_OR_RETURN(size_t i, OutputIndex(name));
    ONYX_RETURN_IF_ERROR(output_value(i).status());
  }
  outputs->clear();
  for (const auto& name : output_names) outputs->push_back(**output_value(*OutputIndex(name)));
  return Status::Ok();
}

Status Session::RunInto(const std::vector<std::pair<std::string, Value>>& feeds,
                        const std::vector<std::string>& output_names, std::span<Tensor> outputs,
                        std::span<const size_t> capacities) const {
  const size_t count = output_names.empty() ? plan_->output_slots.size() : output_names.size();
  if (outputs.size() != count) {
    return InvalidArgument("RunInto: " + std::to_string(count) + " outputs requested, " +
                           std::to_string(outputs.size()) + " tensors given");
  }
  FrameLease lease(*this);
  ExecutionFrame& frame = lease.frame();
  ONYX_RETURN_IF_ERROR(BindAndExecute(frame, feeds));
  auto& slots = frame.slots();
  auto index_of = [&](size_t k) -> Result<size_t> {
    if (output_names.empty()) return k;
    return OutputIndex(output_names[k]);
  };
  // Check every output before writing any.
  for (size_t k = 0; k < count; ++k) {
    ONYX_ASSIGN_OR_RETURN(size_t i, index_of(k));
    const std::string& name = model_->graph.outputs[i].name;
    const Value& v = slots[static_cast<size_t>(plan_->output_slots[i])];
    if (v.empty()) return Internal("graph output '" + name + "' was not computed");
    if (!v.is_tensor()) {
      return InvalidArgument("output '" + name + "' is a " + v.KindName() +
                             "; only tensors can be written into buffers");
    }
    const Tensor& t = v.tensor();
    if (t.type() == DataType::kString) {
      return Unsupported("output '" + name + "' is a string tensor: only numeric outputs are written into given " +
                         "tensors (Run returns strings)");
    }
    const Tensor& dst = outputs[k];
    if (dst.type() != t.type() || dst.shape() != t.shape()) {
      return InvalidArgument("output '" + name + "' is " + std::string(DataTypeName(t.type())) + " " +
                             ShapeToString(t.shape()) + ", the tensor given is " +
                             std::string(DataTypeName(dst.type())) + " " + ShapeToString(dst.shape()));
    }
    if (k < capacities.size() && capacities[k] < t.nbytes()) {
      return InvalidArgument("output '" + name + "' needs " + std::to_string(t.nbytes()) + " bytes, the buffer has " +
                             std::to_string(capacities[k]));
    }
    if (t.nbytes() > 0 && dst.raw() == nullptr) return InvalidArgument("output '" + name + "': data is NULL");
  }
  for (size_t k = 0; k < count; ++k) {
    const size_t i = *index_of(k);
    const Tensor& t = slots[static_cast<size_t>(plan_->output_slots[i])].tensor();
    if (t.nbytes() > 0 && outputs[k].raw() != t.raw()) std::memcpy(outputs[k].raw(), t.raw(), t.nbytes());
  }
  return Status::Ok();
}

}  // namespace onyx

#include "convert/tf/tf1_control.h"

#include <algorithm>
#include <functional>
#include <set>
#include <tuple>

#include "convert/tf/functions.h"

namespace onyx::convert::tf {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

// The reference-typed variants (RefEnter, RefSwitch, ...) of old graphs behave alike.
bool Is(const TfNode& n, const char* op) { return n.op == op || n.op == std::string("Ref") + op; }

bool IsControlFlowOp(const TfNode& n) {
  return Is(n, "Enter") || Is(n, "Exit") || Is(n, "Merge") || Is(n, "Switch") || Is(n, "NextIteration") ||
         n.op == "LoopCond";
}

bool Contains(const std::vector<std::pair<int, int>>& guard, std::pair<int, int> item) {
  return std::binary_search(guard.begin(), guard.end(), item);
}

// A converted tensor ("node:port"); an error when its node did not give that output.
Result<TfValue> Lookup(const std::map<std::string, TfValue>& values, const std::string& tensor,
                       const std::string& path) {
  auto it = values.find(tensor);
  if (it == values.end()) return InvalidArgument(path + ": tensor '" + tensor + "' is not an output of its node");
  return it->second;
}

}  // namespace

Result<std::unique_ptr<Tf1Graph>> Tf1Graph::Analyze(const std::vector<TfNode>& nodes,
                                                    const std::map<std::string, size_t>& index,
                                                    const ControlInputs* control, const std::string& path) {
  if (std::none_of(nodes.begin(), nodes.end(), IsControlFlowOp)) return std::unique_ptr<Tf1Graph>();
  auto g = std::unique_ptr<Tf1Graph>(new Tf1Graph());
  const size_t n = nodes.size();
  g->nodes_ = &nodes;
  g->path_ = path;
  g->inputs_.resize(n);
  g->control_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    for (const auto& in : nodes[i].inputs) {
      auto [producer, port] = SplitTensorName(in);
      auto it = index.find(producer);
      g->inputs_[i].push_back({it == index.end() ? kNone : it->second, port});
    }
    if (control != nullptr) {
      if (auto c = control->find(nodes[i].name); c != control->end()) {
        for (const auto& name : c->second) {
          if (auto it = index.find(name); it != index.end()) g->control_[i].push_back(it->second);
        }
      }
    }
  }
  // A Merge's input from a NextIteration is a loop's back edge: without those the graph is acyclic.
  auto back_edge = [&](size_t i, size_t producer) {
    return Is(nodes[i], "Merge") && Is(nodes[producer], "NextIteration");
  };

  // Dependency order (Kahn), back edges left out. Nodes on other cycles stay out of it: the walk reports them.
  std::vector<std::vector<size_t>> readers(n);
  std::vector<size_t> pending(n, 0);
  for (size_t i = 0; i < n; ++i) {
    auto add = [&](size_t p) {
      if (p == kNone || back_edge(i, p)) return;
      readers[p].push_back(i);
      ++pending[i];
    };
    for (const auto& [p, port] : g->inputs_[i]) add(p);
    for (size_t p : g->control_[i]) add(p);
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) order.push_back(i);
  }
  for (size_t k = 0; k < order.size(); ++k) {
    for (size_t r : readers[order[k]]) {
      if (--pending[r] == 0) order.push_back(r);
    }
  }

  // Frames, in dependency order: Enter opens its frame_name (inside its input's frame), Exit leaves its input's
  // frame, any other node lives in the deepest frame of its inputs.
  g->frame_.assign(n, -1);
  std::map<std::string, int> frame_ids;
  auto depth = [&](int f) {
    int d = 0;
    for (; f >= 0; f = g->frames_[f].parent) ++d;
    return d;
  };
  for (size_t i : order) {
    const TfNode& node = nodes[i];
    const size_t first = g->inputs_[i].empty() ? kNone : g->inputs_[i][0].first;
    if (Is(node, "Enter")) {
      auto frame_name = node.String("frame_name");
      if (!frame_name.ok()) return frame_name.status().WithContext(path);
      const std::string name = *frame_name;
      auto [it, fresh] = frame_ids.emplace(name, static_cast<int>(g->frames_.size()));
      if (fresh) {
        Frame f;
        f.name = name;
        f.parent = first == kNone ? -1 : g->frame_[first];
        g->frames_.push_back(std::move(f));
      }
      g->frame_[i] = it->second;
      continue;
    }
    if (Is(node, "Exit")) {
      const int f = first == kNone ? -1 : g->frame_[first];
      if (f < 0) return InvalidArgument(path + ": " + node.Where() + " leaves no while loop frame");
      g->frames_[f].exits.push_back(i);
      g->frame_[i] = g->frames_[f].parent;
      continue;
    }
    int deepest = -1;
    auto consider = [&](size_t p) {
      if (p != kNone && !back_edge(i, p) && depth(g->frame_[p]) > depth(deepest)) deepest = g->frame_[p];
    };
    for (const auto& [p, port] : g->inputs_[i]) consider(p);
    for (size_t p : g->control_[i]) consider(p);
    g->frame_[i] = deepest;
  }

  // Loop variables: Merge(Enter, NextIteration); the loop's Switches read them and the LoopCond.
  g->loop_merge_.assign(n, false);
  g->loop_switch_.assign(n, false);
  g->cond_switch_.assign(n, false);
  g->pred_id_.assign(n, -1);
  for (size_t i : order) {
    const TfNode& node = nodes[i];
    if (Is(node, "Merge")) {
      Var v;
      bool has_next = false, has_enter = false;
      for (const auto& [p, port] : g->inputs_[i]) {
        if (p == kNone) continue;
        if (Is(nodes[p], "NextIteration")) v.next = p, has_next = true;
        if (Is(nodes[p], "Enter")) v.enter = p, has_enter = true;
      }
      if (!has_next) continue;
      const int f = g->frame_[i];
      if (!has_enter || f < 0 || g->inputs_[i].size() != 2) {
        return InvalidArgument(path + ": " + node.Where() +
                               " joins a NextIteration with something other than one Enter of its loop");
      }
      v.merge = i;
      g->loop_merge_[i] = true;
      g->var_of_merge_[i] = {static_cast<size_t>(f), g->frames_[f].vars.size()};
      g->frames_[f].vars.push_back(v);
    } else if (node.op == "LoopCond") {
      const int f = g->frame_[i];
      if (f < 0) return InvalidArgument(path + ": " + node.Where() + " is in no while loop frame");
      if (g->frames_[f].loop_cond >= 0) {
        return InvalidArgument(path + ": while loop frame '" + g->frames_[f].name + "' has two LoopCond nodes");
      }
      g->frames_[f].loop_cond = static_cast<long>(i);
    }
  }
  std::map<std::string, int> pred_ids;
  for (size_t i : order) {
    const TfNode& node = nodes[i];
    if (!Is(node, "Switch") || g->inputs_[i].size() != 2) continue;
    const auto [data, data_port] = g->inputs_[i][0];
    const auto [pred, pred_port] = g->inputs_[i][1];
    if (pred != kNone && nodes[pred].op == "LoopCond") {
      g->loop_switch_[i] = true;
      auto var = data == kNone ? g->var_of_merge_.end() : g->var_of_merge_.find(data);
      if (var == g->var_of_merge_.end() || data_port != 0) {
        return InvalidArgument(path + ": " + node.Where() + " switches a tensor that is not a loop variable (Merge)");
      }
      g->frames_[var->second.first].vars[var->second.second].sw = static_cast<long>(i);
      continue;
    }
    g->cond_switch_[i] = true;
    // tf.cond switches its data on Identity(pred) and its pivots on pred itself: one predicate, through Identities.
    size_t root = pred;
    int root_port = pred_port;
    for (int hops = 0; hops < 64 && root != kNone && nodes[root].op == "Identity" && root_port == 0 &&
                       g->inputs_[root].size() == 1 && g->inputs_[root][0].first != kNone;
         ++hops) {
      std::tie(root, root_port) = g->inputs_[root][0];
    }
    const std::string key =
        TensorKey(root == kNone ? SplitTensorName(node.inputs[1]).first : nodes[root].name, root_port);
    auto [it, fresh] = pred_ids.emplace(key, static_cast<int>(g->preds_.size()));
    if (fresh) g->preds_.push_back(key);
    g->pred_id_[i] = it->second;
  }

  // Guards, in dependency order: a conditional's Merge keeps what its inputs share, a loop's Merge its Enter's
  // guard, any other node the union of its inputs' (control inputs included: they carry deadness too).
  g->guard_.assign(n, {});
  for (size_t i : order) {
    const TfNode& node = nodes[i];
    Guard out;
    if (g->loop_merge_[i]) {
      const auto [f, k] = g->var_of_merge_.at(i);
      out = g->guard_[g->frames_[f].vars[k].enter];
    } else if (Is(node, "Merge")) {
      bool first = true;
      for (const auto& [p, port] : g->inputs_[i]) {
        if (p == kNone) continue;
        Guard in = g->GuardOf(p, port);
        if (first) {
          out = std::move(in);
          first = false;
        } else {
          Guard both;
          std::set_intersection(out.begin(), out.end(), in.begin(), in.end(), std::back_inserter(both));
          out = std::move(both);
        }
      }
    } else {
      std::set<std::pair<int, int>> all;
      for (const auto& [p, port] : g->inputs_[i]) {
        if (p == kNone || back_edge(i, p)) continue;
        for (const auto& item : g->GuardOf(p, port)) all.insert(item);
      }
      for (size_t p : g->control_[i]) {
        for (const auto& item : g->guard_[p]) all.insert(item);
      }
      out.assign(all.begin(), all.end());
    }
    g->guard_[i] = std::move(out);
  }

  // What each frame reads from outside: the inputs of its nodes (and of the frames inside it) made outside it.
  std::vector<std::set<std::string>> frame_deps(g->frames_.size());
  for (size_t i = 0; i < n; ++i) {
    if (g->frame_[i] < 0) continue;
    for (size_t k = 0; k < g->inputs_[i].size(); ++k) {
      const auto [p, port] = g->inputs_[i][k];
      if (p == kNone) continue;
      for (int f = g->frame_[i]; f >= 0; f = g->frames_[f].parent) {
        if (!g->Within(g->frame_[p], f)) frame_deps[f].insert(TensorKey(nodes[p].name, port));
      }
    }
  }
  for (size_t f = 0; f < g->frames_.size(); ++f) g->frames_[f].deps.assign(frame_deps[f].begin(), frame_deps[f].end());

  for (size_t i = 0; i < n; ++i) {
    if (Is(nodes[i], "Merge") && !g->loop_merge_[i]) g->FindCond(i);
  }
  return g;
}

Tf1Graph::Guard Tf1Graph::GuardOf(size_t node, int port) const {
  Guard g = guard_[node];
  if (cond_switch_[node] && (port == 0 || port == 1)) {
    const std::pair<int, int> item{pred_id_[node], port};
    g.insert(std::lower_bound(g.begin(), g.end(), item), item);
  }
  return g;
}

bool Tf1Graph::Within(int frame, int ancestor) const {
  for (int f = frame; f >= 0; f = frames_[f].parent) {
    if (f == ancestor) return true;
  }
  return ancestor < 0;
}

std::string Tf1Graph::FrameWhere(size_t f) const { return "while loop frame '" + frames_[f].name + "'"; }

// A conditional's Merge: its two inputs' guards differ in one predicate, taken one way and the other. An input
// computed whatever the predicate (a constant without the control input that puts it in its branch) stands for
// the other branch.
void Tf1Graph::FindCond(size_t merge) {
  const std::vector<TfNode>& nodes = *nodes_;
  Cond c;
  const TfNode& m = nodes[merge];
  const auto& ins = inputs_[merge];
  if (ins.size() != 2 || ins[0].first == kNone || ins[1].first == kNone) {
    c.error = m.Where() + ": a conditional's Merge joins two branches; this one has " + std::to_string(ins.size()) +
              " inputs";
    conds_[merge] = std::move(c);
    return;
  }
  const Guard& common = guard_[merge];
  Guard diff[2];
  for (int k = 0; k < 2; ++k) {
    Guard in = GuardOf(ins[k].first, ins[k].second);
    std::set_difference(in.begin(), in.end(), common.begin(), common.end(), std::back_inserter(diff[k]));
  }
  int pred = -1, side0 = -1;
  if (diff[0].size() == 1 && diff[1].size() == 1 && diff[0][0].first == diff[1][0].first &&
      diff[0][0].second != diff[1][0].second) {
    pred = diff[0][0].first, side0 = diff[0][0].second;
  } else if (diff[0].size() == 1 && diff[1].empty()) {
    pred = diff[0][0].first, side0 = diff[0][0].second;
  } else if (diff[0].empty() && diff[1].size() == 1) {
    pred = diff[1][0].first, side0 = 1 - diff[1][0].second;
  }
  if (pred < 0) {
    c.error = m.Where() + ": its inputs are not the two branches of one Switch predicate (a tf.cond)";
    conds_[merge] = std::move(c);
    return;
  }
  c.pred = preds_[pred];
  c.true_input = side0 == 1 ? 0 : 1;
  std::set<std::string> deps = {c.pred};
  std::set<size_t> seen;
  for (int k = 0; k < 2; ++k) {
    const int side = k == 0 ? side0 : 1 - side0;
    c.branch[side] = TensorKey(nodes[ins[k].first].name, ins[k].second);
    // Backwards from the branch's result through what only that branch computes.
    std::vector<std::pair<size_t, int>> stack = {ins[k]};
    while (!stack.empty()) {
      auto [p, port] = stack.back();
      stack.pop_back();
      if (p == kNone) continue;
      if (!Contains(GuardOf(p, port), {pred, side})) {
        deps.insert(TensorKey(nodes[p].name, port));
        continue;
      }
      if (!seen.insert(p).second) continue;
      for (const auto& in : inputs_[p]) stack.push_back(in);
    }
  }
  c.deps.assign(deps.begin(), deps.end());
  conds_[merge] = std::move(c);
}

Result<Tf1Graph::Unit> Tf1Graph::UnitOf(size_t i, int scope) const {
  const TfNode& node = (*nodes_)[i];
  if (Is(node, "Exit")) {
    const size_t p = inputs_[i].empty() ? kNone : inputs_[i][0].first;
    const int f = p == kNone ? -1 : frame_[p];
    if (f < 0 || frames_[f].parent != scope) {
      return InvalidArgument(path_ + ": " + node.Where() + " is read outside the frame around its loop");
    }
    return Unit{Kind::kFrame, static_cast<size_t>(f)};
  }
  if (Is(node, "Merge")) {
    if (loop_merge_[i]) {
      return InvalidArgument(path_ + ": " + node.Where() + ", a loop variable of " + FrameWhere(frame_[i]) +
                             ", is read outside its loop");
    }
    return Unit{Kind::kCond, i};
  }
  if (Is(node, "NextIteration")) {
    return InvalidArgument(path_ + ": " + node.Where() + " is read by something other than its loop's Merge");
  }
  if (!Within(scope, frame_[i])) {
    return InvalidArgument(path_ + ": " + node.Where() + " of " + FrameWhere(frame_[i]) +
                           " is read outside the loop without an Exit");
  }
  return Unit{Kind::kNode, i};
}

Result<std::vector<std::string>> Tf1Graph::Deps(const Unit& u) const {
  if (u.kind == Kind::kFrame) return frames_[u.id].deps;
  if (u.kind == Kind::kCond) {
    const Cond& c = conds_.at(u.id);
    if (!c.error.empty()) return Unsupported(path_ + ": " + c.error);
    return c.deps;
  }
  return Internal("Tf1Graph::Deps of a node");
}

Status Tf1Graph::ConvertFrame(const Walk& w, GraphBuilder& b, size_t f, std::map<std::string, TfValue>& values) const {
  const std::vector<TfNode>& nodes = *nodes_;
  const Frame& frame = frames_[f];
  ConvertEnv& env = w.env;
  const std::string where = path_ + ": " + FrameWhere(f);
  if (frame.loop_cond < 0) return InvalidArgument(where + " has no LoopCond");
  if (w.functions == nullptr) return Internal(where + ": no function library at hand");
  const TfNode& loop_cond = nodes[frame.loop_cond];
  if (loop_cond.inputs.size() != 1) return InvalidArgument(path_ + ": " + loop_cond.Where() + " needs one input");
  const std::string cond_tensor =
      TensorKey(SplitTensorName(loop_cond.inputs[0]).first, SplitTensorName(loop_cond.inputs[0]).second);
  const size_t count = frame.vars.size();

  std::vector<TfValue> init(count);
  std::vector<std::string> result(count);
  std::vector<bool> invariant(count, false);
  for (size_t k = 0; k < count; ++k) {
    const Var& v = frame.vars[k];
    const TfNode& enter = nodes[v.enter];
    if (enter.inputs.empty()) return InvalidArgument(path_ + ": " + enter.Where() + " has no input");
    auto [producer, port] = SplitTensorName(enter.inputs[0]);
    auto it = values.find(TensorKey(producer, port));
    if (it == values.end()) return Internal(where + ": the value entering " + enter.Where() + " is not converted");
    init[k] = it->second;
    const TfNode& next = nodes[v.next];
    if (next.inputs.size() != 1) return InvalidArgument(path_ + ": " + next.Where() + " needs one input");
    auto [rp, rport] = SplitTensorName(next.inputs[0]);
    result[k] = TensorKey(rp, rport);
    // A variable the body passes on unchanged (through Identity nodes) is read from the outer scope: constants stay
    // constants in the body.
    std::string t = result[k];
    for (int hops = 0; hops < 64; ++hops) {
      if (t == TensorKey(nodes[v.merge].name, 0) || (v.sw >= 0 && t == TensorKey(nodes[v.sw].name, 1))) {
        invariant[k] = true;
        break;
      }
      auto [producer2, port2] = SplitTensorName(t);
      auto p = w.index.find(producer2);
      if (p == w.index.end() || nodes[p->second].op != "Identity" || port2 != 0 || nodes[p->second].inputs.empty()) {
        break;
      }
      auto [q, qport] = SplitTensorName(nodes[p->second].inputs[0]);
      t = TensorKey(q, qport);
    }
  }
  // The loop variables as the condition and the body see them.
  auto bind = [&](std::map<std::string, TfValue>& vals, const std::vector<TfValue>& vars) {
    for (size_t k = 0; k < count; ++k) {
      const Var& v = frame.vars[k];
      vals[TensorKey(nodes[v.merge].name, 0)] = vars[k];
      if (v.sw >= 0) vals[TensorKey(nodes[v.sw].name, 1)] = vars[k];
    }
  };
  const std::string name = frame.name;

  // The condition on the initial values decides the first iteration.
  std::map<std::string, TfValue> first = values;
  bind(first, init);
  ONYX_RETURN_IF_ERROR(WalkNodes(w, b, static_cast<int>(f), {cond_tensor}, first));
  ONYX_ASSIGN_OR_RETURN(TfValue cond_value, Lookup(first, cond_tensor, path_));
  const TfValue cond_init = AsBool(b, cond_value, name + "/cond_init");

  std::vector<size_t> carried;
  for (size_t k = 0; k < count; ++k) {
    if (!invariant[k]) carried.push_back(k);
  }
  ONYX_ASSIGN_OR_RETURN(
      std::shared_ptr<ir::Graph> body, w.functions->Subgraph(name + "/body", [&](GraphBuilder& sb) -> Status {
        sb.Input(name + "/iteration", ir::TypeInfo::Tensor(DataType::kInt64, std::vector<ir::Dim>{}));
        sb.Input(name + "/cond_in", ir::TypeInfo::Tensor(DataType::kBool, std::vector<ir::Dim>{}));
        std::vector<TfValue> vars = init;
        for (size_t k : carried) {
          const TfNode& merge = nodes[frame.vars[k].merge];
          vars[k] = {sb.Input(merge.name, TypeOf(env, init[k])), init[k].type, nullptr};
          if (env.sequences.count(init[k].name)) env.sequences.insert(vars[k].name);
        }
        std::map<std::string, TfValue> in_body = values;
        bind(in_body, vars);
        std::vector<std::string> wanted;
        for (size_t k : carried) wanted.push_back(result[k]);
        ONYX_RETURN_IF_ERROR(WalkNodes(w, sb, static_cast<int>(f), wanted, in_body));
        std::vector<TfValue> next = init;
        for (size_t k : carried) {
          ONYX_ASSIGN_OR_RETURN(next[k], Lookup(in_body, result[k], path_));
          if (next[k].type != init[k].type || env.sequences.count(next[k].name) != env.sequences.count(init[k].name)) {
            return InvalidArgument(where + ": loop variable '" + nodes[frame.vars[k].merge].name +
                                   "' changes type in the body");
          }
        }
        std::map<std::string, TfValue> again = values;
        bind(again, next);
        ONYX_RETURN_IF_ERROR(WalkNodes(w, sb, static_cast<int>(f), {cond_tensor}, again));
        ONYX_ASSIGN_OR_RETURN(TfValue cond_next, Lookup(again, cond_tensor, path_));
        AddGraphOutput(env, sb, AsBool(sb, cond_next, name + "/cond_next"), name + "/cond_out");
        for (size_t k : carried) AddGraphOutput(env, sb, next[k], nodes[frame.vars[k].merge].name + "/next");
        return Status::Ok();
      }));
  std::vector<TfValue> final_values = init;
  if (!carried.empty()) {
    std::vector<std::string> loop_ins = {"", cond_init.name};
    for (size_t k : carried) loop_ins.push_back(init[k].name);
    std::vector<std::string> outs =
        b.Op("Loop", loop_ins, name, {GraphAttr("body", body)}, static_cast<int>(carried.size()));
    for (size_t j = 0; j < carried.size(); ++j) {
      const size_t k = carried[j];
      final_values[k] = {outs[j], init[k].type, nullptr};
      if (env.sequences.count(init[k].name)) env.sequences.insert(outs[j]);
    }
  }
  // Exit(Switch:0) gives the variable's last value.
  for (size_t e : frame.exits) {
    const auto [p, port] = inputs_[e].empty() ? std::pair<size_t, int>{kNone, 0} : inputs_[e][0];
    bool found = false;
    for (size_t k = 0; k < count && !found; ++k) {
      if (p != kNone && static_cast<long>(p) == frame.vars[k].sw && port == 0) {
        values[TensorKey(nodes[e].name, 0)] = final_values[k];
        found = true;
      }
    }
    if (!found) {
      return InvalidArgument(path_ + ": " + nodes[e].Where() + " reads something other than a loop variable's Switch");
    }
  }
  return Status::Ok();
}

Status Tf1Graph::ConvertCond(const Walk& w, GraphBuilder& b, size_t merge, int scope,
                             std::map<std::string, TfValue>& values) const {
  const std::vector<TfNode>& nodes = *nodes_;
  const TfNode& m = nodes[merge];
  const Cond& c = conds_.at(merge);
  if (!c.error.empty()) return Unsupported(path_ + ": " + c.error);
  ConvertEnv& env = w.env;
  auto pred_it = values.find(c.pred);
  if (pred_it == values.end()) return Internal(path_ + ": " + m.Where() + ": the predicate is not converted");
  const TfValue pred = pred_it->second;
  // Merge's second output: which input was taken.
  auto set_index = [&](const std::string& value) { values[TensorKey(m.name, 1)] = {value, DataType::kInt32, nullptr}; };
  if (pred.constant != nullptr && pred.constant->size() == 1) {
    const int side = pred.constant->DoubleAt(0) != 0 ? 1 : 0;
    ONYX_RETURN_IF_ERROR(WalkNodes(w, b, scope, {c.branch[side]}, values));
    ONYX_ASSIGN_OR_RETURN(values[TensorKey(m.name, 0)], Lookup(values, c.branch[side], path_));
    set_index(
        b.Constant(m.name + "/value_index", Tensor::Scalar<int32_t>(side == 1 ? c.true_input : 1 - c.true_input)));
    return Status::Ok();
  }
  if (w.functions == nullptr) return Internal(path_ + ": " + m.Where() + ": no function library at hand");
  TfValue results[2];
  std::shared_ptr<ir::Graph> graphs[2];
  for (int side : {1, 0}) {
    const char* which = side == 1 ? "then" : "else";
    ONYX_ASSIGN_OR_RETURN(graphs[side], w.functions->Subgraph(m.name + "/" + which, [&](GraphBuilder& sb) -> Status {
      std::map<std::string, TfValue> in_branch = values;
      ONYX_RETURN_IF_ERROR(WalkNodes(w, sb, scope, {c.branch[side]}, in_branch));
      ONYX_ASSIGN_OR_RETURN(results[side], Lookup(in_branch, c.branch[side], path_));
      AddGraphOutput(env, sb, results[side], m.name + "/" + which + "_out");
      return Status::Ok();
    }));
  }
  const bool seq0 = env.sequences.count(results[0].name) > 0, seq1 = env.sequences.count(results[1].name) > 0;
  if (results[0].type != results[1].type || seq0 != seq1) {
    return InvalidArgument(path_ + ": " + m.Where() + ": the branches give values of different types (" +
                           std::string(DataTypeName(results[1].type)) + " and " +
                           std::string(DataTypeName(results[0].type)) + ")");
  }
  const TfValue cond = AsBool(b, pred, m.name + "/pred");
  const std::string out =
      b.Op1("If", {cond.name}, m.name, {GraphAttr("then_branch", graphs[1]), GraphAttr("else_branch", graphs[0])});
  values[TensorKey(m.name, 0)] = {out, results[1].type, nullptr};
  if (seq1) env.sequences.insert(out);
  // value_index (the true branch's input position when the predicate holds), when something reads it.
  const std::string index_tensor = TensorKey(m.name, 1);
  const bool index_read = std::any_of(nodes.begin(), nodes.end(), [&](const TfNode& n) {
    return std::find(n.inputs.begin(), n.inputs.end(), index_tensor) != n.inputs.end();
  });
  if (!index_read) return Status::Ok();
  const std::string as_int =
      b.Op1("Cast", {cond.name}, m.name + "/taken", {ir::IntAttr("to", static_cast<int64_t>(DataType::kInt32))});
  if (c.true_input == 1) {
    set_index(as_int);
  } else {
    set_index(b.Op1("Sub", {b.Constant(m.name + "/one", Tensor::Scalar<int32_t>(1)), as_int}, m.name + "/index"));
  }
  return Status::Ok();
}

}  // namespace onyx::convert::tf

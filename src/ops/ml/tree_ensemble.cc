// TreeEnsembleRegressor and TreeEnsembleClassifier (1, 3; deprecated at 5 but still run) and TreeEnsemble (5).
// All three are turned at session creation into one evaluable form (Forest): nodes addressed by index, each
// branch holding its comparison, feature, threshold, missing-value track and child indices, each leaf a range of
// (target, weight) votes. The old encoding names nodes by (tree id, node id) and attaches votes to leaves through
// parallel target_*/class_* lists; TreeEnsemble 5 keeps interior nodes and leaves in separate arrays.
//
// Semantics where the definitions leave room, following onnxruntime (which converters such as skl2onnx and
// onnxmltools are validated against) unless noted:
//   - a branch goes to its true child when its comparison holds, or when the feature is NaN and its
//     missing_value_tracks_true flag is set; otherwise NaN compares as IEEE says (false, but true for NEQ);
//   - a branch whose two children are the same node is not evaluated (TreeEnsemble 5 encodes a one-leaf tree so);
//   - the root of an old-encoding tree is its first node (in attribute order) that no branch points to; trees
//     run in increasing tree id;
//   - AVERAGE divides by the number of trees; MIN and MAX leave a target that no reached leaf votes for at 0 (the
//     ONNX reference leaves the float extremes there);
//   - base_values (1 value broadcast, or one per target/class) are added after aggregation, before post_transform;
//   - post_transform is applied to each row of scores, for every number of targets (onnxruntime applies only
//     PROBIT to a single target; the reference of TreeEnsemble 5 applies none);
//   - classifier with two classes whose votes all go to one class id (boosted binary models): the scores are
//     [1 - s, s] and the label is class 1 when s > 0.5 if all weights are non-negative and the transform is NONE
//     or PROBIT, otherwise the scores are [-s, s] (then transformed) and the label is class 1 when s > 0 (where
//     onnxruntime and the reference disagree, this takes the reference's transformed scores); any other
//     classifier labels by the largest raw score (first on ties).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ops/ml/ml_common.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::ml {
namespace {

enum class NodeMode : uint8_t { kLeq = 0, kLt = 1, kGte = 2, kGt = 3, kEq = 4, kNeq = 5, kMember = 6, kLeaf = 7 };
enum class Aggregate { kAverage = 0, kSum = 1, kMin = 2, kMax = 3 };

struct TreeNode {
  NodeMode mode = NodeMode::kLeaf;
  bool missing_tracks_true = false;
  int64_t feature = 0;
  double threshold = 0;
  int64_t true_child = -1;
  int64_t false_child = -1;
  size_t members_begin = 0, members_end = 0;  // a sorted set in Forest::members (BRANCH_MEMBER)
  size_t weights_begin = 0, weights_end = 0;  // votes in Forest::weights (leaves)
};

struct LeafVote {
  int64_t target;
  double weight;
};

struct Forest {
  std::vector<TreeNode> nodes;
  std::vector<LeafVote> weights;
  std::vector<double> members;
  std::vector<int64_t> roots;
  int64_t max_feature = -1;  // the largest feature index a branch reads

  bool Branch(const TreeNode& n, double v) const {
    if (std::isnan(v)) {
      if (n.missing_tracks_true) return true;
      return n.mode == NodeMode::kNeq;
    }
    switch (n.mode) {
      case NodeMode::kLeq: return v <= n.threshold;
      case NodeMode::kLt: return v < n.threshold;
      case NodeMode::kGte: return v >= n.threshold;
      case NodeMode::kGt: return v > n.threshold;
      case NodeMode::kEq: return v == n.threshold;
      case NodeMode::kNeq: return v != n.threshold;
      case NodeMode::kMember:
        return std::binary_search(members.begin() + static_cast<std::ptrdiff_t>(n.members_begin),
                                  members.begin() + static_cast<std::ptrdiff_t>(n.members_end), v);
      case NodeMode::kLeaf: break;
    }
    return false;
  }

  // The leaf `x` reaches from `root`; CheckAcyclic has made sure the walk ends.
  const TreeNode& Leaf(int64_t root, const double* x) const {
    const TreeNode* n = &nodes[static_cast<size_t>(root)];
    while (n->mode != NodeMode::kLeaf) {
      const int64_t next =
          n->true_child == n->false_child || Branch(*n, x[n->feature]) ? n->true_child : n->false_child;
      n = &nodes[static_cast<size_t>(next)];
    }
    return *n;
  }

  // Aggregates the votes of every tree for row `x` into scores[0..num_targets).
  void Accumulate(const double* x, Aggregate agg, double* scores, int64_t num_targets) const {
    std::vector<char> has(static_cast<size_t>(num_targets), 0);
    std::fill(scores, scores + num_targets, 0.0);
    for (int64_t root : roots) {
      const TreeNode& leaf = Leaf(root, x);
      for (size_t k = leaf.weights_begin; k < leaf.weights_end; ++k) {
        const LeafVote& v = weights[k];
        double& s = scores[v.target];
        char& h = has[static_cast<size_t>(v.target)];
        switch (agg) {
          case Aggregate::kSum:
          case Aggregate::kAverage: s += v.weight; break;
          case Aggregate::kMin: s = h ? std::min(s, v.weight) : v.weight; break;
          case Aggregate::kMax: s = h ? std::max(s, v.weight) : v.weight; break;
        }
        h = 1;
      }
    }
    if (agg == Aggregate::kAverage && !roots.empty()) {
      for (int64_t t = 0; t < num_targets; ++t) scores[t] /= static_cast<double>(roots.size());
    }
  }
};

// Rejects trees whose child links loop (a walk would never reach a leaf).
Status CheckAcyclic(const KernelInfo& info, const Forest& f) {
  std::vector<uint8_t> state(f.nodes.size(), 0);  // 0 unseen, 1 on the current path, 2 done
  std::vector<std::pair<int64_t, int>> stack;       // node, which child to visit next
  for (int64_t root : f.roots) {
    if (state[static_cast<size_t>(root)] != 0) continue;
    state[static_cast<size_t>(root)] = 1;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      const int64_t i = stack.back().first;
      const int k = stack.back().second;
      const TreeNode& n = f.nodes[static_cast<size_t>(i)];
      if (n.mode == NodeMode::kLeaf || k == 2) {
        state[static_cast<size_t>(i)] = 2;
        stack.pop_back();
        continue;
      }
      ++stack.back().second;
      const int64_t c = k == 0 ? n.true_child : n.false_child;
      if (state[static_cast<size_t>(c)] == 1) {
        return info.Error("the tree rooted at node index " + std::to_string(root) + " has a cycle through node index " +
                          std::to_string(c));
      }
      if (state[static_cast<size_t>(c)] == 0) {
        state[static_cast<size_t>(c)] = 1;
        stack.emplace_back(c, 0);
      }
    }
  }
  return Status::Ok();
}

Result<NodeMode> ParseNodeMode(const KernelInfo& info, const std::string& s) {
  if (s == "BRANCH_LEQ") return NodeMode::kLeq;
  if (s == "BRANCH_LT") return NodeMode::kLt;
  if (s == "BRANCH_GTE") return NodeMode::kGte;
  if (s == "BRANCH_GT") return NodeMode::kGt;
  if (s == "BRANCH_EQ") return NodeMode::kEq;
  if (s == "BRANCH_NEQ") return NodeMode::kNeq;
  if (s == "LEAF") return NodeMode::kLeaf;
  return info.Error("attribute 'nodes_modes' holds '" + s +
                    "', expected BRANCH_LEQ, BRANCH_LT, BRANCH_GTE, BRANCH_GT, BRANCH_EQ, BRANCH_NEQ or LEAF");
}

Result<Aggregate> ParseAggregate(const KernelInfo& info) {
  const std::string s = info.GetString("aggregate_function", "SUM");
  if (s == "SUM") return Aggregate::kSum;
  if (s == "AVERAGE") return Aggregate::kAverage;
  if (s == "MIN") return Aggregate::kMin;
  if (s == "MAX") return Aggregate::kMax;
  return info.Error("attribute 'aggregate_function' is '" + s + "', expected SUM, AVERAGE, MIN or MAX");
}

Status CheckLength(const KernelInfo& info, const std::string& name, size_t size, size_t expected,
                   const std::string& like, bool may_be_empty = false) {
  if (size == expected || (may_be_empty && size == 0)) return Status::Ok();
  return info.Error("attribute '" + name + "' has " + std::to_string(size) + " values, expected " +
                    std::to_string(expected) + " (as many as '" + like + "')");
}

// The (tree id, node id) encoding of TreeEnsembleRegressor / TreeEnsembleClassifier; `prefix` is "target" or
// "class" (the votes' attributes), `num_targets` bounds the vote ids.
Result<Forest> BuildFromNodeIds(const KernelInfo& info, const std::string& prefix, int64_t num_targets) {
  const auto tree_ids = info.GetInts("nodes_treeids");
  const auto node_ids = info.GetInts("nodes_nodeids");
  const auto feature_ids = info.GetInts("nodes_featureids");
  const auto mode_names = info.GetStrings("nodes_modes");
  const auto true_ids = info.GetInts("nodes_truenodeids");
  const auto false_ids = info.GetInts("nodes_falsenodeids");
  const auto missing = info.GetInts("nodes_missing_value_tracks_true");
  ONYX_ASSIGN_OR_RETURN(auto thresholds, GetFloatsOrTensor(info, "nodes_values", "nodes_values_as_tensor"));
  const size_t k = tree_ids.size();
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_nodeids", node_ids.size(), k, "nodes_treeids"));
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_modes", mode_names.size(), k, "nodes_treeids"));
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_featureids", feature_ids.size(), k, "nodes_treeids"));
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_truenodeids", true_ids.size(), k, "nodes_treeids"));
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_falsenodeids", false_ids.size(), k, "nodes_treeids"));
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_missing_value_tracks_true", missing.size(), k, "nodes_treeids", true));
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_values", thresholds.size(), k, "nodes_treeids", true));

  Forest f;
  f.nodes.resize(k);
  std::map<std::pair<int64_t, int64_t>, int64_t> index;
  std::map<int64_t, int64_t> first_of_tree;
  for (size_t i = 0; i < k; ++i) {
    if (!index.emplace(std::make_pair(tree_ids[i], node_ids[i]), static_cast<int64_t>(i)).second) {
      return info.Error("node id " + std::to_string(node_ids[i]) + " appears twice in tree " +
                        std::to_string(tree_ids[i]));
    }
    first_of_tree.emplace(tree_ids[i], static_cast<int64_t>(i));
  }
  for (size_t i = 0; i < k; ++i) {
    TreeNode& n = f.nodes[i];
    ONYX_ASSIGN_OR_RETURN(n.mode, ParseNodeMode(info, mode_names[i]));
    if (n.mode == NodeMode::kLeaf) continue;
    n.missing_tracks_true = !missing.empty() && missing[i] != 0;
    n.threshold = thresholds.empty() ? 0.0 : thresholds[i];
    n.feature = feature_ids[i];
    if (n.feature < 0) {
      return info.Error("node " + std::to_string(node_ids[i]) + " of tree " + std::to_string(tree_ids[i]) +
                        " reads feature " + std::to_string(n.feature));
    }
    f.max_feature = std::max(f.max_feature, n.feature);
    for (int side = 0; side < 2; ++side) {
      const int64_t child = side == 0 ? true_ids[i] : false_ids[i];
      auto it = index.find({tree_ids[i], child});
      if (it == index.end()) {
        return info.Error("node " + std::to_string(node_ids[i]) + " of tree " + std::to_string(tree_ids[i]) +
                          " has " + (side == 0 ? "true" : "false") + " child " + std::to_string(child) +
                          ", which is not a node of that tree");
      }
      (side == 0 ? n.true_child : n.false_child) = it->second;
    }
  }
  // A tree's root is its first node (in attribute order) that no branch points to; trees run by increasing id.
  std::vector<char> is_child(k, 0);
  for (const TreeNode& n : f.nodes) {
    if (n.mode == NodeMode::kLeaf) continue;
    is_child[static_cast<size_t>(n.true_child)] = 1;
    is_child[static_cast<size_t>(n.false_child)] = 1;
  }
  std::map<int64_t, int64_t> root_of_tree;
  for (size_t i = 0; i < k; ++i) {
    if (!is_child[i]) root_of_tree.emplace(tree_ids[i], static_cast<int64_t>(i));
  }
  for (const auto& [tree, first] : first_of_tree) {
    auto it = root_of_tree.find(tree);
    f.roots.push_back(it != root_of_tree.end() ? it->second : first);
  }

  const auto vote_trees = info.GetInts(prefix + "_treeids");
  const auto vote_nodes = info.GetInts(prefix + "_nodeids");
  const auto vote_ids = info.GetInts(prefix + "_ids");
  ONYX_ASSIGN_OR_RETURN(auto vote_weights, GetFloatsOrTensor(info, prefix + "_weights", prefix + "_weights_as_tensor"));
  const size_t m = vote_ids.size();
  const std::string ids_name = prefix + "_ids";
  ONYX_RETURN_IF_ERROR(CheckLength(info, prefix + "_treeids", vote_trees.size(), m, ids_name));
  ONYX_RETURN_IF_ERROR(CheckLength(info, prefix + "_nodeids", vote_nodes.size(), m, ids_name));
  ONYX_RETURN_IF_ERROR(CheckLength(info, prefix + "_weights", vote_weights.size(), m, ids_name));
  std::vector<std::vector<LeafVote>> votes(k);
  for (size_t j = 0; j < m; ++j) {
    auto it = index.find({vote_trees[j], vote_nodes[j]});
    if (it == index.end()) {
      return info.Error(prefix + " vote " + std::to_string(j) + " is for node " + std::to_string(vote_nodes[j]) +
                        " of tree " + std::to_string(vote_trees[j]) + ", which does not exist");
    }
    if (f.nodes[static_cast<size_t>(it->second)].mode != NodeMode::kLeaf) {
      return info.Error(prefix + " vote " + std::to_string(j) + " is for node " + std::to_string(vote_nodes[j]) +
                        " of tree " + std::to_string(vote_trees[j]) + ", which is not a LEAF");
    }
    if (vote_ids[j] < 0 || vote_ids[j] >= num_targets) {
      return info.Error("attribute '" + ids_name + "' holds " + std::to_string(vote_ids[j]) + ", outside [0, " +
                        std::to_string(num_targets) + ")");
    }
    votes[static_cast<size_t>(it->second)].push_back({vote_ids[j], vote_weights[j]});
  }
  for (size_t i = 0; i < k; ++i) {
    f.nodes[i].weights_begin = f.weights.size();
    f.weights.insert(f.weights.end(), votes[i].begin(), votes[i].end());
    f.nodes[i].weights_end = f.weights.size();
  }
  ONYX_RETURN_IF_ERROR(CheckAcyclic(info, f));
  return f;
}

// TreeEnsemble 5: interior nodes 0..K-1 from nodes_*, leaves K..K+L-1 from leaf_*.
Result<Forest> BuildFromNodesAndLeaves(const KernelInfo& info, int64_t num_targets) {
  const auto feature_ids = info.GetInts("nodes_featureids");
  const auto true_ids = info.GetInts("nodes_truenodeids");
  const auto false_ids = info.GetInts("nodes_falsenodeids");
  const auto true_leafs = info.GetInts("nodes_trueleafs");
  const auto false_leafs = info.GetInts("nodes_falseleafs");
  const auto missing = info.GetInts("nodes_missing_value_tracks_true");
  const auto leaf_targets = info.GetInts("leaf_targetids");
  const auto roots = info.GetInts("tree_roots");
  const Tensor* splits = info.GetTensor("nodes_splits");
  const Tensor* modes = info.GetTensor("nodes_modes");
  const Tensor* leaf_weights = info.GetTensor("leaf_weights");
  const Tensor* membership = info.GetTensor("membership_values");
  if (splits == nullptr) return info.Error("required tensor attribute 'nodes_splits' is missing");
  if (modes == nullptr) return info.Error("required tensor attribute 'nodes_modes' is missing");
  if (leaf_weights == nullptr) return info.Error("required tensor attribute 'leaf_weights' is missing");
  for (const Tensor* t : {splits, leaf_weights, membership}) {
    if (t != nullptr && !IsFloatingPoint(t->type())) {
      return info.Error("tensor attributes 'nodes_splits', 'leaf_weights' and 'membership_values' must hold floating "
                        "point values, got " + std::string(DataTypeName(t->type())));
    }
  }
  if (!IsInteger(modes->type())) {
    return info.Error("attribute 'nodes_modes' has element type " + std::string(DataTypeName(modes->type())) +
                      ", expected uint8");
  }
  const size_t k = feature_ids.size();
  const std::string like = "nodes_featureids";
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_splits", static_cast<size_t>(splits->size()), k, like));
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_modes", static_cast<size_t>(modes->size()), k, like));
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_truenodeids", true_ids.size(), k, like));
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_falsenodeids", false_ids.size(), k, like));
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_trueleafs", true_leafs.size(), k, like));
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_falseleafs", false_leafs.size(), k, like));
  ONYX_RETURN_IF_ERROR(CheckLength(info, "nodes_missing_value_tracks_true", missing.size(), k, like, true));
  const size_t l = leaf_targets.size();
  ONYX_RETURN_IF_ERROR(
      CheckLength(info, "leaf_weights", static_cast<size_t>(leaf_weights->size()), l, "leaf_targetids"));

  // membership_values: one NaN-terminated set per BRANCH_MEMBER node, in node order.
  std::vector<std::vector<double>> sets;
  if (membership != nullptr) {
    std::vector<double> cur;
    bool open = false;
    for (int64_t i = 0; i < membership->size(); ++i) {
      const double v = membership->DoubleAt(i);
      if (std::isnan(v)) {
        sets.push_back(std::move(cur));
        cur.clear();
        open = false;
      } else {
        cur.push_back(v);
        open = true;
      }
    }
    if (open) sets.push_back(std::move(cur));
  }

  Forest f;
  f.nodes.resize(k + l);
  size_t next_set = 0;
  for (size_t i = 0; i < k; ++i) {
    TreeNode& n = f.nodes[i];
    const int64_t mode = modes->IntAt(static_cast<int64_t>(i));
    if (mode < 0 || mode > 6) {
      return info.Error("attribute 'nodes_modes' holds " + std::to_string(mode) + " at node " + std::to_string(i) +
                        ", expected 0 (LEQ), 1 (LT), 2 (GTE), 3 (GT), 4 (EQ), 5 (NEQ) or 6 (MEMBER)");
    }
    n.mode = static_cast<NodeMode>(mode);
    n.threshold = splits->DoubleAt(static_cast<int64_t>(i));
    n.missing_tracks_true = !missing.empty() && missing[i] != 0;
    n.feature = feature_ids[i];
    if (n.mode == NodeMode::kMember) {
      if (next_set >= sets.size()) {
        return info.Error("node " + std::to_string(i) + " is BRANCH_MEMBER but 'membership_values' holds only " +
                          std::to_string(sets.size()) + " NaN-separated sets");
      }
      std::vector<double>& s = sets[next_set++];
      std::sort(s.begin(), s.end());
      n.members_begin = f.members.size();
      f.members.insert(f.members.end(), s.begin(), s.end());
      n.members_end = f.members.size();
    }
    for (int side = 0; side < 2; ++side) {
      const int64_t id = side == 0 ? true_ids[i] : false_ids[i];
      const bool to_leaf = (side == 0 ? true_leafs[i] : false_leafs[i]) != 0;
      const int64_t bound = static_cast<int64_t>(to_leaf ? l : k);
      if (id < 0 || id >= bound) {
        return info.Error(std::string("attribute '") + (side == 0 ? "nodes_truenodeids" : "nodes_falsenodeids") +
                          "' holds " + std::to_string(id) + " at node " + std::to_string(i) + ", outside the " +
                          std::to_string(bound) + (to_leaf ? " leaves" : " nodes"));
      }
      (side == 0 ? n.true_child : n.false_child) = to_leaf ? static_cast<int64_t>(k) + id : id;
    }
    if (n.true_child != n.false_child) {
      if (n.feature < 0) {
        return info.Error("node " + std::to_string(i) + " reads feature " + std::to_string(n.feature));
      }
      f.max_feature = std::max(f.max_feature, n.feature);
    }
  }
  if (next_set != sets.size()) {
    return info.Error("attribute 'membership_values' holds " + std::to_string(sets.size()) + " sets but " +
                      std::to_string(next_set) + " nodes are BRANCH_MEMBER");
  }
  for (size_t j = 0; j < l; ++j) {
    if (leaf_targets[j] < 0 || leaf_targets[j] >= num_targets) {
      return info.Error("attribute 'leaf_targetids' holds " + std::to_string(leaf_targets[j]) + ", outside [0, " +
                        std::to_string(num_targets) + ")");
    }
    TreeNode& n = f.nodes[k + j];
    n.weights_begin = f.weights.size();
    f.weights.push_back({leaf_targets[j], leaf_weights->DoubleAt(static_cast<int64_t>(j))});
    n.weights_end = f.weights.size();
  }
  for (int64_t r : roots) {
    if (r < 0 || r >= static_cast<int64_t>(k)) {
      return info.Error("attribute 'tree_roots' holds " + std::to_string(r) + ", outside the " + std::to_string(k) +
                        " interior nodes");
    }
    f.roots.push_back(r);
  }
  ONYX_RETURN_IF_ERROR(CheckAcyclic(info, f));
  return f;
}

Status CheckFeatures(const FeatureBatch& b, const Forest& f) {
  if (b.f <= f.max_feature) {
    return InvalidArgument("input 'X' (0) has " + std::to_string(b.f) + " features per row, but the trees read feature " +
                           std::to_string(f.max_feature));
  }
  return Status::Ok();
}

Result<std::vector<double>> ReadBaseValues(const KernelInfo& info, int64_t count, const std::string& what) {
  ONYX_ASSIGN_OR_RETURN(auto base, GetFloatsOrTensor(info, "base_values", "base_values_as_tensor"));
  if (base.empty()) return std::vector<double>(static_cast<size_t>(count), 0.0);
  if (base.size() == 1) return std::vector<double>(static_cast<size_t>(count), base[0]);
  if (static_cast<int64_t>(base.size()) != count) {
    return info.Error("attribute 'base_values' has " + std::to_string(base.size()) + " values, expected 1 or " +
                      std::to_string(count) + " (one per " + what + ")");
  }
  return base;
}

// Every row allocates n_targets scores: a hostile count must not turn into a huge allocation.
constexpr int64_t kMaxTargets = int64_t{1} << 24;

Status CheckTargetCount(const KernelInfo& info, int64_t n) {
  if (n < 1 || n > kMaxTargets) {
    return info.Error("attribute 'n_targets' is " + std::to_string(n) + ", expected 1 to " + std::to_string(kMaxTargets));
  }
  return Status::Ok();
}

int64_t LargestId(const std::vector<int64_t>& ids) {
  int64_t m = -1;
  for (int64_t v : ids) m = std::max(m, v);
  return m;
}

class TreeEnsembleRegressorKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    n_targets_ = info.GetInt("n_targets", LargestId(info.GetInts("target_ids")) + 1);
    ONYX_RETURN_IF_ERROR(CheckTargetCount(info, n_targets_));
    ONYX_ASSIGN_OR_RETURN(aggregate_, ParseAggregate(info));
    ONYX_ASSIGN_OR_RETURN(post_, ParsePostTransform(info));
    ONYX_ASSIGN_OR_RETURN(base_, ReadBaseValues(info, n_targets_, "target"));
    ONYX_ASSIGN_OR_RETURN(forest_, BuildFromNodeIds(info, "target", n_targets_));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(FeatureBatch b, ReadFeatureBatch(*x, "input 'X' (0)"));
    ONYX_RETURN_IF_ERROR(CheckFeatures(b, forest_));
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, {b.n, n_targets_});
    std::vector<double> scores(static_cast<size_t>(n_targets_));
    for (int64_t i = 0; i < b.n; ++i) {
      forest_.Accumulate(b.row(i), aggregate_, scores.data(), n_targets_);
      for (int64_t t = 0; t < n_targets_; ++t) scores[static_cast<size_t>(t)] += base_[static_cast<size_t>(t)];
      ApplyPostTransform(post_, scores.data(), n_targets_);
      for (int64_t t = 0; t < n_targets_; ++t) {
        y.data<float>()[i * n_targets_ + t] = static_cast<float>(scores[static_cast<size_t>(t)]);
      }
    }
    return Status::Ok();
  }

 private:
  int64_t n_targets_ = 1;
  Aggregate aggregate_ = Aggregate::kSum;
  PostTransform post_ = PostTransform::kNone;
  std::vector<double> base_;
  Forest forest_;
};

class TreeEnsembleClassifierKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    int_labels_ = info.GetInts("classlabels_int64s");
    string_labels_ = info.GetStrings("classlabels_strings");
    if (int_labels_.empty() == string_labels_.empty()) {
      return info.Error("exactly one of 'classlabels_int64s' and 'classlabels_strings' must be given (and non-empty)");
    }
    n_classes_ = static_cast<int64_t>(int_labels_.empty() ? string_labels_.size() : int_labels_.size());
    ONYX_ASSIGN_OR_RETURN(post_, ParsePostTransform(info));
    ONYX_ASSIGN_OR_RETURN(base_, ReadBaseValues(info, n_classes_, "class"));
    ONYX_ASSIGN_OR_RETURN(forest_, BuildFromNodeIds(info, "class", n_classes_));
    const auto class_ids = info.GetInts("class_ids");
    if (n_classes_ == 2 && !class_ids.empty() &&
        std::all_of(class_ids.begin(), class_ids.end(), [&](int64_t c) { return c == class_ids[0]; })) {
      binary_class_ = class_ids[0];
    }
    weights_all_positive_ =
        std::all_of(forest_.weights.begin(), forest_.weights.end(), [](const LeafVote& v) { return v.weight >= 0; });
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(FeatureBatch b, ReadFeatureBatch(*x, "input 'X' (0)"));
    ONYX_RETURN_IF_ERROR(CheckFeatures(b, forest_));
    const bool strings = !string_labels_.empty();
    Tensor& y = ctx.AllocateOutput(0, strings ? DataType::kString : DataType::kInt64, {b.n});
    Tensor& z = ctx.AllocateOutput(1, DataType::kFloat, {b.n, n_classes_});
    std::vector<double> scores(static_cast<size_t>(n_classes_));
    for (int64_t i = 0; i < b.n; ++i) {
      forest_.Accumulate(b.row(i), Aggregate::kSum, scores.data(), n_classes_);
      for (int64_t c = 0; c < n_classes_; ++c) scores[static_cast<size_t>(c)] += base_[static_cast<size_t>(c)];
      int64_t label = 0;
      if (binary_class_ >= 0) {
        const double s = scores[static_cast<size_t>(binary_class_)];
        if (weights_all_positive_ && (post_ == PostTransform::kNone || post_ == PostTransform::kProbit)) {
          scores = {1.0 - s, s};
          label = s > 0.5 ? 1 : 0;
        } else {
          scores = {-s, s};
          label = s > 0 ? 1 : 0;
        }
      } else {
        label = ArgMax(scores.data(), n_classes_);
      }
      ApplyPostTransform(post_, scores.data(), n_classes_);
      for (int64_t c = 0; c < n_classes_; ++c) {
        z.data<float>()[i * n_classes_ + c] = static_cast<float>(scores[static_cast<size_t>(c)]);
      }
      if (strings) {
        y.data<std::string>()[i] = string_labels_[static_cast<size_t>(label)];
      } else {
        y.data<int64_t>()[i] = int_labels_[static_cast<size_t>(label)];
      }
    }
    return Status::Ok();
  }

 private:
  std::vector<int64_t> int_labels_;
  std::vector<std::string> string_labels_;
  int64_t n_classes_ = 0;
  int64_t binary_class_ = -1;  // the one class id all votes go to, for two classes
  bool weights_all_positive_ = true;
  PostTransform post_ = PostTransform::kNone;
  std::vector<double> base_;
  Forest forest_;
};

class TreeEnsembleKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    n_targets_ = info.GetInt("n_targets", LargestId(info.GetInts("leaf_targetids")) + 1);
    ONYX_RETURN_IF_ERROR(CheckTargetCount(info, n_targets_));
    const int64_t agg = info.GetInt("aggregate_function", 1);
    if (agg < 0 || agg > 3) {
      return info.Error("attribute 'aggregate_function' is " + std::to_string(agg) +
                        ", expected 0 (AVERAGE), 1 (SUM), 2 (MIN) or 3 (MAX)");
    }
    aggregate_ = static_cast<Aggregate>(agg);
    ONYX_ASSIGN_OR_RETURN(post_, PostTransformFromInt(info, info.GetInt("post_transform", 0)));
    ONYX_ASSIGN_OR_RETURN(forest_, BuildFromNodesAndLeaves(info, n_targets_));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (!IsFloatingPoint(x->type())) {
      return InvalidArgument("input 'X' (0) has element type " + std::string(DataTypeName(x->type())) +
                             ", expected float, double or float16");
    }
    ONYX_ASSIGN_OR_RETURN(FeatureBatch b, ReadFeatureBatch(*x, "input 'X' (0)"));
    ONYX_RETURN_IF_ERROR(CheckFeatures(b, forest_));
    Tensor& y = ctx.AllocateOutput(0, x->type(), {b.n, n_targets_});
    std::vector<double> scores(static_cast<size_t>(n_targets_));
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* out = y.data<T>();
      for (int64_t i = 0; i < b.n; ++i) {
        forest_.Accumulate(b.row(i), aggregate_, scores.data(), n_targets_);
        ApplyPostTransform(post_, scores.data(), n_targets_);
        for (int64_t t = 0; t < n_targets_; ++t) out[i * n_targets_ + t] = FromDouble<T>(scores[static_cast<size_t>(t)]);
      }
      return Status::Ok();
    });
  }

 private:
  int64_t n_targets_ = 1;
  Aggregate aggregate_ = Aggregate::kSum;
  PostTransform post_ = PostTransform::kNone;
  Forest forest_;
};

}  // namespace

void RegisterTreeEnsembleOps(KernelRegistry& registry) {
  registry.Add(kMlDomain, "TreeEnsembleRegressor", 1, kLatestVersion, MakeFactory<TreeEnsembleRegressorKernel>());
  registry.Add(kMlDomain, "TreeEnsembleClassifier", 1, kLatestVersion, MakeFactory<TreeEnsembleClassifierKernel>());
  registry.Add(kMlDomain, "TreeEnsemble", 5, kLatestVersion, MakeFactory<TreeEnsembleKernel>());
}

}  // namespace onyx::ops::ml

#include "convert/tf/fold_dilated_conv.h"

#include <map>

#include "convert/tf/graph_walk.h"
#include "convert/tf/tf_node.h"

namespace onyx::convert::tf {
namespace {

using nlohmann::json;

bool IsConvolution(const std::string& op) {
  return op == "Conv2D" || op == "_FusedConv2D" || op == "DepthwiseConv2dNative" || op == "DepthwiseConv2d" ||
         op == "FusedDepthwiseConv2dNative";
}

// The node's data inputs (control inputs "^x" skipped), as written.
std::vector<std::string> DataInputs(const json& node) {
  std::vector<std::string> out;
  if (!node.contains("input") || !node["input"].is_array()) return out;
  for (const auto& in : node["input"]) {
    if (in.is_string() && !in.get_ref<const std::string&>().starts_with("^")) out.push_back(in.get<std::string>());
  }
  return out;
}

// Whether the NodeDef's list attribute `key` is absent or all ones (strides, dilations).
bool AllOnes(const TfNode& n, const std::string& key) {
  auto v = n.Ints(key);
  if (!v.ok()) return false;
  for (int64_t x : *v) {
    if (x != 1) return false;
  }
  return true;
}

json IntList(const std::vector<int64_t>& values) {
  json list = json::array();
  for (int64_t v : values) list.push_back(std::to_string(v));
  return json{{"list", {{"i", list}}}};
}

}  // namespace

int FoldDilatedConvolutions(json& nodes, const ConstIntsLookup& const_ints) {
  if (!nodes.is_array()) return 0;
  std::map<std::string, size_t> by_name;
  std::map<std::string, int> readers;  // data and control readers of each node
  for (size_t i = 0; i < nodes.size(); ++i) {
    const json& n = nodes[i];
    if (!n.is_object() || !n.contains("name") || !n["name"].is_string()) return 0;  // the walk reports it
    by_name[n["name"].get<std::string>()] = i;
    if (!n.contains("input") || !n["input"].is_array()) continue;
    for (const auto& in : n["input"]) {
      if (!in.is_string()) continue;
      std::string s = in.get<std::string>();
      if (s.starts_with("^")) s = s.substr(1);
      ++readers[SplitTensorName(s).first];
    }
  }
  auto node_of = [&](const std::string& tensor) -> json* {
    auto [name, port] = SplitTensorName(tensor);
    auto it = by_name.find(name);
    return port == 0 && it != by_name.end() ? &nodes[it->second] : nullptr;
  };

  int folded = 0;
  for (json& b2s : nodes) {
    if (b2s.value("op", std::string()) != "BatchToSpaceND") continue;
    const std::vector<std::string> b2s_in = DataInputs(b2s);
    if (b2s_in.size() != 3) continue;
    json* conv = node_of(b2s_in[0]);
    if (conv == nullptr || !IsConvolution(conv->value("op", std::string())) ||
        readers[(*conv)["name"].get<std::string>()] != 1) {
      continue;
    }
    const std::vector<std::string> conv_in = DataInputs(*conv);
    if (conv_in.empty()) continue;
    json* s2b = node_of(conv_in[0]);
    if (s2b == nullptr || s2b->value("op", std::string()) != "SpaceToBatchND" ||
        readers[(*s2b)["name"].get<std::string>()] != 1) {
      continue;
    }
    const std::vector<std::string> s2b_in = DataInputs(*s2b);
    if (s2b_in.size() != 3) continue;
    auto conv_node = ParseNode(*conv);
    if (!conv_node.ok() || conv_node->StringOr("padding", "") != "VALID" ||
        conv_node->StringOr("data_format", "NHWC") != "NHWC" || !AllOnes(*conv_node, "strides") ||
        !AllOnes(*conv_node, "dilations")) {
      continue;
    }
    auto block = const_ints(SplitTensorName(s2b_in[1]).first);
    auto block_out = const_ints(SplitTensorName(b2s_in[1]).first);
    auto paddings = const_ints(SplitTensorName(s2b_in[2]).first);
    auto crops = const_ints(SplitTensorName(b2s_in[2]).first);
    if (!block || !block_out || !paddings || !crops || block->size() != 2 || *block != *block_out ||
        paddings->size() != 4 || crops->size() != 4) {
      continue;
    }
    // paddings/crops are [[top, bottom], [left, right]]; explicit_paddings are [before, after] per NHWC dim.
    std::vector<int64_t> pads(4);
    bool ok = (*block)[0] >= 1 && (*block)[1] >= 1;
    for (size_t k = 0; k < 4; ++k) {
      pads[k] = (*paddings)[k] - (*crops)[k];
      ok = ok && pads[k] >= 0 && (*crops)[k] >= 0;
    }
    if (!ok) continue;

    (*conv)["input"][0] = s2b_in[0];
    json& attr = (*conv)["attr"];
    if (!attr.is_object()) attr = json::object();
    attr["dilations"] = IntList({1, (*block)[0], (*block)[1], 1});
    attr["padding"] = json{{"s", "RVhQTElDSVQ="}};  // base64 "EXPLICIT"
    attr["explicit_paddings"] = IntList({0, 0, pads[0], pads[1], pads[2], pads[3], 0, 0});
    json identity_attr = json::object();
    if (b2s.contains("attr") && b2s["attr"].is_object() && b2s["attr"].contains("T"))
      identity_attr["T"] = b2s["attr"]["T"];
    b2s["op"] = "Identity";
    b2s["input"] = json::array({b2s_in[0]});
    b2s["attr"] = identity_attr;
    ++folded;
  }
  return folded;
}

}  // namespace onyx::convert::tf

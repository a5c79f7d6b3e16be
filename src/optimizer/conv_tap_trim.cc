// A Conv whose outer kernel taps never reach its input, at the input's static size, becomes the Conv of the taps that
// do: the weights sliced, the pads reduced by what the dropped taps spanned, the output unchanged (the dropped taps
// only ever multiplied padding zeros). DeepLabV3's atrous pyramid convolves a 16x16 map with 3x3 kernels dilated
// 24 and 36 times: only the centre tap meets the map, yet the 3x3 dilated convolution ran over its padding (onyx
// 27 ms for what is a 1x1 convolution, ONNX Runtime's kernel skips the padding: 2 ms). Taps are dropped only from the
// ends of each axis (a gap inside stays), only where every dropped weight is finite (an infinite one times a padding
// zero is NaN in the original), and a kernel axis left with one tap gets dilation 1.
#include <cmath>
#include <cstring>

#include "optimizer/graph_index.h"
#include "optimizer/inferred_types.h"

namespace onyx::optimizer {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

// Whether tap t of an axis reads the input for some output position: 0 <= o * stride - pad_begin + t * dilation < in
// for an o in [0, out).
bool TapReachesInput(int64_t t, int64_t in, int64_t out, int64_t stride, int64_t dilation, int64_t pad_begin) {
  const int64_t first = t * dilation - pad_begin;  // the input index of output 0
  const int64_t lo = std::max<int64_t>(0, CeilDiv(-first, stride));
  const int64_t hi = std::min<int64_t>(out - 1, FloorDiv(in - 1 - first, stride));
  return lo <= hi;
}

bool HasDilation(const ir::Node& conv) {
  for (int64_t d : AttrInts(conv, "dilations").value_or(std::vector<int64_t>{})) {
    if (d > 1) return true;
  }
  return false;
}

// The taps [begin, end) per spatial axis of W that a Conv keeps, or nullopt when it keeps them all (or cannot tell).
struct KeptTaps {
  std::vector<int64_t> begin, end;
};

std::optional<KeptTaps> TapsToKeep(const ir::Node& conv, const Tensor& w, const ir::TypeInfo& x_type) {
  const int64_t spatial = w.rank() - 2;
  if (spatial < 1 || !x_type.shape || static_cast<int64_t>(x_type.shape->size()) != spatial + 2) return std::nullopt;
  const auto strides = AttrInts(conv, "strides").value_or(std::vector<int64_t>(static_cast<size_t>(spatial), 1));
  const auto dilations = AttrInts(conv, "dilations").value_or(std::vector<int64_t>(static_cast<size_t>(spatial), 1));
  const auto pads = AttrInts(conv, "pads").value_or(std::vector<int64_t>(static_cast<size_t>(2 * spatial), 0));
  if (static_cast<int64_t>(strides.size()) != spatial || static_cast<int64_t>(dilations.size()) != spatial ||
      static_cast<int64_t>(pads.size()) != 2 * spatial) {
    return std::nullopt;
  }
  KeptTaps kept;
  bool trims = false;
  for (int64_t a = 0; a < spatial; ++a) {
    const ir::Dim& dim = (*x_type.shape)[static_cast<size_t>(a + 2)];
    const size_t i = static_cast<size_t>(a);
    const int64_t k = w.dim(a + 2), s = strides[i], d = dilations[i];
    const int64_t pb = pads[i], pe = pads[i + static_cast<size_t>(spatial)];
    if (dim.kind != ir::Dim::Kind::kValue || dim.value <= 0 || k <= 0 || s <= 0 || d <= 0 || pb < 0 || pe < 0) {
      return std::nullopt;
    }
    const int64_t in = dim.value;
    const int64_t out = FloorDiv(in + pb + pe - d * (k - 1) - 1, s) + 1;
    if (out <= 0) return std::nullopt;
    int64_t t0 = 0, t1 = k;
    while (t0 < k && !TapReachesInput(t0, in, out, s, d, pb)) ++t0;
    while (t1 > t0 && !TapReachesInput(t1 - 1, in, out, s, d, pb)) --t1;
    if (t0 == t1) return std::nullopt;  // no tap reaches the input: the output is the bias alone; left as it is
    // The pads must stay non-negative: drop no more than they span.
    t0 = std::min(t0, pb / d);
    t1 = std::max(t1, k - pe / d);
    kept.begin.push_back(t0);
    kept.end.push_back(t1);
    trims = trims || t0 > 0 || t1 < k;
  }
  if (!trims) return std::nullopt;
  return kept;
}

// W restricted to the kept taps; nullopt when a dropped weight is not finite.
std::optional<Tensor> SliceWeights(const Tensor& w, const KeptTaps& kept) {
  const int64_t spatial = w.rank() - 2;
  Shape shape{w.dim(0), w.dim(1)};
  for (int64_t a = 0; a < spatial; ++a) {
    shape.push_back(kept.end[static_cast<size_t>(a)] - kept.begin[static_cast<size_t>(a)]);
  }
  // Which of a kernel's taps (row-major over the spatial axes) are kept.
  int64_t taps = 1;
  for (int64_t a = 0; a < spatial; ++a) taps *= w.dim(a + 2);
  std::vector<bool> keep(static_cast<size_t>(taps));
  for (int64_t t = 0; t < taps; ++t) {
    bool inside = true;
    int64_t rest = t;
    for (int64_t a = spatial - 1; a >= 0; --a) {
      const int64_t i = rest % w.dim(a + 2);
      rest /= w.dim(a + 2);
      inside = inside && i >= kept.begin[static_cast<size_t>(a)] && i < kept.end[static_cast<size_t>(a)];
    }
    keep[static_cast<size_t>(t)] = inside;
  }
  Tensor out = Tensor::Allocate(w.type(), shape);
  const size_t bytes = DataTypeStorageBytes(w.type(), 1);  // float types only (IsFusableFloat): whole bytes
  const auto* from = static_cast<const uint8_t*>(w.raw());
  auto* to = static_cast<uint8_t*>(out.raw());
  const bool is_float = w.type() == DataType::kFloat;
  for (int64_t base = 0; base < w.size(); base += taps) {
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t flat = base + t;
      if (keep[static_cast<size_t>(t)]) {
        std::memcpy(to, from + flat * static_cast<int64_t>(bytes), bytes);
        to += bytes;
      } else if (is_float ? !std::isfinite(w.data<float>()[flat]) : !std::isfinite(w.DoubleAt(flat))) {
        return std::nullopt;
      }
    }
  }
  return out;
}

}  // namespace

Result<int> RunTrimConvTaps(ir::Graph& graph, const PassContext& ctx) {
  // Only dilated convolutions (atrous pyramids) are looked at: inferring the graph's shapes costs more than the
  // rare undilated convolution over a map smaller than its kernel would gain.
  bool candidate = false;
  for (const auto& n : graph.nodes) candidate = candidate || (IsOnnxOp(n, "Conv") && HasDilation(n));
  if (!candidate) return 0;
  const std::optional<infer::GraphTypes> types = InferOnCopy(graph, ctx);
  if (!types) return 0;
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& conv = graph.nodes[static_cast<size_t>(i)];
    if (!IsOnnxOp(conv, "Conv") || conv.inputs.size() < 2 || conv.inputs[0].empty() || !HasDilation(conv)) {
      return false;
    }
    const auto* auto_pad = conv.FindAttribute("auto_pad");
    if (auto_pad != nullptr && !auto_pad->s.empty() && auto_pad->s != "NOTSET") return false;
    const Tensor* w = index.Constant(conv.inputs[1]);
    if (w == nullptr || !IsFusableFloat(w->type()) || w->rank() < 3) return false;
    if (auto ks = AttrInts(conv, "kernel_shape"); ks && *ks != Shape(w->shape().begin() + 2, w->shape().end())) {
      return false;
    }
    const ir::TypeInfo* x_type = FindType(*types, conv.inputs[0]);
    if (x_type == nullptr) return false;
    const auto kept = TapsToKeep(conv, *w, *x_type);
    if (!kept) return false;
    auto sliced = SliceWeights(*w, *kept);
    if (!sliced) return false;
    const int64_t spatial = w->rank() - 2;
    auto dilations = AttrInts(conv, "dilations").value_or(std::vector<int64_t>(static_cast<size_t>(spatial), 1));
    auto pads = AttrInts(conv, "pads").value_or(std::vector<int64_t>(static_cast<size_t>(2 * spatial), 0));
    std::vector<int64_t> kernel;
    for (int64_t a = 0; a < spatial; ++a) {
      const size_t s = static_cast<size_t>(a);
      const int64_t k = w->dim(a + 2), t0 = kept->begin[s], t1 = kept->end[s];
      pads[s] -= t0 * dilations[s];
      pads[s + static_cast<size_t>(spatial)] -= (k - t1) * dilations[s];
      kernel.push_back(t1 - t0);
      if (t1 - t0 == 1) dilations[s] = 1;
    }
    const std::string name = AddInitializer(graph, conv.inputs[1] + "_taps", std::move(*sliced));
    ir::Node& node = graph.nodes[static_cast<size_t>(i)];
    node.inputs[1] = name;
    SetAttrInts(node, "pads", std::move(pads));
    SetAttrInts(node, "dilations", std::move(dilations));
    if (node.FindAttribute("kernel_shape") != nullptr) SetAttrInts(node, "kernel_shape", std::move(kernel));
    return true;
  });
}

}  // namespace onyx::optimizer

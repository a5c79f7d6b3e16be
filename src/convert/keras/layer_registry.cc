// The table of layer converters and the helpers every family uses.
#include "convert/common/tensor_layout.h"
#include "convert/keras/layer_context.h"

namespace onyx::convert::keras {

LayerFn FindLayerConverter(const std::string& class_name) {
  static const LayerTable table = [] {
    LayerTable t;
    RegisterCoreLayers(t);
    RegisterConvLayers(t);
    RegisterPoolingLayers(t);
    RegisterNormalizationLayers(t);
    RegisterMergeLayers(t);
    RegisterReshapingLayers(t);
    RegisterActivationLayers(t);
    RegisterRecurrentLayers(t);
    RegisterAttentionLayers(t);
    return t;
  }();
  auto it = table.find(class_name);
  return it == table.end() ? nullptr : it->second;
}

Result<Tensor> LayerCall::WeightAt(size_t i, const std::string& what) const {
  if (i >= weights->size()) {
    return InvalidArgument(Where() + ": missing weight #" + std::to_string(i) + " (" + what + "); the file has " +
                           std::to_string(weights->size()) + " weights for this layer");
  }
  auto f = ToFloat32((*weights)[i].tensor);
  if (!f.ok()) return f.status().WithContext(Where() + ": weight '" + (*weights)[i].name + "'");
  return f;
}

std::string ToChannelsFirstValue(Context& ctx, const KTensor& x, const std::string& node_name) {
  return ctx.b.Op1("Transpose", {x.value}, node_name + "/to_nchw", {ir::IntsAttr("perm", ToChannelsFirst(x.rank()))});
}

std::string ToChannelsLastValue(Context& ctx, const std::string& value, int64_t rank, const std::string& node_name) {
  return ctx.b.Op1("Transpose", {value}, node_name + "/to_nhwc", {ir::IntsAttr("perm", ToChannelsLast(rank))});
}

}  // namespace onyx::convert::keras

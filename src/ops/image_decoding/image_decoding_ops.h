// The ImageDecoding family's registration functions, called by register.cc.
#pragma once

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::image_decoding {

void RegisterImageDecoderOps(KernelRegistry& registry);

}  // namespace onyx::ops::image_decoding

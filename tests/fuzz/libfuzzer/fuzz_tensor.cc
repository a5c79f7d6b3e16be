// Tensor files: a serialized TensorProto (.pb, as in test_data_set folders) and .npy. The first byte picks the
// reader so that one corpus holds both.
#include "format/npy.h"
#include "format/tensor_proto.h"
#include "fuzz_util.h"
#include "proto/onyx.pb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace onyx;
  if (size == 0) return 0;
  std::string_view bytes = fuzz::AsBytes(data + 1, size - 1);
  if (data[0] & 1) {
    (void)format::ParseNpy(bytes);
  } else {
    pb::TensorProto proto;
    if (proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      format::ExternalDataResolver resolver(fuzz::ScratchDir().string());
      (void)format::TensorFromProto(proto, &resolver);
    }
  }
  return 0;
}

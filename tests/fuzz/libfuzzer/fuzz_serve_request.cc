// onyx serve's request parser (KServe v2 JSON, with the binary tensor extension): the first 4 bytes give the JSON
// part's length (the Inference-Header-Content-Length header), the rest is the body.
#include <cstring>

#include "fuzz_util.h"
#include "serve/inference_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace onyx;
  if (size < 4) return 0;
  uint32_t json_size = 0;
  std::memcpy(&json_size, data, 4);
  std::string_view body = fuzz::AsBytes(data + 4, size - 4);
  (void)serve::ParseInferRequest(body, json_size % (body.size() + 1));
  return 0;
}

// The Open Inference Protocol (KServe v2 REST, as Triton, KServe and MLServer speak it), mapped to onyx values:
// model metadata, inference requests (JSON tensors, or raw bytes after the JSON with the binary tensor extension)
// and responses. Pure data mapping; the HTTP side is http_server.h.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "runtime/session.h"

namespace onyx::serve {

// The protocol's element type names: "FP32", "INT64", "BOOL", "BYTES" (strings), ... Unsupported for ONNX types
// it has no name for (complex, float8, sub-byte types).
Result<std::string> ProtocolDatatype(DataType type);
Result<DataType> DataTypeFromProtocol(std::string_view name);

// GET /v2/models/{name}: name, versions, platform "onnx", and every input and output with its datatype and shape
// (-1 for symbolic or unknown dims). Non-tensor values (sequences, maps) are listed with datatype "" and no shape.
nlohmann::json ModelMetadata(const Session& session, const std::string& model_name);

struct InferRequest {
  std::string id;  // echoed in the response
  std::vector<std::pair<std::string, Value>> feeds;
  // The outputs asked for, in order (empty: every output of the model), and whether each goes back as raw bytes.
  std::vector<std::string> output_names;
  std::map<std::string, bool> binary_output;  // per output name; missing: `binary_outputs_by_default`
  bool binary_outputs_by_default = false;
};

// Parses POST /v2/models/{name}/infer. `body` is the whole request body; `json_size` is the length of its JSON part
// (the Inference-Header-Content-Length header when the binary tensor extension is used, else body.size()). Inputs
// with "parameters": {"binary_data_size": N} take their bytes, in order, from what follows the JSON. Errors name the
// input and what is wrong (a missing field, a datatype the model does not declare, a data count that does not match
// the shape, a value out of the type's range, ...). A tensor of more than `max_elements` elements is refused before
// anything is allocated (a server limit: BYTES binary data can declare many empty strings in few bytes).
inline constexpr int64_t kNoElementLimit = INT64_MAX;
// With `body_keeper` (an owner of the memory `body` lies in), binary fixed-size tensors whose bytes start 64-byte
// aligned are views of the body, kept alive by it, instead of copies.
Result<InferRequest> ParseInferRequest(std::string_view body, size_t json_size, int64_t max_elements = kNoElementLimit,
                                       const std::shared_ptr<void>& body_keeper = nullptr);

// The response to an inference: {"model_name", "id", "outputs": [{"name", "datatype", "shape", "data"}]}, or with
// "parameters": {"binary_data_size": N} and the bytes appended after the JSON for outputs sent as binary.
// `json_size` receives the length of the JSON part (for the Inference-Header-Content-Length header).
Result<std::string> BuildInferResponse(const std::string& model_name, const InferRequest& request,
                                       const std::vector<std::string>& output_names, const std::vector<Value>& outputs,
                                       size_t* json_size, const std::string& model_version = "1");

// Added for the gRPC face (src/serve/grpc/), which carries the same tensors in protobuf fields:
// The bytes of one tensor in the binary tensor extension's layout, which is also gRPC's raw_input_contents: fixed-size
// elements as raw little-endian bytes, BOOL one byte each, BYTES each a 4-byte little-endian length and the bytes.
// Errors say what does not match (the caller names the input); more than `max_elements` elements are refused before
// anything is allocated.
Result<Tensor> TensorFromRawBytes(DataType type, const Shape& shape, std::string_view bytes,
                                  int64_t max_elements = kNoElementLimit);
// The element count of a requested shape: a negative dim, a count past int64 or over `max_elements` is an error.
Result<int64_t> RequestElementCount(const Shape& shape, int64_t max_elements = kNoElementLimit);

}  // namespace onyx::serve

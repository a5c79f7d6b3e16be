// The tensors of the KServe v2 gRPC protocol (proto/grpc_predict_v2.proto) mapped to onyx's inference requests and
// back: inputs in typed contents or raw_input_contents, outputs as raw_output_contents or typed contents. Pure data
// mapping, the gRPC counterpart of inference_protocol.h (whose datatype names and raw-byte layout it shares); the
// service is grpc_service.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "proto/grpc_predict_v2.pb.h"
#include "serve/inference_protocol.h"

namespace onyx::serve {

// ModelInfer's request in the form ServedModel::Prepare takes: feeds, the outputs asked for, and which go back raw
// (all, unless an output's parameter "binary_data" is false). Errors are InvalidArgument naming the input and the
// problem (unknown datatype, a negative dim, a value count that does not match the shape, values in the field of
// another datatype, a value out of the datatype's range, raw and typed contents mixed). A tensor of more than
// `max_elements` elements is refused before anything is allocated.
Result<InferRequest> InferRequestFromProto(const inference::ModelInferRequest& request, int64_t max_elements);

// Fills `response` with the outputs of a run (`output_names` are the served names, in answer order). Outputs sent
// typed are those the request asked for with binary_data=false, but FP16 and BF16, which have no typed field and
// always go raw. raw_output_contents then holds one entry per output, in order (empty for the typed ones). A
// non-tensor output is Unsupported, naming it.
Status FillInferResponse(const std::string& model_name, const std::string& model_version, const InferRequest& request,
                         const std::vector<std::string>& output_names, const std::vector<Value>& outputs,
                         inference::ModelInferResponse* response);

}  // namespace onyx::serve

// ONNX model protobuf: load -> check -> infer shapes -> create a session (which optimizes, folds constants through
// the kernels and prepacks weights). Every stage may refuse the model; none may crash, leak or hang.
#include "checker/checker.h"
#include "format/model_io.h"
#include "fuzz_util.h"
#include "infer/shape_inference.h"
#include "runtime/session.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace onyx;
  // External data resolves inside an empty folder: any location the model names is missing or refused.
  auto model = format::LoadModelFromBytes(fuzz::AsBytes(data, size), fuzz::ScratchDir().string());
  if (!model.ok()) return 0;
  if (!checker::CheckModel(*model).empty()) return 0;  // sessions only for models the checker accepts
  ir::Model inferred = *model;
  if (!infer::InferShapes(inferred).ok()) return 0;
  SessionOptions options;
  options.intra_op_num_threads = 1;
  (void)Session::Create(std::move(*model), options);
  return 0;
}

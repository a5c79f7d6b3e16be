// The ONNX text syntax (onyx print / parse): the parser and, for what it accepts, the checker.
#include "checker/checker.h"
#include "fuzz_util.h"
#include "text/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace onyx;
  auto model = text::ParseModel(fuzz::AsBytes(data, size));
  if (model.ok()) (void)checker::CheckModel(*model);
  (void)text::ParseGraph(fuzz::AsBytes(data, size));
  return 0;
}

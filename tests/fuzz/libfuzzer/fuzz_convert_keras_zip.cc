// The converter of keras files (model.keras): convert to ONNX, then check what it produced. A refusal is fine; a crash,
// a leak or a hang is a bug.
#include "checker/checker.h"
#include "convert/convert_file.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace onyx;
  fuzz::ContainForkedChildCrashes();  // libhdf5 runs in a forked child (see fuzz_util.h)
  const std::string path = fuzz::WriteScratch("model.keras", fuzz::AsBytes(data, size));
  auto model = convert::ConvertFile(path, 17);
  if (model.ok()) (void)checker::CheckModel(*model);
  return 0;
}

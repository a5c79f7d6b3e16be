// The inputs of `onyx batch`: what one item is (a test-data folder of input_N.pb, a folder of NAME.npy files, one
// .npy/.pb tensor, or an image file), how the --inputs arguments (folders and glob patterns) list them, how an item is
// read into one value per model input, and where its outputs go.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "ir/model.h"

namespace onyx::cli {

struct BatchItem {
  enum class Kind { kTestDataFolder, kNpyFolder, kTensorFile, kImage } kind;
  std::string path;  // the file or folder
  std::string name;  // its name without extension: the outputs' name
};

// How images become tensors: resized (bilinear) to the model input's height and width, scaled to [0, 1] unless
// `raw` (0..255), then (x - mean) / std per channel, in NCHW or NHWC (the model's input decides unless given).
struct ImageOptions {
  std::string layout;  // "nchw", "nhwc" or empty: from the input's shape (channels of 1 or 3 where they are)
  std::vector<float> mean{0.0f};
  std::vector<float> std{1.0f};
  bool raw = false;
};

// Lists the items of each --inputs argument, a folder (its entries, sorted by name) or a glob pattern; entries that
// are none of the item kinds are ignored. An argument that names nothing is an error.
Result<std::vector<BatchItem>> ListBatchItems(const std::vector<std::string>& inputs);

// Reads `item` into one tensor per entry of `inputs` (the model's real inputs, in order). Errors name the file.
Result<std::vector<Tensor>> ReadBatchItem(const BatchItem& item, const std::vector<const ir::ValueInfo*>& inputs,
                                          const ImageOptions& image);

// Where output `output_name` of `item` goes: OUT/NAME.npy for a single-output model, else OUT/NAME/OUTPUT.npy.
std::string BatchOutputPath(const std::string& output_dir, const BatchItem& item, const std::string& output_name,
                            bool single_output);

}  // namespace onyx::cli

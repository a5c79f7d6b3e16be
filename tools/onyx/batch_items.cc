#include "batch_items.h"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "core/mapped_file.h"
#include "format/npy.h"
#include "format/tensor_proto.h"
#include "ops/image_decoding/image_codecs.h"

namespace onyx::cli {

namespace fs = std::filesystem;

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool IsImageExtension(const std::string& ext) {
  static const std::set<std::string> kImages = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff",
                                                ".ppm", ".pgm",  ".pnm", ".pbm", ".jp2",  ".j2k"};
  return kImages.count(Lower(ext)) > 0;
}

// The item a path is, if any.
std::optional<BatchItem> ItemOf(const fs::path& p) {
  std::error_code ec;
  if (fs::is_directory(p, ec)) {
    bool pb = false, npy = false;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      const std::string file = e.path().filename().string();
      pb |= file.rfind("input_", 0) == 0 && e.path().extension() == ".pb";
      npy |= e.path().extension() == ".npy";
    }
    if (pb) return BatchItem{BatchItem::Kind::kTestDataFolder, p.string(), p.filename().string()};
    if (npy) return BatchItem{BatchItem::Kind::kNpyFolder, p.string(), p.filename().string()};
    return std::nullopt;
  }
  const std::string ext = p.extension().string();
  if (ext == ".npy" || ext == ".pb") return BatchItem{BatchItem::Kind::kTensorFile, p.string(), p.stem().string()};
  if (IsImageExtension(ext)) return BatchItem{BatchItem::Kind::kImage, p.string(), p.stem().string()};
  return std::nullopt;
}

Result<std::vector<std::string>> Glob(const std::string& pattern) {
  glob_t g{};
  const int rc = ::glob(pattern.c_str(), GLOB_NOSORT, nullptr, &g);
  std::vector<std::string> out;
  if (rc == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  }
  ::globfree(&g);
  if (rc != 0 && rc != GLOB_NOMATCH) return IoError("cannot expand '" + pattern + "'");
  std::sort(out.begin(), out.end());
  return out;
}

// A tensor of the input's declared rank: an item stored without the batch dimension gets it.
Result<Tensor> FitRank(Tensor t, const ir::ValueInfo& input, const std::string& file) {
  if (!input.type || !input.type->shape) return t;
  const int64_t rank = static_cast<int64_t>(input.type->shape->size());
  if (t.rank() == rank) return t;
  if (t.rank() + 1 == rank) {
    Shape s = t.shape();
    s.insert(s.begin(), 1);
    return t.Reshaped(std::move(s));
  }
  return InvalidArgument("'" + file + "': input '" + input.name + "' has rank " + std::to_string(rank) +
                         ", the file holds shape " + ShapeToString(t.shape()));
}

Result<Tensor> ReadImage(const std::string& path, const ir::ValueInfo& input, const ImageOptions& options) {
  ONYX_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  auto image = ops::image_decoding::DecodeImage({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  if (!image.ok()) return image.status().WithContext("'" + path + "'");
  if (!input.type || !input.type->shape || input.type->shape->size() != 4) {
    return InvalidArgument("'" + path + "': images feed a 4-D input; '" + input.name + "' is not one");
  }
  const auto& dims = *input.type->shape;
  std::string layout = options.layout;
  if (layout.empty()) {
    const bool channels_first = dims[1].is_value() && (dims[1].value == 1 || dims[1].value == 3);
    layout = channels_first ? "nchw" : "nhwc";
  }
  const bool nchw = layout == "nchw";
  const ir::Dim& hd = nchw ? dims[2] : dims[1];
  const ir::Dim& wd = nchw ? dims[3] : dims[2];
  const ir::Dim& cd = nchw ? dims[1] : dims[3];
  const int64_t h = hd.is_value() ? hd.value : image->height;
  const int64_t w = wd.is_value() ? wd.value : image->width;
  const int64_t c = cd.is_value() ? cd.value : 3;
  if (c != 1 && c != 3) {
    return InvalidArgument("'" + path + "': input '" + input.name + "' takes " + std::to_string(c) +
                           " channels; images give 1 (gray) or 3 (RGB)");
  }
  if (input.type->elem_type != DataType::kFloat && input.type->elem_type != DataType::kUint8) {
    return InvalidArgument("'" + path + "': input '" + input.name + "' is " + TensorTypeString(input.type->elem_type) +
                           "; images feed float or uint8 inputs");
  }
  Shape shape = nchw ? Shape{1, c, h, w} : Shape{1, h, w, c};
  Tensor t = Tensor::Allocate(input.type->elem_type, shape);
  // Bilinear resize with half-pixel centres (Resize's default coordinate mode).
  const float sy = static_cast<float>(image->height) / static_cast<float>(h);
  const float sx = static_cast<float>(image->width) / static_cast<float>(w);
  auto at = [&](int64_t y, int64_t x, int64_t ch) {
    return static_cast<float>(image->pixels[static_cast<size_t>((y * image->width + x) * 3 + ch)]);
  };
  for (int64_t y = 0; y < h; ++y) {
    const float fy =
        std::clamp((static_cast<float>(y) + 0.5f) * sy - 0.5f, 0.0f, static_cast<float>(image->height - 1));
    const int64_t y0 = static_cast<int64_t>(fy), y1 = std::min(y0 + 1, image->height - 1);
    const float wy = fy - static_cast<float>(y0);
    for (int64_t x = 0; x < w; ++x) {
      const float fx =
          std::clamp((static_cast<float>(x) + 0.5f) * sx - 0.5f, 0.0f, static_cast<float>(image->width - 1));
      const int64_t x0 = static_cast<int64_t>(fx), x1 = std::min(x0 + 1, image->width - 1);
      const float wx = fx - static_cast<float>(x0);
      float rgb[3];
      for (int ch = 0; ch < 3; ++ch) {
        const float top = at(y0, x0, ch) * (1 - wx) + at(y0, x1, ch) * wx;
        const float bottom = at(y1, x0, ch) * (1 - wx) + at(y1, x1, ch) * wx;
        rgb[ch] = top * (1 - wy) + bottom * wy;
      }
      for (int64_t ch = 0; ch < c; ++ch) {
        float v = c == 1 ? 0.299f * rgb[0] + 0.587f * rgb[1] + 0.114f * rgb[2] : rgb[ch];
        const size_t index = static_cast<size_t>(nchw ? (ch * h + y) * w + x : (y * w + x) * c + ch);
        if (t.type() == DataType::kUint8) {
          t.data<uint8_t>()[index] = static_cast<uint8_t>(std::clamp(v + 0.5f, 0.0f, 255.0f));
          continue;
        }
        if (!options.raw) v /= 255.0f;
        const float mean = options.mean[static_cast<size_t>(ch) % options.mean.size()];
        const float stdev = options.std[static_cast<size_t>(ch) % options.std.size()];
        t.data<float>()[index] = (v - mean) / stdev;
      }
    }
  }
  return t;
}

}  // namespace

Result<std::vector<BatchItem>> ListBatchItems(const std::vector<std::string>& inputs) {
  std::vector<BatchItem> items;
  for (const auto& arg : inputs) {
    std::vector<fs::path> candidates;
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      if (auto self = ItemOf(arg); self && self->kind != BatchItem::Kind::kNpyFolder) {
        items.push_back(*self);  // the folder is itself one test-data set
        continue;
      }
      for (const auto& e : fs::directory_iterator(arg, ec)) candidates.push_back(e.path());
      std::sort(candidates.begin(), candidates.end());
    } else {
      ONYX_ASSIGN_OR_RETURN(std::vector<std::string> matches, Glob(arg));
      if (matches.empty()) return InvalidArgument("--inputs '" + arg + "' names no file or folder");
      for (auto& m : matches) candidates.emplace_back(m);
    }
    for (const auto& c : candidates) {
      if (auto item = ItemOf(c)) items.push_back(std::move(*item));
    }
  }
  return items;
}

Result<std::vector<Tensor>> ReadBatchItem(const BatchItem& item, const std::vector<const ir::ValueInfo*>& inputs,
                                          const ImageOptions& image) {
  std::vector<Tensor> out;
  switch (item.kind) {
    case BatchItem::Kind::kTestDataFolder:
      for (size_t i = 0; i < inputs.size(); ++i) {
        const std::string file = (fs::path(item.path) / ("input_" + std::to_string(i) + ".pb")).string();
        ONYX_ASSIGN_OR_RETURN(Tensor t, format::LoadTensorFile(file));
        ONYX_ASSIGN_OR_RETURN(t, FitRank(std::move(t), *inputs[i], file));
        out.push_back(std::move(t));
      }
      return out;
    case BatchItem::Kind::kNpyFolder:
      for (const auto* in : inputs) {
        const std::string file = (fs::path(item.path) / (in->name + ".npy")).string();
        ONYX_ASSIGN_OR_RETURN(Tensor t, format::LoadNpy(file));
        ONYX_ASSIGN_OR_RETURN(t, FitRank(std::move(t), *in, file));
        out.push_back(std::move(t));
      }
      return out;
    case BatchItem::Kind::kTensorFile:
    case BatchItem::Kind::kImage: {
      if (inputs.size() != 1) {
        return InvalidArgument("'" + item.path + "': one file feeds one input, the model has " +
                               std::to_string(inputs.size()) + " (use folders of NAME.npy or input_N.pb)");
      }
      Result<Tensor> t = item.kind == BatchItem::Kind::kImage        ? ReadImage(item.path, *inputs[0], image)
                         : fs::path(item.path).extension() == ".npy" ? format::LoadNpy(item.path)
                                                                     : format::LoadTensorFile(item.path);
      if (!t.ok()) return t.status();
      ONYX_ASSIGN_OR_RETURN(Tensor fitted, FitRank(std::move(t).value(), *inputs[0], item.path));
      out.push_back(std::move(fitted));
      return out;
    }
  }
  return out;
}

std::string BatchOutputPath(const std::string& output_dir, const BatchItem& item, const std::string& output_name,
                            bool single_output) {
  if (single_output) return (fs::path(output_dir) / (item.name + ".npy")).string();
  std::string safe = output_name;
  for (char& ch : safe) {
    if (ch == '/' || ch == '\\' || ch == ':') ch = '_';  // TensorFlow names ("out:0") and paths stay one file name
  }
  return (fs::path(output_dir) / item.name / (safe + ".npy")).string();
}

}  // namespace onyx::cli

#include "convert/common/tfjs_weights.h"

#include <cstring>
#include <filesystem>

#include "core/float16.h"
#include "core/mapped_file.h"
#include "core/safe_file.h"

namespace onyx::convert {

namespace {

Result<int64_t> ElementBytes(const std::string& dtype, const std::string& where) {
  if (dtype == "float32" || dtype == "int32") return 4;
  if (dtype == "uint16" || dtype == "float16") return 2;
  if (dtype == "uint8" || dtype == "bool") return 1;
  return Unsupported(where + ": weight dtype '" + dtype + "' is not supported");
}

}  // namespace

Result<std::vector<NamedWeight>> ReadTfjsWeights(const nlohmann::json& manifest, const std::string& path) {
  std::vector<NamedWeight> out;
  if (!manifest.is_array()) return InvalidArgument(path + ": 'weightsManifest' is not a list");
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (const auto& group : manifest) {
    if (!group.is_object() || !group.contains("paths") || !group["paths"].is_array() || !group.contains("weights") ||
        !group["weights"].is_array()) {
      return InvalidArgument(path + ": a weightsManifest group lacks 'paths' or 'weights'");
    }
    std::string data;
    for (const auto& p : group["paths"]) {
      if (!p.is_string()) return InvalidArgument(path + ": a shard path is not a string");
      // Through the safe layer: the shard must be a regular file inside the model's folder, reached without symlinks
      // (a shard linked to /dev/zero or outside the folder would otherwise be read and copied into the output).
      auto file = ReadOnlyFile::OpenInside(dir.string(), p.get<std::string>(), "weight shard");
      if (!file.ok()) return file.status().WithContext(path);
      if (data.size() + file->size() > MaxReadFileBytes()) {
        return InvalidArgument(path + ": the weight shards hold more than " + std::to_string(MaxReadFileBytes()) +
                               " bytes (raise the limit with ONYX_MAX_FILE_BYTES)");
      }
      ONYX_ASSIGN_OR_RETURN(std::string shard, file->ReadAll());
      data += shard;
    }
    size_t offset = 0;
    for (const auto& w : group["weights"]) {
      if (!w.is_object() || !w.contains("name") || !w["name"].is_string() || !w.contains("shape") ||
          !w["shape"].is_array()) {
        return InvalidArgument(path + ": a weight entry lacks 'name' or 'shape'");
      }
      const std::string name = w["name"];
      const std::string where = path + ": weight '" + name + "'";
      Shape shape;
      for (const auto& d : w["shape"]) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0) return InvalidArgument(where + ": invalid shape");
        shape.push_back(d.get<int64_t>());
      }
      auto elements = CheckedNumElements(shape);
      if (!elements.ok()) return elements.status().WithContext(where);
      const int64_t count = *elements;
      if (w.contains("dtype") && !w["dtype"].is_string()) return InvalidArgument(where + ": 'dtype' is not a string");
      std::string dtype = w.value("dtype", std::string("float32"));
      std::string stored = dtype;
      const nlohmann::json* q =
          w.contains("quantization") && w["quantization"].is_object() ? &w["quantization"] : nullptr;
      if (q && q->contains("dtype") && !(*q)["dtype"].is_string()) {
        return InvalidArgument(where + ": the quantization 'dtype' is not a string");
      }
      if (q) stored = q->value("dtype", std::string());
      if (dtype == "string" && !q) {
        // Each string: its byte length (uint32, little-endian), then its bytes.
        Tensor t = Tensor::Allocate(DataType::kString, shape);
        for (int64_t i = 0; i < count; ++i) {
          uint32_t length = 0;
          if (offset + 4 > data.size())
            return InvalidArgument(where + ": the weight shards end inside string " + std::to_string(i));
          std::memcpy(&length, data.data() + offset, 4);  // little-endian hosts only, as the rest of this reader
          offset += 4;
          if (length > data.size() - offset) {
            return InvalidArgument(where + ": string " + std::to_string(i) + " runs past the end of the shards");
          }
          t.data<std::string>()[i].assign(data.data() + offset, length);
          offset += length;
        }
        out.push_back({name, std::move(t)});
        continue;
      }
      ONYX_ASSIGN_OR_RETURN(int64_t width, ElementBytes(stored, where));
      const size_t bytes = static_cast<size_t>(count * width);
      if (offset + bytes > data.size()) {
        return InvalidArgument(where + ": the weight shards end before this weight (" + std::to_string(data.size()) +
                               " bytes, need " + std::to_string(offset + bytes) + ")");
      }
      const auto* src = reinterpret_cast<const unsigned char*>(data.data() + offset);
      offset += bytes;
      Tensor t;
      if (dtype == "int32" && !q) {
        t = Tensor::Allocate(DataType::kInt32, shape);
        if (bytes > 0) std::memcpy(t.raw(), src, bytes);
      } else if (dtype == "bool" && !q) {
        t = Tensor::Allocate(DataType::kBool, shape);
        for (int64_t i = 0; i < count; ++i) t.data<bool>()[i] = src[i] != 0;
      } else if (dtype != "float32") {
        return Unsupported(where + ": dtype '" + dtype + "' is not supported");
      } else {
        t = Tensor::Allocate(DataType::kFloat, shape);
        float* dst = t.data<float>();
        if (!q) {
          std::memcpy(dst, src, bytes);
        } else if (stored == "float16") {
          for (int64_t i = 0; i < count; ++i) {
            uint16_t h;
            std::memcpy(&h, src + 2 * i, 2);
            dst[i] = HalfBitsToFloat(h);
          }
        } else if (stored == "uint8" || stored == "uint16") {
          if (!q->contains("scale") || !(*q)["scale"].is_number() || !q->contains("min") || !(*q)["min"].is_number()) {
            return InvalidArgument(where + ": affine quantization without numeric 'scale' and 'min'");
          }
          // In double, then rounded once, as TF.js computes it.
          const double scale = (*q)["scale"].get<double>(), mn = (*q)["min"].get<double>();
          for (int64_t i = 0; i < count; ++i) {
            uint32_t v = src[width * i];
            if (width == 2) {
              uint16_t u;
              std::memcpy(&u, src + 2 * i, 2);
              v = u;
            }
            dst[i] = static_cast<float>(v * scale + mn);
          }
        } else {
          return Unsupported(where + ": quantization dtype '" + stored + "' is not supported");
        }
      }
      out.push_back({name, std::move(t)});
    }
  }
  return out;
}

}  // namespace onyx::convert

#include "format/tensor_proto.h"

#include <cstring>
#include <filesystem>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace onyx::format {
namespace fs = std::filesystem;

Result<std::pair<const char*, std::shared_ptr<void>>> ExternalDataResolver::Resolve(const std::string& location,
                                                                                   int64_t offset, int64_t length) {
  if (location.empty()) return InvalidArgument("external data has no location");
  // Windows-style absolute paths and drive names are refused too (ReadOnlyFile refuses POSIX ones, '..' and links).
  fs::path rel(location);
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory() ||
      (location.size() > 1 && location[1] == ':')) {
    return InvalidArgument("external data location '" + location + "' is an absolute path (only paths inside the model's folder are allowed)");
  }
  auto it = files_.find(location);
  if (it == files_.end()) {
    // One openat walk from the model's folder: no symlink, no hard link, no FIFO, nothing swapped in between.
    auto file = ReadOnlyFile::OpenInside(base_dir_, location, "external data location");
    if (!file.ok()) return file.status();
    auto mapped = MappedFile::Map(*file);
    if (!mapped.ok()) return mapped.status().WithContext("external data");
    it = files_.emplace(location, std::move(mapped).value()).first;
  }
  const auto& file = it->second;
  const auto size = static_cast<int64_t>(file->size());
  if (offset < 0 || offset > size) {
    return InvalidArgument("external data offset " + std::to_string(offset) + " is past the end of '" + location +
                           "' (" + std::to_string(size) + " bytes)");
  }
  if (length >= 0 && length > size - offset) {
    return InvalidArgument("external data of " + std::to_string(length) + " bytes at offset " + std::to_string(offset) +
                           " runs past the end of '" + location + "' (" + std::to_string(size) + " bytes)");
  }
  return std::make_pair(file->data() + offset, std::shared_ptr<void>(file, const_cast<char*>(file->data())));
}

namespace {

template <typename Field>
Status CheckCount(const Field& field, int64_t expected, const char* field_name) {
  if (static_cast<int64_t>(field.size()) != expected) {
    return InvalidArgument(std::string(field_name) + " holds " + std::to_string(field.size()) + " values, expected " +
                           std::to_string(expected));
  }
  return Status::Ok();
}

Status DecodeTypedFields(const pb::TensorProto& p, Tensor& t) {
  const int64_t n = t.size();
  switch (t.type()) {
    case DataType::kFloat:
      ONYX_RETURN_IF_ERROR(CheckCount(p.float_data(), n, "float_data"));
      std::copy(p.float_data().begin(), p.float_data().end(), t.data<float>());
      return Status::Ok();
    case DataType::kComplex64:
      ONYX_RETURN_IF_ERROR(CheckCount(p.float_data(), 2 * n, "float_data"));
      std::copy(p.float_data().begin(), p.float_data().end(), t.data<float>());
      return Status::Ok();
    case DataType::kDouble:
      ONYX_RETURN_IF_ERROR(CheckCount(p.double_data(), n, "double_data"));
      std::copy(p.double_data().begin(), p.double_data().end(), t.data<double>());
      return Status::Ok();
    case DataType::kComplex128:
      ONYX_RETURN_IF_ERROR(CheckCount(p.double_data(), 2 * n, "double_data"));
      std::copy(p.double_data().begin(), p.double_data().end(), t.data<double>());
      return Status::Ok();
    case DataType::kInt64:
      ONYX_RETURN_IF_ERROR(CheckCount(p.int64_data(), n, "int64_data"));
      std::copy(p.int64_data().begin(), p.int64_data().end(), t.data<int64_t>());
      return Status::Ok();
    case DataType::kUint64:
      ONYX_RETURN_IF_ERROR(CheckCount(p.uint64_data(), n, "uint64_data"));
      std::copy(p.uint64_data().begin(), p.uint64_data().end(), t.data<uint64_t>());
      return Status::Ok();
    case DataType::kUint32:
      ONYX_RETURN_IF_ERROR(CheckCount(p.uint64_data(), n, "uint64_data"));
      for (int64_t i = 0; i < n; ++i) t.data<uint32_t>()[i] = static_cast<uint32_t>(p.uint64_data(static_cast<int>(i)));
      return Status::Ok();
    case DataType::kString:
      ONYX_RETURN_IF_ERROR(CheckCount(p.string_data(), n, "string_data"));
      for (int64_t i = 0; i < n; ++i) t.data<std::string>()[i] = p.string_data(static_cast<int>(i));
      return Status::Ok();
    case DataType::kInt32:
      ONYX_RETURN_IF_ERROR(CheckCount(p.int32_data(), n, "int32_data"));
      std::copy(p.int32_data().begin(), p.int32_data().end(), t.data<int32_t>());
      return Status::Ok();
    default:
      break;
  }
  // The remaining types travel in int32_data: one element per entry (bits for the float types), except the packed
  // sub-byte types, whose entries each hold one packed byte.
  const int bits = DataTypeBits(t.type());
  if (IsSubByte(t.type())) {
    const auto bytes = static_cast<int64_t>(t.nbytes());
    ONYX_RETURN_IF_ERROR(CheckCount(p.int32_data(), bytes, "int32_data"));
    for (int64_t i = 0; i < bytes; ++i) t.data<uint8_t>()[i] = static_cast<uint8_t>(p.int32_data(static_cast<int>(i)));
    return Status::Ok();
  }
  ONYX_RETURN_IF_ERROR(CheckCount(p.int32_data(), n, "int32_data"));
  for (int64_t i = 0; i < n; ++i) {
    const int32_t v = p.int32_data(static_cast<int>(i));
    if (bits == 8) {
      t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
    } else if (bits == 16) {
      t.data<uint16_t>()[i] = static_cast<uint16_t>(v);
    } else {
      return Unsupported("element type " + std::string(DataTypeName(t.type())) + " in int32_data");
    }
  }
  if (t.type() == DataType::kBool) {
    for (int64_t i = 0; i < n; ++i) t.data<uint8_t>()[i] = t.data<uint8_t>()[i] != 0;
  }
  return Status::Ok();
}

Result<Tensor> TensorFromProtoImpl(const pb::TensorProto& p, ExternalDataResolver* resolver) {
  if (!p.has_data_type() || !IsValidDataType(p.data_type())) {
    return InvalidArgument("invalid data_type " + std::to_string(p.data_type()));
  }
  const auto type = static_cast<DataType>(p.data_type());
  Shape shape(p.dims().begin(), p.dims().end());
  ONYX_ASSIGN_OR_RETURN(int64_t n, CheckedNumElements(shape));
  const auto expected_bytes = static_cast<int64_t>(DataTypeStorageBytes(type, static_cast<size_t>(n)));
  if (p.data_location() == pb::TensorProto::EXTERNAL) {
    if (resolver == nullptr || !resolver->allow_external()) {
      return InvalidArgument("external data is not allowed here");
    }
    if (type == DataType::kString) return InvalidArgument("string tensors cannot use external data");
    std::string location;
    int64_t offset = 0;
    int64_t length = -1;
    for (const auto& kv : p.external_data()) {
      try {
        if (kv.key() == "location") location = kv.value();
        if (kv.key() == "offset") offset = std::stoll(kv.value());
        if (kv.key() == "length") length = std::stoll(kv.value());
      } catch (const std::exception&) {
        return InvalidArgument("external data entry '" + kv.key() + "' has a bad value '" + kv.value() + "'");
      }
    }
    if (length < 0) length = expected_bytes;
    if (length != expected_bytes) {
      return InvalidArgument("external data length " + std::to_string(length) + " does not match the " +
                             std::to_string(expected_bytes) + " bytes of shape " + ShapeToString(shape));
    }
    ONYX_ASSIGN_OR_RETURN(auto view, resolver->Resolve(location, offset, length));
    auto [ptr, keeper] = view;
    const auto align = static_cast<uintptr_t>(std::max(1, DataTypeBits(type) / 8));
    if (reinterpret_cast<uintptr_t>(ptr) % align == 0) {
      return Tensor::Borrow(type, std::move(shape), const_cast<char*>(ptr), keeper);
    }
    Tensor t = Tensor::Allocate(type, std::move(shape));
    std::memcpy(t.raw(), ptr, static_cast<size_t>(expected_bytes));
    return t;
  }
  const std::shared_ptr<std::string>* released = resolver != nullptr ? resolver->ReleasedRawData(&p) : nullptr;
  if (p.has_raw_data() || released != nullptr) {
    const std::string& raw = released != nullptr ? **released : p.raw_data();
    if (type == DataType::kString) return InvalidArgument("string tensors cannot use raw_data");
    if (static_cast<int64_t>(raw.size()) != expected_bytes) {
      return InvalidArgument("raw_data holds " + std::to_string(raw.size()) + " bytes, shape " + ShapeToString(shape) +
                             " of " + std::string(DataTypeName(type)) + " needs " + std::to_string(expected_bytes));
    }
    const char* bytes = raw.data();
    const auto align = static_cast<uintptr_t>(std::max(1, DataTypeBits(type) / 8));
    if (resolver != nullptr && (released != nullptr || resolver->message_keeper()) && type != DataType::kBool &&
        expected_bytes > 0 && reinterpret_cast<uintptr_t>(bytes) % align == 0) {
      std::shared_ptr<void> keeper = released != nullptr ? std::shared_ptr<void>(*released)
                                                         : std::const_pointer_cast<void>(resolver->message_keeper());
      return Tensor::Borrow(type, std::move(shape), const_cast<char*>(bytes), std::move(keeper));
    }
    Tensor t = Tensor::Allocate(type, std::move(shape));
    if (expected_bytes > 0) std::memcpy(t.raw(), bytes, static_cast<size_t>(expected_bytes));
    if (type == DataType::kBool) {
      for (int64_t i = 0; i < n; ++i) t.data<uint8_t>()[i] = t.data<uint8_t>()[i] != 0;
    }
    return t;
  }
  // Typed fields: check the count before allocating, so that a huge shape with little data fails cleanly.
  int64_t available = p.float_data_size() + p.int32_data_size() + p.string_data_size() + p.int64_data_size() +
                      p.double_data_size() + p.uint64_data_size();
  if (available < std::min<int64_t>(n, expected_bytes)) {
    return InvalidArgument("tensor of shape " + ShapeToString(shape) + " holds only " + std::to_string(available) +
                           " values");
  }
  Tensor t = Tensor::Allocate(type, std::move(shape));
  ONYX_RETURN_IF_ERROR(DecodeTypedFields(p, t));
  return t;
}

}  // namespace

Result<Tensor> TensorFromProto(const pb::TensorProto& proto, ExternalDataResolver* resolver) {
  auto r = TensorFromProtoImpl(proto, resolver);
  if (!r.ok() && !proto.name().empty()) return r.status().WithContext("tensor '" + proto.name() + "'");
  return r;
}

void TensorToProto(const Tensor& t, pb::TensorProto* p) {
  p->set_data_type(static_cast<int32_t>(t.type()));
  for (int64_t d : t.shape()) p->add_dims(d);
  if (t.type() == DataType::kString) {
    for (int64_t i = 0; i < t.size(); ++i) p->add_string_data(t.data<std::string>()[i]);
    return;
  }
  p->set_raw_data(static_cast<const char*>(t.raw()), t.nbytes());
}

Result<ir::NamedTensor> NamedTensorFromProto(const pb::TensorProto& proto, ExternalDataResolver* resolver) {
  ir::NamedTensor nt;
  nt.name = proto.name();
  nt.doc_string = proto.doc_string();
  for (const auto& kv : proto.metadata_props()) nt.metadata_props.emplace_back(kv.key(), kv.value());
  if (proto.data_location() == pb::TensorProto::EXTERNAL) {
    for (const auto& kv : proto.external_data()) nt.external_data.emplace_back(kv.key(), kv.value());
  }
  ONYX_ASSIGN_OR_RETURN(nt.tensor, TensorFromProto(proto, resolver));
  return nt;
}

void NamedTensorHeaderToProto(const ir::NamedTensor& nt, pb::TensorProto* p) {
  if (!nt.name.empty()) p->set_name(nt.name);
  if (!nt.doc_string.empty()) p->set_doc_string(nt.doc_string);
  for (const auto& [k, v] : nt.metadata_props) {
    auto* e = p->add_metadata_props();
    e->set_key(k);
    e->set_value(v);
  }
}

void NamedTensorToProto(const ir::NamedTensor& nt, pb::TensorProto* p) {
  NamedTensorHeaderToProto(nt, p);
  TensorToProto(nt.tensor, p);
}

Result<Value> ValueFromSequenceProto(const pb::SequenceProto& p) {
  SequenceValue seq;
  switch (p.elem_type()) {
    case pb::SequenceProto::TENSOR:
      for (const auto& t : p.tensor_values()) {
        ONYX_ASSIGN_OR_RETURN(Tensor v, TensorFromProto(t, nullptr));
        seq.elem_type = v.type();
        seq.items.emplace_back(std::move(v));
      }
      break;
    case pb::SequenceProto::SEQUENCE:
      for (const auto& s : p.sequence_values()) {
        ONYX_ASSIGN_OR_RETURN(Value v, ValueFromSequenceProto(s));
        seq.items.push_back(std::move(v));
      }
      break;
    case pb::SequenceProto::MAP:
      for (const auto& m : p.map_values()) {
        ONYX_ASSIGN_OR_RETURN(Value v, ValueFromMapProto(m));
        seq.items.push_back(std::move(v));
      }
      break;
    case pb::SequenceProto::OPTIONAL:
      for (const auto& o : p.optional_values()) {
        ONYX_ASSIGN_OR_RETURN(Value v, ValueFromOptionalProto(o));
        seq.items.push_back(std::move(v));
      }
      break;
    default:
      if (p.tensor_values_size() + p.sequence_values_size() + p.map_values_size() > 0) {
        return Unsupported("sequence element type " + std::to_string(p.elem_type()));
      }
  }
  return Value(std::move(seq));
}

Result<Value> ValueFromOptionalProto(const pb::OptionalProto& p) {
  switch (p.elem_type()) {
    case pb::OptionalProto::TENSOR: {
      if (!p.has_tensor_value()) return Value::None();
      ONYX_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(p.tensor_value(), nullptr));
      return Value(std::move(t));
    }
    case pb::OptionalProto::SEQUENCE:
      if (!p.has_sequence_value()) return Value::None();
      return ValueFromSequenceProto(p.sequence_value());
    case pb::OptionalProto::MAP:
      if (!p.has_map_value()) return Value::None();
      return ValueFromMapProto(p.map_value());
    case pb::OptionalProto::OPTIONAL:
      if (!p.has_optional_value()) return Value::None();
      return ValueFromOptionalProto(p.optional_value());
    case pb::OptionalProto::UNDEFINED:
      return Value::None();
    default:
      return Unsupported("optional element type " + std::to_string(p.elem_type()));
  }
}

Result<Value> ValueFromMapProto(const pb::MapProto& p) {
  MapValue m;
  if (p.key_type() == static_cast<int32_t>(DataType::kString)) {
    m.keys = Tensor::Allocate(DataType::kString, {p.string_keys_size()});
    for (int i = 0; i < p.string_keys_size(); ++i) m.keys.data<std::string>()[i] = p.string_keys(i);
  } else {
    m.keys = Tensor::Allocate(DataType::kInt64, {p.keys_size()});
    for (int i = 0; i < p.keys_size(); ++i) m.keys.data<int64_t>()[i] = p.keys(i);
  }
  if (p.values().tensor_values_size() == 1 && p.values().tensor_values(0).dims_size() == 1) {
    ONYX_ASSIGN_OR_RETURN(m.values, TensorFromProto(p.values().tensor_values(0), nullptr));
  } else {
    return Unsupported("map values other than one 1-D tensor");
  }
  return Value(std::move(m));
}

namespace {

template <typename Message>
Status ParseMessageFile(const std::string& path, Message* msg) {
  ONYX_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT32_MAX);
  if (!msg->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    return InvalidArgument("'" + path + "' is not a valid " + msg->GetTypeName() + " file (truncated or corrupt)");
  }
  return Status::Ok();
}

}  // namespace

Result<Tensor> LoadTensorFile(const std::string& path) {
  pb::TensorProto p;
  ONYX_RETURN_IF_ERROR(ParseMessageFile(path, &p));
  auto r = TensorFromProto(p, nullptr);
  if (!r.ok()) return r.status().WithContext("'" + path + "'");
  return r;
}

Result<Value> LoadValueFile(const std::string& path, const ir::TypeInfo* type) {
  using Kind = ir::TypeInfo::Kind;
  if (type != nullptr && type->kind == Kind::kSequence) {
    pb::SequenceProto p;
    ONYX_RETURN_IF_ERROR(ParseMessageFile(path, &p));
    return ValueFromSequenceProto(p);
  }
  if (type != nullptr && type->kind == Kind::kOptional) {
    pb::OptionalProto p;
    ONYX_RETURN_IF_ERROR(ParseMessageFile(path, &p));
    return ValueFromOptionalProto(p);
  }
  if (type != nullptr && type->kind == Kind::kMap) {
    pb::MapProto p;
    ONYX_RETURN_IF_ERROR(ParseMessageFile(path, &p));
    return ValueFromMapProto(p);
  }
  ONYX_ASSIGN_OR_RETURN(Tensor t, LoadTensorFile(path));
  return Value(std::move(t));
}

Status SaveTensorFile(const Tensor& tensor, const std::string& name, const std::string& path) {
  pb::TensorProto p;
  if (!name.empty()) p.set_name(name);
  TensorToProto(tensor, &p);
  return WriteStringToFile(path, p.SerializeAsString());
}

namespace {

void SequenceToProto(const SequenceValue& seq, pb::SequenceProto* p);

void OptionalToProto(const Value& v, pb::OptionalProto* p) {
  if (v.is_tensor()) {
    p->set_elem_type(pb::OptionalProto::TENSOR);
    TensorToProto(v.tensor(), p->mutable_tensor_value());
  } else if (v.is_sequence()) {
    p->set_elem_type(pb::OptionalProto::SEQUENCE);
    SequenceToProto(v.sequence(), p->mutable_sequence_value());
  } else {
    p->set_elem_type(pb::OptionalProto::UNDEFINED);
  }
}

void SequenceToProto(const SequenceValue& seq, pb::SequenceProto* p) {
  p->set_elem_type(pb::SequenceProto::TENSOR);
  for (const auto& item : seq.items) {
    if (item.is_tensor()) {
      TensorToProto(item.tensor(), p->add_tensor_values());
    } else if (item.is_sequence()) {
      p->set_elem_type(pb::SequenceProto::SEQUENCE);
      SequenceToProto(item.sequence(), p->add_sequence_values());
    } else {
      p->set_elem_type(pb::SequenceProto::OPTIONAL);
      OptionalToProto(item, p->add_optional_values());
    }
  }
}

}  // namespace

Status SaveValueFile(const Value& value, const std::string& name, const ir::TypeInfo* type, const std::string& path) {
  const bool optional = type != nullptr && type->kind == ir::TypeInfo::Kind::kOptional;
  if (optional || value.is_none()) {
    pb::OptionalProto p;
    if (!name.empty()) p.set_name(name);
    OptionalToProto(value, &p);
    return WriteStringToFile(path, p.SerializeAsString());
  }
  if (value.is_sequence()) {
    pb::SequenceProto p;
    if (!name.empty()) p.set_name(name);
    SequenceToProto(value.sequence(), &p);
    return WriteStringToFile(path, p.SerializeAsString());
  }
  if (value.is_tensor()) return SaveTensorFile(value.tensor(), name, path);
  return Unsupported("saving a " + value.KindName() + " value to '" + path + "'");
}

}  // namespace onyx::format

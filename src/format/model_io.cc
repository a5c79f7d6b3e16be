#include "format/model_io.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <sys/mman.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "core/limits.h"
#include "core/mapped_file.h"
#include "core/safe_write.h"
#include "format/external_data_writer.h"
#include "format/tensor_proto.h"

namespace onyx::format {
namespace fs = std::filesystem;

namespace {

template <typename RepeatedEntries>
ir::MetadataProps MetadataFromProto(const RepeatedEntries& entries) {
  ir::MetadataProps out;
  for (const auto& kv : entries) out.emplace_back(kv.key(), kv.value());
  return out;
}

template <typename Message>
void MetadataToProto(const ir::MetadataProps& props, Message* msg) {
  for (const auto& [k, v] : props) {
    auto* e = msg->add_metadata_props();
    e->set_key(k);
    e->set_value(v);
  }
}

Result<std::vector<ir::Dim>> ShapeFromProto(const pb::TensorShapeProto& s) {
  std::vector<ir::Dim> dims;
  for (const auto& d : s.dim()) {
    ir::Dim dim;
    if (d.has_dim_value()) {
      dim = ir::Dim::Value(d.dim_value());
    } else if (d.has_dim_param()) {
      dim = ir::Dim::Param(d.dim_param());
    }
    dim.denotation = d.denotation();
    dims.push_back(std::move(dim));
  }
  return dims;
}

void ShapeToProto(const std::vector<ir::Dim>& dims, pb::TensorShapeProto* s) {
  for (const auto& d : dims) {
    auto* pd = s->add_dim();
    if (d.is_value()) pd->set_dim_value(d.value);
    if (d.is_param()) pd->set_dim_param(d.param);
    if (!d.denotation.empty()) pd->set_denotation(d.denotation);
  }
}

Result<ir::ValueInfo> ValueInfoFromProto(const pb::ValueInfoProto& p) {
  ir::ValueInfo vi;
  vi.name = p.name();
  vi.doc_string = p.doc_string();
  vi.metadata_props = MetadataFromProto(p.metadata_props());
  if (p.has_type()) {
    auto t = TypeFromProto(p.type());
    if (!t.ok()) return t.status().WithContext("value '" + p.name() + "'");
    vi.type = std::move(t).value();
  }
  return vi;
}

void ValueInfoToProto(const ir::ValueInfo& vi, pb::ValueInfoProto* p) {
  p->set_name(vi.name);
  if (vi.type) TypeToProto(*vi.type, p->mutable_type());
  if (!vi.doc_string.empty()) p->set_doc_string(vi.doc_string);
  MetadataToProto(vi.metadata_props, p);
}

Result<ir::Attribute> AttributeFromProto(const pb::AttributeProto& p, ExternalDataResolver* resolver);
void AttributeToProto(const ir::Attribute& a, pb::AttributeProto* p, ExternalDataWriter* ext);
void GraphToProtoImpl(const ir::Graph& g, pb::GraphProto* p, ExternalDataWriter* ext);

// A tensor into `p`: its bytes inline, or into the external-data file when one is being written and takes it.
void TensorOut(const ir::NamedTensor& nt, pb::TensorProto* p, ExternalDataWriter* ext) {
  if (ext == nullptr || !ext->Takes(nt.tensor)) {
    NamedTensorToProto(nt, p);
    return;
  }
  NamedTensorHeaderToProto(nt, p);
  p->set_data_type(static_cast<int32_t>(nt.tensor.type()));
  for (int64_t d : nt.tensor.shape()) p->add_dims(d);
  ext->Write(nt.tensor, p);
}

Result<ir::Node> NodeFromProto(const pb::NodeProto& p, ExternalDataResolver* resolver) {
  ir::Node n;
  n.name = p.name();
  n.op_type = p.op_type();
  n.domain = p.domain();
  n.overload = p.overload();
  n.inputs.assign(p.input().begin(), p.input().end());
  n.outputs.assign(p.output().begin(), p.output().end());
  n.doc_string = p.doc_string();
  n.metadata_props = MetadataFromProto(p.metadata_props());
  for (const auto& dc : p.device_configurations()) n.device_configurations.push_back(dc.SerializeAsString());
  for (const auto& a : p.attribute()) {
    auto attr = AttributeFromProto(a, resolver);
    if (!attr.ok()) return attr.status().WithContext(n.Describe() + ", attribute '" + a.name() + "'");
    n.attributes.push_back(std::move(attr).value());
  }
  return n;
}

void NodeToProto(const ir::Node& n, pb::NodeProto* p, ExternalDataWriter* ext) {
  for (const auto& i : n.inputs) p->add_input(i);
  for (const auto& o : n.outputs) p->add_output(o);
  if (!n.name.empty()) p->set_name(n.name);
  p->set_op_type(n.op_type);
  if (!n.domain.empty()) p->set_domain(n.domain);
  if (!n.overload.empty()) p->set_overload(n.overload);
  for (const auto& a : n.attributes) AttributeToProto(a, p->add_attribute(), ext);
  if (!n.doc_string.empty()) p->set_doc_string(n.doc_string);
  MetadataToProto(n.metadata_props, p);
  for (const auto& dc : n.device_configurations) p->add_device_configurations()->ParseFromString(dc);
}

Result<ir::Attribute> AttributeFromProto(const pb::AttributeProto& p, ExternalDataResolver* resolver) {
  ir::Attribute a;
  a.name = p.name();
  a.ref_attr_name = p.ref_attr_name();
  a.doc_string = p.doc_string();
  a.type = static_cast<ir::AttrType>(p.type());
  if (!p.has_type()) {
    // IR < 0.0.2 files may omit the type: infer it from the field that is set.
    if (p.has_f())
      a.type = ir::AttrType::kFloat;
    else if (p.has_i())
      a.type = ir::AttrType::kInt;
    else if (p.has_s())
      a.type = ir::AttrType::kString;
    else if (p.has_t())
      a.type = ir::AttrType::kTensor;
    else if (p.has_g())
      a.type = ir::AttrType::kGraph;
    else if (p.floats_size())
      a.type = ir::AttrType::kFloats;
    else if (p.ints_size())
      a.type = ir::AttrType::kInts;
    else if (p.strings_size())
      a.type = ir::AttrType::kStrings;
    else if (p.tensors_size())
      a.type = ir::AttrType::kTensors;
    else if (p.graphs_size())
      a.type = ir::AttrType::kGraphs;
  }
  a.f = p.f();
  a.i = p.i();
  a.s = p.s();
  if (p.has_t()) {
    ONYX_ASSIGN_OR_RETURN(a.t, NamedTensorFromProto(p.t(), resolver));
  }
  if (p.has_g()) {
    ONYX_ASSIGN_OR_RETURN(auto g, GraphFromProto(p.g(), resolver));
    a.g = std::make_shared<ir::Graph>(std::move(g));
  }
  if (p.has_tp()) {
    ONYX_ASSIGN_OR_RETURN(a.tp, TypeFromProto(p.tp()));
  }
  a.floats.assign(p.floats().begin(), p.floats().end());
  a.ints.assign(p.ints().begin(), p.ints().end());
  a.strings.assign(p.strings().begin(), p.strings().end());
  for (const auto& t : p.tensors()) {
    ONYX_ASSIGN_OR_RETURN(auto nt, NamedTensorFromProto(t, resolver));
    a.tensors.push_back(std::move(nt));
  }
  for (const auto& g : p.graphs()) {
    ONYX_ASSIGN_OR_RETURN(auto sg, GraphFromProto(g, resolver));
    a.graphs.push_back(std::make_shared<ir::Graph>(std::move(sg)));
  }
  for (const auto& tp : p.type_protos()) {
    ONYX_ASSIGN_OR_RETURN(auto t, TypeFromProto(tp));
    a.type_protos.push_back(std::move(t));
  }
  if (p.has_sparse_tensor()) a.sparse_tensor = p.sparse_tensor().SerializeAsString();
  for (const auto& st : p.sparse_tensors()) a.sparse_tensors.push_back(st.SerializeAsString());
  return a;
}

void AttributeToProto(const ir::Attribute& a, pb::AttributeProto* p, ExternalDataWriter* ext) {
  p->set_name(a.name);
  if (!a.ref_attr_name.empty()) p->set_ref_attr_name(a.ref_attr_name);
  if (!a.doc_string.empty()) p->set_doc_string(a.doc_string);
  p->set_type(static_cast<pb::AttributeProto::AttributeType>(a.type));
  if (!a.ref_attr_name.empty()) return;
  switch (a.type) {
    case ir::AttrType::kFloat:
      p->set_f(a.f);
      break;
    case ir::AttrType::kInt:
      p->set_i(a.i);
      break;
    case ir::AttrType::kString:
      p->set_s(a.s);
      break;
    case ir::AttrType::kTensor:
      TensorOut(a.t, p->mutable_t(), ext);
      break;
    case ir::AttrType::kGraph:
      if (a.g) GraphToProtoImpl(*a.g, p->mutable_g(), ext);
      break;
    case ir::AttrType::kTypeProto:
      if (a.tp) TypeToProto(*a.tp, p->mutable_tp());
      break;
    case ir::AttrType::kSparseTensor:
      p->mutable_sparse_tensor()->ParseFromString(a.sparse_tensor);
      break;
    default:
      break;
  }
  for (float f : a.floats) p->add_floats(f);
  for (int64_t i : a.ints) p->add_ints(i);
  for (const auto& s : a.strings) p->add_strings(s);
  for (const auto& t : a.tensors) TensorOut(t, p->add_tensors(), ext);
  for (const auto& g : a.graphs) GraphToProtoImpl(*g, p->add_graphs(), ext);
  for (const auto& t : a.type_protos) TypeToProto(t, p->add_type_protos());
  for (const auto& st : a.sparse_tensors) p->add_sparse_tensors()->ParseFromString(st);
}

Result<ir::Function> FunctionFromProto(const pb::FunctionProto& p, ExternalDataResolver* resolver) {
  ir::Function f;
  f.name = p.name();
  f.domain = p.domain();
  f.overload = p.overload();
  f.inputs.assign(p.input().begin(), p.input().end());
  f.outputs.assign(p.output().begin(), p.output().end());
  f.attributes.assign(p.attribute().begin(), p.attribute().end());
  for (const auto& a : p.attribute_proto()) {
    ONYX_ASSIGN_OR_RETURN(auto attr, AttributeFromProto(a, resolver));
    f.attribute_defaults.push_back(std::move(attr));
  }
  for (const auto& n : p.node()) {
    ONYX_ASSIGN_OR_RETURN(auto node, NodeFromProto(n, resolver));
    f.nodes.push_back(std::move(node));
  }
  f.doc_string = p.doc_string();
  for (const auto& o : p.opset_import()) f.opset_import.push_back({o.domain(), o.version()});
  for (const auto& vi : p.value_info()) {
    ONYX_ASSIGN_OR_RETURN(auto v, ValueInfoFromProto(vi));
    f.value_info.push_back(std::move(v));
  }
  f.metadata_props = MetadataFromProto(p.metadata_props());
  return f;
}

void FunctionToProto(const ir::Function& f, pb::FunctionProto* p, ExternalDataWriter* ext) {
  p->set_name(f.name);
  if (!f.domain.empty()) p->set_domain(f.domain);
  if (!f.overload.empty()) p->set_overload(f.overload);
  for (const auto& i : f.inputs) p->add_input(i);
  for (const auto& o : f.outputs) p->add_output(o);
  for (const auto& a : f.attributes) p->add_attribute(a);
  for (const auto& a : f.attribute_defaults) AttributeToProto(a, p->add_attribute_proto(), ext);
  for (const auto& n : f.nodes) NodeToProto(n, p->add_node(), ext);
  if (!f.doc_string.empty()) p->set_doc_string(f.doc_string);
  for (const auto& o : f.opset_import) {
    auto* op = p->add_opset_import();
    op->set_domain(o.domain);
    op->set_version(o.version);
  }
  for (const auto& vi : f.value_info) ValueInfoToProto(vi, p->add_value_info());
  MetadataToProto(f.metadata_props, p);
}

}  // namespace

Result<ir::TypeInfo> TypeFromProto(const pb::TypeProto& p) {
  using Kind = ir::TypeInfo::Kind;
  ir::TypeInfo t;
  t.denotation = p.denotation();
  auto elem_type = [](int32_t v) -> Result<DataType> {
    if (v != 0 && !IsValidDataType(v)) return InvalidArgument("invalid element type " + std::to_string(v));
    return static_cast<DataType>(v);
  };
  switch (p.value_case()) {
    case pb::TypeProto::kTensorType: {
      t.kind = Kind::kTensor;
      ONYX_ASSIGN_OR_RETURN(t.elem_type, elem_type(p.tensor_type().elem_type()));
      if (p.tensor_type().has_shape()) {
        ONYX_ASSIGN_OR_RETURN(t.shape, ShapeFromProto(p.tensor_type().shape()));
      }
      break;
    }
    case pb::TypeProto::kSparseTensorType: {
      t.kind = Kind::kSparseTensor;
      ONYX_ASSIGN_OR_RETURN(t.elem_type, elem_type(p.sparse_tensor_type().elem_type()));
      if (p.sparse_tensor_type().has_shape()) {
        ONYX_ASSIGN_OR_RETURN(t.shape, ShapeFromProto(p.sparse_tensor_type().shape()));
      }
      break;
    }
    case pb::TypeProto::kSequenceType: {
      t.kind = Kind::kSequence;
      if (p.sequence_type().has_elem_type()) {
        ONYX_ASSIGN_OR_RETURN(auto e, TypeFromProto(p.sequence_type().elem_type()));
        t.elem = std::make_shared<ir::TypeInfo>(std::move(e));
      }
      break;
    }
    case pb::TypeProto::kOptionalType: {
      t.kind = Kind::kOptional;
      if (p.optional_type().has_elem_type()) {
        ONYX_ASSIGN_OR_RETURN(auto e, TypeFromProto(p.optional_type().elem_type()));
        t.elem = std::make_shared<ir::TypeInfo>(std::move(e));
      }
      break;
    }
    case pb::TypeProto::kMapType: {
      t.kind = Kind::kMap;
      ONYX_ASSIGN_OR_RETURN(t.elem_type, elem_type(p.map_type().key_type()));
      if (p.map_type().has_value_type()) {
        ONYX_ASSIGN_OR_RETURN(auto e, TypeFromProto(p.map_type().value_type()));
        t.elem = std::make_shared<ir::TypeInfo>(std::move(e));
      }
      break;
    }
    case pb::TypeProto::kOpaqueType:
      t.kind = Kind::kOpaque;
      t.opaque_domain = p.opaque_type().domain();
      t.opaque_name = p.opaque_type().name();
      break;
    case pb::TypeProto::VALUE_NOT_SET:
      break;
  }
  return t;
}

void TypeToProto(const ir::TypeInfo& t, pb::TypeProto* p) {
  using Kind = ir::TypeInfo::Kind;
  if (!t.denotation.empty()) p->set_denotation(t.denotation);
  switch (t.kind) {
    case Kind::kTensor: {
      auto* tt = p->mutable_tensor_type();
      tt->set_elem_type(static_cast<int32_t>(t.elem_type));
      if (t.shape) ShapeToProto(*t.shape, tt->mutable_shape());
      break;
    }
    case Kind::kSparseTensor: {
      auto* tt = p->mutable_sparse_tensor_type();
      tt->set_elem_type(static_cast<int32_t>(t.elem_type));
      if (t.shape) ShapeToProto(*t.shape, tt->mutable_shape());
      break;
    }
    case Kind::kSequence: {
      auto* s = p->mutable_sequence_type();
      if (t.elem) TypeToProto(*t.elem, s->mutable_elem_type());
      break;
    }
    case Kind::kOptional: {
      auto* s = p->mutable_optional_type();
      if (t.elem) TypeToProto(*t.elem, s->mutable_elem_type());
      break;
    }
    case Kind::kMap: {
      auto* m = p->mutable_map_type();
      m->set_key_type(static_cast<int32_t>(t.elem_type));
      if (t.elem) TypeToProto(*t.elem, m->mutable_value_type());
      break;
    }
    case Kind::kOpaque: {
      auto* o = p->mutable_opaque_type();
      o->set_domain(t.opaque_domain);
      o->set_name(t.opaque_name);
      break;
    }
    case Kind::kUndefined:
      break;
  }
}

Result<ir::Graph> GraphFromProto(const pb::GraphProto& p, ExternalDataResolver* resolver) {
  ir::Graph g;
  g.name = p.name();
  g.doc_string = p.doc_string();
  for (const auto& n : p.node()) {
    ONYX_ASSIGN_OR_RETURN(auto node, NodeFromProto(n, resolver));
    g.nodes.push_back(std::move(node));
  }
  for (const auto& vi : p.input()) {
    ONYX_ASSIGN_OR_RETURN(auto v, ValueInfoFromProto(vi));
    g.inputs.push_back(std::move(v));
  }
  for (const auto& vi : p.output()) {
    ONYX_ASSIGN_OR_RETURN(auto v, ValueInfoFromProto(vi));
    g.outputs.push_back(std::move(v));
  }
  for (const auto& vi : p.value_info()) {
    ONYX_ASSIGN_OR_RETURN(auto v, ValueInfoFromProto(vi));
    g.value_info.push_back(std::move(v));
  }
  for (const auto& t : p.initializer()) {
    ONYX_ASSIGN_OR_RETURN(auto nt, NamedTensorFromProto(t, resolver));
    g.initializers.push_back(std::move(nt));
  }
  for (const auto& st : p.sparse_initializer()) g.sparse_initializers.push_back(st.SerializeAsString());
  for (const auto& qa : p.quantization_annotation()) g.quantization_annotation.push_back(qa.SerializeAsString());
  g.metadata_props = MetadataFromProto(p.metadata_props());
  return g;
}

void GraphToProto(const ir::Graph& g, pb::GraphProto* p) { GraphToProtoImpl(g, p, nullptr); }

namespace {

void GraphToProtoImpl(const ir::Graph& g, pb::GraphProto* p, ExternalDataWriter* ext) {
  for (const auto& n : g.nodes) NodeToProto(n, p->add_node(), ext);
  if (!g.name.empty()) p->set_name(g.name);
  for (const auto& t : g.initializers) TensorOut(t, p->add_initializer(), ext);
  for (const auto& st : g.sparse_initializers) p->add_sparse_initializer()->ParseFromString(st);
  if (!g.doc_string.empty()) p->set_doc_string(g.doc_string);
  for (const auto& vi : g.inputs) ValueInfoToProto(vi, p->add_input());
  for (const auto& vi : g.outputs) ValueInfoToProto(vi, p->add_output());
  for (const auto& vi : g.value_info) ValueInfoToProto(vi, p->add_value_info());
  for (const auto& qa : g.quantization_annotation) p->add_quantization_annotation()->ParseFromString(qa);
  MetadataToProto(g.metadata_props, p);
}

}  // namespace

namespace {

Result<ir::Model> ModelFromProtoImpl(const pb::ModelProto& p, ExternalDataResolver& resolver);

}  // namespace

Result<ir::Model> ModelFromProto(const pb::ModelProto& p, const std::string& base_dir, bool load_external_data) {
  ExternalDataResolver resolver(base_dir);
  resolver.set_allow_external(load_external_data);
  return ModelFromProtoImpl(p, resolver);
}

Result<ir::Model> ModelFromProtoTakingWeights(std::shared_ptr<pb::ModelProto> proto, const std::string& base_dir,
                                              bool load_external_data) {
  // Smaller weights stay in the message: an allocation each would gain nothing.
  constexpr size_t kOwnAllocationMinBytes = 1024;
  ExternalDataResolver resolver(base_dir);
  resolver.set_allow_external(load_external_data);
  // The main graph's weights leave the message one by one (no copy: a heap-allocated message hands its strings
  // over), each then owned by its tensor alone.
  if (proto->GetArena() == nullptr) {
    for (pb::TensorProto& t : *proto->mutable_graph()->mutable_initializer()) {
      if (t.has_raw_data() && t.raw_data().size() >= kOwnAllocationMinBytes) {
        resolver.AddReleasedRawData(&t, std::shared_ptr<std::string>(t.release_raw_data()));
      }
    }
  }
  const pb::ModelProto& p = *proto;
  resolver.set_message_keeper(std::shared_ptr<const pb::ModelProto>(std::move(proto)));
  return ModelFromProtoImpl(p, resolver);
}

namespace {

Result<ir::Model> ModelFromProtoImpl(const pb::ModelProto& p, ExternalDataResolver& resolver) {
  ir::Model m;
  m.ir_version = p.ir_version();
  for (const auto& o : p.opset_import()) m.opset_import.push_back({o.domain(), o.version()});
  m.producer_name = p.producer_name();
  m.producer_version = p.producer_version();
  m.domain = p.domain();
  m.model_version = p.model_version();
  m.doc_string = p.doc_string();
  m.metadata_props = MetadataFromProto(p.metadata_props());
  ExternalDataResolver* r = &resolver;
  if (p.has_graph()) {
    ONYX_ASSIGN_OR_RETURN(m.graph, GraphFromProto(p.graph(), r));
  }
  for (const auto& ti : p.training_info()) m.training_info.push_back(ti.SerializeAsString());
  for (const auto& f : p.functions()) {
    auto fn = FunctionFromProto(f, r);
    if (!fn.ok()) return fn.status().WithContext("function '" + f.name() + "'");
    m.functions.push_back(std::move(fn).value());
  }
  for (const auto& c : p.configuration()) m.configuration.push_back(c.SerializeAsString());
  return m;
}

}  // namespace

namespace {

void ModelToProtoImpl(const ir::Model& m, pb::ModelProto* p, ExternalDataWriter* ext) {
  p->set_ir_version(m.ir_version);
  for (const auto& o : m.opset_import) {
    auto* op = p->add_opset_import();
    op->set_domain(o.domain);
    op->set_version(o.version);
  }
  if (!m.producer_name.empty()) p->set_producer_name(m.producer_name);
  if (!m.producer_version.empty()) p->set_producer_version(m.producer_version);
  if (!m.domain.empty()) p->set_domain(m.domain);
  if (m.model_version != 0) p->set_model_version(m.model_version);
  if (!m.doc_string.empty()) p->set_doc_string(m.doc_string);
  GraphToProtoImpl(m.graph, p->mutable_graph(), ext);
  MetadataToProto(m.metadata_props, p);
  for (const auto& ti : m.training_info) p->add_training_info()->ParseFromString(ti);
  for (const auto& f : m.functions) FunctionToProto(f, p->add_functions(), ext);
  for (const auto& c : m.configuration) p->add_configuration()->ParseFromString(c);
}

}  // namespace

void ModelToProto(const ir::Model& m, pb::ModelProto* p) { ModelToProtoImpl(m, p, nullptr); }

namespace {

// Hands a memory-mapped model to the protobuf parser in 1 MiB chunks and drops the chunks it has moved past from
// the resident set (madvise MADV_DONTNEED: clean pages of a read-only file mapping, read again from the file if
// ever touched again). Without it, loading keeps both the whole file and its parsed copy resident, doubling the peak
// memory of large models.
class ReleasingInputStream : public google::protobuf::io::ZeroCopyInputStream {
 public:
  static constexpr size_t kChunk = size_t{1} << 20;

  ReleasingInputStream(const char* data, size_t size) : data_(data), size_(size) {}

  bool Next(const void** data, int* size) override {
    if (pos_ >= size_) return false;
    // The parser may still read a few bytes of the previous chunk (protobuf's slop region), so release only
    // chunks two behind.
    if (pos_ >= 2 * kChunk) {
      const size_t release_end = (pos_ - kChunk) / kChunk * kChunk;
      if (release_end > released_) {
        madvise(const_cast<char*>(data_) + released_, release_end - released_, MADV_DONTNEED);
        released_ = release_end;
      }
    }
    const size_t n = std::min(kChunk, size_ - pos_);
    *data = data_ + pos_;
    *size = static_cast<int>(n);
    pos_ += n;
    return true;
  }
  void BackUp(int count) override { pos_ -= static_cast<size_t>(count); }
  bool Skip(int count) override {
    const size_t n = std::min(static_cast<size_t>(count), size_ - pos_);
    pos_ += n;
    return n == static_cast<size_t>(count);
  }
  int64_t ByteCount() const override { return static_cast<int64_t>(pos_); }

 private:
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
  size_t released_ = 0;
};

Status CheckProtobufSize(size_t size) {
  if (size > static_cast<size_t>(INT32_MAX)) {
    return InvalidArgument("the protobuf part of a model cannot exceed 2 GiB; store large tensors as external data");
  }
  return Status::Ok();
}

// Nodes of `graph` and its subgraphs, counting stops once past `limit` (the recursion is bounded by the protobuf
// depth limit the parse enforced).
int64_t CountNodes(const pb::GraphProto& graph, int64_t limit) {
  int64_t count = graph.node_size();
  for (const auto& node : graph.node()) {
    for (const auto& attr : node.attribute()) {
      if (count > limit) return count;
      if (attr.has_g()) count += CountNodes(attr.g(), limit - count);
      for (const auto& g : attr.graphs()) count += CountNodes(g, limit - count);
    }
  }
  return count;
}

Result<ir::Model> LoadModelFromStream(google::protobuf::io::ZeroCopyInputStream* stream, size_t size,
                                      const std::string& base_dir, const LoadOptions& options) {
  ONYX_RETURN_IF_ERROR(CheckProtobufSize(size));
  auto shared_proto = std::make_shared<pb::ModelProto>();
  pb::ModelProto& proto = *shared_proto;
  google::protobuf::io::CodedInputStream coded(stream);
  coded.SetTotalBytesLimit(INT32_MAX);
  const int64_t max_depth = MaxProtobufDepth();
  // A corrupt file (invalid UTF-8 in a string field, say) makes libprotobuf log its own line to stderr; the error
  // below is the one line the user gets.
  google::protobuf::LogSilencer quiet;
  coded.SetRecursionLimit(static_cast<int>(std::min<int64_t>(max_depth, INT32_MAX)));
  if (!proto.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    return InvalidArgument(
        "not a valid ONNX model (protobuf parse failed: truncated or corrupt file, or messages nested deeper than " +
        std::to_string(max_depth) + " levels; raise that limit with ONYX_MAX_PROTOBUF_DEPTH)");
  }
  if (!proto.has_graph() && proto.opset_import_size() == 0 && !proto.has_ir_version()) {
    return InvalidArgument("not an ONNX model (no graph, no ir_version, no opset_import)");
  }
  const int64_t max_nodes = MaxGraphNodes();
  int64_t nodes = CountNodes(proto.graph(), max_nodes);
  for (const auto& f : proto.functions()) nodes += f.node_size();
  if (nodes > max_nodes) {
    return InvalidArgument("the model has more than " + std::to_string(max_nodes) +
                           " nodes (subgraphs and functions included); raise that limit with ONYX_MAX_GRAPH_NODES");
  }
  ONYX_ASSIGN_OR_RETURN(ir::Model model,
                        ModelFromProtoTakingWeights(std::move(shared_proto), base_dir, options.load_external_data));
  if (options.sort_topologically) ONYX_RETURN_IF_ERROR(ir::TopologicalSort(model.graph));
  return model;
}

}  // namespace

Result<ir::Model> LoadModelFromBytes(std::string_view bytes, const std::string& base_dir, const LoadOptions& options) {
  ONYX_RETURN_IF_ERROR(CheckProtobufSize(bytes.size()));  // before ArrayInputStream's int size
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  return LoadModelFromStream(&raw, bytes.size(), base_dir, options);
}

Result<ir::Model> LoadModel(const std::string& path, const LoadOptions& options) {
  auto mapped = MappedFile::Open(path);
  if (!mapped.ok()) return mapped.status();
  const auto& file = *mapped;
  std::string base_dir = fs::path(path).parent_path().string();
  ReleasingInputStream stream(file->data(), file->size());
  auto model = LoadModelFromStream(&stream, file->size(), base_dir, options);
  if (!model.ok()) return model.status().WithContext("'" + path + "'");
  return model;
}

namespace {

// A session's model whose kernels took over initializers (KernelInfo::AdoptConstantInput) holds shells of them:
// a type and shape without bytes, which cannot be written.
Status CheckWeightsPresent(const ir::Model& model) {
  for (const auto& init : model.graph.initializers) {
    if (init.tensor.raw() == nullptr && init.tensor.nbytes() > 0 && init.tensor.type() != DataType::kString) {
      return InvalidArgument("initializer '" + init.name +
                             "' was handed to the kernels that packed it (a session's model keeps no bytes of such "
                             "weights): save the model before creating a session from it");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> SerializeModel(const ir::Model& model) {
  ONYX_RETURN_IF_ERROR(CheckWeightsPresent(model));
  pb::ModelProto proto;
  ModelToProto(model, &proto);
  std::string out;
  if (!proto.SerializeToString(&out)) {
    return InvalidArgument("the model does not fit in one protobuf (2 GiB); save with external data");
  }
  return out;
}

namespace {

// Bytes of every tensor a model holds (initializers, tensor attributes, subgraphs, functions).
int64_t TensorBytes(const ir::Graph& g);

int64_t AttributeTensorBytes(const ir::Attribute& a) {
  int64_t total = 0;
  if (a.type == ir::AttrType::kTensor) total += static_cast<int64_t>(a.t.tensor.nbytes());
  for (const auto& t : a.tensors) total += static_cast<int64_t>(t.tensor.nbytes());
  if (a.g) total += TensorBytes(*a.g);
  for (const auto& g : a.graphs) total += TensorBytes(*g);
  return total;
}

int64_t TensorBytes(const ir::Graph& g) {
  int64_t total = 0;
  for (const auto& t : g.initializers) total += static_cast<int64_t>(t.tensor.nbytes());
  for (const auto& n : g.nodes) {
    for (const auto& a : n.attributes) total += AttributeTensorBytes(a);
  }
  return total;
}

int64_t ModelTensorBytes(const ir::Model& m) {
  int64_t total = TensorBytes(m.graph);
  for (const auto& f : m.functions) {
    for (const auto& n : f.nodes) {
      for (const auto& a : n.attributes) total += AttributeTensorBytes(a);
    }
  }
  return total;
}

}  // namespace

Status SaveModel(const ir::Model& model, const std::string& path, const SaveOptions& options) {
  ONYX_RETURN_IF_ERROR(CheckWeightsPresent(model));
  const fs::path out(path);
  const std::string dir = out.parent_path().string();
  const std::string file_name = out.filename().string();
  using Mode = SaveOptions::ExternalData;
  const int64_t tensor_bytes = ModelTensorBytes(model);
  bool external = options.external_data == Mode::kAlways ||
                  (options.external_data == Mode::kAuto &&
                   (options.external_data_threshold >= 0 || tensor_bytes > options.auto_external_bytes));
  pb::ModelProto proto;
  std::optional<ExternalDataWriter> ext;
  if (external) {
    const std::string location =
        options.external_data_location.empty() ? file_name + ".data" : options.external_data_location;
    if (location == file_name) {
      return InvalidArgument("external data '" + location + "' cannot be the model file itself");
    }
    ONYX_ASSIGN_OR_RETURN(ExternalDataWriter w, ExternalDataWriter::Create(dir, location,
                                                                           options.external_data_threshold >= 0
                                                                               ? options.external_data_threshold
                                                                               : SaveOptions::kDefaultSizeThreshold,
                                                                           options.alignment));
    ext.emplace(std::move(w));
  }
  ModelToProtoImpl(model, &proto, ext ? &*ext : nullptr);
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) {
    return InvalidArgument(
        options.external_data == Mode::kNever
            ? "model too large for one protobuf (2 GiB) and external data was refused (--no-external-data)"
            : "model too large for one protobuf (2 GiB) even with its tensors in external data");
  }
  ONYX_ASSIGN_OR_RETURN(AtomicFileWriter model_file, AtomicFileWriter::Create(dir, file_name, "model"));
  ONYX_RETURN_IF_ERROR(model_file.Append(bytes));
  if (ext) ONYX_RETURN_IF_ERROR(ext->Commit());  // the data first: the model never refers to a missing file
  return model_file.Commit();
}

}  // namespace onyx::format

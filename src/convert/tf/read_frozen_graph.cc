// Frozen TensorFlow graphs: a GraphDef .pb is parsed with onyx's transcription of its schema (proto/tf_graph.proto)
// and printed as proto3 JSON, the form TF.js graph-models store, so that one converter serves both.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/json_util.h>

#include "convert/tf/converter.h"
#include "core/mapped_file.h"
#include "proto/tf_graph.pb.h"

namespace onyx::convert::tf {

Result<ir::Model> ConvertTfFrozenGraph(const std::string& path, const TfConvertOptions& options,
                                       TfConvertReport* report) {
  ONYX_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  tfpb::GraphDef graph;
  // A string field holding invalid UTF-8 fails the parse, and libprotobuf would also log it on stderr: the one-line
  // error below is the only report.
  google::protobuf::LogSilencer quiet;
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(std::min<size_t>(bytes.size(), INT32_MAX)));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT32_MAX);
  if (bytes.size() > INT32_MAX || !graph.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    return InvalidArgument(path + ": not a TensorFlow GraphDef (the protobuf does not parse)");
  }
  if (graph.node_size() == 0) return InvalidArgument(path + ": a GraphDef without nodes");
  std::string text;
  google::protobuf::util::JsonPrintOptions print;
  if (!google::protobuf::util::MessageToJsonString(graph, &text, print).ok()) {
    return Internal(path + ": the GraphDef cannot be printed as JSON");
  }
  nlohmann::json topology = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (topology.is_discarded()) return Internal(path + ": the GraphDef's JSON does not parse back");
  nlohmann::json root = {{"format", "graph-model"}, {"modelTopology", std::move(topology)}};
  return ConvertGraphJson(root, {}, path, options, report);
}

}  // namespace onyx::convert::tf

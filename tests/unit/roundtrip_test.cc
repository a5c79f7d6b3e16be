// Load -> save -> load is lossless for every model of the ONNX test suites and ../shared/models, every one passes
// the checker, and every one prints in the text syntax.
#include <gtest/gtest.h>
#include <google/protobuf/util/message_differencer.h>

#include <filesystem>
#include <functional>

#include "checker/checker.h"
#include "core/mapped_file.h"
#include "format/model_io.h"
#include "format/tensor_proto.h"
#include "text/printer.h"

namespace onyx {
namespace {
namespace fs = std::filesystem;

std::vector<std::string> ModelFiles() {
  std::vector<std::string> roots = {std::string(ONYX_SHARED_DIR) + "/onnx-tests", std::string(ONYX_SHARED_DIR) + "/models",
                                    "/usr/share/libonnx-testdata/data", std::string(ONYX_SOURCE_DIR) + "/models"};
  std::vector<std::string> files;
  for (const auto& r : roots) {
    std::error_code ec;
    if (!fs::is_directory(r, ec)) continue;
    for (const auto& e : fs::recursive_directory_iterator(r)) {
      if (e.is_regular_file() && e.path().extension() == ".onnx") files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Rewrites every TensorProto in the model into the encoding onyx writes (raw_data), value for value, so that the
// comparison below checks everything else field by field.
void NormalizeTensors(pb::GraphProto* g, format::ExternalDataResolver* resolver);

void NormalizeTensor(pb::TensorProto* t, format::ExternalDataResolver* resolver) {
  auto nt = format::NamedTensorFromProto(*t, resolver);
  ASSERT_TRUE(nt.ok()) << nt.status().message();
  pb::TensorProto out;
  format::NamedTensorToProto(*nt, &out);
  *t = out;
}

void NormalizeAttributes(google::protobuf::RepeatedPtrField<pb::AttributeProto>* attrs,
                         format::ExternalDataResolver* resolver) {
  for (auto& a : *attrs) {
    if (a.has_t()) NormalizeTensor(a.mutable_t(), resolver);
    for (auto& t : *a.mutable_tensors()) NormalizeTensor(&t, resolver);
    if (a.has_g()) NormalizeTensors(a.mutable_g(), resolver);
    for (auto& g : *a.mutable_graphs()) NormalizeTensors(&g, resolver);
  }
}

void NormalizeTensors(pb::GraphProto* g, format::ExternalDataResolver* resolver) {
  for (auto& t : *g->mutable_initializer()) NormalizeTensor(&t, resolver);
  for (auto& n : *g->mutable_node()) NormalizeAttributes(n.mutable_attribute(), resolver);
}

TEST(RoundTrip, EveryModelIsLosslessAndPrints) {
  auto files = ModelFiles();
  if (files.empty()) GTEST_SKIP() << "no model folders found";
  int checked = 0;
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    auto bytes = ReadFileToString(path);
    ASSERT_TRUE(bytes.ok());
    pb::ModelProto original;
    ASSERT_TRUE(original.ParseFromString(*bytes));
    auto model = format::ModelFromProto(original, fs::path(path).parent_path().string(), true);
    ASSERT_TRUE(model.ok()) << model.status().message();
    pb::ModelProto saved;
    format::ModelToProto(*model, &saved);

    format::ExternalDataResolver resolver(fs::path(path).parent_path().string());
    NormalizeTensors(original.mutable_graph(), &resolver);
    for (auto& f : *original.mutable_functions()) {
      for (auto& n : *f.mutable_node()) NormalizeAttributes(n.mutable_attribute(), &resolver);
    }
    std::string diff;
    google::protobuf::util::MessageDifferencer differ;
    // An explicitly set empty string equals an unset field: both mean the default.
    differ.set_message_field_comparison(google::protobuf::util::MessageDifferencer::EQUIVALENT);
    differ.ReportDifferencesToString(&diff);
    EXPECT_TRUE(differ.Compare(original, saved)) << diff.substr(0, 2000);
    if (checked == 0 && saved.graph().node_size() > 0) {
      // The comparison can fail: a changed node name is caught.
      pb::ModelProto changed = saved;
      changed.mutable_graph()->mutable_node(0)->set_name("renamed_by_the_test");
      EXPECT_FALSE(differ.Compare(original, changed));
    }

    // Saving and loading again gives the same bytes.
    auto again = format::LoadModelFromBytes(saved.SerializeAsString(), "", {true, false});
    ASSERT_TRUE(again.ok()) << again.status().message();
    pb::ModelProto saved2;
    format::ModelToProto(*again, &saved2);
    EXPECT_EQ(saved.SerializeAsString(), saved2.SerializeAsString());

    // Every official and real model is valid: the checker has no false positives on them.
    auto problems = checker::CheckModel(*model);
    EXPECT_TRUE(problems.empty()) << problems[0].ToString();

    text::PrintOptions po;
    po.max_elements = 16;
    std::string text = text::PrintModel(*model, po);
    EXPECT_NE(text.find("=>"), std::string::npos);
    ++checked;
  }
  std::printf("round-tripped and printed %d models\n", checked);
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace onyx

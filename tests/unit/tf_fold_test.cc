// Dilated convolutions written as SpaceToBatchND -> conv -> BatchToSpaceND fold into one convolution exactly where
// the rewrite is exact (the values are checked against TF.js by ctest tf_ops on the same cases).
#include <gtest/gtest.h>

#include <string>

#include "convert/tf/converter.h"

namespace onyx::convert::tf {
namespace {

int Folded(const std::string& case_name) {
  const std::string path = std::string(ONYX_SOURCE_DIR) + "/tests/data/tf_ops/" + case_name + "/model.json";
  TfConvertReport report;
  auto model = ConvertTfjsGraphModel(path, {}, &report);
  EXPECT_TRUE(model.ok()) << case_name << ": " << model.status().message();
  return report.dilated_convolutions_folded;
}

TEST(TfFoldDilatedConv, FoldsTheExactChains) {
  EXPECT_EQ(Folded("SpaceToBatchND_fold_conv_rate2"), 1);
  EXPECT_EQ(Folded("SpaceToBatchND_fold_conv_rate2x3_batch2"), 1);
  EXPECT_EQ(Folded("SpaceToBatchND_fold_depthwise_rate4"), 1);
  EXPECT_EQ(Folded("SpaceToBatchND_fold_unknown_dims"), 1);
  EXPECT_EQ(Folded("Conv2D_dilated_as_space_to_batch"), 1);
}

TEST(TfFoldDilatedConv, LeavesOtherChainsAsWritten) {
  EXPECT_EQ(Folded("SpaceToBatchND_nofold_strided"), 0);
  EXPECT_EQ(Folded("SpaceToBatchND_nofold_second_reader"), 0);
  EXPECT_EQ(Folded("SpaceToBatchND_nofold_crops_exceed_paddings"), 0);
}

}  // namespace
}  // namespace onyx::convert::tf

// schema.fbs BuiltinOperator values by name (StableHLO operators omitted: none has a converter).
#pragma once

#include <cstdint>

namespace onyx::convert::tflite::op {

constexpr int32_t kAdd = 0, kAveragePool2d = 1, kConcatenation = 2, kConv2d = 3, kDepthwiseConv2d = 4,
                  kDepthToSpace = 5, kDequantize = 6, kEmbeddingLookup = 7, kFloor = 8, kFullyConnected = 9,
                  kHashtableLookup = 10, kL2Normalization = 11, kL2Pool2d = 12, kLocalResponseNormalization = 13,
                  kLogistic = 14, kLshProjection = 15, kLstm = 16, kMaxPool2d = 17, kMul = 18, kRelu = 19,
                  kReluN1To1 = 20, kRelu6 = 21, kReshape = 22, kResizeBilinear = 23, kRnn = 24, kSoftmax = 25,
                  kSpaceToDepth = 26, kSvdf = 27, kTanh = 28, kConcatEmbeddings = 29, kSkipGram = 30, kCall = 31,
                  kCustom = 32, kEmbeddingLookupSparse = 33, kPad = 34, kUnidirectionalSequenceRnn = 35, kGather = 36,
                  kBatchToSpaceNd = 37, kSpaceToBatchNd = 38, kTranspose = 39, kMean = 40, kSub = 41, kDiv = 42,
                  kSqueeze = 43, kUnidirectionalSequenceLstm = 44, kStridedSlice = 45, kBidirectionalSequenceRnn = 46,
                  kExp = 47, kTopkV2 = 48, kSplit = 49, kLogSoftmax = 50, kDelegate = 51,
                  kBidirectionalSequenceLstm = 52, kCast = 53, kPrelu = 54, kMaximum = 55, kArgMax = 56, kMinimum = 57,
                  kLess = 58, kNeg = 59, kPadv2 = 60, kGreater = 61, kGreaterEqual = 62, kLessEqual = 63, kSelect = 64,
                  kSlice = 65, kSin = 66, kTransposeConv = 67, kSparseToDense = 68, kTile = 69, kExpandDims = 70,
                  kEqual = 71, kNotEqual = 72, kLog = 73, kSum = 74, kSqrt = 75, kRsqrt = 76, kShape = 77, kPow = 78,
                  kArgMin = 79, kFakeQuant = 80, kReduceProd = 81, kReduceMax = 82, kPack = 83, kLogicalOr = 84,
                  kOneHot = 85, kLogicalAnd = 86, kLogicalNot = 87, kUnpack = 88, kReduceMin = 89, kFloorDiv = 90,
                  kReduceAny = 91, kSquare = 92, kZerosLike = 93, kFill = 94, kFloorMod = 95, kRange = 96,
                  kResizeNearestNeighbor = 97, kLeakyRelu = 98, kSquaredDifference = 99, kMirrorPad = 100, kAbs = 101,
                  kSplitV = 102, kUnique = 103, kCeil = 104, kReverseV2 = 105, kAddN = 106, kGatherNd = 107, kCos = 108,
                  kWhere = 109, kRank = 110, kElu = 111, kReverseSequence = 112, kMatrixDiag = 113, kQuantize = 114,
                  kMatrixSetDiag = 115, kRound = 116, kHardSwish = 117, kIf = 118, kWhile = 119,
                  kNonMaxSuppressionV4 = 120, kNonMaxSuppressionV5 = 121, kScatterNd = 122, kSelectV2 = 123,
                  kDensify = 124, kSegmentSum = 125, kBatchMatmul = 126, kCumsum = 128, kCallOnce = 129,
                  kBroadcastTo = 130, kRfft2d = 131, kConv3d = 132, kImag = 133, kReal = 134, kComplexAbs = 135,
                  kHashtable = 136, kHashtableFind = 137, kHashtableImport = 138, kHashtableSize = 139,
                  kReduceAll = 140, kConv3dTranspose = 141, kVarHandle = 142, kReadVariable = 143,
                  kAssignVariable = 144, kBroadcastArgs = 145, kRandomStandardNormal = 146, kBucketize = 147,
                  kRandomUniform = 148, kMultinomial = 149, kGelu = 150, kDynamicUpdateSlice = 151, kRelu0To1 = 152,
                  kUnsortedSegmentProd = 153, kUnsortedSegmentMax = 154, kUnsortedSegmentSum = 155, kAtan2 = 156,
                  kUnsortedSegmentMin = 157, kSign = 158, kBitcast = 159, kBitwiseXor = 160, kRightShift = 161,
                  kDilate = 203, kReduceWindow = 205;

}  // namespace onyx::convert::tflite::op

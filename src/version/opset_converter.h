// Opset conversion: moves a model between versions of the default-domain (ai.onnx) opset, one version at a time,
// rewriting each node whose operator changes on the way with the adapter that change needs (attributes that
// became inputs, renamed or replaced operators, changed semantics). See docs/opset-conversion.md.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "ir/model.h"

namespace onyx::version {

// Returns `model` converted to default-domain opset `target_opset`: nodes of other domains, node names and
// everything else stay as they are; subgraphs and model-local functions are converted too; the opset import is
// updated (and, upward, the IR version raised to the one that opset needs). Fails with Unsupported naming the
// node, operator, versions and reason where a node cannot be expressed at the target (e.g. an input that must
// become an attribute but is not a constant).
Result<ir::Model> ConvertOpset(const ir::Model& model, int64_t target_opset);

// The newest default-domain opset the schema table knows.
int64_t LatestKnownOpset();

}  // namespace onyx::version

// Resource limits on what untrusted files may make onyx do, each read from an environment variable with a safe
// default (SECURITY.md lists them). A breach is a one-line error naming the limit and the variable that raises it.
#pragma once

#include <cstdint>

namespace onyx {

// The limit in the environment variable `name` (a positive decimal integer), or `fallback` when it is unset, empty
// or not one. Read at each call: limits are checked once per file, and tests change them.
int64_t EnvLimit(const char* name, int64_t fallback);

// Deepest nesting of protobuf messages in an ONNX model (ONYX_MAX_PROTOBUF_DEPTH, default 100 as protobuf's own):
// each level of subgraph costs three (NodeProto -> AttributeProto -> GraphProto), so the default allows about 30
// levels of If/Loop/Scan bodies while parsing stays far from the end of the stack.
int64_t MaxProtobufDepth();

// Most nodes in one model, subgraphs included (ONYX_MAX_GRAPH_NODES, default 10,000,000: the largest exported
// language models have a few hundred thousand), so that the passes over a graph stay bounded.
int64_t MaxGraphNodes();

}  // namespace onyx

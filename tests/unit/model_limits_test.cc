// The resource limits of core/limits.h on model loading: protobuf nesting and graph size, each a clear error that
// names the variable raising it, and each raised by that variable.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "core/limits.h"
#include "format/model_io.h"
#include "proto/onyx.pb.h"

namespace onyx {
namespace {

// Restores an environment variable when the test ends.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

pb::ModelProto BaseModel() {
  pb::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  return m;
}

// A chain of `count` Relu nodes X -> ... -> Y.
std::string ChainModel(int count) {
  pb::ModelProto m = BaseModel();
  auto* g = m.mutable_graph();
  g->set_name("chain");
  std::string prev = "X";
  for (int i = 0; i < count; ++i) {
    auto* n = g->add_node();
    n->set_op_type("Relu");
    n->add_input(prev);
    prev = i + 1 == count ? "Y" : "t" + std::to_string(i);
    n->add_output(prev);
  }
  auto* in = g->add_input();
  in->set_name("X");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  auto* out = g->add_output();
  out->set_name("Y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  return m.SerializeAsString();
}

// `levels` nested If nodes: each then_branch holds the next If (three protobuf messages per level).
std::string NestedIfModel(int levels) {
  pb::ModelProto m = BaseModel();
  pb::GraphProto inner;
  inner.set_name("leaf");
  auto* c = inner.add_node();
  c->set_op_type("Identity");
  c->add_input("X");
  c->add_output("leaf_out");
  inner.add_output()->set_name("leaf_out");
  for (int i = 0; i < levels; ++i) {
    pb::GraphProto outer;
    outer.set_name("level" + std::to_string(i));
    auto* n = outer.add_node();
    n->set_op_type("If");
    n->add_input("cond");
    n->add_output("out" + std::to_string(i));
    auto* a = n->add_attribute();
    a->set_name("then_branch");
    a->set_type(pb::AttributeProto::GRAPH);
    *a->mutable_g() = inner;
    outer.add_output()->set_name("out" + std::to_string(i));
    inner = std::move(outer);
  }
  *m.mutable_graph() = inner;
  return m.SerializeAsString();
}

TEST(ModelLimits, GraphNodesAboveTheLimitAreRefusedNamingTheVariable) {
  const std::string bytes = ChainModel(300);
  {
    ScopedEnv env("ONYX_MAX_GRAPH_NODES", "299");
    auto m = format::LoadModelFromBytes(bytes, ".");
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.status().message().find("more than 299 nodes"), std::string::npos) << m.status().message();
    EXPECT_NE(m.status().message().find("ONYX_MAX_GRAPH_NODES"), std::string::npos);
  }
  ScopedEnv env("ONYX_MAX_GRAPH_NODES", "300");
  auto m = format::LoadModelFromBytes(bytes, ".");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->graph.nodes.size(), 300u);
}

TEST(ModelLimits, SubgraphNodesCount) {
  const std::string bytes = NestedIfModel(10);  // 10 If nodes + 1 Identity
  ScopedEnv env("ONYX_MAX_GRAPH_NODES", "10");
  auto m = format::LoadModelFromBytes(bytes, ".");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("ONYX_MAX_GRAPH_NODES"), std::string::npos) << m.status().message();
}

TEST(ModelLimits, NestingBeyondTheProtobufDepthIsRefusedAndCanBeRaised) {
  const std::string bytes = NestedIfModel(60);  // about 180 message levels
  {
    auto m = format::LoadModelFromBytes(bytes, ".");
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.status().message().find("ONYX_MAX_PROTOBUF_DEPTH"), std::string::npos) << m.status().message();
  }
  ScopedEnv env("ONYX_MAX_PROTOBUF_DEPTH", "400");
  auto m = format::LoadModelFromBytes(bytes, ".");
  ASSERT_TRUE(m.ok()) << m.status().message();
}

TEST(ModelLimits, EnvLimitFallsBackOnAnythingButAPositiveInteger) {
  ScopedEnv a("ONYX_TEST_LIMIT", "abc");
  EXPECT_EQ(EnvLimit("ONYX_TEST_LIMIT", 7), 7);
  ScopedEnv b("ONYX_TEST_LIMIT", "-3");
  EXPECT_EQ(EnvLimit("ONYX_TEST_LIMIT", 7), 7);
  ScopedEnv c("ONYX_TEST_LIMIT", "12");
  EXPECT_EQ(EnvLimit("ONYX_TEST_LIMIT", 7), 12);
}

}  // namespace
}  // namespace onyx

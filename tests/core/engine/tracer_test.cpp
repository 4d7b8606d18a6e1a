// tracer_test.cpp — the tracer records the step without computing it; what its leaves refer to.
#include "looplab/engine/tracer.hpp"

#include <gtest/gtest.h>

namespace looplab {
namespace {

TEST(Tracer, RecordsOpsWithoutComputingThem) {
  Tensor x({3, 1}, 2.0f), w({1, 1}, 0.5f);
  Tracer t;
  const Value xv = t.input(x, "x"), wv = t.parameter(w, "W");
  const Value y = t.mean(t.matmul(xv, wv));
  EXPECT_EQ(t.size(), 4);
  EXPECT_EQ(t.node(y).op, OpKind::Mean);
  EXPECT_EQ(t.shape(y), (Shape{1, 1}));
  EXPECT_EQ(t.leaf_data(y), nullptr);  // an op node has no data: nothing ran
}

TEST(Tracer, InputsAndParametersReferToTheCallersTensorsConstantsAreCopied) {
  Tensor x({2, 1}, 1.0f), w({1, 1}, 0.5f), s({1, 1});
  Tracer t;
  const Value xv = t.input(x, "x"), wv = t.parameter(w, "W"), sv = t.state(s, "m");
  Value cv;
  {
    Tensor c({1, 2}, 7.0f);
    cv = t.constant(c);
  }  // the caller's constant is gone; the tracer's copy is not
  EXPECT_EQ(t.leaf_data(xv), x.data());
  EXPECT_EQ(t.leaf_data(wv), w.data());
  EXPECT_EQ(t.leaf_data(cv)[1], 7.0f);
  EXPECT_EQ(t.parameter_data(wv), w.data());
  EXPECT_EQ(t.parameter_data(sv), s.data());  // optimizer state may be written by updates too
  EXPECT_THROW(t.parameter_data(xv), ShapeError);
  EXPECT_THROW(t.parameter_data(cv), ShapeError);
  EXPECT_THROW(t.parameter_data(t.add(xv, xv)), ShapeError);
}

}  // namespace
}  // namespace looplab

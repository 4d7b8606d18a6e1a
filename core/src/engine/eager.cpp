// eager.cpp — compute each node as it is recorded, into a fresh buffer.
#include "looplab/engine/eager.hpp"

namespace looplab {

void EagerBuilder::on_leaf(Value, const float* data, Tensor*, Tensor* owned) {
  if (owned) {
    constants_.push_back(std::make_unique<Tensor>(std::move(*owned)));
    ptr_.push_back(constants_.back()->data());
  } else {
    ptr_.push_back(data);
  }
}

void EagerBuilder::on_op(Value v) {
  const Node& n = node(v);
  const OpDef& def = op_def(n.op);
  // NOTE: a fresh, uninitialized buffer for every op, as an eager framework allocates its results.
  buffers_.emplace_back(new float[n.shape.size()]);
  KernelArgs k;
  for (int i = 0; i < def.arity; ++i) {
    k.in[i] = data(n.in[i]);
    k.in_shape[i] = shape(n.in[i]);
  }
  k.out = buffers_.back().get();
  k.out_shape = n.shape;
  k.attrs = &n.attrs;
  def.forward(k);
  ptr_.push_back(k.out);
}

}  // namespace looplab

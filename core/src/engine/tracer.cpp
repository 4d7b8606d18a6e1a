// tracer.cpp — recording leaves and ops without computing anything.
#include "looplab/engine/tracer.hpp"

namespace looplab {

void Tracer::on_leaf(Value v, const float* data, Tensor* writable, Tensor* owned) {
  leaf_ptr_.resize(static_cast<std::size_t>(v.id) + 1, nullptr);
  params_.resize(static_cast<std::size_t>(v.id) + 1, nullptr);
  if (owned) {
    constants_.push_back(std::make_unique<Tensor>(std::move(*owned)));
    data = constants_.back()->data();
  }
  leaf_ptr_[static_cast<std::size_t>(v.id)] = data;
  params_[static_cast<std::size_t>(v.id)] = writable;  // parameters and state: what updates write
}

void Tracer::on_op(Value v) {
  leaf_ptr_.resize(static_cast<std::size_t>(v.id) + 1, nullptr);
  params_.resize(static_cast<std::size_t>(v.id) + 1, nullptr);
}

float* Tracer::parameter_data(Value v) const {
  Tensor* t = params_.at(static_cast<std::size_t>(v.id));
  if (!t) throw ShapeError("assignment target must be a parameter or optimizer state");
  return t->data();
}

}  // namespace looplab

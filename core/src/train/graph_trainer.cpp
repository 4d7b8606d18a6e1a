// graph_trainer.cpp — eager steps, and tracing one or k steps into a program.
#include "looplab/train/graph_trainer.hpp"

#include <algorithm>

#include "looplab/base/clock.hpp"
#include "looplab/base/format.hpp"
#include "looplab/engine/eager.hpp"
#include "looplab/engine/tracer.hpp"
#include "looplab/train/mlp_reference.hpp"

namespace looplab {

GraphTrainer::GraphTrainer(Mode mode, Model& model, Optimizer& optimizer, Shape x_batch,
                           Shape y_batch, int unroll, bool training, Loss loss,
                           CompileOptions options)
    : mode_(mode),
      model_(model),
      opt_(optimizer),
      x_shape_(x_batch),
      y_shape_(y_batch),
      unroll_(unroll),
      training_(training),
      loss_(loss),
      options_(options) {
  if (mode == Mode::Reference)
    throw ShapeError("GraphTrainer: the reference loop is hand-written, not a graph");
  if (unroll < 1 || (unroll > 1 && !is_program(mode)))
    throw ShapeError("GraphTrainer: unroll needs traced or compiled mode");
  opt_.reserve_steps(unroll_);
  if (training_ && model_.uses_step())
    steps_.assign(static_cast<std::size_t>(unroll_), Tensor({1, 1}));
  options_.generate = mode == Mode::Compiled;
  if (is_program(mode_)) trace();
}

void GraphTrainer::trace() {
  const Stopwatch watch;
  Tracer t;
  const std::vector<Value> params = model_.parameter_leaves(t);
  const OptimizerState start = opt_.leaves(t, params);
  OptimizerState s = start;
  std::vector<Value> losses;
  for (int j = 0; j < unroll_; ++j) {
    // NOTE: the batch pointers are placeholders (nullptr): run() binds the real batch every call.
    x_inputs_.push_back(t.input(nullptr, x_shape_, "x"));
    y_inputs_.push_back(t.input(nullptr, y_shape_, "y"));
    const Value step = step_input(t, j);
    const Value loss =
        loss_of(t, loss_, model_.forward_at(t, x_inputs_.back(), s.params, step), y_inputs_.back());
    if (training_) s = opt_.apply(t, s, gradients(t, loss, s.params), j);
    losses.push_back(loss);
  }
  std::vector<Assign> updates;
  if (!training_) {
    trace_ms_ = watch.elapsed_ms();
    program_ = compile(t, losses, updates, options_);
    return;
  }
  for (std::size_t i = 0; i < params.size(); ++i) updates.push_back({start.params[i], s.params[i]});
  for (std::size_t i = 0; i < start.slots.size(); ++i)
    updates.push_back({start.slots[i], s.slots[i]});
  trace_ms_ = watch.elapsed_ms();
  program_ = compile(t, losses, updates, options_);
}

Value GraphTrainer::step_input(Builder& b, int j) {
  return steps_.empty() ? Value{} : b.input(steps_[static_cast<std::size_t>(j)], "step");
}

void GraphTrainer::run_eager(const float* x, const float* y, float* loss, int rows) {
  EagerBuilder b;
  const OptimizerState s = opt_.leaves(b, model_.parameter_leaves(b));
  const Value xv = b.input(x, x_rows(rows), "x");
  const Value step = step_input(b, 0);
  const Value l = loss_of(b, loss_, model_.forward_at(b, xv, s.params, step),
                          b.input(y, {rows, y_shape_.cols}, "y"));
  *loss = b.scalar(l);
  if (!training_) return;
  const OptimizerState next = opt_.apply(b, s, gradients(b, l, s.params), 0);
  // Write the new values back into the tensors the leaves came from.
  const std::vector<Tensor*> params = model_.parameters(), slots = opt_.slot_tensors();
  for (std::size_t i = 0; i < params.size(); ++i)
    std::copy(b.data(next.params[i]), b.data(next.params[i]) + params[i]->size(),
              params[i]->data());
  for (std::size_t i = 0; i < slots.size(); ++i)
    std::copy(b.data(next.slots[i]), b.data(next.slots[i]) + slots[i]->size(), slots[i]->data());
}

void GraphTrainer::run(const float* const* xs, const float* const* ys, float* losses, int rows) {
  if (rows < 0) rows = y_shape_.rows;
  for (int j = 0; j < unroll_; ++j) opt_.set_step(opt_.steps_taken() + j + 1, j);
  for (std::size_t j = 0; j < steps_.size(); ++j)  // t of each step, exact in a float below 2^24
    steps_[j][0] = static_cast<float>(opt_.steps_taken() + static_cast<long long>(j) + 1);
  if (mode_ == Mode::Eager) {
    run_eager(xs[0], ys[0], losses, rows);
  } else {
    for (int j = 0; j < unroll_; ++j) {
      program_->bind_input(x_inputs_[static_cast<std::size_t>(j)], xs[j], x_rows(rows));
      program_->bind_input(y_inputs_[static_cast<std::size_t>(j)], ys[j], {rows, y_shape_.cols});
    }
    program_->run();
    for (int j = 0; j < unroll_; ++j) losses[j] = program_->output(j);
  }
  if (training_) opt_.count_steps(unroll_);
}

const std::string& GraphTrainer::generated_code() const {
  static const std::string kNone;
  return program_ ? program_->generated_code() : kNone;
}

json GraphTrainer::setup_info() const {
  if (!program_) return json::object();
  const CompileStats& s = program_->stats();
  json info = {{"trace_ms", trace_ms_},
               {"compile_ms", s.compile_ms},
               {"nodes_traced", s.nodes_traced},
               {"nodes_live", s.nodes_live},
               {"nodes_before_fusion", s.nodes_before_fusion},
               {"nodes_after_fusion", s.nodes_after_fusion},
               {"fused_groups", s.fused_groups},
               {"instructions", s.instructions},
               {"arena_bytes", s.arena_bytes},
               {"unplanned_bytes", s.unplanned_bytes},
               {"flops_per_step", s.flops_per_step / unroll_}};
  if (options_.generate) {
    info["codegen_ms"] = s.codegen_ms;  // included in compile_ms
    info["code_cached"] = s.code_cached;
    info["emit_ms"] = s.emit_ms;  // these three: the parts of codegen_ms
    info["build_ms"] = s.build_ms;
    info["load_ms"] = s.load_ms;
    info["generated_code"] = program_->generated_code();
  }
  return info;
}

void warm_up_engines() {
  static bool done = false;
  if (done) return;
  done = true;
  Tensor x({64, 1}, 0.5f), y({64, 1}, -0.5f);
  const float* xs[] = {x.data(), x.data()};
  const float* ys[] = {y.data(), y.data()};
  float losses[2];
  std::vector<std::pair<Mode, int>> warms = {
      {Mode::Eager, 1}, {Mode::Traced, 1}, {Mode::Traced, 2}, {Mode::Reference, 1}};
  // In WebAssembly compiled mode too: its pipeline and the calls into a new module are looplab's
  // own code, compiled by the engine at first use (natively the C compiler is the mode's own cost).
#ifdef __EMSCRIPTEN__
  warms.emplace_back(Mode::Compiled, 1);
#endif
  for (const auto& [mode, unroll] : warms) {
    Rng init(1);
    Mlp mlp(1, {8}, 1, Activation::Tanh, init);
    if (mode == Mode::Reference) {
      ReferenceMlp ref(mlp, 32, 1e-3);
      for (int i = 0; i < 20; ++i) ref.step(x.data(), y.data());
      continue;
    }
    Adam adam(1e-3, mlp.parameters());
    GraphTrainer t(mode, mlp, adam, {32, 1}, {32, 1}, unroll);
    for (int i = 0; i < 20; ++i) t.run(xs, ys, losses);
    t.run(xs, ys, losses, 16);  // and once with a relaxed batch
  }
}

}  // namespace looplab

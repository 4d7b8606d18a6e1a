// looplab/train/graph_trainer.hpp — train any Model on a loss (mse or bce), eagerly or from a
// program.
//
//   eager      every step builds the model, loss, gradients and optimizer update on a fresh
//              EagerBuilder: each op runs at once into a fresh buffer;
//   traced     the step is traced once and compiled (engine/program.hpp); run() replays it,
//              pointing the program's batch inputs at the next batch (no copy, no allocation);
//   unrolled   k steps traced into one program, each reading its own batch, the parameters
//              flowing from one step to the next inside the program.
//
//   Adam adam(1e-3, model.parameters());
//   GraphTrainer t(Mode::Traced, model, adam, {100, 1}, {100, 1});
//   const float* xs[] = {batch_x}; const float* ys[] = {batch_y}; float loss;
//   t.run(xs, ys, &loss);
#pragma once

#include <optional>
#include <vector>

#include "looplab/base/json.hpp"
#include "looplab/engine/program.hpp"
#include "looplab/train/linear_trainer.hpp"
#include "looplab/train/model.hpp"
#include "looplab/train/optim.hpp"

namespace looplab {

class GraphTrainer {
 public:
  // mode is Eager, Traced or Compiled (traced, then generated as code); unroll > 1 needs a program.
  // training = false: the loss only, no update (an evaluation step: a different program, as a
  // static argument makes it in a framework).
  GraphTrainer(Mode mode, Model& model, Optimizer& optimizer, Shape x_batch, Shape y_batch,
               int unroll = 1, bool training = true, Loss loss = Loss::Mse,
               CompileOptions options = {});
  int steps_per_call() const { return unroll_; }
  // Runs steps_per_call() steps on batches xs[j], ys[j]; losses[j] is step j's loss before its
  // update. rows: the examples (target rows) of this call; a traced program re-derives its shapes
  // for it (at most the rows it was traced with). -1: the rows it was built for. An example is one
  // row of x, or for a sequence model (x_batch.rows = examples · length) `length` rows.
  void run(const float* const* xs, const float* const* ys, float* losses, int rows = -1);
  // Traced: trace_ms, compile_ms and the program's size; compiled also codegen_ms and the
  // generated_code; eager: empty.
  json setup_info() const;
  // Compiled mode: the generated code of the step (C natively, WebAssembly text in wasm), and what
  // generating and building it took (part of the compile); otherwise empty and 0.
  const std::string& generated_code() const;
  double codegen_ms() const { return program_ ? program_->stats().codegen_ms : 0.0; }
  bool code_cached() const { return program_ && program_->stats().code_cached; }

 private:
  void trace();
  void run_eager(const float* x, const float* y, float* loss, int rows);
  Value step_input(Builder& b, int j);
  Shape x_rows(int examples) const {
    return {examples * (x_shape_.rows / y_shape_.rows), x_shape_.cols};
  }  // step j's number, for a model that uses_step()

  Mode mode_;
  Model& model_;
  Optimizer& opt_;
  Shape x_shape_, y_shape_;
  int unroll_;
  bool training_;
  Loss loss_;
  CompileOptions options_;
  std::optional<Program> program_;
  std::vector<Value> x_inputs_, y_inputs_;
  std::vector<Tensor> steps_;  // per step of a call: its number t (dropout's masks); never resized
  double trace_ms_ = 0.0;
};

// Runs a few untimed steps of a tiny MLP in every mode, once per process. NOTE: a WebAssembly
// engine compiles a function fast first and optimizes it once it runs hot; without this the first
// experiment's first mode would be billed for that, which is the engine's cost, not the mode's.
// The page's worker calls it while idle after loading (api.hpp's warm_up), so the optimizing
// compilations it sets off are over before the student's first Run.
void warm_up_engines();

}  // namespace looplab

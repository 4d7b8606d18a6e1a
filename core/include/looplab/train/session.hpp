// looplab/train/session.hpp — training driven from outside, one batch per call (Keras
// train_on_batch), against the whole loop inside the core (fit).
//
// A TrainerSession owns a model, its optimizer and one execution mode. train_on_batch() COPIES the
// caller's batch into the session's own staging buffers and runs one step on them, as Keras
// converts a NumPy batch into a tensor on every call; fit() runs every batch of an epoch inside the
// core, pointing the step straight at the caller's data (no copy, no call boundary per batch). Both
// run exactly the same steps on the same batches in the same order, so their losses are identical.
//
//   TrainerSession s(SessionConfig{.mode = Mode::Traced});  // Dense(20, tanh) -> Dense(1), Adam
//   float loss = s.train_on_batch(x_batch, y_batch);         // batch rows, copied in
//   std::vector<float> losses = s.fit(x, y, n, 1);           // one epoch, n / batch steps
//
// The WebAssembly bindings let JavaScript do the same per batch: the binding copies a Float32Array
// into staged_x()/staged_y() (the wasm heap) and calls train_staged().
//
// LinearSession is the same idea for one linear-regression gradient step over n points (the
// overhead experiment's per-call variant): the caller copies n points in, then calls step().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "looplab/base/json.hpp"
#include "looplab/train/conv_net.hpp"
#include "looplab/train/conv_reference.hpp"
#include "looplab/train/graph_trainer.hpp"
#include "looplab/train/linear.hpp"
#include "looplab/train/linear_trainer.hpp"
#include "looplab/train/mlp_reference.hpp"
#include "looplab/train/model.hpp"
#include "looplab/train/optim.hpp"

namespace looplab {

struct SessionConfig {
  Mode mode = Mode::Traced;
  int inputs = 1, hidden = 20, batch = 100;
  Activation activation = Activation::Tanh;
  Loss loss = Loss::Mse;
  double lr = 1e-3;
  std::uint64_t seed = 1;  // initial weights come from Rng(seed + 1), as in execution-modes
  // A seed-001 ConvNet instead of the MLP (inputs, hidden, activation and loss then unused): an
  // example is conv->length steps of conv->channels channels with a 0/1 target, the loss binary
  // cross-entropy from the logit; Mode::Reference steps it by hand (conv_reference.hpp).
  std::optional<ConvNetSpec> conv;
  int example_floats() const { return conv ? conv->length * conv->channels : inputs; }
};

class TrainerSession {
 public:
  explicit TrainerSession(const SessionConfig& config);
  const SessionConfig& config() const { return config_; }
  long long steps() const { return steps_; }

  // One step on a batch of config().batch rows, copied in first. Returns the loss before the
  // update.
  float train_on_batch(const float* x, const float* y);
  // The staging buffers train_on_batch copies into; a caller that copies itself (the wasm binding)
  // writes here and calls train_staged().
  float* staged_x() { return staged_x_.data(); }
  float* staged_y() { return staged_y_.data(); }
  std::size_t staged_x_size() const { return staged_x_.size(); }
  std::size_t staged_y_size() const { return staged_y_.size(); }
  float train_staged();

  // `epochs` passes over n rows in batches of config().batch (a last partial batch is dropped), all
  // inside the core: the steps read the caller's arrays in place. Returns every step's loss.
  std::vector<float> fit(const float* x, const float* y, int n, int epochs);

 private:
  float step(const float* x, const float* y);

  SessionConfig config_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Adam> adam_;
  std::unique_ptr<GraphTrainer> graph_;
  std::unique_ptr<ReferenceMlp> reference_;
  std::unique_ptr<ReferenceConvNet> reference_conv_;
  std::vector<float> staged_x_, staged_y_;
  long long steps_ = 0;
};

// The session a resolved call-granularity config describes (model, hidden, batch, lr, seed),
// running its steps in `mode`. model "seed001_small" is seed 001's small Conv1D model at the seed's
// size on its data shape (140 steps × 30 channels). The experiment gives each variant its own
// mode; the browser's sessions (js_fit, js_train_on_batch) take the default, fit's traced step.
SessionConfig session_config(const json& config, Mode mode = Mode::Traced);
// The ConvNet a `model` choice names ("seed001_small"), or nullopt for the MLP ("mlp"): the one
// place that says what the experiments' model choice means.
std::optional<ConvNetSpec> session_model(const std::string& model);

// The data a session config trains on, n examples: for the MLP n rows of N(0, 1) x and y
// (normal_data); for a ConvNet n sequences of N(0, 1) values with 0/1 targets, as seed 001's
// make_data (x is [n·length x channels]).
LinearData session_data(const SessionConfig& config, int n, std::uint64_t seed);

// The overhead experiment's data for n points: the seed-004 curve sampled n times on [0, 100):
// x_i = 100 i / n, y_i = x_i + 20 sin(x_i / 10) + 15 (n = 1000 is exactly the seed's data).
LinearData overhead_data(int n);

// One linear-regression gradient step per call over n points that the caller copies in each time.
class LinearSession {
 public:
  LinearSession(Mode mode, int n);
  float* staged_x() { return x_.data(); }
  float* staged_y() { return y_.data(); }
  int n() const { return x_.shape().rows; }
  float step(float lr) { return trainer_->step(lr); }  // loss before the update

 private:
  Tensor x_, y_;  // NOTE: the trainer keeps pointers into these; they never reallocate
  std::unique_ptr<LinearTrainer> trainer_;
};

}  // namespace looplab

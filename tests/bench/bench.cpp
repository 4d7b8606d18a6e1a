// bench.cpp — what the execution machinery costs, measured (not a pass/fail test).
//
//   W1  seed 004 linear regression, full batch N = 1000, 1e5 SGD iterations (lr 1e-4)
//   W2  seed 000 MLP Dense(20, tanh) → Dense(1), Adam 1e-3, batch 100, 10,000 steps
//   W3  seed 001's small Conv1D layer, Conv1D(128, 40, strides=4, 'same') on (32, 140, 30):
//       forward and backward (dx, dW, db) of L = Σ y ⊙ R, 20 steps
//   plus: trace + compile of the W2 step, and of unroll(all) over 1000 batches (N = 100,000).
// Each timing is the best of `repeats` runs. Prints a Markdown table; results go in README.md.
//
//   build/native/looplab_bench [repeats]
//   node build/wasm/looplab_bench.js [repeats]
//   build/native/looplab_bench 1 w1-traced    one case alone
//                                 (w1|w2 - hand|reference|traced|unfused|compiled)
//   build/native/looplab_bench cold w1-compiled [raw]   a cold run (tests/bench/cold.mjs runs them)
//   build/native/looplab_bench 3 rounds 5     5 interleaved rounds of the hand, reference, traced
//                                             and compiled cases, every round printed
// The "hand" cases are the yardstick: what a careful engineer writes by hand (float32, 16 partial
// sums, the rational tanh), compiled with the same flags as the core.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "looplab/api/api.hpp"
#include "looplab/engine/eager.hpp"
#include "looplab/engine/ops.hpp"
#include "looplab/engine/tracer.hpp"
#include "looplab/experiments/results.hpp"
#include "looplab/train/graph_trainer.hpp"
#include "looplab/train/linear.hpp"
#include "looplab/train/linear_trainer.hpp"
#include "looplab/train/mlp_reference.hpp"
#include "looplab/train/optim.hpp"

namespace looplab {
namespace {

#ifdef __EMSCRIPTEN__
// Blocks this thread without spinning, as an idle page's worker waits: the engine's compiler
// threads have the machine to themselves meanwhile. (Chromium: the bench's page is cross-origin
// isolated, web/tools/serve.py, so a worker has SharedArrayBuffer.)
EM_JS(void, idle_ms, (double ms),
      { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms); });
#else
void idle_ms(double ms) {
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}
#endif

#ifdef __EMSCRIPTEN__
// Node's CPU time of this process (the bench runs under node only, never on the page).
EM_JS(double, node_cpu_ms, (), {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
});
#endif

// NOTE: the process's CPU time, not wall time: on a shared machine (other builds running) wall
// time mostly measures the scheduler. Under node it includes V8's own threads (compilation, GC),
// which after the first run are idle.
class Stopwatch {
 public:
  Stopwatch() : start_(now_ms()) {}
  double elapsed_ms() const { return now_ms() - start_; }

 private:
  static double now_ms() {
#ifdef __EMSCRIPTEN__
    return node_cpu_ms();
#else
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
#endif
  }
  double start_;
};

double best_of(int repeats, const std::function<double()>& run) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) best = std::min(best, run());
  return best;
}

double w1_ms(Mode mode) {
  const LinearData d = sine_trend_data();
  auto t = make_linear_trainer(mode, d.x, d.y);
  const Stopwatch w;
  for (int i = 0; i < 100000; ++i) t->step(1e-4f);
  return w.elapsed_ms();
}

// W1 by hand: one pass per step, r = w·x + b − y in registers, float32 sums in 16 lanes.
double w1_hand_ms() {
  const LinearData d = sine_trend_data();
  const float* x = d.x.data();
  const float* y = d.y.data();
  const int n = static_cast<int>(d.x.size());
  constexpr int kL = 16;
  float w = 0.0f, b = 0.0f, loss = 0.0f;
  const Stopwatch watch;
  for (int it = 0; it < 100000; ++it) {
    float sr[kL] = {}, srx[kL] = {}, srr[kL] = {};
    int i = 0;
    for (; i + kL <= n; i += kL)
      for (int l = 0; l < kL; ++l) {
        const float r = w * x[i + l] + b - y[i + l];
        sr[l] += r;
        srx[l] += r * x[i + l];
        srr[l] += r * r;
      }
    float tr = 0.0f, trx = 0.0f, trr = 0.0f;
    for (; i < n; ++i) {
      const float r = w * x[i] + b - y[i];
      tr += r, trx += r * x[i], trr += r * r;
    }
    for (int l = 0; l < kL; ++l) tr += sr[l], trx += srx[l], trr += srr[l];
    const float scale = 2.0f / static_cast<float>(n);
    w -= 1e-4f * scale * trx;
    b -= 1e-4f * scale * tr;
    loss = trr / static_cast<float>(n);
  }
  const double ms = watch.elapsed_ms();
  if (!(loss >= 0.0f)) std::printf("w1-hand: loss %g\n", static_cast<double>(loss));
  return ms;
}

// W2 by hand: Dense(20, tanh) → Dense(1), mse, Adam, float32 with 16-lane sums over the batch.
struct HandMlp {
  static constexpr int kH = 20, kB = 100;
  float w1[kH], b1[kH], w2[kH], b2 = 0.0f;
  float m[3 * kH + 1] = {}, v[3 * kH + 1] = {};
  float h[kB][kH], dout[kB];
  explicit HandMlp(Mlp& mlp) {
    const std::vector<Tensor*> p = mlp.parameters();
    for (int j = 0; j < kH; ++j)
      w1[j] = (*p[0])[static_cast<std::size_t>(j)], b1[j] = (*p[1])[static_cast<std::size_t>(j)],
      w2[j] = (*p[2])[static_cast<std::size_t>(j)];
    b2 = (*p[3])[0];
  }
  float step(const float* x, const float* y, int t) {
    float out[kB];
    for (int i = 0; i < kB; ++i) {
      float o = b2;
      for (int j = 0; j < kH; ++j) {
        h[i][j] = fast_tanh(x[i] * w1[j] + b1[j]);
        o += h[i][j] * w2[j];
      }
      out[i] = o;
    }
    float loss = 0.0f, gb2 = 0.0f, g[3 * kH + 1] = {};
    for (int i = 0; i < kB; ++i) {
      const float r = out[i] - y[i];
      loss += r * r;
      dout[i] = 2.0f * r / kB;
      gb2 += dout[i];
    }
    for (int i = 0; i < kB; ++i)
      for (int j = 0; j < kH; ++j) {
        const float dh = dout[i] * w2[j] * (1.0f - h[i][j] * h[i][j]);
        g[2 * kH + j] += h[i][j] * dout[i];  // w2
        g[j] += x[i] * dh;                   // w1
        g[kH + j] += dh;                     // b1
      }
    g[3 * kH] = gb2;
    float* params[3 * kH + 1];
    for (int j = 0; j < kH; ++j)
      params[j] = &w1[j], params[kH + j] = &b1[j], params[2 * kH + j] = &w2[j];
    params[3 * kH] = &b2;
    const float lr_t = 1e-3f * std::sqrt(1.0f - std::pow(0.999f, static_cast<float>(t))) /
                       (1.0f - std::pow(0.9f, static_cast<float>(t)));
    for (int k = 0; k < 3 * kH + 1; ++k) {
      m[k] = 0.9f * m[k] + 0.1f * g[k];
      v[k] = 0.999f * v[k] + 0.001f * g[k] * g[k];
      *params[k] -= lr_t * m[k] / (std::sqrt(v[k]) + 1e-7f);
    }
    return loss / kB;
  }
};

// W1 traced with fusion on or off: what make_linear_trainer(Mode::Traced) does, with the option.
double w1_traced_ms(bool fuse) {
  const LinearData d = sine_trend_data();
  LinearRegression model(1);
  Sgd sgd(0.0);
  CompileOptions options;
  options.fuse = fuse;
  GraphTrainer t(Mode::Traced, model, sgd, d.x.shape(), d.y.shape(), 1, true, Loss::Mse, options);
  const float* xs[] = {d.x.data()};
  const float* ys[] = {d.y.data()};
  float loss = 0.0f;
  const Stopwatch w;
  for (int i = 0; i < 100000; ++i) {
    sgd.set_learning_rate(1e-4f);
    t.run(xs, ys, &loss);
  }
  return w.elapsed_ms();
}

struct MlpData {
  Tensor x{{100000, 1}}, y{{100000, 1}};
  MlpData() {
    Rng rng(1);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(rng.normal());
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = static_cast<float>(rng.normal());
  }
};

// W2 steps over the first 100 batches; unroll k for traced programs (0: the hand loop).
double w2_ms(const MlpData& d, Mode mode, int unroll, bool fuse = true) {
  Rng init(2);
  Mlp mlp(1, {20}, 1, Activation::Tanh, init);
  const int steps = 10000;
  if (unroll == 0) {  // the hand loop
    HandMlp hand(mlp);
    float loss = 0.0f;
    const Stopwatch w;
    for (int s = 0; s < steps; ++s)
      loss += hand.step(d.x.data() + (s % 100) * 100, d.y.data() + (s % 100) * 100, s + 1);
    const double ms = w.elapsed_ms();
    if (!(loss >= 0.0f)) std::printf("w2-hand: loss %g\n", static_cast<double>(loss));
    return ms;
  }
  if (mode == Mode::Reference) {
    ReferenceMlp ref(mlp, 100, 1e-3);
    const Stopwatch w;
    for (int s = 0; s < steps; ++s)
      ref.step(d.x.data() + (s % 100) * 100, d.y.data() + (s % 100) * 100);
    return w.elapsed_ms();
  }
  Adam adam(1e-3, mlp.parameters());
  CompileOptions options;
  options.fuse = fuse;
  GraphTrainer t(mode, mlp, adam, {100, 1}, {100, 1}, unroll, true, Loss::Mse, options);
  std::vector<const float*> xs(static_cast<std::size_t>(unroll)), ys(xs.size());
  std::vector<float> losses(xs.size());
  const Stopwatch w;
  for (int s = 0; s < steps; s += unroll) {
    for (int j = 0; j < unroll; ++j) {
      xs[static_cast<std::size_t>(j)] = d.x.data() + ((s + j) % 100) * 100;
      ys[static_cast<std::size_t>(j)] = d.y.data() + ((s + j) % 100) * 100;
    }
    t.run(xs.data(), ys.data(), losses.data());
  }
  return w.elapsed_ms();
}

// Trace + compile of a W2 program with `unroll` steps.
double setup_ms(int unroll) {
  Rng init(2);
  Mlp mlp(1, {20}, 1, Activation::Tanh, init);
  Adam adam(1e-3, mlp.parameters());
  const Stopwatch w;
  GraphTrainer t(Mode::Traced, mlp, adam, {100, 1}, {100, 1}, unroll);
  return w.elapsed_ms();
}

// Compile statistics of the W1 or W2 step program.
json program_info(int workload, bool fuse) {
  CompileOptions options;
  options.fuse = fuse;
  if (workload == 1) {
    const LinearData d = sine_trend_data();
    LinearRegression model(1);
    Sgd sgd(1e-4);
    return GraphTrainer(Mode::Traced, model, sgd, d.x.shape(), d.y.shape(), 1, true, Loss::Mse,
                        options)
        .setup_info();
  }
  Rng init(2);
  Mlp mlp(1, {20}, 1, Activation::Tanh, init);
  Adam adam(1e-3, mlp.parameters());
  return GraphTrainer(Mode::Traced, mlp, adam, {100, 1}, {100, 1}, 1, true, Loss::Mse, options)
      .setup_info();
}

// The pipelines experiment (seed 000: N = 10,000, batch 100, traced, 20 epochs) through the public
// API; per variant the best of `repeats` runs of its steady medians.
void print_pipelines_table(int repeats) {
  const std::string config =
      R"({"experiment": "pipelines", "n": 10000, "batch": 100, "epochs": 20})";
  json best;
  for (int r = 0; r < repeats; ++r) {
    auto run = start_run(config);
    while (!run->advance(1e9)) {
    }
    const json result = json::parse(run->result_json());
    for (const auto& v : result["runs"]) {
      json& b = best[v["variant"].get<std::string>()];
      for (const char* k : {"ms_per_epoch", "pipeline_us_per_batch", "step_us_per_batch"})
        b[k] =
            b.contains(k) ? std::min(b[k].get<double>(), v[k].get<double>()) : v[k].get<double>();
    }
  }
  std::printf(
      "\n| pipeline (N = 10,000, batch 100, traced) | ms / epoch | pipeline µs / batch | step µs / "
      "batch |\n");
  std::printf("|---|---|---|---|\n");
  for (const auto& [name, b] : best.items())
    std::printf("| %s | %.3f | %.2f | %.2f |\n", name.c_str(), b["ms_per_epoch"].get<double>(),
                b["pipeline_us_per_batch"].get<double>(), b["step_us_per_batch"].get<double>());
}

// ---- cold runs (issue 27): the first run in a fresh process, as a student's first click ----
// Wall time (a cold run is what the student waits for; CPU time would also count the engine's
// background compiler threads). One JSON line: the setup and its split, then the steps in ten
// chunks (so the moment the engine tiers the hot code up shows), then the same run again, warm.
double wall_ms() {
#ifdef __EMSCRIPTEN__
  return emscripten_get_now();
#else
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count()) *
         1e-6;
#endif
}

struct ColdRun {
  double setup_ms = 0.0;
  json info = json::object();
  std::vector<double> chunk_ms;  // ten chunks of steps
  double steps_ms() const {
    double t = 0.0;
    for (double c : chunk_ms) t += c;
    return t;
  }
};

// `setup` builds the trainer, `step(i)` takes step i; `info` (after the clock stops, since the
// generated code's text is written when asked for) is the trainer's setup_info().
ColdRun time_run(int steps, const std::function<void()>& setup,
                 const std::function<void(int)>& step, const std::function<json()>& info) {
  ColdRun r;
  const double t0 = wall_ms();
  setup();
  r.setup_ms = wall_ms() - t0;
  for (int c = 0; c < 10; ++c) {
    const double c0 = wall_ms();
    for (int i = c * steps / 10; i < (c + 1) * steps / 10; ++i) step(i);
    r.chunk_ms.push_back(wall_ms() - c0);
  }
  r.info = info();
  return r;
}

ColdRun cold_case(const std::string& name, const MlpData& d) {
  const bool compiled = name.find("compiled") != std::string::npos;
  const Mode mode = compiled                                   ? Mode::Compiled
                    : name.find("traced") != std::string::npos ? Mode::Traced
                                                               : Mode::Reference;
  if (name.rfind("w1", 0) == 0) {
    const LinearData data = sine_trend_data();
    std::unique_ptr<LinearTrainer> t;
    return time_run(
        100000, [&] { t = make_linear_trainer(mode, data.x, data.y); },
        [&](int) { t->step(1e-4f); }, [&] { return t->setup_info(); });
  }
  Rng init(2);
  Mlp mlp(1, {20}, 1, Activation::Tanh, init);
  auto batch = [&](int s) { return static_cast<std::ptrdiff_t>((s % 100) * 100); };
  if (mode == Mode::Reference) {
    std::unique_ptr<ReferenceMlp> ref;
    return time_run(
        10000, [&] { ref = std::make_unique<ReferenceMlp>(mlp, 100, 1e-3); },
        [&](int s) { ref->step(d.x.data() + batch(s), d.y.data() + batch(s)); },
        [] { return json::object(); });
  }
  Adam adam(1e-3, mlp.parameters());
  std::unique_ptr<GraphTrainer> t;
  float loss = 0.0f;
  return time_run(
      10000,
      [&] {
        t = std::make_unique<GraphTrainer>(mode, mlp, adam, Shape{100, 1}, Shape{100, 1}, 1);
      },
      [&](int s) {
        const float* x = d.x.data() + batch(s);
        const float* y = d.y.data() + batch(s);
        t->run(&x, &y, &loss);
      },
      [&] { return t->setup_info(); });
}

// W3: one Conv1D layer at seed 001's small shape, forward and backward.
struct ConvData {
  static constexpr int kBatch = 32, kLength = 140, kChannels = 30, kFilters = 128, kSteps = 20;
  Window w = conv_window(kLength, 40, 4, true);
  Tensor x{{kBatch * kLength, kChannels}}, k{{40 * kChannels, kFilters}}, b{{1, kFilters}};
  Tensor r{{kBatch * 35, kFilters}};  // dL/dy
  ConvData() {
    Rng rng(3);
    for (Tensor* t : {&x, &k, &b, &r})
      for (std::size_t i = 0; i < t->size(); ++i) (*t)[i] = static_cast<float>(rng.normal());
  }
};

// The step's values: y, then dx, dW, db of L = Σ y ⊙ R.
std::vector<Value> conv_step(Builder& t, ConvData& d) {
  const Value x = t.parameter(d.x, "x"), k = t.parameter(d.k, "W"), b = t.parameter(d.b, "b");
  const Value y = t.conv1d(x, k, b, d.w);
  const Value loss = t.sum(t.mul(y, t.input(d.r, "R")));
  std::vector<Value> out = {y};
  for (Value g : gradients(t, loss, {x, k, b})) out.push_back(g);
  return out;
}

double w3_ms(ConvData& d, Mode mode) {
  if (mode == Mode::Eager) {
    const Stopwatch w;
    for (int i = 0; i < ConvData::kSteps; ++i) {
      EagerBuilder b;
      conv_step(b, d);
    }
    return w.elapsed_ms();
  }
  Tracer t;
  const std::vector<Value> out = conv_step(t, d);
  CompileOptions options;
  options.generate = mode == Mode::Compiled;
  Program p = compile(t, out, {}, options);
  const Stopwatch w;
  for (int i = 0; i < ConvData::kSteps; ++i) p.run();
  return w.elapsed_ms();
}

// W3 by hand: the direct convolution a careful engineer writes, no im2col: for each output step
// the window's input rows times the kernel's rows, the filters contiguous (a SIMD lane each), in
// float32, forward and backward in one pass over the windows. NOTE: it loses to im2col + Eigen's
// blocked GEMM (traced) about 6x natively: the kernel's 1200 x 128 floats (600 KB) leave L2 on
// every window, where the GEMM works in cache-sized blocks. It is the loop people write first.
double w3_hand_ms(ConvData& d) {
  const Window& w = d.w;
  const int C = ConvData::kChannels, F = ConvData::kFilters;
  std::vector<float> y(d.r.size()), dx(d.x.size()), dk(d.k.size()), db(F);
  const Stopwatch sw;
  for (int step = 0; step < ConvData::kSteps; ++step) {
    std::fill(dx.begin(), dx.end(), 0.0f);
    std::fill(dk.begin(), dk.end(), 0.0f);
    std::fill(db.begin(), db.end(), 0.0f);
    for (int bi = 0; bi < ConvData::kBatch; ++bi)
      for (int o = 0; o < w.out; ++o) {
        float* yo = y.data() + static_cast<std::size_t>(bi * w.out + o) * F;
        const float* ro = d.r.data() + static_cast<std::size_t>(bi * w.out + o) * F;
        for (int f = 0; f < F; ++f) yo[f] = d.b[static_cast<std::size_t>(f)];
        for (int f = 0; f < F; ++f) db[static_cast<std::size_t>(f)] += ro[f];
        for (int j = 0; j < w.kernel; ++j) {
          const int t = o * w.stride - w.pad + j;
          if (t < 0 || t >= w.length) continue;
          const float* xt = d.x.data() + static_cast<std::size_t>(bi * w.length + t) * C;
          float* dxt = dx.data() + static_cast<std::size_t>(bi * w.length + t) * C;
          for (int c = 0; c < C; ++c) {
            const float* kr = d.k.data() + static_cast<std::size_t>(j * C + c) * F;
            float* dkr = dk.data() + static_cast<std::size_t>(j * C + c) * F;
            const float xv = xt[c];
            float g = 0.0f;
            for (int f = 0; f < F; ++f) {
              yo[f] += xv * kr[f];
              dkr[f] += xv * ro[f];
              g += ro[f] * kr[f];
            }
            dxt[c] += g;
          }
        }
      }
  }
  const double ms = sw.elapsed_ms();
  volatile float sink = y[0] + dx[0] + dk[0] + db[0];  // keep the work
  (void)sink;
  return ms;
}

json cold_json(const ColdRun& r) {
  json j = {{"setup_ms", r.setup_ms}, {"steps_ms", r.steps_ms()}, {"chunk_ms", r.chunk_ms}};
  for (const char* k : {"trace_ms", "compile_ms", "codegen_ms", "emit_ms", "build_ms", "load_ms"})
    if (r.info.contains(k)) j[k] = r.info[k];
  return j;
}

// `looplab_bench cold <case>`: this process's first run of the case, then a second (warm) one.
// `looplab_bench cold <case> [raw]`: this process's first run of the case, then a second (warm)
// one. First, as on the page: the warm-up every run starts with (api.hpp, warm_up), which the
// page's worker does while idle after loading, then a second of that idleness (the student reads
// the page). `raw` leaves both out: nothing is compiled before the case.
int print_cold(const std::string& name, bool raw) {
  const MlpData d;
  double warm_up_ms = 0.0;
  if (!raw) {
    const double t0 = wall_ms();
    warm_up();
    warm_up_ms = wall_ms() - t0;
    idle_ms(1000.0);
  }
  const ColdRun cold = cold_case(name, d);
  const ColdRun warm = cold_case(name, d);
  const json line = {{"case", name},
                     {"warm_up_ms", warm_up_ms},
                     {"cold", cold_json(cold)},
                     {"warm", cold_json(warm)}};
  std::printf("%s\n", line.dump().c_str());
  return 0;
}

}  // namespace
}  // namespace looplab

int main(int argc, char** argv) {
  using namespace looplab;
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 3;
  if (argc > 2 && std::string(argv[1]) == "cold")
    return print_cold(argv[2], argc > 3 && std::string(argv[3]) == "raw");  // before anything
  const json env = environment();
  std::printf("timings: process CPU time\n");
  std::printf("build: %s, SIMD %s, compiler %s, best of %d\n\n",
              env["build"].get<std::string>().c_str(), env["simd_kind"].get<std::string>().c_str(),
              env["compiler"].get<std::string>().c_str(), repeats);

  if (argc > 2) {  // one case alone, e.g. under `perf stat` to count its instructions
    const std::string only = argv[2];
    const MlpData d;
    ConvData conv;
    const std::vector<std::pair<std::string, std::function<double()>>> cases = {
        {"w1-hand", [] { return w1_hand_ms(); }},
        {"w1-reference", [] { return w1_ms(Mode::Reference); }},
        {"w1-traced", [] { return w1_traced_ms(true); }},
        {"w1-compiled", [] { return w1_ms(Mode::Compiled); }},
        {"w1-unfused", [] { return w1_traced_ms(false); }},
        {"w2-hand", [&] { return w2_ms(d, Mode::Reference, 0); }},
        {"w2-reference", [&] { return w2_ms(d, Mode::Reference, 1); }},
        {"w2-traced", [&] { return w2_ms(d, Mode::Traced, 1); }},
        {"w2-compiled", [&] { return w2_ms(d, Mode::Compiled, 1); }},
        {"w2-unfused", [&] { return w2_ms(d, Mode::Traced, 1, false); }},
        {"w3-hand", [&] { return w3_hand_ms(conv); }},
        {"w3-traced", [&] { return w3_ms(conv, Mode::Traced); }},
        {"w3-compiled", [&] { return w3_ms(conv, Mode::Compiled); }},
        {"w3-eager", [&] { return w3_ms(conv, Mode::Eager); }}};
    const bool rounds = only == "rounds";
    const int n_rounds = rounds && argc > 3 ? std::atoi(argv[3]) : 1;
    for (int round = 1; round <= n_rounds; ++round) {  // interleaved: drift hits every case alike
      if (rounds) std::printf("round %d\n", round);
      for (const auto& [name, run] : cases)
        if (name == only || (rounds && name.find("unfused") == std::string::npos))
          std::printf("%s: %.1f ms\n", name.c_str(), best_of(repeats, run));
    }
    return 0;
  }
  const double w1_ref = best_of(repeats, [] { return w1_ms(Mode::Reference); });
  const double w1_traced = best_of(repeats, [] { return w1_ms(Mode::Traced); });
  const double w1_unfused = best_of(repeats, [] { return w1_traced_ms(false); });
  const double w1_eager = best_of(repeats, [] { return w1_ms(Mode::Eager); });
  const MlpData d;
  const double w2_ref = best_of(repeats, [&] { return w2_ms(d, Mode::Reference, 1); });
  const double w2_traced = best_of(repeats, [&] { return w2_ms(d, Mode::Traced, 1); });
  const double w2_unfused = best_of(repeats, [&] { return w2_ms(d, Mode::Traced, 1, false); });
  const double w2_unrolled = best_of(repeats, [&] { return w2_ms(d, Mode::Traced, 5); });
  const double w2_eager = best_of(repeats, [&] { return w2_ms(d, Mode::Eager, 1); });
  ConvData conv;
  const double w3_hand = best_of(repeats, [&] { return w3_hand_ms(conv); });
  const double w3_traced = best_of(repeats, [&] { return w3_ms(conv, Mode::Traced); });
  const double w3_compiled = best_of(repeats, [&] { return w3_ms(conv, Mode::Compiled); });
  const double w3_eager = best_of(repeats, [&] { return w3_ms(conv, Mode::Eager); });
  const double compile_w2 = best_of(repeats, [] { return setup_ms(1); });
  const double compile_all = best_of(1, [] { return setup_ms(1000); });

  std::printf(
      "| workload | reference | traced | traced, no fusion | unrolled(5) | eager | traced / "
      "reference | no fusion / reference |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  std::printf(
      "| W1 LR, 1e5 iterations | %.1f ms | %.1f ms | %.1f ms | – | %.1f ms | %.2fx | %.2fx |\n",
      w1_ref, w1_traced, w1_unfused, w1_eager, w1_traced / w1_ref, w1_unfused / w1_ref);
  std::printf(
      "| W2 MLP, 10,000 steps | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.2fx | %.2fx "
      "|\n",
      w2_ref, w2_traced, w2_unfused, w2_unrolled, w2_eager, w2_traced / w2_ref,
      w2_unfused / w2_ref);
  std::printf(
      "\n| W3 Conv1D(128, 40, s4, 'same') on (32, 140, 30), fwd + bwd, 20 steps | hand-written "
      "loop | traced | compiled | eager | traced / hand | compiled / hand |\n|---|---|---|---|---|"
      "---|---|\n| | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.2fx | %.2fx |\n",
      w3_hand, w3_traced, w3_compiled, w3_eager, w3_traced / w3_hand, w3_compiled / w3_hand);
  std::printf(
      "\n| program (fused / unfused) | ops | instructions | fused groups | arena bytes "
      "|\n|---|---|---|---|---|\n");
  for (int w = 1; w <= 2; ++w) {
    const json f = program_info(w, true), u = program_info(w, false);
    std::printf("| W%d step | %d | %d / %d | %d | %d / %d |\n", w,
                f["nodes_before_fusion"].get<int>(), f["nodes_after_fusion"].get<int>(),
                u["nodes_after_fusion"].get<int>(), f["fused_groups"].get<int>(),
                f["arena_bytes"].get<int>(), u["arena_bytes"].get<int>());
  }
  std::printf("\n| one-time cost | measured | target |\n|---|---|---|\n");
  std::printf("| trace + compile, W2 step | %.3f ms | < 1 ms |\n", compile_w2);
  std::printf("| trace + compile, unroll all 1000 batches (N = 100,000) | %.1f ms | < 1000 ms |\n",
              compile_all);
  print_pipelines_table(repeats);
  return 0;
}

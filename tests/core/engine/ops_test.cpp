// ops_test.cpp — one table: every op's forward against a plain double loop, its gradient (through
// the op's gradient rule and autodiff) against central finite differences, and its fusion role
// (from the op table) against what its kernel does; every elementwise op eager, traced and
// compiled. A new op needs one row in cases().
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>
#include <utility>

#include "looplab/base/rng.hpp"
#include "looplab/engine/eager.hpp"
#include "looplab/engine/program.hpp"
#include "looplab/engine/tracer.hpp"

namespace looplab {
namespace {

using Ref = std::function<std::vector<double>(const std::vector<Tensor>&, const OpAttrs&)>;

struct OpCase {
  std::string label;
  OpKind op;
  std::vector<Shape> inputs;
  OpAttrs attrs;
  Ref reference;                // forward in double
  float lo = -1.0f, hi = 1.0f;  // where the random inputs are drawn
  bool differentiable = true;   // activation-gradient ops have no gradient of their own
  float grid = 0.0f;  // > 0: inputs snapped to (k + ½)·grid, away from kinks at multiples of grid
};

double at(const Tensor& t, int r, int c) {
  return t[static_cast<std::size_t>(r) * t.shape().cols + c];
}

std::vector<double> matmul_ref(const std::vector<Tensor>& in, const OpAttrs& a) {
  const Tensor &x = in[0], &y = in[1];
  auto ax = [&](int i, int k) { return a.transpose_a ? at(x, k, i) : at(x, i, k); };
  auto by = [&](int k, int j) { return a.transpose_b ? at(y, j, k) : at(y, k, j); };
  const int m = a.transpose_a ? x.shape().cols : x.shape().rows;
  const int kk = a.transpose_a ? x.shape().rows : x.shape().cols;
  const int n = a.transpose_b ? y.shape().rows : y.shape().cols;
  std::vector<double> out;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < kk; ++k) s += ax(i, k) * by(k, j);
      out.push_back(s);
    }
  return out;
}

Ref elementwise(std::function<double(double, double)> f) {
  return [f](const std::vector<Tensor>& in, const OpAttrs&) {
    std::vector<double> out;
    for (std::size_t i = 0; i < in[0].size(); ++i)
      out.push_back(f(in[0][i], in.size() > 1 ? in[1][i] : 0.0));
    return out;
  };
}

OpAttrs mm(bool ta, bool tb) {
  OpAttrs a;
  a.transpose_a = ta;
  a.transpose_b = tb;
  return a;
}
OpAttrs clip_to(float lo, float hi) {
  OpAttrs a;
  a.lo = lo;
  a.hi = hi;
  return a;
}
OpAttrs scale_by(float s) {
  OpAttrs a;
  a.scale = s;
  return a;
}

OpAttrs window(const Window& w) {
  OpAttrs a;
  a.window = w;
  return a;
}
OpAttrs dropout_attrs(float rate, std::uint32_t seed) {
  OpAttrs a;
  a.scale = rate;
  a.seed = seed;
  return a;
}
// Conv1D's windows as a person writes them: out[(b, o), k·C + c] = x[b, o·stride − pad + k, c]
// (0 outside the sequence); the scatter is its transpose, so it is checked through the same map.
int window_source(const Window& w, int o, int k) {
  const int t = o * w.stride - w.pad + k;
  return t >= 0 && t < w.length ? t : -1;
}
std::vector<double> gather_ref(const std::vector<Tensor>& in, const OpAttrs& a) {
  const Window& w = a.window;
  const int channels = in[0].shape().cols, batch = in[0].shape().rows / w.length;
  std::vector<double> out;
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < w.out; ++o)
      for (int k = 0; k < w.kernel; ++k)
        for (int c = 0; c < channels; ++c) {
          const int t = window_source(w, o, k);
          out.push_back(t < 0 ? 0.0 : at(in[0], b * w.length + t, c));
        }
  return out;
}
std::vector<double> scatter_ref(const std::vector<Tensor>& in, const OpAttrs& a) {
  const Window& w = a.window;
  const int channels = in[0].shape().cols / w.kernel, batch = in[0].shape().rows / w.out;
  std::vector<double> out(static_cast<std::size_t>(batch) * w.length * channels, 0.0);
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < w.out; ++o)
      for (int k = 0; k < w.kernel; ++k)
        for (int c = 0; c < channels; ++c)
          if (const int t = window_source(w, o, k); t >= 0)
            out[static_cast<std::size_t>((b * w.length + t) * channels + c)] +=
                at(in[0], b * w.out + o, k * channels + c);
  return out;
}
// Sequences of 5 steps, windows of 3 with stride 2, 'same' padding: 3 output steps, one zero step
// before the first (so padding, overlap and the edge are all exercised).
const Window kWindow = conv_window(5, 3, 2, true);

std::vector<OpCase> cases() {
  return {
      {"MatMul", OpKind::MatMul, {{3, 4}, {4, 2}}, mm(false, false), matmul_ref},
      {"MatMul A^T", OpKind::MatMul, {{4, 3}, {4, 2}}, mm(true, false), matmul_ref},
      {"MatMul B^T", OpKind::MatMul, {{3, 4}, {2, 4}}, mm(false, true), matmul_ref},
      {"MatMul A^T B^T", OpKind::MatMul, {{4, 3}, {2, 4}}, mm(true, true), matmul_ref},
      {"AddRow",
       OpKind::AddRow,
       {{3, 2}, {1, 2}},
       {},
       [](const std::vector<Tensor>& in, const OpAttrs&) {
         std::vector<double> out;
         for (int i = 0; i < 3; ++i)
           for (int j = 0; j < 2; ++j) out.push_back(at(in[0], i, j) + at(in[1], 0, j));
         return out;
       }},
      {"Add", OpKind::Add, {{2, 3}, {2, 3}}, {}, elementwise([](double a, double b) {
         return a + b;
       })},
      {"Sub", OpKind::Sub, {{2, 3}, {2, 3}}, {}, elementwise([](double a, double b) {
         return a - b;
       })},
      {"Mul", OpKind::Mul, {{2, 3}, {2, 3}}, {}, elementwise([](double a, double b) {
         return a * b;
       })},
      {"Scale", OpKind::Scale, {{2, 3}}, scale_by(-1.5f), elementwise([](double a, double) {
         return -1.5 * a;
       })},
      {"MulScalar",
       OpKind::MulScalar,
       {{2, 3}, {1, 1}},
       {},
       [](const std::vector<Tensor>& in, const OpAttrs&) {
         std::vector<double> out;
         for (std::size_t i = 0; i < in[0].size(); ++i)
           out.push_back(in[0][i] * static_cast<double>(in[1][0]));
         return out;
       }},
      {"Square", OpKind::Square, {{2, 3}}, {}, elementwise([](double a, double) { return a * a; })},
      {"Mean",
       OpKind::Mean,
       {{3, 4}},
       {},
       [](const std::vector<Tensor>& in, const OpAttrs&) {
         double s = 0;
         for (std::size_t i = 0; i < in[0].size(); ++i) s += in[0][i];
         return std::vector<double>{s / static_cast<double>(in[0].size())};
       }},
      {"SumRows",
       OpKind::SumRows,
       {{3, 2}},
       {},
       [](const std::vector<Tensor>& in, const OpAttrs&) {
         std::vector<double> out(2, 0.0);
         for (int i = 0; i < 3; ++i)
           for (int j = 0; j < 2; ++j) out[j] += at(in[0], i, j);
         return out;
       }},
      {"Sum",
       OpKind::Sum,
       {{3, 4}},
       {},
       [](const std::vector<Tensor>& in, const OpAttrs&) {
         double s = 0;
         for (std::size_t i = 0; i < in[0].size(); ++i) s += in[0][i];
         return std::vector<double>{s};
       }},
      {"MeanGrad",
       OpKind::MeanGrad,
       {{1, 1}, {2, 3}},
       {},
       [](const std::vector<Tensor>& in, const OpAttrs&) {
         return std::vector<double>(6, in[0][0] / 6.0);
       }},
      {"Fill",
       OpKind::Fill,
       {{1, 1}, {2, 3}},
       {},
       [](const std::vector<Tensor>& in, const OpAttrs&) {
         return std::vector<double>(6, in[0][0]);
       }},
      {"RepeatRows",
       OpKind::RepeatRows,
       {{1, 2}, {3, 2}},
       {},
       [](const std::vector<Tensor>& in, const OpAttrs&) {
         std::vector<double> out;
         for (int i = 0; i < 3; ++i)
           for (int j = 0; j < 2; ++j) out.push_back(in[0][static_cast<std::size_t>(j)]);
         return out;
       }},
      {"AddConst", OpKind::AddConst, {{2, 3}}, scale_by(0.25f), elementwise([](double a, double) {
         return a + 0.25;
       })},
      {"Div",
       OpKind::Div,
       {{2, 3}, {2, 3}},
       {},
       elementwise([](double a, double b) { return a / b; }),
       0.5f,
       2.0f},
      {"Sqrt",
       OpKind::Sqrt,
       {{2, 3}},
       {},
       elementwise([](double a, double) { return std::sqrt(a); }),
       0.5f,
       2.0f},
      {"Tanh",
       OpKind::Tanh,
       {{3, 4}},
       {},
       elementwise([](double a, double) { return std::tanh(a); }),
       -3.0f,
       3.0f},
      {"TanhGrad",
       OpKind::TanhGrad,
       {{2, 3}, {2, 3}},
       {},
       elementwise([](double y, double d) { return d * (1 - y * y); }),
       -1.0f,
       1.0f,
       false},
      {"Sigmoid",
       OpKind::Sigmoid,
       {{3, 4}},
       {},
       elementwise([](double a, double) { return 1.0 / (1.0 + std::exp(-a)); }),
       -4.0f,
       4.0f},
      {"SigmoidGrad",
       OpKind::SigmoidGrad,
       {{2, 3}, {2, 3}},
       {},
       elementwise([](double y, double d) { return d * y * (1 - y); }),
       0.0f,
       1.0f,
       false},
      {"Relu",
       OpKind::Relu,
       {{3, 4}},
       {},
       elementwise([](double a, double) { return a > 0 ? a : 0.0; }),
       -1.0f,
       1.0f,
       true,
       0.1f},
      {"ReluGrad",
       OpKind::ReluGrad,
       {{2, 3}, {2, 3}},
       {},
       elementwise([](double x, double d) { return x > 0 ? d : 0.0; }),
       -1.0f,
       1.0f,
       false},
      {"Log",
       OpKind::Log,
       {{2, 3}},
       {},
       elementwise([](double a, double) { return std::log(a); }),
       0.5f,
       2.0f},
      {"Clip",
       OpKind::Clip,
       {{3, 4}},
       clip_to(-0.5f, 0.5f),
       elementwise([](double a, double) { return std::min(0.5, std::max(-0.5, a)); }),
       -1.0f,
       1.0f,
       true,
       0.1f},
      {"ClipGrad",
       OpKind::ClipGrad,
       {{2, 3}, {2, 3}},
       clip_to(-0.5f, 0.5f),
       elementwise([](double x, double d) { return (x > -0.5 && x < 0.5) ? d : 0.0; }),
       -1.0f,
       1.0f,
       false},
      {"SubFrom", OpKind::SubFrom, {{2, 3}}, scale_by(1.0f), elementwise([](double a, double) {
         return 1.0 - a;
       })},
      {"WindowGather", OpKind::WindowGather, {{10, 2}}, window(kWindow), gather_ref},
      {"WindowScatter", OpKind::WindowScatter, {{6, 6}}, window(kWindow), scatter_ref},
      {"GroupMean",
       OpKind::GroupMean,
       {{6, 2}},
       window({3}),
       [](const std::vector<Tensor>& in, const OpAttrs&) {
         std::vector<double> out;
         for (int b = 0; b < 2; ++b)
           for (int c = 0; c < 2; ++c)
             out.push_back(
                 (at(in[0], 3 * b, c) + at(in[0], 3 * b + 1, c) + at(in[0], 3 * b + 2, c)) / 3);
         return out;
       }},
      {"GroupMeanGrad",
       OpKind::GroupMeanGrad,
       {{2, 2}},
       window({3}),
       [](const std::vector<Tensor>& in, const OpAttrs&) {
         std::vector<double> out;
         for (int r = 0; r < 6; ++r)
           for (int c = 0; c < 2; ++c) out.push_back(at(in[0], r / 3, c) / 3);
         return out;
       }},
      // The step input is drawn from (k + ½) for k in 0 .. 7: the mask changes with ⌊step⌋ only.
      {"Dropout",
       OpKind::Dropout,
       {{6, 5}, {1, 1}},
       dropout_attrs(0.5f, 7),
       [](const std::vector<Tensor>& in, const OpAttrs& a) {
         std::vector<double> out;
         const auto t = static_cast<std::uint32_t>(std::floor(in[1][0]));
         for (std::size_t i = 0; i < in[0].size(); ++i)
           out.push_back(dropout_keeps(a.seed, t, i, a.scale) ? in[0][i] / 0.5 : 0.0);
         return out;
       },
       0.0f,
       8.0f,
       true,
       1.0f},
      {"Softplus",
       OpKind::Softplus,
       {{3, 4}},
       {},
       elementwise([](double a, double) { return std::log1p(std::exp(a)); }),
       -6.0f,
       6.0f},
  };
}

Tensor random_tensor(Shape s, Rng& rng, float lo = -1.0f, float hi = 1.0f, float grid = 0.0f) {
  Tensor t(s);
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double v = rng.uniform(lo, hi);
    t[i] = static_cast<float>(grid > 0.0f ? (std::floor(v / grid) + 0.5) * grid : v);
  }
  return t;
}

// L = Σ out ⊙ R for a fixed random R, so every output element's gradient path is exercised.
float probe_loss(const OpCase& c, const std::vector<Tensor>& inputs, const Tensor& r) {
  EagerBuilder b;
  std::array<Value, kMaxArity> args{};
  for (std::size_t i = 0; i < inputs.size(); ++i) args[i] = b.input(inputs[i], "x");
  const Value out = b.apply(c.op, args, c.attrs);
  return b.scalar(b.scale(b.mean(b.mul(out, b.input(r, "R"))), static_cast<float>(r.size())));
}

TEST(Ops, TableCoversEveryOp) {
  std::set<OpKind> seen;
  for (const auto& c : cases()) seen.insert(c.op);
  EXPECT_EQ(static_cast<int>(seen.size()), kOpCount) << "add a row to cases() for every new op";
}

TEST(Ops, ForwardMatchesPlainLoop) {
  Rng rng(7);
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.label);
    std::vector<Tensor> inputs;
    for (Shape s : c.inputs) inputs.push_back(random_tensor(s, rng, c.lo, c.hi));
    EagerBuilder b;
    std::array<Value, kMaxArity> args{};
    for (std::size_t i = 0; i < inputs.size(); ++i) args[i] = b.input(inputs[i], "x");
    const Value out = b.apply(c.op, args, c.attrs);
    const std::vector<double> want = c.reference(inputs, c.attrs);
    ASSERT_EQ(b.shape(out).size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(b.data(out)[i], want[i], 1e-5) << "element " << i;
  }
}

TEST(Ops, GradientMatchesCentralDifferences) {
  Rng rng(11);
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.label);
    if (!c.differentiable) continue;
    std::vector<Tensor> inputs;
    for (Shape s : c.inputs) inputs.push_back(random_tensor(s, rng, c.lo, c.hi, c.grid));
    EagerBuilder probe;
    std::array<Value, kMaxArity> args{};
    for (std::size_t i = 0; i < inputs.size(); ++i) args[i] = probe.input(inputs[i], "x");
    const Tensor r = random_tensor(probe.shape(probe.apply(c.op, args, c.attrs)), rng);

    // Analytic gradients through the op's gradient rule.
    std::vector<std::vector<float>> analytic;
    {
      EagerBuilder b;
      std::vector<Value> in;
      for (auto& t : inputs) in.push_back(b.parameter(t, "p"));
      std::array<Value, kMaxArity> a{};
      for (std::size_t i = 0; i < in.size(); ++i) a[i] = in[i];
      const Value loss = b.scale(b.mean(b.mul(b.apply(c.op, a, c.attrs), b.input(r, "R"))),
                                 static_cast<float>(r.size()));
      const auto g = gradients(b, loss, in);
      for (std::size_t i = 0; i < g.size(); ++i) {
        ASSERT_EQ(b.shape(g[i]), inputs[i].shape());
        analytic.emplace_back(b.data(g[i]), b.data(g[i]) + inputs[i].size());
      }
    }
    // Central differences: (L(x + h) − L(x − h)) / 2h, element by element.
    const float h = 1e-2f;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      for (std::size_t k = 0; k < inputs[i].size(); ++k) {
        const float saved = inputs[i][k];
        inputs[i][k] = saved + h;
        const double up = probe_loss(c, inputs, r);
        inputs[i][k] = saved - h;
        const double down = probe_loss(c, inputs, r);
        inputs[i][k] = saved;
        const double numeric = (up - down) / (2.0 * h);
        EXPECT_NEAR(analytic[i][k], numeric, 2e-3 + 2e-3 * std::abs(numeric))
            << "input " << i << " element " << k;
      }
  }
}

// A kernel call on raw data; `shape` gives each operand's shape.
std::vector<float> run_kernel(const OpCase& c, const std::vector<Tensor>& in,
                              const std::array<Shape, kMaxArity>& shape, Shape out_shape,
                              std::size_t offset = 0) {
  const OpDef& d = op_def(c.op);
  std::vector<float> out(out_shape.size());
  KernelArgs k;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const bool vector = in[i].size() > 1 && shape[i].size() < in[i].size();  // a tile of it
    k.in[i] = in[i].data() + (vector ? offset : 0);
    k.in_shape[i] = shape[i];
  }
  k.out = out.data();
  k.out_shape = out_shape;
  k.attrs = &c.attrs;
  d.forward(k);
  return out;
}

// What the fusion pass assumes of an op's role (ops.hpp, FusionRole), checked on its kernel:
// an Elementwise op run tile by tile equals one run over the whole vector, bit for bit (a Scalar
// or Row operand [1 x 1], a shape-only one seen whole); a Reduction of a column is its sum (or
// mean); a Contraction of a column by a [1 x 1] is elementwise, of two columns a dot product.
TEST(Ops, FusionRolesHoldForTheKernels) {
  constexpr int n = 13, split = 8;  // two tiles: [0, 8) and [8, 13)
  const Shape column{n, 1}, one{1, 1};
  Rng rng(5);
  for (OpCase c : cases()) {
    SCOPED_TRACE(c.label);
    const OpDef& d = op_def(c.op);
    const FusionRole& role = d.fusion;
    if (role.kind == FusionKind::Opaque) continue;
    if (role.kind == FusionKind::Contraction) c.attrs = {};  // a column times a [1 x 1]
    std::array<Shape, kMaxArity> shape{};
    for (int i = 0; i < d.arity; ++i) {
      const LoopOperand o = role.operand[static_cast<std::size_t>(i)];
      const bool scalar = o == LoopOperand::Scalar || o == LoopOperand::Row ||
                          (role.kind == FusionKind::Contraction && i == 1);
      shape[static_cast<std::size_t>(i)] = scalar ? one : column;
    }
    std::vector<Tensor> in;
    for (int i = 0; i < d.arity; ++i)
      in.push_back(random_tensor(shape[static_cast<std::size_t>(i)], rng, c.lo, c.hi));
    const Shape out_shape = d.shape(shape, c.attrs);
    const std::vector<float> whole = run_kernel(c, in, shape, out_shape);
    if (role.kind == FusionKind::Reduction) {
      ASSERT_EQ(out_shape, one);
      double sum = 0.0;
      for (std::size_t i = 0; i < in[0].size(); ++i) sum += in[0][i];
      EXPECT_NEAR(whole[0], role.mean ? sum / n : sum, 1e-5);
      continue;
    }
    ASSERT_EQ(out_shape, column);  // elementwise (and a column times a scalar)
    for (const auto& [begin, end] : {std::pair{0, split}, std::pair{split, n}}) {
      const Shape tile{end - begin, 1};
      std::array<Shape, kMaxArity> tiled = shape;
      for (int i = 0; i < d.arity; ++i) {
        const LoopOperand o = role.operand[static_cast<std::size_t>(i)];
        if (shape[static_cast<std::size_t>(i)] == column && o != LoopOperand::ShapeOnly)
          tiled[static_cast<std::size_t>(i)] = tile;
      }
      const std::vector<float> part =
          run_kernel(c, in, tiled, tile, static_cast<std::size_t>(begin));
      for (int i = begin; i < end; ++i)
        EXPECT_EQ(part[static_cast<std::size_t>(i - begin)], whole[static_cast<std::size_t>(i)])
            << "element " << i;
    }
    if (role.kind == FusionKind::Contraction) {  // aᵀb of two columns
      OpCase dot = c;
      dot.attrs.transpose_a = true;
      const std::vector<Tensor> ab{random_tensor(column, rng), random_tensor(column, rng)};
      const std::vector<float> r = run_kernel(dot, ab, {column, column}, one);
      double sum = 0.0;
      for (int i = 0; i < n; ++i)
        sum += static_cast<double>(ab[0][static_cast<std::size_t>(i)]) *
               ab[1][static_cast<std::size_t>(i)];
      EXPECT_NEAR(r[0], sum, 1e-5);
    }
  }
}

// Every Elementwise op of the table on columns of 37 (two blocks of 16 partial sums and a tail):
// eager, traced and compiled (generated code: C natively, WebAssembly in the wasm build) give the
// same bits. Each op is applied twice: alone (compiled: a loop of one expression, or its kernel
// when it broadcasts a row) and summed (a member of a fused loop with a sink), so both ways an
// op's LoopForm is read are run. All ops are in one program, so the code is built once. A new
// elementwise op whose loop form is an existing kir::Op passes this with its table row and its
// row in cases() alone.
TEST(Ops, ElementwiseOpsAgreeEagerTracedAndCompiled) {
  constexpr int n = 37;
  Rng rng(13);
  std::vector<OpCase> ops;
  std::vector<std::vector<Tensor>> inputs;
  for (const OpCase& c : cases()) {
    const OpDef& d = op_def(c.op);
    if (d.fusion.kind != FusionKind::Elementwise) continue;
    std::vector<Tensor> in;
    for (std::size_t i = 0; i < static_cast<std::size_t>(d.arity); ++i) {
      const LoopOperand o = d.fusion.operand[i];
      const bool one = o == LoopOperand::Scalar || o == LoopOperand::Row;
      in.push_back(random_tensor(one ? Shape{1, 1} : Shape{n, 1}, rng, c.lo, c.hi));
    }
    ops.push_back(c);
    inputs.push_back(std::move(in));
  }
  const std::size_t m = ops.size();
  Tracer t;
  std::vector<Value> out(3 * m);  // [k] op k alone, [m + k] op k summed, [2m + k] the sum
  for (std::size_t k = 0; k < m; ++k) {
    std::array<Value, kMaxArity> a{};
    for (std::size_t i = 0; i < inputs[k].size(); ++i) a[i] = t.input(inputs[k][i], "x");
    out[k] = t.apply(ops[k].op, a, ops[k].attrs);
    out[m + k] = t.apply(ops[k].op, a, ops[k].attrs);
    out[2 * m + k] = t.sum(out[m + k]);
  }
  Program traced = compile(t, out, {});
  CompileOptions generate;
  generate.generate = true;
  Program compiled = compile(t, out, {}, generate);
  traced.run();
  compiled.run();
  const std::string& code = compiled.generated_code();
  auto has = [&](const std::string& note) {  // a statement's note, in C or in WebAssembly text
    return code.find("/* " + note + " */") != std::string::npos ||
           code.find(";; " + note + "\n") != std::string::npos;
  };
  for (std::size_t k = 0; k < m; ++k) {
    SCOPED_TRACE(ops[k].label);
    EagerBuilder b;
    std::array<Value, kMaxArity> a{};
    for (std::size_t i = 0; i < inputs[k].size(); ++i) a[i] = b.input(inputs[k][i], "x");
    const float* eager = b.data(b.apply(ops[k].op, a, ops[k].attrs));
    for (const std::size_t o : {k, m + k})
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(traced.output_data(static_cast<int>(o))[i], eager[i]) << "element " << i;
        EXPECT_EQ(compiled.output_data(static_cast<int>(o))[i], eager[i]) << "element " << i;
      }
    // The kernels sum in double, generated code in float32 partial sums (kernel_ir.hpp).
    const int sum = static_cast<int>(2 * m + k);
    EXPECT_NEAR(compiled.output(sum), traced.output(sum),
                1e-5 * std::abs(traced.output(sum)) + 1e-6);
    const std::string name(op_name(ops[k].op));
    const auto& how = op_def(ops[k].op).fusion.operand;
    const bool row = how[0] == LoopOperand::Row || how[1] == LoopOperand::Row;
    EXPECT_TRUE(has(name + " Sum")) << code;
    EXPECT_TRUE(has(name + (row ? " kernel" : ""))) << code;
  }
}

// Every Opaque op of the table (Conv1D's windows, pooling, dropout, softplus), alone and then
// through the rest of a small step: eager, traced and compiled give the same bits, the compiled
// program calling the op's own kernel.
TEST(Ops, OpaqueOpsAgreeEagerTracedAndCompiled) {
  Rng rng(17);
  for (const OpCase& c : cases()) {
    const OpDef& d = op_def(c.op);
    if (d.fusion.kind != FusionKind::Opaque) continue;
    SCOPED_TRACE(c.label);
    std::vector<Tensor> in;
    for (Shape s : c.inputs) in.push_back(random_tensor(s, rng, c.lo, c.hi, c.grid));
    Tracer t;
    std::array<Value, kMaxArity> a{};
    for (std::size_t i = 0; i < in.size(); ++i) a[i] = t.input(in[i], "x");
    const Value out = t.apply(c.op, a, c.attrs);
    const Value after = t.sum(t.tanh(out));
    Program traced = compile(t, {out, after}, {});
    CompileOptions generate;
    generate.generate = true;
    Program compiled = compile(t, {out, after}, {}, generate);
    traced.run();
    compiled.run();
    EagerBuilder b;
    std::array<Value, kMaxArity> e{};
    for (std::size_t i = 0; i < in.size(); ++i) e[i] = b.input(in[i], "x");
    const Value eager = b.apply(c.op, e, c.attrs);
    for (std::size_t i = 0; i < b.shape(eager).size(); ++i) {
      EXPECT_EQ(traced.output_data(0)[i], b.data(eager)[i]) << "element " << i;
      EXPECT_EQ(compiled.output_data(0)[i], b.data(eager)[i]) << "element " << i;
    }
    const float sum = b.scalar(b.sum(b.tanh(eager)));
    EXPECT_EQ(traced.output(1), sum);
    EXPECT_NEAR(compiled.output(1), sum, 1e-5 * std::abs(sum) + 1e-6);
  }
}

TEST(Ops, ConvWindowsFollowKerasPadding) {
  const Window same = conv_window(140, 40, 4, true);  // seed 001's small model
  EXPECT_EQ(same.out, 35);
  EXPECT_EQ(same.pad, 18);  // (34·4 + 40 − 140) / 2
  const Window valid = conv_window(1400, 20, 1, false);
  EXPECT_EQ(valid.out, 1381);
  EXPECT_EQ(valid.pad, 0);
  EXPECT_EQ(conv_window(10, 3, 2, false).out, 4);
  try {
    conv_window(30, 40, 1, false);
    FAIL() << "a kernel longer than the sequence must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 40"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("length 30"), std::string::npos) << e.what();
  }
  EXPECT_THROW(conv_window(30, 3, 0, true), std::invalid_argument);
}

TEST(Ops, ShapeErrorsNameTheOp) {
  Tensor a({2, 3}), b({4, 2});
  EagerBuilder e;
  try {
    e.matmul(e.input(a, "a"), e.input(b, "b"));
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError& err) {
    EXPECT_NE(std::string(err.what()).find("MatMul"), std::string::npos) << err.what();
  }
  EXPECT_THROW(e.add(e.input(a, "a"), e.input(b, "b")), ShapeError);
  EXPECT_THROW(e.add_row(e.input(a, "a"), e.input(b, "b")), ShapeError);
}

TEST(Ops, FastTanhIsAccurate) {
  double worst = 0.0;
  for (double x = -10.0; x <= 10.0; x += 1e-3)
    worst = std::max(worst, std::abs(fast_tanh(static_cast<float>(x)) - std::tanh(x)));
  EXPECT_LT(worst, 2e-6);
  EXPECT_EQ(fast_tanh(0.0f), 0.0f);
  EXPECT_FLOAT_EQ(fast_tanh(50.0f), 1.0f);
}

TEST(Ops, GradientOfAValueUsedTwiceIsSummed) {
  // L = mean(x ⊙ x) computed as mul(x, x): dL/dx = 2x/n, from two contributions.
  Tensor x({1, 3}, {1.0f, -2.0f, 3.0f});
  EagerBuilder b;
  const Value v = b.parameter(x, "x");
  const auto g = gradients(b, b.mean(b.mul(v, v)), {v});
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(b.data(g[0])[i], 2.0 * x[i] / 3.0, 1e-6);
}

}  // namespace
}  // namespace looplab

// ops.cpp — one block per op: shape rule, forward kernel, gradient rule, FLOP count; then the
// table, one row per op, which also gives its fusion role and its loop form (compiled mode).
//
// NOTE: reductions (Mean, SumRows) accumulate in double. A float32 sum of 1000 terms that nearly
// cancel (the gradient near the optimum) is only good to ~1e-4 relative, which would make eager,
// traced, reference and WebAssembly runs drift apart through their different summation orders.
#include "looplab/engine/ops.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "looplab/engine/builder.hpp"

namespace looplab {
namespace {

using In = std::array<Shape, kMaxArity>;

[[noreturn]] void shape_fail(std::string_view op, const std::string& why) {
  throw ShapeError(std::string(op) + ": " + why);
}

Shape same_shape(std::string_view op, const In& in) {
  if (in[0] != in[1]) shape_fail(op, "shapes differ: " + in[0].str() + " vs " + in[1].str());
  return in[0];
}
Shape unary_shape(const In& in, const OpAttrs&) { return in[0]; }

// Σ p[i] in double. NOTE: kLanes independent partial sums break the add-latency chain (one running
// sum costs ~4 cycles per element) and let the compiler vectorize.
double sum_double(const float* p, std::size_t n) {
  constexpr std::size_t kLanes = 8;
  double lane[kLanes] = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (std::size_t l = 0; l < kLanes; ++l) lane[l] += p[i + l];
  double s = 0.0;
  for (; i < n; ++i) s += p[i];
  for (double v : lane) s += v;
  return s;
}
double elementwise_flops(const In& in, Shape, const OpAttrs&) {
  return static_cast<double>(in[0].size());
}

// --- MatMul: C = op(A) op(B), op = transpose if the attribute says so --------------------------
Shape matmul_shape(const In& in, const OpAttrs& a) {
  const int m = a.transpose_a ? in[0].cols : in[0].rows,
            k = a.transpose_a ? in[0].rows : in[0].cols;
  const int k2 = a.transpose_b ? in[1].cols : in[1].rows,
            n = a.transpose_b ? in[1].rows : in[1].cols;
  if (k != k2) shape_fail("MatMul", "inner sizes differ: " + in[0].str() + " x " + in[1].str());
  return {m, n};
}
double dot_double(const float* a, const float* b, std::size_t n) {
  constexpr std::size_t kLanes = 8;
  double lane[kLanes] = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (std::size_t l = 0; l < kLanes; ++l) lane[l] += static_cast<double>(a[i + l]) * b[i + l];
  double s = 0.0;
  for (; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
  for (double v : lane) s += v;
  return s;
}

// C = op(A) op(B) by plain loops: element (i, p) of op(A) is at a[i·ai + p·ap], and so on.
// Sums run in double with independent lanes, like the reductions above.
void matmul_loops(const KernelArgs& k, int m, int depth, int n) {
  const bool ta = k.attrs->transpose_a, tb = k.attrs->transpose_b;
  const std::size_t lda = static_cast<std::size_t>(k.in_shape[0].cols),
                    ldb = static_cast<std::size_t>(k.in_shape[1].cols);
  const std::size_t ai = ta ? 1 : lda, ap = ta ? lda : 1, bp = tb ? 1 : ldb, bj = tb ? ldb : 1;
  const float* a = k.in[0];
  const float* b = k.in[1];
  if (depth == 1) {           // an outer product: one rounding per element, no sum
    if (n == 1 && ai == 1) {  // a column times a scalar: contiguous, vectorizable
      const float s = b[0];   // NOTE: a local, or the compiler must reload it (out might alias b)
      for (int i = 0; i < m; ++i) k.out[i] = a[i] * s;
      return;
    }
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        k.out[static_cast<std::size_t>(i) * n + j] = a[i * ai] * b[j * bj];
    return;
  }
  constexpr int kLanes = 8;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const float* ar = a + i * ai;
      const float* bc = b + j * bj;
      if (ap == 1 && bp == 1) {  // both operands contiguous: a plain dot product
        k.out[static_cast<std::size_t>(i) * n + j] =
            static_cast<float>(dot_double(ar, bc, static_cast<std::size_t>(depth)));
        continue;
      }
      double lane[kLanes] = {};
      int p = 0;
      for (; p + kLanes <= depth; p += kLanes)
        for (int l = 0; l < kLanes; ++l)
          lane[l] += static_cast<double>(ar[(p + l) * ap]) * bc[(p + l) * bp];
      double sum = 0.0;
      for (; p < depth; ++p) sum += static_cast<double>(ar[p * ap]) * bc[p * bp];
      for (double v : lane) sum += v;
      k.out[static_cast<std::size_t>(i) * n + j] = static_cast<float>(sum);
    }
}

void matmul_forward(const KernelArgs& k) {
  const bool ta = k.attrs->transpose_a, tb = k.attrs->transpose_b;
  const int m = k.out_shape.rows, n = k.out_shape.cols;
  const int depth = ta ? k.in_shape[0].rows : k.in_shape[0].cols;
  // NOTE: Eigen's GEMM pays off only when every dimension is sizeable; the thin products of small
  // models (a column of inputs times a 1 x h row, a dot product over the batch) are faster as
  // loops.
  if (std::min({m, n, depth}) < 8) return matmul_loops(k, m, depth, n);
  auto a = as_matrix(k.in[0], k.in_shape[0]);
  auto b = as_matrix(k.in[1], k.in_shape[1]);
  auto c = as_matrix(k.out, k.out_shape);
  if (!ta && !tb)
    c.noalias() = a * b;
  else if (ta && !tb)
    c.noalias() = a.transpose() * b;
  else if (!ta && tb)
    c.noalias() = a * b.transpose();
  else
    c.noalias() = a.transpose() * b.transpose();
}
// dA and dB for every transpose combination of C = op(A) op(B).
void matmul_gradient(Builder& b, const GradArgs& g) {
  const Value a = *g.in[0], w = *g.in[1], d = *g.dout;
  const bool ta = g.attrs->transpose_a, tb = g.attrs->transpose_b;
  if (g.din[0]) *g.din[0] = ta ? b.matmul(w, d, tb, true) : b.matmul(d, w, false, !tb);
  if (g.din[1]) *g.din[1] = tb ? b.matmul(d, a, true, ta) : b.matmul(a, d, !ta, false);
}
double matmul_flops(const In& in, Shape out, const OpAttrs& a) {
  const int k = a.transpose_a ? in[0].rows : in[0].cols;
  return 2.0 * k * static_cast<double>(out.size());
}

// --- AddRow: y = A + r, the row vector r (1 x cols) added to every row --------------------------
Shape add_row_shape(const In& in, const OpAttrs&) {
  if (in[1].rows != 1 || in[1].cols != in[0].cols)
    shape_fail("AddRow",
               "row must be [1 x " + std::to_string(in[0].cols) + "], got " + in[1].str());
  return in[0];
}
void add_row_forward(const KernelArgs& k) {
  const int rows = k.out_shape.rows, cols = k.out_shape.cols;
  const float* a = k.in[0];
  const float* r = k.in[1];
  if (cols == 1) {
    const float r0 = r[0];  // a local, so the loop vectorizes without an aliasing check
    for (int i = 0; i < rows; ++i) k.out[i] = a[i] + r0;
    return;
  }
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      k.out[static_cast<std::size_t>(i) * cols + j] =
          a[static_cast<std::size_t>(i) * cols + j] + r[j];
}
void add_row_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = *g.dout;
  if (g.din[1]) *g.din[1] = b.sum_rows(*g.dout);
}

// --- Add, Sub, Mul: elementwise, same shapes ---------------------------------------------------
Shape add_shape(const In& in, const OpAttrs&) { return same_shape("Add", in); }
void add_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  for (std::size_t i = 0; i < n; ++i) k.out[i] = k.in[0][i] + k.in[1][i];
}
void add_gradient(Builder&, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = *g.dout;
  if (g.din[1]) *g.din[1] = *g.dout;
}

Shape sub_shape(const In& in, const OpAttrs&) { return same_shape("Sub", in); }
void sub_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  for (std::size_t i = 0; i < n; ++i) k.out[i] = k.in[0][i] - k.in[1][i];
}
void sub_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = *g.dout;
  if (g.din[1]) *g.din[1] = b.scale(*g.dout, -1.0f);
}

Shape mul_shape(const In& in, const OpAttrs&) { return same_shape("Mul", in); }
void mul_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  for (std::size_t i = 0; i < n; ++i) k.out[i] = k.in[0][i] * k.in[1][i];
}
void mul_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.mul(*g.dout, *g.in[1]);
  if (g.din[1]) *g.din[1] = b.mul(*g.dout, *g.in[0]);
}

// --- Scale: y = s * x --------------------------------------------------------------------------
void scale_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  const float s = k.attrs->scale;
  for (std::size_t i = 0; i < n; ++i) k.out[i] = s * k.in[0][i];
}
void scale_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.scale(*g.dout, g.attrs->scale);
}

// --- MulScalar: y = s·x with s a [1 x 1] tensor (a program input such as the learning rate) -----
Shape mul_scalar_shape(const In& in, const OpAttrs&) {
  if (in[1] != Shape{1, 1}) shape_fail("MulScalar", "scalar must be [1 x 1], got " + in[1].str());
  return in[0];
}
void mul_scalar_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  const float s = k.in[1][0];
  for (std::size_t i = 0; i < n; ++i) k.out[i] = s * k.in[0][i];
}
void mul_scalar_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.mul_scalar(*g.dout, *g.in[1]);
  if (g.din[1]) {  // ds = Σ dout ⊙ x
    *g.din[1] = b.sum(b.mul(*g.dout, *g.in[0]));
  }
}

// --- Square: y = x^2, dy/dx = 2x ---------------------------------------------------------------
void square_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  for (std::size_t i = 0; i < n; ++i) k.out[i] = k.in[0][i] * k.in[0][i];
}
void square_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.mul(*g.dout, b.scale(*g.in[0], 2.0f));
}

// --- Mean: y = (1/N) sum x, a 1x1 result; dy/dx_i = 1/N ----------------------------------------
Shape mean_shape(const In&, const OpAttrs&) { return {1, 1}; }
void mean_forward(const KernelArgs& k) {
  const std::size_t n = k.in_shape[0].size();
  k.out[0] = static_cast<float>(sum_double(k.in[0], n) / static_cast<double>(n));
}
void mean_gradient(Builder& b, const GradArgs& g) {
  // 1/N comes from x's shape when the kernel runs, not from the shape seen at trace time.
  if (g.din[0]) *g.din[0] = b.apply(OpKind::MeanGrad, {*g.dout, *g.in[0]});
}

// --- Sum: y = Σ x, a 1x1 result; dy/dx_i = 1 ----------------------------------------------------
void sum_forward(const KernelArgs& k) {
  k.out[0] = static_cast<float>(sum_double(k.in[0], k.in_shape[0].size()));
}
void sum_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.fill(*g.dout, *g.in[0]);
}

// --- MeanGrad(d, x): d / N in the shape of x, N = size of x (the gradient of Mean) ---------------
Shape like_shape(const In& in, const OpAttrs&) {
  if (in[0] != Shape{1, 1}) shape_fail("Fill", "value must be [1 x 1], got " + in[0].str());
  return in[1];
}
// N comes from x's shape, not the output's: a fused loop runs this kernel on one tile of the output
// at a time (or on one element, once per run) and passes x's whole shape (LoopOperand::ShapeOnly).
void mean_grad_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  const float v = k.in[0][0] / static_cast<float>(k.in_shape[1].size());
  for (std::size_t i = 0; i < n; ++i) k.out[i] = v;
}
void mean_grad_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.mean(*g.dout);
}

// --- Fill(s, x): s repeated in the shape of x ---------------------------------------------------
void fill_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  const float v = k.in[0][0];
  for (std::size_t i = 0; i < n; ++i) k.out[i] = v;
}
void fill_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.sum(*g.dout);
}

// --- RepeatRows(r, x): the row r (1 x cols) repeated for every row of x -------------------------
Shape repeat_rows_shape(const In& in, const OpAttrs&) {
  if (in[0].rows != 1 || in[0].cols != in[1].cols)
    shape_fail("RepeatRows",
               "row must be [1 x " + std::to_string(in[1].cols) + "], got " + in[0].str());
  return in[1];
}
void repeat_rows_forward(const KernelArgs& k) {
  const int rows = k.out_shape.rows, cols = k.out_shape.cols;
  for (int i = 0; i < rows; ++i)
    std::copy(k.in[0], k.in[0] + cols, k.out + static_cast<std::size_t>(i) * cols);
}
void repeat_rows_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.sum_rows(*g.dout);
}

// --- SumRows: y_j = sum_i x_ij, a 1 x cols row -------------------------------------------------
Shape sum_rows_shape(const In& in, const OpAttrs&) { return {1, in[0].cols}; }
void sum_rows_forward(const KernelArgs& k) {
  const int rows = k.in_shape[0].rows, cols = k.in_shape[0].cols;
  if (cols == 1) {
    k.out[0] = static_cast<float>(sum_double(k.in[0], static_cast<std::size_t>(rows)));
    return;
  }
  // Row by row into a block of double accumulators on the stack (no allocation per call).
  constexpr int kBlock = 64;
  for (int j0 = 0; j0 < cols; j0 += kBlock) {
    const int width = std::min(kBlock, cols - j0);
    double acc[kBlock] = {};
    for (int i = 0; i < rows; ++i) {
      const float* row = k.in[0] + static_cast<std::size_t>(i) * cols + j0;
      for (int j = 0; j < width; ++j) acc[j] += row[j];
    }
    for (int j = 0; j < width; ++j) k.out[j0 + j] = static_cast<float>(acc[j]);
  }
}
void sum_rows_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.repeat_rows(*g.dout, *g.in[0]);  // each row receives the row gradient
}

// --- AddConst: y = x + c (c = attrs.scale) ------------------------------------------------------
void add_const_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  const float c = k.attrs->scale;
  for (std::size_t i = 0; i < n; ++i) k.out[i] = k.in[0][i] + c;
}
void add_const_gradient(Builder&, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = *g.dout;
}

// --- Div: y = a / b elementwise; da = dout / b, db = −dout·y / b --------------------------------
Shape div_shape(const In& in, const OpAttrs&) { return same_shape("Div", in); }
void div_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  for (std::size_t i = 0; i < n; ++i) k.out[i] = k.in[0][i] / k.in[1][i];
}
void div_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.div(*g.dout, *g.in[1]);
  if (g.din[1]) *g.din[1] = b.scale(b.div(b.mul(*g.dout, *g.out), *g.in[1]), -1.0f);
}

// --- Sqrt: y = √x, dy/dx = 1 / (2y) --------------------------------------------------------------
void sqrt_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  for (std::size_t i = 0; i < n; ++i) k.out[i] = std::sqrt(k.in[0][i]);
}
void sqrt_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.div(b.scale(*g.dout, 0.5f), *g.out);
}

// Activations: the gradient of each is a primitive of its own (XGrad(y or x, dout)), as in the
// big frameworks: one fused pass instead of three elementwise ops. Their own gradients (second
// derivatives) are not needed for training and not provided.
void no_second_derivative(Builder&, const GradArgs&) {
  throw ShapeError("second derivatives of activation gradients are not supported");
}

// --- Tanh: y = tanh x; dx = dout·(1 − y²) ------------------------------------------------------
void tanh_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  for (std::size_t i = 0; i < n; ++i) k.out[i] = fast_tanh(k.in[0][i]);
}
void tanh_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.apply(OpKind::TanhGrad, {*g.out, *g.dout});
}
Shape act_grad_shape(const In& in, const OpAttrs&) { return same_shape("activation gradient", in); }
void tanh_grad_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  for (std::size_t i = 0; i < n; ++i) k.out[i] = k.in[1][i] * (1.0f - k.in[0][i] * k.in[0][i]);
}

// --- Sigmoid: y = 1 / (1 + e^−x); dx = dout·y·(1 − y) --------------------------------------------
void sigmoid_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  // σ(x) = (1 + tanh(x/2)) / 2: the vectorizable tanh instead of libm's exp.
  for (std::size_t i = 0; i < n; ++i) k.out[i] = 0.5f + 0.5f * fast_tanh(0.5f * k.in[0][i]);
}
void sigmoid_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.apply(OpKind::SigmoidGrad, {*g.out, *g.dout});
}
void sigmoid_grad_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  for (std::size_t i = 0; i < n; ++i) k.out[i] = k.in[1][i] * k.in[0][i] * (1.0f - k.in[0][i]);
}

// --- Relu: y = max(x, 0); dx = dout·[x > 0] ------------------------------------------------------
void relu_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  for (std::size_t i = 0; i < n; ++i) k.out[i] = k.in[0][i] > 0.0f ? k.in[0][i] : 0.0f;
}
void relu_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.apply(OpKind::ReluGrad, {*g.in[0], *g.dout});
}
void relu_grad_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  for (std::size_t i = 0; i < n; ++i) k.out[i] = k.in[0][i] > 0.0f ? k.in[1][i] : 0.0f;
}

// --- Log: y = ln x; dx = dout / x --------------------------------------------------------------
void log_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  for (std::size_t i = 0; i < n; ++i) k.out[i] = std::log(k.in[0][i]);
}
void log_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.div(*g.dout, *g.in[0]);
}

// --- Clip: y = min(max(x, lo), hi); dx = dout where lo < x < hi, else 0 -----------------------
void clip_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  const float lo = k.attrs->lo, hi = k.attrs->hi;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = k.in[0][i];
    k.out[i] = v < lo ? lo : (v > hi ? hi : v);
  }
}
void clip_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.apply(OpKind::ClipGrad, {*g.in[0], *g.dout}, *g.attrs);
}
void clip_grad_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  const float lo = k.attrs->lo, hi = k.attrs->hi;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = k.in[0][i];
    k.out[i] = (v > lo && v < hi) ? k.in[1][i] : 0.0f;
  }
}

// --- SubFrom: y = c − x (c = attrs.scale), e.g. the 1 − p of a cross-entropy; dx = −dout ------
void sub_from_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  const float c = k.attrs->scale;
  for (std::size_t i = 0; i < n; ++i) k.out[i] = c - k.in[0][i];
}
void sub_from_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.scale(*g.dout, -1.0f);
}

// --- Conv1D's windows (ops.hpp, Window): a Conv1D layer is WindowGather, then a MatMul by its
// [kernel·channels x filters] weights (im2col), so its heavy part is the product every mode
// already runs well. The gather and its adjoint are memory moves, Opaque: compiled mode calls
// these kernels.
[[noreturn]] void window_fail(std::string_view op, const Shape& s, const char* what, int by) {
  shape_fail(op, s.str() + ": " + what + " " + std::to_string(by));
}
// WindowGather: x [batch·length x C] → [batch·out x kernel·C], row (b, o) the window's steps in
// order (zeros where it reaches past the sequence).
Shape window_gather_shape(const In& in, const OpAttrs& a) {
  const Window& w = a.window;
  if (in[0].rows % w.length != 0)
    window_fail("WindowGather", in[0], "rows are not a multiple of the sequence length", w.length);
  return {in[0].rows / w.length * w.out, w.kernel * in[0].cols};
}
void window_gather_forward(const KernelArgs& k) {
  const Window& w = k.attrs->window;
  const int channels = k.in_shape[0].cols, batch = k.in_shape[0].rows / w.length;
  const std::size_t width = static_cast<std::size_t>(w.kernel) * channels;
  float* row = k.out;
  for (int b = 0; b < batch; ++b) {
    const float* seq = k.in[0] + static_cast<std::size_t>(b) * w.length * channels;
    for (int o = 0; o < w.out; ++o, row += width) {
      const int first = o * w.stride - w.pad;  // the window's steps first .. first + kernel − 1
      const int lo = std::max(first, 0), hi = std::min(first + w.kernel, w.length);
      const std::size_t before = static_cast<std::size_t>(lo - first) * channels;
      const std::size_t inside = static_cast<std::size_t>(std::max(hi - lo, 0)) * channels;
      std::fill(row, row + before, 0.0f);
      std::copy_n(seq + static_cast<std::size_t>(lo) * channels, inside, row + before);
      std::fill(row + before + inside, row + width, 0.0f);
    }
  }
}
void window_gather_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.apply(OpKind::WindowScatter, {*g.dout}, *g.attrs);
}
double window_flops(const In&, Shape, const OpAttrs&) { return 0.0; }  // moves, no arithmetic

// WindowScatter: the adjoint, [batch·out x kernel·C] → [batch·length x C], each window's rows
// added back onto the steps they came from (in order of o: overlapping windows sum).
Shape window_scatter_shape(const In& in, const OpAttrs& a) {
  const Window& w = a.window;
  if (in[0].rows % w.out != 0)
    window_fail("WindowScatter", in[0], "rows are not a multiple of the output length", w.out);
  if (in[0].cols % w.kernel != 0)
    window_fail("WindowScatter", in[0], "columns are not a multiple of the kernel", w.kernel);
  return {in[0].rows / w.out * w.length, in[0].cols / w.kernel};
}
void window_scatter_forward(const KernelArgs& k) {
  const Window& w = k.attrs->window;
  const int channels = k.out_shape.cols, batch = k.out_shape.rows / w.length;
  const std::size_t width = static_cast<std::size_t>(w.kernel) * channels;
  std::fill(k.out, k.out + k.out_shape.size(), 0.0f);
  const float* row = k.in[0];
  for (int b = 0; b < batch; ++b) {
    float* seq = k.out + static_cast<std::size_t>(b) * w.length * channels;
    for (int o = 0; o < w.out; ++o, row += width) {
      const int first = o * w.stride - w.pad;
      const int lo = std::max(first, 0), hi = std::min(first + w.kernel, w.length);
      const float* from = row + static_cast<std::size_t>(lo - first) * channels;
      float* to = seq + static_cast<std::size_t>(lo) * channels;
      const std::size_t inside = static_cast<std::size_t>(std::max(hi - lo, 0)) * channels;
      for (std::size_t i = 0; i < inside; ++i) to[i] += from[i];
    }
  }
}
void window_scatter_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.apply(OpKind::WindowGather, {*g.dout}, *g.attrs);
}

// --- GroupMean: global average pooling, [batch·length x C] → [batch x C], each sequence's mean
// over its steps (in double); GroupMeanGrad, its adjoint: row b / length on each of b's steps.
Shape group_mean_shape(const In& in, const OpAttrs& a) {
  const int length = a.window.length;
  if (in[0].rows % length != 0)
    window_fail("GroupMean", in[0], "rows are not a multiple of the sequence length", length);
  return {in[0].rows / length, in[0].cols};
}
void group_mean_forward(const KernelArgs& k) {
  const int length = k.attrs->window.length, cols = k.out_shape.cols;
  constexpr int kBlock = 64;  // double accumulators on the stack, as SumRows
  for (int b = 0; b < k.out_shape.rows; ++b)
    for (int j0 = 0; j0 < cols; j0 += kBlock) {
      const int width = std::min(kBlock, cols - j0);
      double acc[kBlock] = {};
      for (int t = 0; t < length; ++t) {
        const float* row = k.in[0] + (static_cast<std::size_t>(b) * length + t) * cols + j0;
        for (int j = 0; j < width; ++j) acc[j] += row[j];
      }
      for (int j = 0; j < width; ++j)
        k.out[static_cast<std::size_t>(b) * cols + j0 + j] = static_cast<float>(acc[j] / length);
    }
}
void group_mean_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.apply(OpKind::GroupMeanGrad, {*g.dout}, *g.attrs);
}
Shape group_mean_grad_shape(const In& in, const OpAttrs& a) {
  return {in[0].rows * a.window.length, in[0].cols};
}
void group_mean_grad_forward(const KernelArgs& k) {
  const int length = k.attrs->window.length, cols = k.in_shape[0].cols;
  float* out = k.out;
  for (int b = 0; b < k.in_shape[0].rows; ++b) {
    const float* g = k.in[0] + static_cast<std::size_t>(b) * cols;
    for (int t = 0; t < length; ++t, out += cols)
      for (int j = 0; j < cols; ++j) out[j] = g[j] / static_cast<float>(length);
  }
}
void group_mean_grad_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.apply(OpKind::GroupMean, {*g.dout}, *g.attrs);
}

// --- Dropout(x, t): x_i / (1 − rate) where dropout_keeps(seed, t, i), else 0; t is the step's
// number, a [1 x 1] input the host writes before each step. Its gradient is the same op on dout
// (the same mask: a function of seed, t and i).
Shape dropout_shape(const In& in, const OpAttrs& a) {
  if (in[1] != Shape{1, 1}) shape_fail("Dropout", "step must be [1 x 1], got " + in[1].str());
  if (!(a.scale >= 0.0f && a.scale < 1.0f))
    shape_fail("Dropout", "rate must be in [0, 1), got " + std::to_string(a.scale));
  return in[0];
}
void dropout_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  const float rate = k.attrs->scale, keep = 1.0f / (1.0f - rate);
  const auto t = static_cast<std::uint32_t>(std::floor(k.in[1][0]));
  for (std::size_t i = 0; i < n; ++i)
    k.out[i] = dropout_keeps(k.attrs->seed, t, i, rate) ? k.in[0][i] * keep : 0.0f;
}
void dropout_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.apply(OpKind::Dropout, {*g.dout, *g.in[1]}, *g.attrs);
}

// --- Softplus: y = ln(1 + eˣ) = max(x, 0) + ln(1 + e^−|x|), which neither overflows nor loses
// the small term (binary cross-entropy from logits: Builder::bce_logits); dx = dout·σ(x).
void softplus_forward(const KernelArgs& k) {
  const std::size_t n = k.out_shape.size();
  for (std::size_t i = 0; i < n; ++i) {
    const double x = k.in[0][i];
    k.out[i] = static_cast<float>(std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))));
  }
}
void softplus_gradient(Builder& b, const GradArgs& g) {
  if (g.din[0]) *g.din[0] = b.mul(*g.dout, b.sigmoid(*g.in[0]));
}

// Fusion roles (ops.hpp): E elementwise, its loop form (kir::Op and operands) and the operands'
// loop reads; a Reduction (in a flat loop a sink; the column sums' form, Sum, makes them a nest);
// a Contraction (in a nest a Dot, in a flat loop a column times a [1 x 1]: Mul).
using O = LoopOperand;
using K = kir::Op;
constexpr FusionRole E(LoopForm f, O a, O b = O::None, Epilogue e = Epilogue::None) {
  return {FusionKind::Elementwise, {a, b}, e, false, f};
}
constexpr FusionRole kSum{FusionKind::Reduction, {O::Vector, O::None}, Epilogue::None, false};
constexpr FusionRole kMean{FusionKind::Reduction, {O::Vector, O::None}, Epilogue::None, true};
constexpr FusionRole kColumnSums{
    FusionKind::Reduction, {O::Vector, O::None}, Epilogue::None, false, K::Sum};
constexpr FusionRole kMatMul{
    FusionKind::Contraction, {O::Vector, O::Vector}, Epilogue::None, false, K::Mul};
constexpr O V = O::Vector, S = O::Scalar, Row = O::Row, Like = O::ShapeOnly;
constexpr Epilogue kAct = Epilogue::Activation;
constexpr LoopIn A = LoopIn::A, C = LoopIn::Scale, N = LoopIn::Length;

const OpDef kOpDefs[] = {
    {"MatMul", 2, matmul_shape, matmul_forward, matmul_gradient, matmul_flops, kMatMul},
    {"AddRow", 2, add_row_shape, add_row_forward, add_row_gradient, elementwise_flops,
     E(K::Add, V, Row, Epilogue::Bias)},
    {"Add", 2, add_shape, add_forward, add_gradient, elementwise_flops, E(K::Add, V, V)},
    {"Sub", 2, sub_shape, sub_forward, sub_gradient, elementwise_flops, E(K::Sub, V, V)},
    {"Mul", 2, mul_shape, mul_forward, mul_gradient, elementwise_flops, E(K::Mul, V, V)},
    {"Scale", 1, unary_shape, scale_forward, scale_gradient, elementwise_flops,
     E({K::Mul, C, A}, V)},  // s · x, in that order
    {"MulScalar", 2, mul_scalar_shape, mul_scalar_forward, mul_scalar_gradient, elementwise_flops,
     E(K::Mul, V, S)},
    {"Square", 1, unary_shape, square_forward, square_gradient, elementwise_flops,
     E({K::Mul, A, A}, V)},
    {"Mean", 1, mean_shape, mean_forward, mean_gradient, elementwise_flops, kMean},
    {"SumRows", 1, sum_rows_shape, sum_rows_forward, sum_rows_gradient, elementwise_flops,
     kColumnSums},
    {"Sum", 1, mean_shape, sum_forward, sum_gradient, elementwise_flops, kSum},
    {"MeanGrad", 2, like_shape, mean_grad_forward, mean_grad_gradient, elementwise_flops,
     E({K::Div, A, N}, S, Like)},  // N: the length of its shape operand, the loop's
    {"Fill", 2, like_shape, fill_forward, fill_gradient, elementwise_flops, E(K::Copy, S, Like)},
    {"RepeatRows", 2, repeat_rows_shape, repeat_rows_forward, repeat_rows_gradient,
     elementwise_flops, E(K::Copy, Row, Like)},  // in a loop a [1 x 1] row: its value
    {"AddConst", 1, unary_shape, add_const_forward, add_const_gradient, elementwise_flops,
     E({K::Add, A, C}, V)},
    {"Div", 2, div_shape, div_forward, div_gradient, elementwise_flops, E(K::Div, V, V)},
    {"Sqrt", 1, unary_shape, sqrt_forward, sqrt_gradient, elementwise_flops, E(K::Sqrt, V)},
    {"Tanh", 1, unary_shape, tanh_forward, tanh_gradient, elementwise_flops,
     E(K::Tanh, V, O::None, kAct)},
    {"TanhGrad", 2, act_grad_shape, tanh_grad_forward, no_second_derivative, elementwise_flops,
     E(K::TanhGrad, V, V)},
    {"Sigmoid", 1, unary_shape, sigmoid_forward, sigmoid_gradient, elementwise_flops,
     E(K::Sigmoid, V, O::None, kAct)},
    {"SigmoidGrad", 2, act_grad_shape, sigmoid_grad_forward, no_second_derivative,
     elementwise_flops, E(K::SigmoidGrad, V, V)},
    {"Relu", 1, unary_shape, relu_forward, relu_gradient, elementwise_flops,
     E(K::Relu, V, O::None, kAct)},
    {"ReluGrad", 2, act_grad_shape, relu_grad_forward, no_second_derivative, elementwise_flops,
     E(K::ReluGrad, V, V)},
    {"Log", 1, unary_shape, log_forward, log_gradient, elementwise_flops, E(K::Log, V)},
    {"Clip", 1, unary_shape, clip_forward, clip_gradient, elementwise_flops, E(K::Clip, V)},
    {"ClipGrad", 2, act_grad_shape, clip_grad_forward, no_second_derivative, elementwise_flops,
     E(K::ClipGrad, V, V)},
    {"SubFrom", 1, unary_shape, sub_from_forward, sub_from_gradient, elementwise_flops,
     E({K::Sub, C, A}, V)},
    {"WindowGather",
     1,
     window_gather_shape,
     window_gather_forward,
     window_gather_gradient,
     window_flops,
     {}},
    {"WindowScatter",
     1,
     window_scatter_shape,
     window_scatter_forward,
     window_scatter_gradient,
     elementwise_flops,
     {}},
    {"GroupMean",
     1,
     group_mean_shape,
     group_mean_forward,
     group_mean_gradient,
     elementwise_flops,
     {}},
    {"GroupMeanGrad",
     1,
     group_mean_grad_shape,
     group_mean_grad_forward,
     group_mean_grad_gradient,
     elementwise_flops,
     {}},
    {"Dropout", 2, dropout_shape, dropout_forward, dropout_gradient, elementwise_flops, {}},
    {"Softplus", 1, unary_shape, softplus_forward, softplus_gradient, elementwise_flops, {}},
};
static_assert(sizeof(kOpDefs) / sizeof(kOpDefs[0]) == kOpCount,
              "every op in LOOPLAB_OPS needs an OpDef");

}  // namespace

std::optional<Window> conv_window_if_fits(int length, int kernel, int stride, bool same) {
  if (length < 1 || kernel < 1 || stride < 1 || (!same && kernel > length)) return std::nullopt;
  Window w{length, kernel, stride, 0, 0};
  if (same) {  // Keras: ⌈length / stride⌉ steps, the padding split with the smaller half first
    w.out = (length + stride - 1) / stride;
    w.pad = std::max((w.out - 1) * stride + kernel - length, 0) / 2;
  } else {
    w.out = (length - kernel) / stride + 1;
  }
  return w;
}

Window conv_window(int length, int kernel, int stride, bool same) {
  if (const std::optional<Window> w = conv_window_if_fits(length, kernel, stride, same)) return *w;
  const char* why = length < 1 || kernel < 1 || stride < 1
                        ? "every size must be at least 1"
                        : "the kernel is longer than the sequence";
  throw std::invalid_argument(std::string(why) + " (sequence length " + std::to_string(length) +
                              ", kernel " + std::to_string(kernel) + ", stride " +
                              std::to_string(stride) + ", padding '" + (same ? "same" : "valid") +
                              "')");
}

const OpDef& op_def(OpKind kind) {
  static const bool names_match = [] {
    int i = 0;
#define LOOPLAB_CHECK(op, n_in)                             \
  if (kOpDefs[i].name != #op || kOpDefs[i].arity != (n_in)) \
    throw std::logic_error("OpDef order: " #op);            \
  ++i;
    LOOPLAB_OPS(LOOPLAB_CHECK)
#undef LOOPLAB_CHECK
    return true;
  }();
  (void)names_match;
  return kOpDefs[static_cast<int>(kind)];
}

}  // namespace looplab

// emit_c.cpp — the lowering IR as C (emit_c.hpp). The slots a loop touches and the order of a
// nest's reduction or a flat loop come from the IR (kir::element_slots, kir::with_local_slots,
// kir::reduction_order, kir::flat_order), and fast_tanh's steps from ops.hpp (FastTanh::kSteps),
// as they do for emit_wasm.cpp: this file only prints them.
#include "looplab/engine/emit_c.hpp"

#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "looplab/engine/ops.hpp"

namespace looplab {
namespace {

using kir::Ref;

// The C spelling of a float, exact: hexadecimal.
std::string c_float(float v) {
  if (std::isnan(v)) return "__builtin_nanf(\"\")";
  if (std::isinf(v)) return v > 0 ? "__builtin_inff()" : "(-__builtin_inff())";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%af", static_cast<double>(v));
  return v < 0 ? "(" + std::string(buf) + ")" : std::string(buf);
}

// What every generated file starts with: the call record of the kernels it calls, and the
// gradients that select one operand. NOTE: as functions, their operands are loaded whatever the
// condition. Written inline as `a > 0 ? b : 0` in a 16-lane block, gcc 12.2 -O3 -mavx2 turns the
// load of b into two masked loads that both use the first eight lanes' mask, and half the
// gradient comes out wrong (ReluGrad: element 8 of 16 zero where it should pass).
constexpr const char* kPrelude = R"(#include <math.h>

typedef struct {
  void (*fn)(const void*);
  const void* args;
} looplab_call;

static inline float looplab_relu_grad(float a, float b) { return a > 0.0f ? b : 0.0f; }
static inline float looplab_clip_grad(float a, float b, float lo, float hi) {
  return (a > lo && a < hi) ? b : 0.0f;
}

)";

// A float as decimal C a student can read: 9 significant digits give back the same float.
std::string c_decimal(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9gf", static_cast<double>(v));
  return v < 0 ? "(" + std::string(buf) + ")" : std::string(buf);
}

// One step of fast_tanh (ops.hpp, FastTanh::kSteps) as C.
std::string tanh_step(FastTanh::Step step) {
  using T = FastTanh;
  auto horner = [](const char* v, const auto& c) {
    std::string s = "  float " + std::string(v) + " = " + c_decimal(c[0]) + ";\n";
    for (std::size_t i = 1; i < std::size(c); ++i)
      s += "  " + std::string(v) + " = " + v + " * x2 + " + c_decimal(c[i]) + ";\n";
    return s;
  };
  switch (step) {
    case T::Step::ClampAbove:
      return "  const float c = " + c_decimal(T::kClamp) + ";\n  float x = a > c ? c : a;\n";
    case T::Step::ClampBelow:
      return "  x = x < -c ? -c : x;\n";
    case T::Step::Square:
      return "  const float x2 = x * x;\n";
    case T::Step::Numerator:
      return horner("p", T::kP) + "  p = p * x;\n";
    case T::Step::Denominator:
      return horner("q", T::kQ);
    case T::Step::Ratio:
      return "  const float r = p / q;\n";
    case T::Step::SmallIsItself:
      return "  const float magnitude = a < 0.0f ? -a : a;\n  return magnitude < " +
             c_decimal(T::kLinearBelow) + " ? a : r;\n";
  }
  return "";
}

// fast_tanh as a C function, step by step.
std::string tanh_function() {
  std::string body = "static inline float looplab_tanh(float a) {\n";
  for (FastTanh::Step step : FastTanh::kSteps) body += tanh_step(step);
  return body + "}\n\n";
}

// A nest's columns run in blocks of this many, so a reduction's partial values fit an array on
// the stack.
constexpr int kNestBlock = 64;

// i·stride[0] + j·stride[1] + k·stride[2], the zero terms left out; `k` null outside a reduction.
std::string strided_index(const Ref& r, const char* k) {
  std::string s;
  const char* names[] = {"i", "(j0 + jj)", k};
  for (int d = 0; d < 3; ++d) {
    const int stride = r.stride[static_cast<std::size_t>(d)];
    if (stride == 0 || !names[d]) continue;
    if (!s.empty()) s += " + ";
    s += names[d];
    if (stride != 1) s += " * " + std::to_string(stride);
  }
  return s.empty() ? "0" : s;
}

struct LoopWriter {
  const kir::Loop& L;
  std::ostringstream& o;
  const char* k_index = nullptr;  // in a nest's reduction: the name of its step

  const std::vector<kir::ElementSlot> slots = kir::element_slots(L);

  // A slot the loop reads and also stores (an activation applied in place) is reached through its
  // store pointer alone: two restrict pointers to one array would be undefined behaviour.
  std::string vector_name(int slot) const {
    for (const kir::ElementSlot& p : slots)
      if (p.slot == slot && p.stored) return "o" + std::to_string(slot);
    return "v" + std::to_string(slot);
  }

  std::string ref(const Ref& r, const char* index) const {
    switch (r.kind) {
      case Ref::Kind::Vector:
        return vector_name(r.index) + "[" + index + "]";
      case Ref::Kind::Strided:
        return vector_name(r.index) + "[" + strided_index(r, k_index) + "]";
      case Ref::Kind::Scalar:
        return "r" + std::to_string(r.index);
      case Ref::Kind::Temp:  // a nest's reduction: an array over the block's columns
        if (L.nest() && kir::is_reduction(L.body[static_cast<std::size_t>(r.index)].op))
          return "t" + std::to_string(r.index) + "[jj]";
        return "t" + std::to_string(r.index);
      case Ref::Kind::Const:
        return c_float(r.value);
    }
    return "0";
  }

  std::string expr(const kir::Expr& e, const char* index) const {
    const std::string a = ref(e.in[0], index), b = ref(e.in[1], index);
    const std::string lo = c_float(e.lo), hi = c_float(e.hi);
    switch (e.op) {
      case kir::Op::Add:
        return a + " + " + b;
      case kir::Op::Sub:
        return a + " - " + b;
      case kir::Op::Mul:
        return a + " * " + b;
      case kir::Op::Div:
        return a + " / " + b;
      case kir::Op::Sqrt:
        return "sqrtf(" + a + ")";
      case kir::Op::Log:
        return "logf(" + a + ")";
      case kir::Op::Tanh:
        return "looplab_tanh(" + a + ")";
      case kir::Op::TanhGrad:
        return b + " * (1.0f - " + a + " * " + a + ")";
      case kir::Op::Sigmoid:
        return "0.5f + 0.5f * looplab_tanh(0.5f * " + a + ")";
      case kir::Op::SigmoidGrad:
        return b + " * " + a + " * (1.0f - " + a + ")";
      case kir::Op::Relu:
        return a + " > 0.0f ? " + a + " : 0.0f";
      case kir::Op::ReluGrad:
        return "looplab_relu_grad(" + a + ", " + b + ")";
      case kir::Op::Clip:
        return a + " < " + lo + " ? " + lo + " : (" + a + " > " + hi + " ? " + hi + " : " + a + ")";
      case kir::Op::ClipGrad:
        return "looplab_clip_grad(" + a + ", " + b + ", " + lo + ", " + hi + ")";
      case kir::Op::Copy:
        return a;
      case kir::Op::Sum:  // one term of a nest's reduction (nest())
        return a;
      case kir::Op::Dot:
        return a + " * " + b;
    }
    return a;
  }

  std::string sink_term(const kir::Sink& s, const char* index) const {
    const std::string a = ref(s.a, index);
    switch (s.kind) {
      case kir::Sink::Kind::Sum:
        return a;
      case kir::Sink::Kind::SumSquares:
        return a + " * " + a;
      case kir::Sink::Kind::Dot:
        return a + " * " + ref(s.b, index);
    }
    return a;
  }

  // One element's body: the expressions, their stores, the partial sums.
  void body(const char* index, const char* indent, bool block) const {
    for (std::size_t j = 0; j < L.body.size(); ++j) {
      const kir::Expr& e = L.body[j];
      o << indent << "const float t" << j << " = " << expr(e, index) << ";\n";
      if (e.store >= 0) o << indent << "o" << e.store << "[" << index << "] = t" << j << ";\n";
    }
    for (std::size_t k = 0; k < L.sinks.size(); ++k)
      o << indent << (block ? "a" : "b") << k << (block ? "[l]" : "")
        << " += " << sink_term(L.sinks[k], index) << ";\n";
  }

  // The pointers (by slot number: the read-only ones, then the stored), the scalar registers, the
  // sinks' partial sums.
  void declarations() const {
    std::set<int> reads, stores;
    for (const kir::ElementSlot& p : slots) (p.stored ? stores : reads).insert(p.slot);
    for (int v : reads) o << "    const float* restrict v" << v << " = s[" << v << "];\n";
    for (int v : stores) o << "    float* restrict o" << v << " = s[" << v << "];\n";
    for (std::size_t r = 0; r < L.scalar_loads.size(); ++r)
      o << "    const float r" << r << " = s[" << L.scalar_loads[r] << "][0];\n";
    for (std::size_t j = 0; j < L.scalar_exprs.size(); ++j)
      o << "    const float r" << L.scalar_loads.size() + j << " = " << expr(L.scalar_exprs[j], "0")
        << ";\n";
    for (std::size_t k = 0; k < L.sinks.size(); ++k)
      o << "    float a" << k << "[" << kir::kLanes << "] = {0.0f};\n    float b" << k
        << " = 0.0f;\n";
  }

  // Term k of reduction e for the block's columns: "t<j>[jj] = term" (=) or "+= term".
  void term(const kir::Expr& e, const std::string& sum, const std::string& k, const char* op,
            const char* indent) {
    k_index = k.empty() ? nullptr : k.c_str();  // none: the term at k = 0
    o << indent << "for (long jj = 0; jj < w; ++jj) " << sum << "[jj] " << op << " " << expr(e, "")
      << ";\n";
    k_index = nullptr;
  }

  // Reduction j over the block's columns, in float, in kir::reduction_order(): partial sum p in
  // t<j>_p (t<j> for p = 0), the rounds a C loop over k, the partial sums added into t<j>.
  void reduction(std::size_t j) {
    const kir::Expr& e = L.body[j];
    const kir::ReductionOrder r = kir::reduction_order(e.depth);
    auto sum = [&](int p) { return "t" + std::to_string(j) + (p ? "_" + std::to_string(p) : ""); };
    for (const kir::ReductionOrder::Term& t : r.first) {
      o << "        float " << sum(t.partial) << "[" << kNestBlock << "];\n";
      term(e, sum(t.partial), t.k ? std::to_string(t.k) : "", "=", "        ");
    }
    if (r.rounds()) {
      o << "        for (long k = " << r.round_begin << "; k < " << r.round_end
        << "; k += " << r.round.size() << ")" << (r.round.size() > 1 ? " {\n" : "\n");
      for (const kir::ReductionOrder::Term& t : r.round)
        term(e, sum(t.partial), t.k ? "(k + " + std::to_string(t.k) + ")" : "k",
             "+=", "          ");
      if (r.round.size() > 1) o << "        }\n";
    }
    for (const kir::ReductionOrder::Term& t : r.tail)
      term(e, sum(t.partial), std::to_string(t.k), "+=", "        ");
    if (r.finish.size() == 1) return;
    o << "        for (long jj = 0; jj < w; ++jj) " << sum(r.finish[0]) << "[jj] = ";
    for (std::size_t p = 0; p < r.finish.size(); ++p)
      o << (p ? " + " : "") << sum(r.finish[p]) << "[jj]";
    o << ";\n";
  }

  // Row by row, the columns in blocks: the reductions (column by column inside each step k, so
  // the block vectorizes), then the rest of the body.
  void nest() {
    declarations();
    o << "    for (long i = 0; i < " << L.rows << "; ++i) {\n";
    o << "      for (long j0 = 0; j0 < " << L.n << "; j0 += " << kNestBlock << ") {\n";
    o << "        const long w = " << L.n << " - j0 < " << kNestBlock << " ? " << L.n
      << " - j0 : " << kNestBlock << ";\n";
    for (std::size_t j = 0; j < L.body.size(); ++j)
      if (kir::is_reduction(L.body[j].op)) reduction(j);
    o << "        for (long jj = 0; jj < w; ++jj) {\n";
    for (std::size_t j = 0; j < L.body.size(); ++j) {
      const kir::Expr& e = L.body[j];
      const std::string t = ref({Ref::Kind::Temp, static_cast<int>(j), 0.0f}, "");
      if (!kir::is_reduction(e.op))
        o << "          const float " << t << " = " << expr(e, "") << ";\n";
      if (e.store >= 0)
        o << "          o" << e.store << "[i * " << L.n << " + j0 + jj] = " << t << ";\n";
    }
    o << "        }\n      }\n    }\n";
  }

  // A flat loop in kir::flat_order(): the blocks (sink k's partial sums in a<k>[l]), the tail
  // (in b<k>), then the totals.
  void write() {
    if (L.nest()) return nest();
    const kir::FlatOrder f = kir::flat_order(L.n);
    declarations();
    o << "    long i = 0;\n";
    if (f.blocks > 0) {  // (a parameter of a few elements has only a tail)
      o << "    for (; i < " << f.blocks << "; i += " << kir::kLanes << ") {\n";
      o << "      for (int l = 0; l < " << kir::kLanes << "; ++l) {\n";
      body("i + l", "        ", true);
      o << "      }\n    }\n";
    }
    o << "    for (; i < " << f.n << "; ++i) {\n";
    body("i", "      ", false);
    o << "    }\n";
    for (std::size_t k = 0; k < L.sinks.size(); ++k) total(k, f);
  }

  // Sink k's total: its partial sums added in f.finish's order (a run of lanes as a loop), its
  // factors taken out of the loop, the mean.
  void total(std::size_t k, const kir::FlatOrder& f) {
    const std::string sum = "sum" + std::to_string(k), lanes = "a" + std::to_string(k);
    auto lane = [&](std::size_t i) {
      return f.finish[i] == kir::FlatOrder::kTail ? -1 : f.finish[i];
    };
    auto partial = [&](std::size_t i) {
      return lane(i) < 0 ? "b" + std::to_string(k) : lanes + "[" + std::to_string(lane(i)) + "]";
    };
    o << "    float " << sum << " = " << partial(0) << ";\n";
    for (std::size_t i = 1; i < f.finish.size();) {
      std::size_t end = i + 1;  // lanes lane(i), lane(i) + 1, ... up to end
      while (lane(i) >= 0 && end < f.finish.size() && lane(end) == lane(end - 1) + 1) ++end;
      if (end - i > 1) {
        o << "    for (int l = " << lane(i) << "; l < " << lane(end - 1) + 1 << "; ++l) " << sum
          << " += " << lanes << "[l];\n";
      } else {
        o << "    " << sum << " += " << partial(i) << ";\n";
      }
      i = end;
    }
    for (const kir::Sink::Factor& by : L.sinks[k].after)
      o << "    " << sum << (by.divide ? " /= " : " *= ") << ref(by.by, "0") << ";\n";
    o << "    s[" << L.sinks[k].out << "][0] = " << sum;
    if (L.sinks[k].mean) o << " / " << c_float(static_cast<float>(f.n));
    o << ";\n";
  }
};

}  // namespace

// Each loop is a function of its own over its own slots, called by the step with the step's
// slots; loops with the same code (an unrolled step's k copies, the optimizer's update of
// parameters of one size) share one function, as tinygrad and TorchInductor reuse a kernel by
// its code. NOTE: an optimizing C compiler's time grows with the code it is given, and faster
// than linearly with the size of one function: 20 unrolled W2 steps as one function took
// gcc -O3 37 s; the calls cost nothing measurable per step.
std::string emit_c(const kir::Program& ir) {
  std::ostringstream o;
  o << "/* generated by looplab: one training step, " << ir.stmts.size() << " statements */\n"
    << kPrelude << tanh_function();
  std::map<std::string, int> function_of;  // a loop's code -> its function's number
  std::vector<std::string> code;           // per function
  std::vector<int> uses;                   // per function: how many statements call it
  std::vector<bool> nests;                 // per function: a nest (kept out of line)
  std::vector<int> function(ir.loops.size());
  std::vector<std::vector<int>> args(ir.loops.size());
  for (const kir::Stmt& st : ir.stmts) {
    if (st.kind != kir::Stmt::Kind::Loop) continue;
    const auto i = static_cast<std::size_t>(st.index);
    const kir::Loop L = kir::with_local_slots(ir.loops[i], args[i]);
    std::ostringstream c;
    if (L.nest())
      c << "/* nest over " << L.rows << " x " << L.n << ": " << st.note << " */\n";
    else
      c << "/* fused loop over " << L.n << " elements: " << st.note << " */\n";
    c << "static @ void loop" << function_of.size() << "(float* const* s) {\n";
    LoopWriter{L, c}.write();
    c << "}\n\n";
    std::string text = c.str();  // its name and comment aside, for the lookup
    const std::string body = text.substr(text.find('{'));
    const auto [it, fresh] = function_of.emplace(body, static_cast<int>(function_of.size()));
    function[i] = it->second;
    if (fresh) code.push_back(std::move(text)), uses.push_back(0), nests.push_back(L.nest());
    ++uses[static_cast<std::size_t>(it->second)];
  }
  // A flat loop called once is left to the compiler to inline (a call per step costs W1 ~7%);
  // a function called by several statements is kept out of line, so it is compiled once, and so
  // is a nest, long enough that its call costs nothing (W2 natively: 27.7-28.1 ms with its nests
  // inlined into the step, 26.1-27.1 ms out of line, in alternated rounds).
  for (std::size_t f = 0; f < code.size(); ++f) {
    std::string& c = code[f];
    const bool out_of_line = uses[f] > 1 || nests[f];
    c.replace(c.find('@'), 1, out_of_line ? "__attribute__((noinline))" : "inline");
    o << c;
  }
  o << "void looplab_step(float* const* s, const looplab_call* k, int steps) {\n";
  o << "  (void)s;\n  (void)k;\n";
  o << "  for (int step = 0; step < steps; ++step) {\n";
  for (const kir::Stmt& st : ir.stmts) {
    switch (st.kind) {
      case kir::Stmt::Kind::Loop: {
        const auto i = static_cast<std::size_t>(st.index);
        o << "  { float* const a[] = {";
        for (std::size_t j = 0; j < args[i].size(); ++j)
          o << (j ? ", " : "") << "s[" << args[i][j] << "]";
        o << "}; loop" << function[i] << "(a); } /* " << st.note << " */\n";
        break;
      }
      case kir::Stmt::Kind::Call:
        o << "  k[" << st.index << "].fn(k[" << st.index << "].args); /* " << st.note
          << " kernel */\n";
        break;
      case kir::Stmt::Kind::Copy:
        o << "  for (long i = 0; i < " << st.n << "; ++i) s[" << st.dst << "][i] = s[" << st.src
          << "][i]; /* " << st.note << " */\n";
        break;
    }
  }
  o << "  }\n}\n";
  return o.str();
}

}  // namespace looplab

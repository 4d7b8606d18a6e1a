// program.cpp — the executor: runs a compiled step's instructions, rebinds inputs, and derives
// every shape again when an input's shape changes (a relaxed batch).
#include "looplab/engine/program.hpp"

#include <algorithm>
#include <string>

#include "looplab/engine/detail/code.hpp"
#include "looplab/engine/detail/generated.hpp"

namespace looplab {

Program::Program(std::unique_ptr<detail::Code> code, std::unique_ptr<detail::Generated> generated)
    : code_(std::move(code)), generated_(std::move(generated)), outputs_(code_->outputs) {}
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;
Program::~Program() = default;

void Program::run(int steps) {
  if (!generated_) return code_->run(steps);
  if (code_->shapes_dirty) regenerate();
  generated_->run(steps);
}
// NOTE: a loop's length is a constant of its generated code, so new shapes mean new code (found
// in the cache when these shapes were seen before).
void Program::regenerate() {
  code_->derive_shapes();
  generated_ = detail::generate(*code_);
}
// The training loops rebind the same data every step (full batch) or a new batch: only a new
// pointer makes the generated step copy its slots again.
void Program::bind_input(Value input, const float* data) {
  if (code_->bind_input(input.id, data) && generated_) generated_->slots_dirty = true;
}
void Program::bind_input(Value input, const float* data, Shape shape) {
  if (code_->bind_input(input.id, data, shape) && generated_) generated_->slots_dirty = true;
}
const CompileStats& Program::stats() const { return code_->stats; }
const std::string& Program::generated_code() const {
  static const std::string kNone;
  if (!generated_) return kNone;
  if (generated_->code.empty()) generated_->code = detail::step_text(generated_->low.ir);
  return generated_->code;
}

namespace detail {

void Code::run(int steps) {
  if (shapes_dirty) derive_shapes();
  for (int s = 0; s < steps; ++s) {
    for (Instruction& ins : instructions) {
      if (ins.loop >= 0) {
        run_loop(loops[static_cast<std::size_t>(ins.loop)]);
        continue;
      }
      ins.op.forward(ins.op.args);
      for (int e = 0; e < ins.n_epilogue; ++e)
        ins.epilogue[static_cast<std::size_t>(e)].forward(
            ins.epilogue[static_cast<std::size_t>(e)].args);
    }
    for (const Update& u : updates) std::copy(u.src, u.src + u.n, u.dst);
  }
}

namespace {

// One tile of a reduction, in exactly the order of sum_double / dot_double (ops.cpp): element i
// goes to lane i % 8 while a whole block of 8 remains, the rest to a tail sum; lanes are added to
// the tail at the end. Tiles start at multiples of 8, so the tiled sum rounds like the whole one.
// kind: 0 Σa, 1 Σa² (a folded Square: the float square, then summed), 2 Σ a·b in double.
// NOTE: plain loops over local lanes, the form the compilers vectorize in sum_double.
void accumulate(int kind, const float* a, const float* b, double* lane, double& tail,
                std::size_t base, std::size_t m, std::size_t n) {
  const std::size_t blocks_end = n - n % 8;
  const std::size_t full = base < blocks_end ? std::min(m, blocks_end - base) : 0;
  double acc[8];
  for (std::size_t l = 0; l < 8; ++l) acc[l] = lane[l];
  std::size_t j = 0;
  if (kind == 0) {
    for (; j < full; j += 8)
      for (std::size_t l = 0; l < 8; ++l) acc[l] += a[j + l];
    for (; j < m; ++j) tail += a[j];
  } else if (kind == 1) {
    for (; j < full; j += 8)
      for (std::size_t l = 0; l < 8; ++l) acc[l] += a[j + l] * a[j + l];
    for (; j < m; ++j) tail += a[j] * a[j];
  } else {
    for (; j < full; j += 8)
      for (std::size_t l = 0; l < 8; ++l) acc[l] += static_cast<double>(a[j + l]) * b[j + l];
    for (; j < m; ++j) tail += static_cast<double>(a[j]) * b[j];
  }
  for (std::size_t l = 0; l < 8; ++l) lane[l] = acc[l];
}

// The shape a loop step's kernel sees for an operand, by how it reads it (LoopOperand): a vector
// is the tile, a scalar stays [1 x 1] (broadcasts read element 0), a shape-only operand has the
// whole vector's length.
using OperandShapes = std::array<Shape, 5>;
OperandShapes operand_shapes(Shape tile, Shape whole) {
  const Shape one{1, 1};
  OperandShapes s{};
  s[static_cast<std::size_t>(LoopOperand::None)] = tile;
  s[static_cast<std::size_t>(LoopOperand::Vector)] = tile;
  s[static_cast<std::size_t>(LoopOperand::Scalar)] = one;
  s[static_cast<std::size_t>(LoopOperand::Row)] = one;
  s[static_cast<std::size_t>(LoopOperand::ShapeOnly)] = whole;
  return s;
}

// A loop step's kernel call, its output at `out`; where(v): the data of value v.
template <class Where>
KernelArgs step_args(const LoopStep& st, Where where, float* out, Shape out_shape,
                     const OperandShapes& shape_of) {
  KernelArgs k;
  for (int i = 0; i < st.def->arity; ++i) {
    const auto slot = static_cast<std::size_t>(i);
    k.in[slot] = where(st.in[slot]);
    k.in_shape[slot] = shape_of[static_cast<std::size_t>(st.how[slot])];
  }
  k.out = out;
  k.out_shape = out_shape;
  k.attrs = st.attrs;
  return k;
}

}  // namespace

// NOTE: each step is the op's own kernel applied to one tile (the elements [base, base + m)),
// with the tile's shape {m, 1}. Intermediates stay in scratch tiles that fit in the L1 cache (as
// numexpr's virtual machine does).
void Code::run_loop(Loop& L) {
  const Shape whole{static_cast<int>(L.n), 1};
  for (Sink& s : L.sinks) {
    std::fill(std::begin(s.lane), std::end(s.lane), 0.0);
    s.tail = 0.0;
  }
  const Shape one{1, 1};
  for (const LoopStep& st : L.steps)  // uniform values: one element, once per run
    if (st.once) {
      const auto data = [&](int v) { return L.values[static_cast<std::size_t>(v)].data; };
      float* out = const_cast<float*>(data(st.out));
      st.def->forward(step_args(st, data, out, one, operand_shapes(one, whole)));
    }
  for (std::size_t base = 0; base < L.n; base += kTile) {
    const std::size_t m = std::min(kTile, L.n - base);
    for (std::size_t v = 0; v < L.values.size(); ++v) {
      const LoopValue& val = L.values[v];
      L.at[v] = val.tile >= 0 ? scratch.data() + static_cast<std::size_t>(val.tile) * kTile
                              : const_cast<float*>(val.data) + (val.vector && val.data ? base : 0);
    }
    const Shape tile{static_cast<int>(m), 1};
    const OperandShapes shape_of = operand_shapes(tile, whole);
    for (const LoopStep& st : L.steps) {
      if (st.once) continue;
      if (st.sink >= 0) {
        Sink& s = L.sinks[static_cast<std::size_t>(st.sink)];
        const float* a = L.at[static_cast<std::size_t>(st.in[0])];
        accumulate(s.dot      ? 2
                   : s.square ? 1
                              : 0,
                   a, s.dot ? L.at[static_cast<std::size_t>(st.in[1])] : nullptr, s.lane, s.tail,
                   base, m, L.n);
        continue;
      }
      const auto at = [&](int v) { return L.at[static_cast<std::size_t>(v)]; };
      st.def->forward(step_args(st, at, at(st.out), tile, shape_of));
    }
  }
  for (Sink& s : L.sinks) {
    double total = s.tail;
    for (double v : s.lane) total += v;
    s.out[0] = static_cast<float>(s.mean ? total / static_cast<double>(L.n) : total);
  }
}

bool Code::bind_input(int input, const float* data) {
  if (static_cast<std::size_t>(input) >= input_uses.size()) return false;  // nothing reads it
  bool changed = false;
  for (const float** use : input_uses[static_cast<std::size_t>(input)]) {
    changed = changed || *use != data;
    *use = data;
  }
  return changed;
}

bool Code::bind_input(int input, const float* data, Shape shape) {
  const bool changed = bind_input(input, data);
  Shape& current = leaf_shape.at(static_cast<std::size_t>(input));
  if (current == shape) return changed;
  current = shape;
  shapes_dirty = true;
  return true;
}

// The shapes an instruction's kernels see, from the nodes' current shapes.
void Code::refresh_shapes(Instruction& ins) {
  auto in_shape = [&](int k, int i) {
    const Source& src = sources[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)];
    return src.node >= 0 ? node_shape[static_cast<std::size_t>(src.node)]
                         : leaf_shape[static_cast<std::size_t>(src.leaf)];
  };
  if (ins.loop >= 0) {  // every vector of a loop has one length; the shape rules keep it so
    Loop& L = loops[static_cast<std::size_t>(ins.loop)];
    auto length = [&](const LoopStep& st) {
      return st.sink >= 0 ? in_shape(st.node, 0).size()
                          : node_shape[static_cast<std::size_t>(st.node)].size();
    };
    L.n = length(L.steps.front());
    for (const LoopStep& st : L.steps)
      if (length(st) != L.n)
        throw CapacityError(
            "fused loop: " + std::string(defs[static_cast<std::size_t>(st.node)]->name) +
            " no longer has the loop's length " + std::to_string(L.n));
    return;
  }
  std::array<Kernel*, 3> kernels{&ins.op, &ins.epilogue[0], &ins.epilogue[1]};
  for (std::size_t m = 0; m < ins.nodes.size(); ++m) {
    const int k = ins.nodes[m];
    KernelArgs& a = kernels[m]->args;
    for (int i = 0; i < defs[static_cast<std::size_t>(k)]->arity; ++i)
      a.in_shape[static_cast<std::size_t>(i)] = in_shape(k, i);
    a.out_shape = node_shape[static_cast<std::size_t>(k)];
  }
}

// Shape inference again, node by node, from the leaves' current shapes; then every instruction's.
void Code::derive_shapes() {
  for (std::size_t k = 0; k < defs.size(); ++k) {
    std::array<Shape, kMaxArity> in{};
    for (int i = 0; i < defs[k]->arity; ++i) {
      const Source& src = sources[k][static_cast<std::size_t>(i)];
      in[static_cast<std::size_t>(i)] = src.node >= 0
                                            ? node_shape[static_cast<std::size_t>(src.node)]
                                            : leaf_shape[static_cast<std::size_t>(src.leaf)];
    }
    node_shape[k] = defs[k]->shape(in, attrs[k]);
    if (capacity[k] > 0 && node_shape[k].size() * sizeof(float) > capacity[k])
      throw CapacityError(std::string(defs[k]->name) + " needs " +
                          std::to_string(node_shape[k].size() * sizeof(float)) +
                          " bytes, the program was planned for " + std::to_string(capacity[k]));
  }
  for (Instruction& ins : instructions) refresh_shapes(ins);
  shapes_dirty = false;
}

}  // namespace detail
}  // namespace looplab

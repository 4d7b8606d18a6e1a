// trace.cpp — the tracer, the compiler passes and the program executor.
#include "looplab/engine/trace.hpp"

#include <algorithm>
#include <climits>

#include "looplab/base/clock.hpp"
#include "looplab/base/format.hpp"
#include "looplab/engine/memory_plan.hpp"

namespace looplab {
namespace {
constexpr std::size_t kTile =
    1024;  // floats per tile of a fused loop: a scratch tile is 4 KB and stays in L1
}  // namespace

void Tracer::on_leaf(Value v, const float* data, Tensor* writable, Tensor* owned) {
  leaf_ptr_.resize(static_cast<std::size_t>(v.id) + 1, nullptr);
  params_.resize(static_cast<std::size_t>(v.id) + 1, nullptr);
  if (owned) {
    constants_.push_back(std::make_unique<Tensor>(std::move(*owned)));
    data = constants_.back()->data();
  }
  leaf_ptr_[static_cast<std::size_t>(v.id)] = data;
  params_[static_cast<std::size_t>(v.id)] =
      writable;  // parameters and state: what updates may write
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

namespace {

// Pass 1: which nodes the outputs and updates need.
std::vector<bool> live_nodes(const Builder& g, const std::vector<Value>& roots) {
  std::vector<bool> live(static_cast<std::size_t>(g.size()), false);
  for (Value r : roots) live[static_cast<std::size_t>(r.id)] = true;
  for (int id = g.size() - 1; id >= 0; --id) {
    const Node& n = g.node(Value{id});
    if (!live[static_cast<std::size_t>(id)] || n.leaf != LeafKind::None) continue;
    for (int i = 0; i < op_def(n.op).arity; ++i) live[static_cast<std::size_t>(n.in[i].id)] = true;
  }
  return live;
}

}  // namespace

// The compiler's state between passes. Op nodes are numbered 0.. in node order ("op index").
struct Lowering {
  const Tracer& t;
  Program& p;
  std::vector<int> op_nodes;  // op index -> node id
  std::vector<int> op_of;     // node id -> op index, or -1 for leaves and dead nodes
  FusionPlan plan;
  MemoryPlan memory;
  std::vector<BufferRequest> requests;
  std::vector<int> request_of;  // op index -> index into requests, or -1 (no buffer)
  std::vector<const float*> constant_copy;
  std::vector<std::vector<int>>
      readers;  // op index -> the op nodes that read its data (once per input slot)

  Lowering(const Tracer& tracer, Program& program) : t(tracer), p(program) {}

  // Pass 1 result → the fusion pass's view of the live op nodes.
  std::vector<FusionNode> fusion_nodes(const std::vector<bool>& live,
                                       const std::vector<Value>& roots) {
    op_of.assign(static_cast<std::size_t>(t.size()), -1);
    for (int id = 0; id < t.size(); ++id) {
      if (!live[static_cast<std::size_t>(id)]) continue;
      ++p.stats_.nodes_live;
      if (t.node(Value{id}).leaf != LeafKind::None) continue;
      op_of[static_cast<std::size_t>(id)] = static_cast<int>(op_nodes.size());
      op_nodes.push_back(id);
    }
    std::vector<FusionNode> g(op_nodes.size());
    for (std::size_t k = 0; k < op_nodes.size(); ++k) {
      const Node& n = t.node(Value{op_nodes[k]});
      g[k].op = n.op;
      g[k].shape = n.shape;
      g[k].attrs = n.attrs;
      for (int i = 0; i < op_def(n.op).arity; ++i) {
        g[k].in[static_cast<std::size_t>(i)] = op_of[static_cast<std::size_t>(n.in[i].id)];
        g[k].in_shape[static_cast<std::size_t>(i)] = t.shape(n.in[i]);
      }
    }
    for (Value r : roots)
      if (op_of[static_cast<std::size_t>(r.id)] >= 0)
        g[static_cast<std::size_t>(op_of[static_cast<std::size_t>(r.id)])].root = true;
    readers.assign(g.size(), {});
    for (std::size_t k = 0; k < g.size(); ++k) {
      const LoopRole role = loop_role(g[k]);
      for (int i = 0; i < kMaxArity; ++i)
        if (g[k].in[static_cast<std::size_t>(i)] >= 0 &&
            role.operand[static_cast<std::size_t>(i)] != LoopOperand::ShapeOnly)
          readers[static_cast<std::size_t>(g[k].in[static_cast<std::size_t>(i)])].push_back(
              static_cast<int>(k));
    }
    return g;
  }

  // Without fusion every op is a group of its own, and has a buffer.
  static FusionPlan one_op_per_group(std::size_t n) {
    FusionPlan plan;
    plan.materialized.assign(n, true);
    for (std::size_t k = 0; k < n; ++k) {
      plan.groups.push_back({GroupKind::Single, {static_cast<int>(k)}});
      plan.group_of.push_back(static_cast<int>(k));
    }
    return plan;
  }

  // A buffer lives from its group's instruction to the last instruction that reads it.
  void plan_buffers(const std::vector<FusionNode>& g) {
    request_of.assign(g.size(), -1);
    for (std::size_t k = 0; k < g.size(); ++k) {
      p.stats_.unplanned_bytes += g[k].shape.size() * sizeof(float);
      if (!plan.materialized[k]) continue;
      const int at = plan.group_of[k];
      request_of[k] = static_cast<int>(requests.size());
      requests.push_back({g[k].shape.size() * sizeof(float), at, g[k].root ? INT_MAX : at});
    }
    for (std::size_t k = 0; k < g.size(); ++k)
      for (int i : g[k].in)
        if (i >= 0 && request_of[static_cast<std::size_t>(i)] >= 0) {
          BufferRequest& r =
              requests[static_cast<std::size_t>(request_of[static_cast<std::size_t>(i)])];
          r.last = std::max(r.last, plan.group_of[k]);
        }
    memory = plan_memory(requests);
    p.arena_.assign(memory.total_bytes / sizeof(float) + 1, 0.0f);
    p.stats_.arena_bytes = memory.total_bytes;
  }

  // Where a value's data is: its buffer, the program's copy of a constant, or the caller's tensor.
  float* data_of(Value v) {
    const int k = op_of[static_cast<std::size_t>(v.id)];
    if (k >= 0) {
      const int r = request_of[static_cast<std::size_t>(k)];
      return r < 0 ? nullptr
                   : p.arena_.data() + memory.offsets[static_cast<std::size_t>(r)] / sizeof(float);
    }
    if (t.node(v).leaf ==
        LeafKind::Constant) {  // the program owns its constants: the tracer may go
      const float*& copy = constant_copy[static_cast<std::size_t>(v.id)];
      if (!copy) {
        p.constants_.push_back(std::make_unique<Tensor>(
            t.shape(v), std::vector<float>(t.leaf_data(v), t.leaf_data(v) + t.shape(v).size())));
        copy = p.constants_.back()->data();
      }
      return const_cast<float*>(copy);
    }
    return const_cast<float*>(t.leaf_data(v));
  }
  bool is_input(Value v) const { return t.node(v).leaf == LeafKind::Input; }

  // Per op node: what derive_shapes() needs, and the FLOP count.
  void describe_nodes() {
    p.attrs_.reserve(op_nodes.size());  // kernels point into attrs_: no reallocation after this
    p.leaf_shape_.resize(static_cast<std::size_t>(t.size()));
    for (int id = 0; id < t.size(); ++id)
      if (t.node(Value{id}).leaf != LeafKind::None)
        p.leaf_shape_[static_cast<std::size_t>(id)] = t.shape(Value{id});
    for (std::size_t k = 0; k < op_nodes.size(); ++k) {
      const Node& n = t.node(Value{op_nodes[k]});
      const OpDef& def = op_def(n.op);
      std::array<Program::Source, kMaxArity> src{};
      std::array<Shape, kMaxArity> shapes{};
      for (int i = 0; i < def.arity; ++i) {
        const int producer = op_of[static_cast<std::size_t>(n.in[i].id)];
        (producer >= 0 ? src[static_cast<std::size_t>(i)].node
                       : src[static_cast<std::size_t>(i)].leaf) =
            producer >= 0 ? producer : n.in[i].id;
        shapes[static_cast<std::size_t>(i)] = t.shape(n.in[i]);
      }
      p.attrs_.push_back(n.attrs);
      p.defs_.push_back(&def);
      p.sources_.push_back(src);
      p.node_shape_.push_back(n.shape);
      const int r = request_of[k];
      p.capacity_.push_back(r < 0 ? 0 : requests[static_cast<std::size_t>(r)].bytes);
      p.stats_.flops_per_step += def.flops(shapes, n.shape, n.attrs);
    }
  }

  // A plain kernel call for op index k, its output at `out`.
  Program::Kernel kernel(std::size_t k, float* out) {
    const Node& n = t.node(Value{op_nodes[k]});
    Program::Kernel kn{p.defs_[k]->forward, {}};
    for (int i = 0; i < p.defs_[k]->arity; ++i)
      kn.args.in[static_cast<std::size_t>(i)] = data_of(n.in[i]);
    kn.args.out = out;
    kn.args.attrs = &p.attrs_[k];
    return kn;
  }

  // Single: the op. Dense: matmul, bias and activation ping-pong between the output buffer and a
  // scratch area so that the last one writes the output. NOTE: never in place (in == out): clang's
  // vectorized loops check that input and output do not overlap and run scalar code when they do,
  // which made WebAssembly's fused tanh several times slower.
  Program::Instruction plain_instruction(const FusionGroup& G) {
    Program::Instruction ins;
    float* out = data_of(Value{op_nodes[static_cast<std::size_t>(G.members.back())]});
    float* other = p.scratch_.data();
    float* at = G.members.size() % 2 == 1 ? out : other;  // where the matmul writes
    ins.op = kernel(static_cast<std::size_t>(G.members[0]), at);
    for (std::size_t m = 1; m < G.members.size(); ++m) {
      float* next = at == out ? other : out;
      Program::Kernel e = kernel(static_cast<std::size_t>(G.members[m]), next);
      e.args.in[0] = at;
      ins.epilogue[static_cast<std::size_t>(ins.n_epilogue++)] = e;
      at = next;
    }
    ins.nodes = G.members;
    return ins;
  }

  // Scratch shared by every loop's tiles and every Dense group's intermediate (they run one at a
  // time).
  std::size_t scratch_floats() const {
    std::size_t need = 0;
    for (const FusionGroup& G : plan.groups) {
      if (G.kind == GroupKind::Loop) need = std::max(need, G.members.size() * kTile);
      if (G.kind == GroupKind::Dense)
        need = std::max(need, plan_node_[static_cast<std::size_t>(G.members.back())].shape.size());
    }
    return need + kTile;
  }

  // Peepholes inside a loop (intermediates without buffers, so every reader is in the loop):
  // a Square read only by a Mean/Sum/SumRows sink is folded into it (the sink sums squares);
  bool square_into_sink(int k) const {
    const auto& r = readers[static_cast<std::size_t>(k)];
    if (plan_node_[static_cast<std::size_t>(k)].op != OpKind::Square ||
        plan.materialized[static_cast<std::size_t>(k)] || r.size() != 1)
      return false;
    const FusionNode& sink = plan_node_[static_cast<std::size_t>(r[0])];
    return loop_role(sink).sink && sink.op != OpKind::MatMul;
  }
  // a MeanGrad read only by Muls is d / N once per run, and the Muls become MulScalar by it.
  // (c·x and x·c round alike: the results do not change.)
  bool mean_grad_once(int k) const {
    const auto& r = readers[static_cast<std::size_t>(k)];
    if (plan_node_[static_cast<std::size_t>(k)].op != OpKind::MeanGrad ||
        plan.materialized[static_cast<std::size_t>(k)] || r.empty())
      return false;
    for (int m : r) {
      const FusionNode& mul = plan_node_[static_cast<std::size_t>(m)];
      if (mul.op != OpKind::Mul || is_mean_grad(mul.in[0]) == is_mean_grad(mul.in[1])) return false;
    }
    return true;
  }
  bool is_mean_grad(int k) const {
    return k >= 0 && plan_node_[static_cast<std::size_t>(k)].op == OpKind::MeanGrad;
  }
  // A Mul turned MulScalar has the MeanGrad as its second operand: were the node's inputs swapped?
  bool swapped(const Program::LoopStep& st) const {
    const FusionNode& n = plan_node_[static_cast<std::size_t>(st.node)];
    return n.op == OpKind::Mul && st.op == OpKind::MulScalar && is_mean_grad(n.in[0]);
  }

  Program::Loop loop(const FusionGroup& G, int& tiles) {
    Program::Loop L;
    std::vector<int> value_of_node(op_nodes.size(), -1);  // member op index -> value index
    std::vector<int> squared(op_nodes.size(), -1);    // folded Square -> value index of its input
    std::vector<std::array<int, 2>> constant_values;  // (value index, index into L.constants)
    auto value_for_input = [&](Value v, LoopOperand how) {
      const int k = op_of[static_cast<std::size_t>(v.id)];
      if (k >= 0 && value_of_node[static_cast<std::size_t>(k)] >= 0)
        return value_of_node[static_cast<std::size_t>(k)];
      L.values.push_back(
          {how == LoopOperand::ShapeOnly ? nullptr : data_of(v), -1, how == LoopOperand::Vector});
      return static_cast<int>(L.values.size()) - 1;
    };
    auto is_constant = [&](int value) {
      for (const auto& c : constant_values)
        if (c[0] == value) return true;
      return false;
    };
    for (int k : G.members) {
      const Node& n = t.node(Value{op_nodes[static_cast<std::size_t>(k)]});
      const LoopRole role = loop_role(plan_node_[static_cast<std::size_t>(k)]);
      if (square_into_sink(k)) {  // (its sink notes the input's uses: see loop_input_uses)
        squared[static_cast<std::size_t>(k)] = value_for_input(n.in[0], LoopOperand::Vector);
        continue;
      }
      Program::LoopStep st{p.defs_[static_cast<std::size_t>(k)],
                           n.op,
                           &p.attrs_[static_cast<std::size_t>(k)],
                           {-1, -1},
                           role.operand,
                           -1,
                           -1,
                           k};
      bool square = false;
      for (int i = 0; i < p.defs_[static_cast<std::size_t>(k)]->arity; ++i) {
        const int producer = op_of[static_cast<std::size_t>(n.in[i].id)];
        const bool folded = producer >= 0 && squared[static_cast<std::size_t>(producer)] >= 0;
        square = square || folded;
        st.in[static_cast<std::size_t>(i)] =
            folded ? squared[static_cast<std::size_t>(producer)]
                   : value_for_input(n.in[i], role.operand[static_cast<std::size_t>(i)]);
      }
      if (n.op == OpKind::Mul && (is_constant(st.in[0]) || is_constant(st.in[1]))) {
        if (is_constant(st.in[0])) std::swap(st.in[0], st.in[1]);
        st.def = &op_def(OpKind::MulScalar);
        st.op = OpKind::MulScalar;
        st.how = {LoopOperand::Vector, LoopOperand::Scalar};
      }
      float* buffer = data_of(Value{op_nodes[static_cast<std::size_t>(k)]});
      if (role.sink) {
        st.sink = static_cast<int>(L.sinks.size());
        Program::Sink s;
        s.op = n.op;
        s.node = k;
        s.square = square;
        s.out = buffer;
        L.sinks.push_back(s);
      } else if (mean_grad_once(k)) {
        st.once = true;
        L.values.push_back({nullptr, -1, false});
        st.out = value_of_node[static_cast<std::size_t>(k)] = static_cast<int>(L.values.size()) - 1;
        constant_values.push_back({st.out, static_cast<int>(L.constants.size())});
        L.constants.push_back(0.0f);
      } else {
        L.values.push_back({buffer, buffer ? -1 : tiles++, true});
        st.out = value_of_node[static_cast<std::size_t>(k)] = static_cast<int>(L.values.size()) - 1;
      }
      L.steps.push_back(st);
    }
    for (const auto& c : constant_values)
      L.values[static_cast<std::size_t>(c[0])].data = &L.constants[static_cast<std::size_t>(c[1])];
    L.at.assign(L.values.size(), nullptr);
    return L;
  }

  void lower() {
    p.code_.reserve(plan.groups.size());  // the input pointers below point into code_ and loops_
    p.loops_.reserve(plan.groups.size());
    p.scratch_.assign(scratch_floats(), 0.0f);  // sized first: kernels point into it
    for (const FusionGroup& G : plan.groups) {
      if (G.kind != GroupKind::Loop) {
        p.code_.push_back(plain_instruction(G));
        continue;
      }
      int tiles = 0;
      p.loops_.push_back(loop(G, tiles));
      Program::Instruction ins;
      ins.loop = static_cast<int>(p.loops_.size()) - 1;
      ins.nodes = G.members;
      p.code_.push_back(ins);
    }
    for (Program::Instruction& ins : p.code_) p.refresh_shapes(ins);
    record_input_uses();
  }

  // Every pointer that reads an input leaf, so bind_input() can point it at the next batch.
  void record_input_uses() {
    p.input_uses_.assign(static_cast<std::size_t>(t.size()), {});
    auto note = [&](Value v, const float** slot) {
      if (is_input(v)) p.input_uses_[static_cast<std::size_t>(v.id)].push_back(slot);
    };
    for (Program::Instruction& ins : p.code_) {
      if (ins.loop >= 0) continue;
      for (std::size_t m = 0; m < ins.nodes.size(); ++m) {
        const Node& n = t.node(Value{op_nodes[static_cast<std::size_t>(ins.nodes[m])]});
        Program::Kernel& kn = m == 0 ? ins.op : ins.epilogue[m - 1];
        for (int i = m == 0 ? 0 : 1; i < op_def(n.op).arity; ++i)
          note(n.in[i], &kn.args.in[static_cast<std::size_t>(i)]);
      }
    }
    for (Program::Loop& L : p.loops_) loop_input_uses(L, note);
  }
  template <class Note>
  void loop_input_uses(Program::Loop& L, Note& note) {
    for (const Program::LoopStep& st : L.steps) {
      const Node& n = t.node(Value{op_nodes[static_cast<std::size_t>(st.node)]});
      const bool square = st.sink >= 0 && L.sinks[static_cast<std::size_t>(st.sink)].square;
      for (int i = 0; i < st.def->arity; ++i) {
        if (st.how[static_cast<std::size_t>(i)] == LoopOperand::ShapeOnly) continue;
        const Value v = n.in[swapped(st) ? 1 - i : i];
        note(square ? t.node(v).in[0] : v,
             &L.values[static_cast<std::size_t>(st.in[static_cast<std::size_t>(i)])].data);
      }
    }
  }
  std::vector<FusionNode> plan_node_;
};

Program compile(const Tracer& t, const std::vector<Value>& outputs,
                const std::vector<Assign>& updates, const CompileOptions& options) {
  const Stopwatch watch;
  Program p;
  p.stats_.nodes_traced = t.size();
  std::vector<Value> roots = outputs;
  for (const Assign& a : updates) roots.push_back(a.value);

  Lowering low(t, p);  // pass 1: dead-node removal; pass 2: fusion
  low.plan_node_ = low.fusion_nodes(live_nodes(t, roots), roots);
  low.plan = options.fuse ? plan_fusion(low.plan_node_)
                          : Lowering::one_op_per_group(low.plan_node_.size());
  low.constant_copy.assign(static_cast<std::size_t>(t.size()), nullptr);
  low.plan_buffers(low.plan_node_);  // pass 3: memory plan
  low.describe_nodes();
  low.lower();  // pass 4: instructions with resolved pointers

  for (Value o : outputs) p.outputs_.push_back(low.data_of(o));
  for (const Assign& a : updates)
    p.updates_.push_back(
        {t.parameter_data(a.target), low.data_of(a.value), t.shape(a.target).size()});
  p.stats_.nodes_before_fusion = static_cast<int>(low.op_nodes.size());
  p.stats_.nodes_after_fusion = p.stats_.instructions = static_cast<int>(p.code_.size());
  p.stats_.fused_groups = low.plan.fused_groups;
  p.requests_ = std::move(low.requests);
  p.memory_ = std::move(low.memory);
  p.stats_.compile_ms = watch.elapsed_ms();
  return p;
}

void Program::run(int steps) {
  if (shapes_dirty_) derive_shapes();
  for (int s = 0; s < steps; ++s) {
    for (Instruction& ins : code_) {
      if (ins.loop >= 0) {
        run_loop(loops_[static_cast<std::size_t>(ins.loop)]);
        continue;
      }
      ins.op.forward(ins.op.args);
      for (int e = 0; e < ins.n_epilogue; ++e)
        ins.epilogue[static_cast<std::size_t>(e)].forward(
            ins.epilogue[static_cast<std::size_t>(e)].args);
    }
    for (const Update& u : updates_) std::copy(u.src, u.src + u.n, u.dst);
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

}  // namespace

// NOTE: each step is the op's own kernel applied to one tile (the elements [base, base + m)),
// with the tile's shape {m, 1}: a [1 x 1] operand stays [1 x 1], so broadcasts read element 0.
// Intermediates stay in scratch tiles that fit in the L1 cache (as numexpr's virtual machine does).
void Program::run_loop(Loop& L) {
  for (Sink& s : L.sinks) {
    std::fill(std::begin(s.lane), std::end(s.lane), 0.0);
    s.tail = 0.0;
  }
  for (const LoopStep& st : L.steps)  // d / N, as mean_grad_forward computes it
    if (st.once)
      *const_cast<float*>(L.values[static_cast<std::size_t>(st.out)].data) =
          L.values[static_cast<std::size_t>(st.in[0])].data[0] / static_cast<float>(L.n);
  for (std::size_t base = 0; base < L.n; base += kTile) {
    const std::size_t m = std::min(kTile, L.n - base);
    for (std::size_t v = 0; v < L.values.size(); ++v) {
      const LoopValue& val = L.values[v];
      L.at[v] = val.tile >= 0 ? scratch_.data() + static_cast<std::size_t>(val.tile) * kTile
                              : const_cast<float*>(val.data) + (val.vector && val.data ? base : 0);
    }
    const Shape tile{static_cast<int>(m), 1};
    for (const LoopStep& st : L.steps) {
      if (st.once) continue;
      const float* a = L.at[static_cast<std::size_t>(st.in[0])];
      if (st.sink >= 0) {
        Sink& s = L.sinks[static_cast<std::size_t>(st.sink)];
        const bool dot = st.op == OpKind::MatMul;
        accumulate(dot        ? 2
                   : s.square ? 1
                              : 0,
                   a, dot ? L.at[static_cast<std::size_t>(st.in[1])] : nullptr, s.lane, s.tail,
                   base, m, L.n);
        continue;
      }
      float* out = L.at[static_cast<std::size_t>(st.out)];
      if (st.op == OpKind::MeanGrad) {  // d / N with N the whole vector's length, not the tile's
        std::fill(out, out + m, a[0] / static_cast<float>(L.n));
        continue;
      }
      KernelArgs k;
      for (int i = 0; i < st.def->arity; ++i) {
        k.in[static_cast<std::size_t>(i)] =
            L.at[static_cast<std::size_t>(st.in[static_cast<std::size_t>(i)])];
        k.in_shape[static_cast<std::size_t>(i)] =
            st.how[static_cast<std::size_t>(i)] == LoopOperand::Scalar ? Shape{1, 1} : tile;
      }
      k.out = out;
      k.out_shape = tile;
      k.attrs = st.attrs;
      st.def->forward(k);
    }
  }
  for (Sink& s : L.sinks) {
    double total = s.tail;
    for (double v : s.lane) total += v;
    s.out[0] = static_cast<float>(s.op == OpKind::Mean ? total / static_cast<double>(L.n) : total);
  }
}

void Program::bind_input(Value input, const float* data, Shape shape) {
  bind_input(input, data);
  Shape& current = leaf_shape_.at(static_cast<std::size_t>(input.id));
  if (current != shape) {
    current = shape;
    shapes_dirty_ = true;
  }
}

// The shapes an instruction's kernels see, from the nodes' current shapes.
void Program::refresh_shapes(Instruction& ins) {
  auto in_shape = [&](int k, int i) {
    const Source& src = sources_[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)];
    return src.node >= 0 ? node_shape_[static_cast<std::size_t>(src.node)]
                         : leaf_shape_[static_cast<std::size_t>(src.leaf)];
  };
  if (ins.loop >= 0) {  // every vector of a loop has one length; the shape rules keep it so
    Loop& L = loops_[static_cast<std::size_t>(ins.loop)];
    const LoopStep& first = L.steps.front();
    L.n = first.sink >= 0 ? in_shape(first.node, 0).size()
                          : node_shape_[static_cast<std::size_t>(first.node)].size();
    for (const LoopStep& st : L.steps) {
      const std::size_t n = st.sink >= 0 ? in_shape(st.node, 0).size()
                                         : node_shape_[static_cast<std::size_t>(st.node)].size();
      if (n != L.n)
        throw CapacityError(
            "fused loop: " + std::string(defs_[static_cast<std::size_t>(st.node)]->name) +
            " no longer has the loop's length " + std::to_string(L.n));
    }
    return;
  }
  std::array<Kernel*, 3> kernels{&ins.op, &ins.epilogue[0], &ins.epilogue[1]};
  for (std::size_t m = 0; m < ins.nodes.size(); ++m) {
    const int k = ins.nodes[m];
    KernelArgs& a = kernels[m]->args;
    for (int i = 0; i < defs_[static_cast<std::size_t>(k)]->arity; ++i)
      a.in_shape[static_cast<std::size_t>(i)] = in_shape(k, i);
    a.out_shape = node_shape_[static_cast<std::size_t>(k)];
  }
}

// Shape inference again, node by node, from the leaves' current shapes; then every instruction's.
void Program::derive_shapes() {
  for (std::size_t k = 0; k < defs_.size(); ++k) {
    std::array<Shape, kMaxArity> in{};
    for (int i = 0; i < defs_[k]->arity; ++i) {
      const Source& src = sources_[k][static_cast<std::size_t>(i)];
      in[static_cast<std::size_t>(i)] = src.node >= 0
                                            ? node_shape_[static_cast<std::size_t>(src.node)]
                                            : leaf_shape_[static_cast<std::size_t>(src.leaf)];
    }
    node_shape_[k] = defs_[k]->shape(in, attrs_[k]);
    if (capacity_[k] > 0 && node_shape_[k].size() * sizeof(float) > capacity_[k])
      throw CapacityError(std::string(defs_[k]->name) + " needs " +
                          std::to_string(node_shape_[k].size() * sizeof(float)) +
                          " bytes, the program was planned for " + std::to_string(capacity_[k]));
  }
  for (Instruction& ins : code_) refresh_shapes(ins);
  shapes_dirty_ = false;
}

void Program::bind_input(Value input, const float* data) {
  if (static_cast<std::size_t>(input.id) >= input_uses_.size()) return;  // an input nothing reads
  for (const float** use : input_uses_[static_cast<std::size_t>(input.id)]) *use = data;
}

}  // namespace looplab

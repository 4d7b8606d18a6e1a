// lowering.cpp — fusion groups to instructions with resolved pointers (see lowering.hpp).
#include "looplab/engine/lowering.hpp"

#include <algorithm>

#include "looplab/engine/detail/code.hpp"

namespace looplab {
namespace {

using detail::kTile;

struct Lowering {
  const Tracer& t;
  const StepGraph& g;
  const FusionPlan& plan;
  const BufferPlan& buffers;
  detail::Code& c;
  std::vector<const float*> constant_copy;  // node id -> the program's copy of a constant

  const OpNode& op(int k) const { return g.ops[static_cast<std::size_t>(k)]; }
  const Node& node(int k) const { return t.node(Value{g.node_id[static_cast<std::size_t>(k)]}); }
  int op_index(Value v) const { return g.op_of[static_cast<std::size_t>(v.id)]; }
  bool is_input(Value v) const { return t.node(v).leaf == LeafKind::Input; }

  // Where a value's data is: its buffer, the program's copy of a constant, or the caller's tensor.
  float* data_of(Value v) {
    if (const int k = op_index(v); k >= 0) {
      const int r = buffers.request_of[static_cast<std::size_t>(k)];
      return r < 0 ? nullptr
                   : c.arena.data() +
                         buffers.memory.offsets[static_cast<std::size_t>(r)] / sizeof(float);
    }
    if (t.node(v).leaf == LeafKind::Constant) {  // the program owns its constants
      const float*& copy = constant_copy[static_cast<std::size_t>(v.id)];
      if (!copy) {
        c.constants.push_back(std::make_unique<Tensor>(
            t.shape(v), std::vector<float>(t.leaf_data(v), t.leaf_data(v) + t.shape(v).size())));
        copy = c.constants.back()->data();
      }
      return const_cast<float*>(copy);
    }
    return const_cast<float*>(t.leaf_data(v));
  }

  // Per op node: what derive_shapes() needs, and the FLOP count.
  void describe_nodes() {
    c.attrs.reserve(g.ops.size());  // kernels point into attrs: no reallocation after this
    c.leaf_shape.resize(static_cast<std::size_t>(t.size()));
    for (int id = 0; id < t.size(); ++id)
      if (t.node(Value{id}).leaf != LeafKind::None)
        c.leaf_shape[static_cast<std::size_t>(id)] = t.shape(Value{id});
    for (std::size_t k = 0; k < g.ops.size(); ++k) {
      const Node& n = node(static_cast<int>(k));
      const OpDef& def = op_def(n.op);
      std::array<detail::Source, kMaxArity> src{};
      for (int i = 0; i < def.arity; ++i) {
        const int producer = op_index(n.in[i]);
        if (producer >= 0)
          src[static_cast<std::size_t>(i)].node = producer;
        else
          src[static_cast<std::size_t>(i)].leaf = n.in[i].id;
      }
      c.attrs.push_back(n.attrs);
      c.defs.push_back(&def);
      c.sources.push_back(src);
      c.node_shape.push_back(n.shape);
      const int r = buffers.request_of[k];
      c.capacity.push_back(r < 0 ? 0 : buffers.requests[static_cast<std::size_t>(r)].bytes);
      c.stats.flops_per_step += def.flops(g.ops[k].in_shape, n.shape, n.attrs);
    }
  }

  // A plain kernel call for op index k, its output at `out`.
  detail::Kernel kernel(int k, float* out) {
    const Node& n = node(k);
    const OpDef& def = *c.defs[static_cast<std::size_t>(k)];
    detail::Kernel kn{def.forward, {}};
    for (int i = 0; i < def.arity; ++i) kn.args.in[static_cast<std::size_t>(i)] = data_of(n.in[i]);
    kn.args.out = out;
    kn.args.attrs = &c.attrs[static_cast<std::size_t>(k)];
    return kn;
  }

  // Single: the op. Dense: matmul, bias and activation ping-pong between the output buffer and a
  // scratch area so that the last one writes the output. NOTE: never in place (in == out): clang's
  // vectorized loops check that input and output do not overlap and run scalar code when they do,
  // which made WebAssembly's fused tanh several times slower.
  detail::Instruction plain_instruction(const FusionGroup& G) {
    detail::Instruction ins;
    float* out = data_of(Value{g.node_id[static_cast<std::size_t>(G.members.back())]});
    float* other = c.scratch.data();
    float* at = G.members.size() % 2 == 1 ? out : other;  // where the matmul writes
    ins.op = kernel(G.members[0], at);
    for (std::size_t m = 1; m < G.members.size(); ++m) {
      float* next = at == out ? other : out;
      detail::Kernel e = kernel(G.members[m], next);
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
      if (G.kind == GroupKind::Dense) need = std::max(need, op(G.members.back()).shape.size());
    }
    return need + kTile;
  }

  Peephole peephole(int k) const { return plan.peephole[static_cast<std::size_t>(k)]; }
  // A ByOnce Mul runs as MulScalar with the Once value second: were the node's inputs swapped?
  bool swapped(int k) const {
    const int a = op(k).in[0];
    return peephole(k) == Peephole::ByOnce && a >= 0 && peephole(a) == Peephole::Once;
  }

  // One Loop: its values (inputs, buffers, scratch tiles, once-per-run constants), steps and sinks.
  struct LoopLowering {
    Lowering& low;
    detail::Loop L;
    int tiles = 0;
    std::vector<int> value_of;                        // member op index -> its value index
    std::vector<int> squared;                         // folded Square -> value index of its input
    std::vector<std::array<int, 2>> constant_values;  // (value index, index into L.constants)

    int new_value(const float* data, int tile, bool vector) {
      L.values.push_back({data, tile, vector});
      return static_cast<int>(L.values.size()) - 1;
    }
    // An operand: a member's value, or a new value for what the loop reads from outside.
    int operand(Value v, LoopOperand how) {
      const int k = low.op_index(v);
      if (k >= 0 && value_of[static_cast<std::size_t>(k)] >= 0)
        return value_of[static_cast<std::size_t>(k)];
      return new_value(how == LoopOperand::ShapeOnly ? nullptr : low.data_of(v), -1,
                       how == LoopOperand::Vector);
    }

    void member(int k) {
      const Node& n = low.node(k);
      const LoopRole role = loop_role(low.op(k));
      if (low.peephole(k) == Peephole::FoldedSquare) {  // its sink notes the input's uses
        squared[static_cast<std::size_t>(k)] = operand(n.in[0], LoopOperand::Vector);
        return;
      }
      detail::LoopStep st{low.c.defs[static_cast<std::size_t>(k)],
                          n.op,
                          &low.c.attrs[static_cast<std::size_t>(k)],
                          {-1, -1},
                          role.operand};
      st.node = k;
      bool square = false;
      for (int i = 0; i < st.def->arity; ++i) {
        const int producer = low.op_index(n.in[i]);
        const bool folded = producer >= 0 && squared[static_cast<std::size_t>(producer)] >= 0;
        square = square || folded;
        st.in[static_cast<std::size_t>(i)] =
            folded ? squared[static_cast<std::size_t>(producer)]
                   : operand(n.in[i], role.operand[static_cast<std::size_t>(i)]);
      }
      if (low.peephole(k) == Peephole::ByOnce) {  // c·x and x·c round alike
        if (low.swapped(k)) std::swap(st.in[0], st.in[1]);
        st.def = &op_def(OpKind::MulScalar);
        st.op = OpKind::MulScalar;
        st.how = {LoopOperand::Vector, LoopOperand::Scalar};
      }
      float* buffer = low.data_of(Value{low.g.node_id[static_cast<std::size_t>(k)]});
      if (role.sink) {
        st.sink = static_cast<int>(L.sinks.size());
        detail::Sink s;
        s.node = k;
        s.mean = op_def(n.op).fusion.mean;
        s.dot = role.dot;
        s.square = square;
        s.out = buffer;
        L.sinks.push_back(s);
      } else if (low.peephole(k) == Peephole::Once) {
        st.once = true;
        st.out = value_of[static_cast<std::size_t>(k)] = new_value(nullptr, -1, false);
        constant_values.push_back({st.out, static_cast<int>(L.constants.size())});
        L.constants.push_back(0.0f);
      } else {
        st.out = value_of[static_cast<std::size_t>(k)] =
            new_value(buffer, buffer ? -1 : tiles++, true);
      }
      L.steps.push_back(st);
    }

    detail::Loop build(const FusionGroup& G) {
      value_of.assign(low.g.ops.size(), -1);
      squared.assign(low.g.ops.size(), -1);
      for (int k : G.members) member(k);
      for (const auto& cv : constant_values)  // L.constants no longer grows: point at it
        L.values[static_cast<std::size_t>(cv[0])].data =
            &L.constants[static_cast<std::size_t>(cv[1])];
      L.at.assign(L.values.size(), nullptr);
      return std::move(L);
    }
  };

  void lower() {
    c.instructions.reserve(plan.groups.size());  // input pointers point into instructions, loops
    c.loops.reserve(plan.groups.size());
    c.scratch.assign(scratch_floats(), 0.0f);  // sized first: kernels point into it
    for (const FusionGroup& G : plan.groups) {
      if (G.kind != GroupKind::Loop) {
        c.instructions.push_back(plain_instruction(G));
        continue;
      }
      c.loops.push_back(LoopLowering{*this, {}, 0, {}, {}, {}}.build(G));
      detail::Instruction ins;
      ins.loop = static_cast<int>(c.loops.size()) - 1;
      ins.nodes = G.members;
      c.instructions.push_back(ins);
    }
    for (detail::Instruction& ins : c.instructions) c.refresh_shapes(ins);
    record_input_uses();
  }

  // Every pointer that reads an input leaf, so bind_input() can point it at the next batch.
  void record_input_uses() {
    c.input_uses.assign(static_cast<std::size_t>(t.size()), {});
    auto note = [&](Value v, const float** slot) {
      if (is_input(v)) c.input_uses[static_cast<std::size_t>(v.id)].push_back(slot);
    };
    for (detail::Instruction& ins : c.instructions) {
      if (ins.loop >= 0) continue;
      for (std::size_t m = 0; m < ins.nodes.size(); ++m) {
        const Node& n = node(ins.nodes[m]);
        detail::Kernel& kn = m == 0 ? ins.op : ins.epilogue[m - 1];
        for (int i = m == 0 ? 0 : 1; i < op_def(n.op).arity; ++i)   // (an epilogue's in[0]: the
          note(n.in[i], &kn.args.in[static_cast<std::size_t>(i)]);  // previous member)
      }
    }
    for (detail::Loop& L : c.loops)
      for (const detail::LoopStep& st : L.steps) {
        const Node& n = node(st.node);
        const bool square = st.sink >= 0 && L.sinks[static_cast<std::size_t>(st.sink)].square;
        for (int i = 0; i < st.def->arity; ++i) {
          if (st.how[static_cast<std::size_t>(i)] == LoopOperand::ShapeOnly) continue;
          const Value v = n.in[swapped(st.node) ? 1 - i : i];
          note(square ? t.node(v).in[0] : v,
               &L.values[static_cast<std::size_t>(st.in[static_cast<std::size_t>(i)])].data);
        }
      }
  }
};

}  // namespace

std::unique_ptr<detail::Code> lower(const Tracer& t, const StepGraph& g, const FusionPlan& plan,
                                    BufferPlan buffers, const std::vector<Value>& outputs,
                                    const std::vector<Assign>& updates) {
  auto code = std::make_unique<detail::Code>();
  detail::Code& c = *code;
  c.arena.assign(buffers.memory.total_bytes / sizeof(float) + 1, 0.0f);
  c.stats.arena_bytes = buffers.memory.total_bytes;
  c.stats.unplanned_bytes = buffers.unplanned_bytes;
  Lowering low{t, g, plan, buffers, c, {}};
  low.constant_copy.assign(static_cast<std::size_t>(t.size()), nullptr);
  low.describe_nodes();
  low.lower();
  for (Value o : outputs) c.outputs.push_back(low.data_of(o));
  for (const Assign& a : updates)
    c.updates.push_back(
        {t.parameter_data(a.target), low.data_of(a.value), t.shape(a.target).size()});
  c.stats.instructions = static_cast<int>(c.instructions.size());
  return code;
}

}  // namespace looplab

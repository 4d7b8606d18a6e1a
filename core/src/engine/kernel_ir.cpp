// kernel_ir.cpp — a lowered Code to the lowering IR of compiled mode (kernel_ir.hpp,
// detail/generated.hpp), and generate(), which emits and builds it. What an op computes in a loop
// or a nest comes from its row of the op table (ops.hpp, FusionRole and LoopForm): no op is named
// here. Also what both emitters must read of a loop alike: the slots it touches (element_slots,
// with_local_slots), the order of a nest's reduction (reduction_order) and of a flat loop's
// (flat_order).
#include "looplab/engine/kernel_ir.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "looplab/base/clock.hpp"
#include "looplab/engine/detail/generated.hpp"

namespace looplab::kir {

const char* op_name(Op op) {
  static constexpr const char* kNames[] = {
      "add",  "sub",       "mul",     "div",          "sqrt", "log",
      "tanh", "tanh_grad", "sigmoid", "sigmoid_grad", "relu", "relu_grad",
      "clip", "clip_grad", "copy",    "sum",          "dot"};
  // As ggml guards GGML_OP_COUNT: a new Op fails to build here until it has a name, and the count
  // below reminds of its formula in emit_c.cpp, emit_wasm.cpp and emit_test.cpp.
  static_assert(std::size(kNames) == kOpCount, "every kir::Op needs a name in kNames");
  static_assert(kOpCount == 17, "a new kir::Op needs a formula in both emitters and emit_test.cpp");
  return kNames[static_cast<int>(op)];
}

int arity(Op op) {
  switch (op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::TanhGrad:
    case Op::SigmoidGrad:
    case Op::ReluGrad:
    case Op::ClipGrad:
    case Op::Dot:
      return 2;
    default:
      return 1;
  }
}

bool Program::uses_log() const {
  for (const Loop& L : loops) {
    for (const Expr& e : L.body)
      if (e.op == Op::Log) return true;
    for (const Expr& e : L.scalar_exprs)
      if (e.op == Op::Log) return true;
  }
  return false;
}

namespace {

// How a loop uses a slot: before the loop (a scalar load, a once-expression's operand), element
// by element (an operand, a store), or after it (a sink's total).
enum class SlotUse : unsigned char { Before, Read, Store, After };

// Every slot field of a loop, in the order that defines "first use" (kernel_ir.hpp): f(slot, use),
// slot an int& or a const int& as the loop is. An operand past its op's arity (a Sink's b outside
// a Dot) is not read, so it is no use of a slot.
template <class AnyLoop, class F>
void each_slot(AnyLoop& L, F f) {
  auto operand = [&](auto& r, SlotUse use) {
    if (r.kind == Ref::Kind::Vector || r.kind == Ref::Kind::Strided) f(r.index, use);
  };
  for (auto& s : L.scalar_loads) f(s, SlotUse::Before);
  for (auto& e : L.scalar_exprs)
    for (int j = 0; j < arity(e.op); ++j)
      operand(e.in[static_cast<std::size_t>(j)], SlotUse::Before);
  for (auto& e : L.body) {
    for (int j = 0; j < arity(e.op); ++j) operand(e.in[static_cast<std::size_t>(j)], SlotUse::Read);
    if (e.store >= 0) f(e.store, SlotUse::Store);
  }
  for (auto& s : L.sinks) {
    operand(s.a, SlotUse::Read);
    if (s.kind == Sink::Kind::Dot) operand(s.b, SlotUse::Read);
    f(s.out, SlotUse::After);
  }
}

}  // namespace

std::vector<ElementSlot> element_slots(const Loop& L) {
  std::vector<ElementSlot> out;
  std::map<int, std::size_t> at;  // slot -> its entry
  each_slot(L, [&](int slot, SlotUse use) {
    if (use != SlotUse::Read && use != SlotUse::Store) return;
    const auto [it, fresh] = at.emplace(slot, out.size());
    if (fresh) out.push_back({slot, false});
    if (use == SlotUse::Store) out[it->second].stored = true;
  });
  return out;
}

Loop with_local_slots(Loop L, std::vector<int>& slots) {
  std::map<int, int> local;
  each_slot(L, [&](int& slot, SlotUse) {
    const auto [it, fresh] = local.emplace(slot, static_cast<int>(slots.size()));
    if (fresh) slots.push_back(slot);
    slot = it->second;
  });
  return L;
}

FlatOrder flat_order(std::size_t n) {
  FlatOrder f;
  f.n = n;
  f.blocks = n - n % kLanes;
  for (int l = 0; l < kLanes; ++l) f.finish.push_back(l);
  f.finish.push_back(FlatOrder::kTail);
  return f;
}

ReductionOrder reduction_order(int depth) {
  const int parts = partials(depth), whole = depth - depth % parts;
  ReductionOrder r;
  r.depth = depth;
  for (int p = 0; p < parts; ++p) r.first.push_back({p, p}), r.finish.push_back(p);
  if (whole > parts) {
    r.round_begin = parts, r.round_end = whole;
    for (int p = 0; p < parts; ++p) r.round.push_back({p, p});
  }
  for (int k = whole; k < depth; ++k) r.tail.push_back({k, k % parts});
  return r;
}

}  // namespace looplab::kir

namespace looplab::detail {
namespace {

using kir::Op;
using kir::Ref;

struct KirBuilder {
  const Code& c;
  Lowered out;
  std::map<const void*, int> input_of;  // a pointer field that reads an input -> its node id
  std::map<int, int> input_slot;        // an input's node id -> its slot

  // A pointer field as a slot. Fields that read the same input (x read by the forward product
  // and by the gradient's) share one slot, so generated code loads each element once.
  int slot(const float* const* field) {
    const auto input = input_of.find(field);
    if (input != input_of.end())
      if (const auto seen = input_slot.find(input->second); seen != input_slot.end())
        return seen->second;
    out.slot_fields.push_back(field);
    const int s = static_cast<int>(out.slot_fields.size()) - 1;
    if (input != input_of.end()) input_slot.emplace(input->second, s);
    return s;
  }
  // An instruction that turned out not to be a loop: the slots taken since `mark` are forgotten
  // (so the kernel call's pointers are not slots) and k is emptied. Returns false.
  bool give_up(std::size_t mark, kir::Loop& k) {
    out.slot_fields.resize(mark);
    std::erase_if(input_slot, [&](const auto& e) { return e.second >= static_cast<int>(mark); });
    k = {};
    return false;
  }
  int call(const Kernel& k) {
    out.calls.push_back({k.forward, &k.args});
    return static_cast<int>(out.calls.size()) - 1;
  }

  // One loop step as an expression: its op's loop form (ops.hpp, LoopForm), the kir::Op over the
  // operands the form names. n is the loop's length (MeanGrad divides by it).
  static kir::Expr expr_of(const OpDef& def, const OpAttrs& attrs, const std::array<Ref, 2>& in,
                           std::size_t n) {
    const FusionKind kind = def.fusion.kind;
    if (kind != FusionKind::Elementwise && kind != FusionKind::Contraction)
      throw std::logic_error("compiled mode: no loop code for " + std::string(def.name));
    const Ref from[] = {in[0],
                        in[1],
                        {Ref::Kind::Const, 0, attrs.scale},
                        {Ref::Kind::Const, 0, static_cast<float>(n)}};  // in LoopIn's order
    kir::Expr e;
    e.op = def.fusion.loop.op;
    for (std::size_t j = 0; j < e.in.size(); ++j)
      e.in[j] = from[static_cast<int>(def.fusion.loop.in[j])];
    e.lo = attrs.lo, e.hi = attrs.hi;  // read by Clip and ClipGrad only
    return e;
  }

  // A fused loop: outside vectors become slots, scalars registers loaded (or, for the values
  // computed once per run, computed) before the loop, members' results temps.
  kir::Loop loop(const Loop& L) {
    kir::Loop k;
    k.n = L.n;
    std::vector<Ref> ref(L.values.size());
    std::vector<bool> known(L.values.size(), false);
    auto operand = [&](int v, LoopOperand how) -> Ref {
      const auto i = static_cast<std::size_t>(v);
      if (how == LoopOperand::ShapeOnly) return {};
      if (known[i]) return ref[i];
      const LoopValue& val = L.values[i];
      if (how == LoopOperand::Vector) {
        ref[i] = {Ref::Kind::Vector, slot(&val.data), 0.0f};
      } else {
        ref[i] = {Ref::Kind::Scalar, static_cast<int>(k.scalar_loads.size()), 0.0f};
        k.scalar_loads.push_back(slot(&val.data));
      }
      known[i] = true;
      return ref[i];
    };
    for (const LoopStep& st : L.steps) {
      std::array<Ref, 2> in{};
      for (int j = 0; j < st.def->arity; ++j)
        in[static_cast<std::size_t>(j)] =
            operand(st.in[static_cast<std::size_t>(j)], st.how[static_cast<std::size_t>(j)]);
      if (!k.note.empty()) k.note += ' ';
      k.note += c.defs[static_cast<std::size_t>(st.node)]->name;
      if (st.sink >= 0) {
        const Sink& s = L.sinks[static_cast<std::size_t>(st.sink)];
        kir::Sink ks;
        ks.kind = s.dot      ? kir::Sink::Kind::Dot
                  : s.square ? kir::Sink::Kind::SumSquares
                             : kir::Sink::Kind::Sum;
        ks.a = in[0];
        ks.b = in[1];
        ks.mean = s.mean;
        ks.out = slot(const_cast<const float* const*>(&s.out));
        k.sinks.push_back(ks);
        continue;
      }
      kir::Expr e = expr_of(*st.def, *st.attrs, in, L.n);
      const auto o = static_cast<std::size_t>(st.out);
      if (st.once) {  // scalar registers: the loads first, so they are numbered after emission
        ref[o] = {Ref::Kind::Scalar, -1 - static_cast<int>(k.scalar_exprs.size()), 0.0f};
        k.scalar_exprs.push_back(e);
      } else {
        if (L.values[o].tile < 0 && L.values[o].data) e.store = slot(&L.values[o].data);
        ref[o] = {Ref::Kind::Temp, static_cast<int>(k.body.size()), 0.0f};
        k.body.push_back(e);
      }
      known[o] = true;
    }
    renumber_scalars(k);
    hoist_sink_factors(k);
    drop_unused_temps(k);
    return k;
  }

  // Σ (t·c) → (Σ t)·c and Σ (t / c) → (Σ t) / c for a loop-invariant c (a constant or a scalar
  // register): the multiply leaves the loop, as in a hand-written one (W1's gradient is
  // Σ 2·r·(1/N)·x: two multiplies per point before, none after). A Dot sink (Σ a·b) is peeled on
  // both operands: Σ (a·c)·(b·d) → (Σ a·b)·c·d, a's factors applied last. A sum of squares keeps
  // its factors (they would be squared). It moves rounding by an ulp or so per sum; compiled
  // mode's curves stay within 1e-5 of traced (compiled_test.cpp).
  static bool invariant(const Ref& r) {
    return r.kind == Ref::Kind::Const || r.kind == Ref::Kind::Scalar;
  }
  static void hoist_sink_factors(kir::Loop& k) {
    for (kir::Sink& s : k.sinks) {
      if (s.kind == kir::Sink::Kind::SumSquares) continue;
      std::vector<kir::Sink::Factor> peeled;  // outermost first
      for (Ref* term : {&s.a, &s.b}) {
        if (term == &s.b && s.kind != kir::Sink::Kind::Dot) break;
        while (term->kind == Ref::Kind::Temp) {
          const kir::Expr& e = k.body[static_cast<std::size_t>(term->index)];
          if (e.op == Op::Mul && invariant(e.in[1]) && !invariant(e.in[0])) {
            peeled.push_back({e.in[1], false}), *term = e.in[0];
          } else if (e.op == Op::Mul && invariant(e.in[0]) && !invariant(e.in[1])) {
            peeled.push_back({e.in[0], false}), *term = e.in[1];
          } else if (e.op == Op::Div && invariant(e.in[1]) && !invariant(e.in[0])) {
            peeled.push_back({e.in[1], true}), *term = e.in[0];
          } else {
            break;
          }
        }
      }
      s.after.assign(peeled.rbegin(), peeled.rend());  // innermost first, as the ops ran
    }
  }

  // Expressions nothing reads any more (after hoisting) and that store nothing are dropped.
  static void drop_unused_temps(kir::Loop& k) {
    std::vector<bool> used(k.body.size(), false);
    auto use = [&](const Ref& r) {
      if (r.kind == Ref::Kind::Temp) used[static_cast<std::size_t>(r.index)] = true;
    };
    for (const kir::Sink& s : k.sinks) use(s.a), use(s.b);
    for (std::size_t j = k.body.size(); j-- > 0;)
      if (used[j] || k.body[j].store >= 0) {
        used[j] = true;
        for (int i = 0; i < kir::arity(k.body[j].op); ++i)
          use(k.body[j].in[static_cast<std::size_t>(i)]);
      }
    std::vector<int> index(k.body.size(), -1);
    std::vector<kir::Expr> kept;
    for (std::size_t j = 0; j < k.body.size(); ++j)
      if (used[j]) index[j] = static_cast<int>(kept.size()), kept.push_back(k.body[j]);
    auto fix = [&](Ref& r) {
      if (r.kind == Ref::Kind::Temp) r.index = index[static_cast<std::size_t>(r.index)];
    };
    for (kir::Expr& e : kept)
      for (Ref& r : e.in) fix(r);
    for (kir::Sink& s : k.sinks) fix(s.a), fix(s.b);
    k.body = std::move(kept);
  }

  // Once-values got provisional numbers −1 − j: they become registers after the loads.
  static void renumber_scalars(kir::Loop& k) {
    const int loads = static_cast<int>(k.scalar_loads.size());
    auto fix = [&](Ref& r) {
      if (r.kind == Ref::Kind::Scalar && r.index < 0) r.index = loads + (-1 - r.index);
    };
    for (kir::Expr& e : k.scalar_exprs)
      for (Ref& r : e.in) fix(r);
    for (kir::Expr& e : k.body)
      for (Ref& r : e.in) fix(r);
    for (kir::Sink& s : k.sinks) fix(s.a), fix(s.b);
  }

  // A Single or Dense instruction as a nest over its output's rows x columns, when every member
  // is a matrix product, a column sum, a bias or an activation (by its fusion role: a Contraction,
  // a Reduction whose loop form is Sum, an Epilogue): a product's element is a Dot over its inner
  // size, a column sum a Sum down the rows, and the epilogue works on it in registers (its loop
  // form); only the last member's value is stored. Anything else: false (the kernels are called).
  // A product large enough for a blocked GEMM stays a call of its kernel, which hands it to
  // Eigen's GEMM, as XLA's CPU backend calls a library GEMM for a large dot: a nest reads its
  // operands with no cache blocking. Natively (2026-12-06, one run each) nests of every product
  // lost to traced mode's GEMM on the larger cells: matrix, compiled vs traced, large MLP × 256
  // rows −73%, × 2,048 rows −78%; seed 001's models −145% to −358% on the medium data; one Conv1D
  // layer (bench W3) 6x slower. With products of 2^16 multiply-adds or more (every size ≥ 8)
  // called, compiled mode was within noise of traced or ahead in 16 of those 17 cells, and W3's
  // compiled step took traced's time.
  static constexpr double kLibraryProductMacs = 1 << 16;
  static bool library_product(Shape out, int depth) {
    return std::min({out.rows, out.cols, depth}) >= 8 &&
           static_cast<double>(out.size()) * depth >= kLibraryProductMacs;
  }
  static Ref strided(int slot, int si, int sj, int sk) {
    return {Ref::Kind::Strided, slot, 0.0f, {si, sj, sk}};
  }
  bool nest(const Instruction& ins, kir::Loop& k) {
    const std::size_t members = ins.nodes.size(), mark = out.slot_fields.size();
    const Kernel& last = members == 1 ? ins.op : ins.epilogue[members - 2];
    const Shape shape = last.args.out_shape;
    k.rows = static_cast<std::size_t>(shape.rows);
    k.n = static_cast<std::size_t>(shape.cols);
    for (std::size_t m = 0; m < members; ++m) {
      const Kernel& kn = m == 0 ? ins.op : ins.epilogue[m - 1];
      const KernelArgs& a = kn.args;
      const OpDef* def = c.defs[static_cast<std::size_t>(ins.nodes[m])];
      const FusionRole& role = def->fusion;
      const Ref prev{Ref::Kind::Temp, static_cast<int>(k.body.size()) - 1, 0.0f};
      kir::Expr e;
      if (m == 0 && role.kind == FusionKind::Contraction) {
        const bool ta = a.attrs->transpose_a, tb = a.attrs->transpose_b;
        const int lda = a.in_shape[0].cols, ldb = a.in_shape[1].cols;
        e.depth = ta ? a.in_shape[0].rows : a.in_shape[0].cols;
        if (library_product(a.out_shape, e.depth)) return give_up(mark, k);
        const int sa = slot(&a.in[0]), sb = slot(&a.in[1]);
        e.op = Op::Dot;
        e.in = {ta ? strided(sa, 1, 0, lda) : strided(sa, lda, 0, 1),
                tb ? strided(sb, 0, ldb, 1) : strided(sb, 0, 1, ldb)};
      } else if (m == 0 && role.kind == FusionKind::Reduction && role.loop.op == Op::Sum) {
        e.op = Op::Sum;
        e.depth = a.in_shape[0].rows;
        e.in[0] = strided(slot(&a.in[0]), 0, 1, a.in_shape[0].cols);
      } else if (m > 0 && role.epilogue == Epilogue::Bias) {  // the row, down the rows
        e.op = role.loop.op;
        e.in = {prev, strided(slot(&a.in[1]), 0, a.in_shape[1].cols > 1 ? 1 : 0, 0)};
      } else if (m > 0 && role.epilogue == Epilogue::Activation) {
        e.op = role.loop.op;
        e.in[0] = prev;
      }
      if ((m == 0 && e.depth < 1) || (m > 0 && e.op == Op::Copy) || shape.size() == 0)
        return give_up(mark, k);  // not a nest (or an empty product)
      if (!k.note.empty()) k.note += ' ';
      k.note += def->name;
      k.body.push_back(e);
    }
    k.body.back().store = slot(const_cast<const float* const*>(&last.args.out));
    if (k.n == 1 && k.rows > 1) {  // a column: a row, so the emitters vectorize along it
      std::swap(k.n, k.rows);
      for (kir::Expr& e : k.body)
        for (Ref& r : e.in) std::swap(r.stride[0], r.stride[1]);
    }
    return true;
  }

  // A nest over several rows that ends in tanh or sigmoid: the nest stores the value before the
  // activation, and a flat loop over all rows x columns applies it in place. NOTE: vectorized
  // along a short row (W2's 20 hidden units: 8 + 8 + 4) the activation's rational runs on
  // partial vectors; over the whole matrix it runs on full ones: W2's step 54 → 45 ms natively
  // (same arithmetic, same results).
  static bool activation_apart(kir::Loop& nest, kir::Loop& flat) {
    const kir::Op act = nest.body.back().op;
    if (nest.rows < 2 || nest.body.size() < 2 || (act != Op::Tanh && act != Op::Sigmoid))
      return false;
    const int out = nest.body.back().store;
    nest.body.pop_back();
    nest.body.back().store = out;
    flat = {};
    flat.n = nest.rows * nest.n;
    kir::Expr e;
    e.op = act;
    e.in[0] = {Ref::Kind::Vector, out, 0.0f};
    e.store = out;
    flat.body.push_back(e);
    const std::size_t cut = nest.note.rfind(' ');
    flat.note = nest.note.substr(cut + 1) + " (in place)";
    nest.note.resize(cut);
    return true;
  }

  // A lone elementwise op (a gradient of an activation between two products, an optimizer's
  // scaling) as a flat loop of one expression, instead of a call of its kernel: no call, and
  // the compiler vectorizes it for the known length.
  bool single(const Instruction& ins, kir::Loop& k) {
    if (ins.nodes.size() != 1) return false;
    const OpDef* def = c.defs[static_cast<std::size_t>(ins.nodes[0])];
    if (def->fusion.kind != FusionKind::Elementwise) return false;
    const KernelArgs& a = ins.op.args;
    const std::size_t n = a.out_shape.size();
    const std::size_t mark = out.slot_fields.size();
    std::array<Ref, 2> in{};
    for (int j = 0; j < def->arity; ++j) {
      const auto u = static_cast<std::size_t>(j);
      const LoopOperand how = def->fusion.operand[u];
      if (how == LoopOperand::Vector && a.in_shape[u].size() == n) {
        in[u] = {Ref::Kind::Vector, slot(&a.in[u]), 0.0f};
      } else if (how == LoopOperand::Scalar && a.in_shape[u].size() == 1) {
        in[u] = {Ref::Kind::Scalar, static_cast<int>(k.scalar_loads.size()), 0.0f};
        k.scalar_loads.push_back(slot(&a.in[u]));
      } else if (how != LoopOperand::ShapeOnly) {  // a broadcast row: left to the kernel
        return give_up(mark, k);
      }
    }
    k.n = n;
    k.body.push_back(expr_of(*def, *a.attrs, in, n));
    k.body.back().store = slot(const_cast<const float* const*>(&a.out));
    k.note = std::string(def->name);
    return true;
  }

  void build() {
    for (std::size_t id = 0; id < c.input_uses.size(); ++id)
      for (const float** use : c.input_uses[id]) input_of.emplace(use, static_cast<int>(id));
    for (const Instruction& ins : c.instructions) {
      kir::Stmt s;
      if (ins.loop < 0) {
        kir::Loop k, flat;
        if (nest(ins, k)) {
          const bool apart = activation_apart(k, flat);
          for (kir::Loop* L : {&k, &flat}) {
            if (L == &flat && !apart) break;
            s.kind = kir::Stmt::Kind::Loop;
            s.index = static_cast<int>(out.ir.loops.size());
            s.note = L->note;
            out.ir.loops.push_back(std::move(*L));
            out.ir.stmts.push_back(s);
          }
          continue;
        }
      }
      if (kir::Loop k; ins.loop < 0 && single(ins, k)) {
        s.kind = kir::Stmt::Kind::Loop;
        s.index = static_cast<int>(out.ir.loops.size());
        s.note = k.note;
        out.ir.loops.push_back(std::move(k));
        out.ir.stmts.push_back(s);
        continue;
      }
      if (ins.loop >= 0) {
        s.kind = kir::Stmt::Kind::Loop;
        s.index = static_cast<int>(out.ir.loops.size());
        out.ir.loops.push_back(loop(c.loops[static_cast<std::size_t>(ins.loop)]));
        s.note = out.ir.loops.back().note;
        out.ir.stmts.push_back(s);
        continue;
      }
      for (std::size_t m = 0; m < ins.nodes.size(); ++m) {
        s.kind = kir::Stmt::Kind::Call;
        s.index = call(m == 0 ? ins.op : ins.epilogue[m - 1]);
        s.note = std::string(c.defs[static_cast<std::size_t>(ins.nodes[m])]->name);
        out.ir.stmts.push_back(s);
      }
    }
    for (const Update& u : c.updates) {
      kir::Stmt s;
      s.kind = kir::Stmt::Kind::Copy;
      s.dst = slot(const_cast<const float* const*>(&u.dst));
      s.src = slot(&u.src);
      s.n = u.n;
      s.note = "parameter update";
      out.ir.stmts.push_back(s);
    }
    out.ir.slots = static_cast<int>(out.slot_fields.size());
    out.ir.calls = static_cast<int>(out.calls.size());
  }
};

}  // namespace

Lowered lower_to_kir(const Code& c) {
  KirBuilder b{c, {}, {}, {}};
  b.build();
  return std::move(b.out);
}

std::unique_ptr<Generated> generate(const Code& c) {
  auto g = std::make_unique<Generated>();
  g->low = lower_to_kir(c);
  g->slots.assign(g->low.slot_fields.size(), nullptr);
  g->fn = build_step(g->low.ir, g->code, &g->build);
  return g;
}

}  // namespace looplab::detail

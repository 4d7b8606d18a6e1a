// emit_wasm.cpp — the lowering IR as a WebAssembly module (emit_wasm.hpp): a small binary writer
// that writes every instruction's bytes and its line of text format together. The slots a loop
// touches and the order of a nest's reduction or a flat loop come from the IR
// (kir::element_slots, kir::reduction_order, kir::flat_order), and fast_tanh's steps from ops.hpp
// (FastTanh::kSteps), as they do for emit_c.cpp: this file only prints them.
#include "looplab/engine/emit_wasm.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <stdexcept>

#include "looplab/engine/ops.hpp"

namespace looplab {
namespace {

using Bytes = std::vector<unsigned char>;
using kir::Ref;

void uleb(Bytes& b, unsigned long long v) {
  do {
    unsigned char byte = v & 0x7f;
    v >>= 7;
    if (v) byte |= 0x80;
    b.push_back(byte);
  } while (v);
}
void sleb(Bytes& b, long long v) {
  bool more = true;
  while (more) {
    unsigned char byte = v & 0x7f;
    v >>= 7;
    more = !((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)));
    if (more) byte |= 0x80;
    b.push_back(byte);
  }
}
void name(Bytes& b, const std::string& s) {
  uleb(b, s.size());
  b.insert(b.end(), s.begin(), s.end());
}
void section(Bytes& module, unsigned char id, const Bytes& content) {
  module.push_back(id);
  uleb(module, content.size());
  module.insert(module.end(), content.begin(), content.end());
}

std::string text_float(float v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%a", static_cast<double>(v));
  return buf;
}

constexpr unsigned char kI32 = 0x7f, kF32 = 0x7d, kV128 = 0x7b;
enum Type : int { kStepType = 0, kKernelType = 1, kLogType = 2 };

// Instruction writer: bytes and a text line per instruction, indented by block depth.
// NOTE: without_text: the bytes alone. A first call in a fresh page runs this emitter as baseline
// code the engine has not optimized yet, and writing the text took most of its time; the text is
// written when a student asks to read it (Program::generated_code()).
struct Asm {
  Bytes code;
  std::string text;
  bool with_text = true;
  int depth = 2;

  void line(const char* s) {
    if (!with_text) return;
    text.append(static_cast<std::size_t>(depth) * 2, ' ').append(s).append(1, '\n');
  }
  void line(const std::string& s) { line(s.c_str()); }
  void op(unsigned char b, const char* s) {
    code.push_back(b);
    line(s);
  }
  void simd(unsigned op, const char* s) {
    code.push_back(0xfd);
    uleb(code, op);
    line(s);
  }
  void local(unsigned char b, int i, const char* s) {
    code.push_back(b);
    uleb(code, static_cast<unsigned>(i));
    if (with_text) line(std::string(s) + " " + std::to_string(i));
  }
  void get(int i) { local(0x20, i, "local.get"); }
  void set(int i) { local(0x21, i, "local.set"); }
  void i32(long long v) {
    code.push_back(0x41);
    sleb(code, v);
    if (with_text) line("i32.const " + std::to_string(v));
  }
  void f32(float v) {
    code.push_back(0x43);
    unsigned char raw[4];
    std::memcpy(raw, &v, 4);
    code.insert(code.end(), raw, raw + 4);
    if (with_text) line("f32.const " + text_float(v));
  }
  void v128_splat(float v) {
    code.push_back(0xfd);
    uleb(code, 12);
    unsigned char raw[4];
    std::memcpy(raw, &v, 4);
    for (int l = 0; l < 4; ++l) code.insert(code.end(), raw, raw + 4);
    if (!with_text) return;
    const std::string t = text_float(v);
    line("v128.const f32x4 " + t + " " + t + " " + t + " " + t);
  }
  void memarg(unsigned align, unsigned offset) {
    uleb(code, align);
    uleb(code, offset);
  }
  void load_i32(unsigned offset) {
    code.push_back(0x28);
    memarg(2, offset);
    if (with_text) line("i32.load offset=" + std::to_string(offset));
  }
  void load_f32(unsigned offset) {
    code.push_back(0x2a);
    memarg(2, offset);
    if (with_text) line("f32.load offset=" + std::to_string(offset));
  }
  void store_f32(unsigned offset) {
    code.push_back(0x38);
    memarg(2, offset);
    if (with_text) line("f32.store offset=" + std::to_string(offset));
  }
  void load_v128(unsigned offset) {
    code.push_back(0xfd);
    uleb(code, 0);
    memarg(2, offset);
    if (with_text) line("v128.load offset=" + std::to_string(offset) + " align=4");
  }
  void store_v128(unsigned offset) {
    code.push_back(0xfd);
    uleb(code, 11);
    memarg(2, offset);
    if (with_text) line("v128.store offset=" + std::to_string(offset) + " align=4");
  }
  // A SIMD memory access at address + offset (v128.load64_zero, v128.load32_splat, ...).
  void simd_memory(unsigned op, unsigned offset, const char* s) {
    code.push_back(0xfd);
    uleb(code, op);
    memarg(2, offset);
    if (with_text) line(std::string(s) + " offset=" + std::to_string(offset) + " align=4");
  }
  // i8x16.shuffle of (first, second) on the stack: bytes 0..15 from the first, 16..31 the second.
  void shuffle(const std::array<unsigned char, 16>& bytes) {
    code.push_back(0xfd);
    uleb(code, 13);
    code.insert(code.end(), bytes.begin(), bytes.end());
    if (!with_text) return;
    std::string t = "i8x16.shuffle";
    for (unsigned char b : bytes) t.append(1, ' ').append(std::to_string(b));
    line(t);
  }
  void lane(unsigned op, int l, const char* s) {
    code.push_back(0xfd);
    uleb(code, op);
    code.push_back(static_cast<unsigned char>(l));
    if (with_text) line(std::string(s) + " " + std::to_string(l));
  }
  void call_indirect(int type) {
    code.push_back(0x11);
    uleb(code, static_cast<unsigned>(type));
    code.push_back(0x00);
    if (with_text) line("call_indirect (type " + std::to_string(type) + ")");
  }
  void block() {
    code.push_back(0x02);
    code.push_back(0x40);
    line("block");
    ++depth;
  }
  void loop() {
    code.push_back(0x03);
    code.push_back(0x40);
    line("loop");
    ++depth;
  }
  void end() {
    --depth;
    op(0x0b, "end");
  }
  void br(int d) {
    code.push_back(0x0c);
    uleb(code, static_cast<unsigned>(d));
    if (with_text) line("br " + std::to_string(d));
  }
  void br_if(int d) {
    code.push_back(0x0d);
    uleb(code, static_cast<unsigned>(d));
    if (with_text) line("br_if " + std::to_string(d));
  }
};

// One lane type's instructions: f32 (the tail) or f32x4 (the blocks).
struct Lanes {
  Asm& a;
  bool vec;
  void add() { vec ? a.simd(228, "f32x4.add") : a.op(0x92, "f32.add"); }
  void sub() { vec ? a.simd(229, "f32x4.sub") : a.op(0x93, "f32.sub"); }
  void mul() { vec ? a.simd(230, "f32x4.mul") : a.op(0x94, "f32.mul"); }
  void div() { vec ? a.simd(231, "f32x4.div") : a.op(0x95, "f32.div"); }
  void sqrt() { vec ? a.simd(227, "f32x4.sqrt") : a.op(0x91, "f32.sqrt"); }
  void abs() { vec ? a.simd(224, "f32x4.abs") : a.op(0x8b, "f32.abs"); }
  void lt() { vec ? a.simd(67, "f32x4.lt") : a.op(0x5d, "f32.lt"); }
  void gt() { vec ? a.simd(68, "f32x4.gt") : a.op(0x5e, "f32.gt"); }
  void both() { vec ? a.simd(78, "v128.and") : a.op(0x71, "i32.and"); }
  // (v1, v2, condition) -> condition ? v1 : v2, lane by lane
  void select() { vec ? a.simd(82, "v128.bitselect") : a.op(0x1b, "select"); }
  void constant(float v) { vec ? a.v128_splat(v) : a.f32(v); }
};

// Local indices. Parameters: 0 s, 1 k, 2 steps. Then i32 off, a nest's row, column, reduction
// step, a scratch address and a reduction's two running addresses, and the loop's pointers; f32
// and v128 pools of the same layout: scalars, temps, accumulators, scratch; then, in the v128 pool
// only, a nest's: a reduction's values for the second four columns of a block of eight (one per
// temp), two f32x4 sums (columns 0-3, 4-7 of the block) per partial sum over k (kir::partials)
// and an f32x4 per operand of a reduction that is the same across the columns; last, an f32 per
// partial sum (a nest's reduction over one column).
struct Locals {
  int pointers = 0, scalars = 0, temps = 0, sinks = 0;
  static constexpr int kScratch = 6;    // A, B, X, X2, P, Q
  static constexpr int kIntLocals = 7;  // off, row, col, step, address, reading 0 and 1
  static constexpr int kNestF32x4 = 2 * kir::kNestPartials + 2;
  int off() const { return 3; }
  int row() const { return 4; }
  int col() const { return 5; }
  int step() const { return 6; }
  int address() const { return 7; }
  int reading(int o) const { return 8 + o; }  // operand o of a reduction at the current step
  int pointer(int j) const { return 3 + kIntLocals + j; }
  int f32_base() const { return 3 + kIntLocals + pointers; }
  int f32_count() const { return scalars + temps + sinks + kScratch; }
  int v128_base() const { return f32_base() + f32_count(); }
  int v128_count() const { return scalars + temps + 4 * sinks + kScratch + temps + kNestF32x4; }
  int base(bool vec) const { return vec ? v128_base() : f32_base(); }
  int scalar(bool vec, int r) const { return base(vec) + r; }
  int temp(bool vec, int j) const { return base(vec) + scalars + j; }
  int acc(bool vec, int s, int k) const {
    return base(vec) + scalars + temps + (vec ? 4 * s + k : s);
  }
  int scratch(bool vec, int i) const {
    return base(vec) + scalars + temps + (vec ? 4 : 1) * sinks + i;
  }
  int nest_v128() const { return v128_base() + scalars + temps + 4 * sinks + kScratch; }
  int held(int j) const { return nest_v128() + j; }  // temp j, columns 4-7 of a block
  int quad_sum(int g, int p) const {                 // columns 4g .. 4g + 3; partial sum p
    return nest_v128() + temps + 2 * p + g;
  }
  int quad_operand(int o) const { return nest_v128() + temps + 2 * kir::kNestPartials + o; }
  int column_sum(int p) const { return v128_base() + v128_count() + p; }  // one column
};
enum Scratch { kA = 0, kB, kX, kX2, kP, kQ };

struct Emitter {
  const kir::Program& ir;
  WasmImports imports;
  Asm a;
  Locals locals;
  std::map<int, int> pointer_of;  // slot -> pointer local (the current loop)

  // The slots a loop reads or writes element by element (kir::element_slots), each given a
  // pointer local in order of first use.
  static std::map<int, int> pointers_of(const kir::Loop& L) {
    std::map<int, int> p;
    for (const kir::ElementSlot& e : kir::element_slots(L))
      p.emplace(e.slot, static_cast<int>(p.size()));
    return p;
  }

  void size_locals() {
    for (const kir::Loop& L : ir.loops) {
      locals.pointers = std::max(locals.pointers, static_cast<int>(pointers_of(L).size()));
      locals.scalars = std::max(locals.scalars, L.scalars());
      locals.temps = std::max(locals.temps, static_cast<int>(L.body.size()));
      locals.sinks = std::max(locals.sinks, static_cast<int>(L.sinks.size()));
    }
  }

  void slot_pointer(int slot) {  // s[slot]
    a.get(0);
    a.load_i32(4u * static_cast<unsigned>(slot));
  }

  // pointer + 4·(i·stride[0] + j·stride[1]) of a nest's operand: its element at k = 0.
  void strided_address(const Ref& r) {
    a.get(locals.pointer(pointer_of.at(r.index)));
    const int vars[] = {locals.row(), locals.col()};
    bool any = false;
    for (int d = 0; d < 2; ++d) {
      const int stride = r.stride[static_cast<std::size_t>(d)];
      if (stride == 0) continue;
      a.get(vars[d]);
      if (stride != 1) a.i32(stride), a.op(0x6c, "i32.mul");
      if (any) a.op(0x6a, "i32.add");
      any = true;
    }
    if (any) a.i32(2), a.op(0x74, "i32.shl"), a.op(0x6a, "i32.add");
  }

  // Four floats `across` elements apart, from the address in local `base` plus `offset` bytes.
  void gather4(int base, unsigned offset, int across) {
    for (int l = 0; l < 4; ++l) {
      a.get(base), a.load_f32(offset + 4u * static_cast<unsigned>(l * across));
      l == 0 ? a.simd(19, "f32x4.splat") : a.lane(32, l, "f32x4.replace_lane");
    }
  }

  // A nest's operand for one column or four: a row of four, one value splat, or four gathered.
  void push_strided(const Ref& r, bool vec) {
    strided_address(r);
    const int across = r.stride[1];
    if (!vec) return a.load_f32(0);
    if (across == 1) return a.load_v128(0);
    if (across == 0) return a.simd_memory(9, 0, "v128.load32_splat");
    a.set(locals.address());
    gather4(locals.address(), 0, across);
  }

  // Pushes an operand: for the vector body, sub-block k (elements off/4 + 4k ..).
  void push(const Ref& r, bool vec, int k) {
    switch (r.kind) {
      case Ref::Kind::Strided:
        return push_strided(r, vec);
      case Ref::Kind::Vector:
        a.get(locals.pointer(pointer_of.at(r.index)));
        a.get(locals.off());
        a.op(0x6a, "i32.add");
        vec ? a.load_v128(16u * static_cast<unsigned>(k)) : a.load_f32(0);
        return;
      case Ref::Kind::Scalar:
        a.get(locals.scalar(vec, r.index));
        return;
      case Ref::Kind::Temp:
        a.get(locals.temp(vec, r.index));
        return;
      case Ref::Kind::Const:
        Lanes{a, vec}.constant(r.value);
        return;
    }
  }

  // fast_tanh (ops.hpp) of scratch A, step by step (FastTanh::kSteps); leaves the result on the
  // stack.
  void tanh(bool vec) {
    for (FastTanh::Step step : FastTanh::kSteps) tanh_step(step, vec);
  }
  void tanh_step(FastTanh::Step step, bool vec) {
    using T = FastTanh;
    Lanes f{a, vec};
    const auto s = [&](int i) { return locals.scratch(vec, i); };
    const auto horner = [&](const auto& coef) {  // v = coef[0], then v = v * x2 + coef[i]
      f.constant(coef[0]);
      for (std::size_t i = 1; i < std::size(coef); ++i)
        a.get(s(kX2)), f.mul(), f.constant(coef[i]), f.add();
    };
    const float c = T::kClamp;
    switch (step) {
      case T::Step::ClampAbove:
        return f.constant(c), a.get(s(kA)), a.get(s(kA)), f.constant(c), f.gt(), f.select(),
               a.set(s(kX));
      case T::Step::ClampBelow:
        return f.constant(-c), a.get(s(kX)), a.get(s(kX)), f.constant(-c), f.lt(), f.select(),
               a.set(s(kX));
      case T::Step::Square:
        return a.get(s(kX)), a.get(s(kX)), f.mul(), a.set(s(kX2));
      case T::Step::Numerator:
        return horner(T::kP), a.get(s(kX)), f.mul(), a.set(s(kP));
      case T::Step::Denominator:
        return horner(T::kQ), a.set(s(kQ));
      case T::Step::Ratio:  // r, in P
        return a.get(s(kP)), a.get(s(kQ)), f.div(), a.set(s(kP));
      case T::Step::SmallIsItself:
        return a.get(s(kA)), a.get(s(kP)), a.get(s(kA)), f.abs(), f.constant(T::kLinearBelow),
               f.lt(), f.select();
    }
  }

  void log(bool vec) {
    if (imports.log_function < 0) throw std::logic_error("emit_wasm: no log function to call");
    const int A = locals.scratch(vec, kA);
    if (!vec) {
      a.get(A), a.i32(imports.log_function), a.call_indirect(kLogType);
      return;
    }
    a.get(A);
    for (int l = 0; l < 4; ++l) {
      a.get(A), a.lane(31, l, "f32x4.extract_lane");
      a.i32(imports.log_function), a.call_indirect(kLogType);
      a.lane(32, l, "f32x4.replace_lane");
    }
  }

  // The expression's value on the stack, its operands in scratch A and B.
  void expr(const kir::Expr& e, bool vec, int k) {
    Lanes f{a, vec};
    const int A = locals.scratch(vec, kA), B = locals.scratch(vec, kB);
    push(e.in[0], vec, k), a.set(A);
    if (kir::arity(e.op) > 1) push(e.in[1], vec, k), a.set(B);
    switch (e.op) {
      case kir::Op::Add:
        return a.get(A), a.get(B), f.add();
      case kir::Op::Sub:
        return a.get(A), a.get(B), f.sub();
      case kir::Op::Mul:
        return a.get(A), a.get(B), f.mul();
      case kir::Op::Div:
        return a.get(A), a.get(B), f.div();
      case kir::Op::Sqrt:
        return a.get(A), f.sqrt();
      case kir::Op::Log:
        return log(vec);
      case kir::Op::Tanh:
        return tanh(vec);
      case kir::Op::TanhGrad:  // b * (1 - a * a)
        return a.get(B), f.constant(1.0f), a.get(A), a.get(A), f.mul(), f.sub(), f.mul();
      case kir::Op::Sigmoid:  // 0.5 + 0.5 * tanh(0.5 * a)
        f.constant(0.5f), a.get(A), f.mul(), a.set(A);
        f.constant(0.5f), f.constant(0.5f), tanh(vec), f.mul(), f.add();
        return;
      case kir::Op::SigmoidGrad:  // b * a * (1 - a)
        return a.get(B), a.get(A), f.mul(), f.constant(1.0f), a.get(A), f.sub(), f.mul();
      case kir::Op::Relu:
        return a.get(A), f.constant(0.0f), a.get(A), f.constant(0.0f), f.gt(), f.select();
      case kir::Op::ReluGrad:
        return a.get(B), f.constant(0.0f), a.get(A), f.constant(0.0f), f.gt(), f.select();
      case kir::Op::Clip:  // a < lo ? lo : (a > hi ? hi : a)
        f.constant(e.lo), f.constant(e.hi), a.get(A), a.get(A), f.constant(e.hi), f.gt();
        f.select(), a.get(A), f.constant(e.lo), f.lt(), f.select();
        return;
      case kir::Op::ClipGrad:  // lo < a < hi ? b : 0
        a.get(B), f.constant(0.0f), a.get(A), f.constant(e.lo), f.gt();
        a.get(A), f.constant(e.hi), f.lt(), f.both(), f.select();
        return;
      case kir::Op::Copy:
        return a.get(A);
      case kir::Op::Sum:  // nests only: reduce() and reduce_columns() sum them
      case kir::Op::Dot:
        throw std::logic_error("emit_wasm: a reduction outside a nest");
    }
  }

  // One element (tail) or one sub-block k of four (vector) of the loop body.
  void body(const kir::Loop& L, bool vec, int k) {
    Lanes f{a, vec};
    for (std::size_t j = 0; j < L.body.size(); ++j) {
      const kir::Expr& e = L.body[j];
      const int t = locals.temp(vec, static_cast<int>(j));
      expr(e, vec, k);
      a.set(t);
      if (e.store < 0) continue;
      a.get(locals.pointer(pointer_of.at(e.store))), a.get(locals.off()), a.op(0x6a, "i32.add");
      a.get(t);
      vec ? a.store_v128(16u * static_cast<unsigned>(k)) : a.store_f32(0);
    }
    for (std::size_t s = 0; s < L.sinks.size(); ++s) {
      const kir::Sink& sk = L.sinks[s];
      const int acc = locals.acc(vec, static_cast<int>(s), k);
      a.get(acc);
      push(sk.a, vec, k);
      if (sk.kind == kir::Sink::Kind::SumSquares) push(sk.a, vec, k), f.mul();
      if (sk.kind == kir::Sink::Kind::Dot) push(sk.b, vec, k), f.mul();
      f.add(), a.set(acc);
    }
  }

  // for (; var < end; var += stride) { ... }
  template <class Body>
  void counted(int var, unsigned end, int stride, Body each) {
    a.block(), a.loop();
    a.get(var), a.i32(end), a.op(0x4f, "i32.ge_u"), a.br_if(1);
    each();
    a.get(var), a.i32(stride), a.op(0x6a, "i32.add"), a.set(var);
    a.br(0), a.end(), a.end();
  }

  // A reduction reads its operands through running addresses (locals reading 0 and 1): each
  // starts at the operand's element at k = 0 and moves by stride[2] elements per step.
  void start_readings(const kir::Expr& e) {
    for (int o = 0; o < kir::arity(e.op); ++o)
      strided_address(e.in[static_cast<std::size_t>(o)]), a.set(locals.reading(o));
  }
  void advance_readings(const kir::Expr& e) {
    for (int o = 0; o < kir::arity(e.op); ++o) {
      const int by = e.in[static_cast<std::size_t>(o)].stride[2];
      if (by == 0) continue;
      a.get(locals.reading(o)), a.i32(4LL * by), a.op(0x6a, "i32.add"), a.set(locals.reading(o));
    }
  }

  // A reduction's terms in kir::reduction_order(), which visits k = 0, 1, ... in turn, so the
  // readings advance before every term but the first. `first(p)` sets partial sum p, `each(p)`
  // adds the step's terms to it; the rounds run as a loop over locals.step().
  template <class First, class Each>
  void steps(const kir::Expr& e, const kir::ReductionOrder& r, First first, Each each) {
    start_readings(e);
    for (const kir::ReductionOrder::Term& t : r.first) {
      if (t.k > 0) advance_readings(e);
      first(t.partial);
    }
    if (r.rounds()) {
      const int stride = static_cast<int>(r.round.size());
      a.i32(r.round_begin), a.set(locals.step());
      counted(locals.step(), static_cast<unsigned>(r.round_end), stride, [&] {
        for (const kir::ReductionOrder::Term& t : r.round) advance_readings(e), each(t.partial);
      });
    }
    for (const kir::ReductionOrder::Term& t : r.tail) advance_readings(e), each(t.partial);
  }

  // A Sum or Dot's term at the current step, for one column.
  void term(const kir::Expr& e) {
    a.get(locals.reading(0)), a.load_f32(0);
    if (e.op == kir::Op::Dot) a.get(locals.reading(1)), a.load_f32(0), a.op(0x94, "f32.mul");
  }

  // A reduction at the current column, in kir::reduction_order(), as the C does.
  void reduce(const kir::Expr& e) {
    const kir::ReductionOrder r = kir::reduction_order(e.depth);
    steps(
        e, r, [&](int p) { term(e), a.set(locals.column_sum(p)); },
        [&](int p) {
          a.get(locals.column_sum(p)), term(e), a.op(0x92, "f32.add");
          a.set(locals.column_sum(p));
        });
    for (std::size_t i = 0; i < r.finish.size(); ++i) {
      a.get(locals.column_sum(r.finish[i]));
      if (i > 0) a.op(0x92, "f32.add");
    }
  }

  // Operand o's values at columns c .. c + 3 of the block: four adjacent floats, four gathered,
  // or the value the columns share (loaded once per step).
  void operand_quad(const Ref& r, int o, int c) {
    const int across = r.stride[1];
    if (across == 0) return a.get(locals.quad_operand(o));
    if (across != 1)
      return gather4(locals.reading(o), 4u * static_cast<unsigned>(c * across), across);
    a.get(locals.reading(o)), a.load_v128(4u * static_cast<unsigned>(c));
  }

  // The terms of one step for 4 · groups columns, added to partial sum p's f32x4 sums (its
  // first step sets them): each column's lane gets exactly the additions of reduce().
  void quad_terms(const kir::Expr& e, int groups, int p, bool first) {
    for (int o = 0; o < kir::arity(e.op); ++o) {
      if (e.in[static_cast<std::size_t>(o)].stride[1] != 0) continue;
      a.get(locals.reading(o)), a.load_f32(0), a.simd(19, "f32x4.splat");
      a.set(locals.quad_operand(o));
    }
    for (int g = 0; g < groups; ++g) {
      const int sum = locals.quad_sum(g, p);
      if (!first) a.get(sum);
      operand_quad(e.in[0], 0, 4 * g);
      if (e.op == kir::Op::Dot) operand_quad(e.in[1], 1, 4 * g), a.simd(230, "f32x4.mul");
      if (!first) a.simd(228, "f32x4.add");
      a.set(sum);
    }
  }

  // A reduction over four columns (groups 1) or eight (2), four columns per f32x4, each column's
  // sum in the partial sums of reduce(), added in the same order; the f32x4 of columns
  // 4g .. 4g + 3 goes to local into[g].
  void reduce_columns(const kir::Expr& e, int groups, const int* into) {
    const kir::ReductionOrder r = kir::reduction_order(e.depth);
    steps(
        e, r, [&](int p) { quad_terms(e, groups, p, true); },
        [&](int p) { quad_terms(e, groups, p, false); });
    for (int g = 0; g < groups; ++g) {
      for (std::size_t i = 0; i < r.finish.size(); ++i) {
        a.get(locals.quad_sum(g, r.finish[i]));
        if (i > 0) a.simd(228, "f32x4.add");
      }
      a.set(into[g]);
    }
  }

  void store_nest(const kir::Loop& L, const kir::Expr& e, int t, bool vec) {
    if (e.store < 0) return;
    a.get(locals.pointer(pointer_of.at(e.store)));
    a.get(locals.row()), a.i32(static_cast<long long>(L.n)), a.op(0x6c, "i32.mul");
    a.get(locals.col()), a.op(0x6a, "i32.add"), a.i32(2), a.op(0x74, "i32.shl");
    a.op(0x6a, "i32.add"), a.get(t);
    vec ? a.store_v128(0) : a.store_f32(0);
  }

  // One column of a nest's row (the tail): a reduction is its first term, then the further terms
  // in order of k; stores go to element i·n + j.
  void nest_column(const kir::Loop& L) {
    for (std::size_t j = 0; j < L.body.size(); ++j) {
      const kir::Expr& e = L.body[j];
      const int t = locals.temp(false, static_cast<int>(j));
      kir::is_reduction(e.op) ? reduce(e) : expr(e, false, 0);
      a.set(t);
      store_nest(L, e, t, false);
    }
  }

  // A block of 4 · groups columns (groups 1 or 2): the reductions first, over all the block's
  // columns at once (their operands are Strided, so nothing in the body comes before them), then
  // the rest of the body four columns at a time.
  void nest_block(const kir::Loop& L, int groups) {
    for (std::size_t j = 0; j < L.body.size(); ++j) {
      if (!kir::is_reduction(L.body[j].op)) continue;
      const int into[] = {locals.temp(true, static_cast<int>(j)), locals.held(static_cast<int>(j))};
      reduce_columns(L.body[j], groups, into);
    }
    for (int g = 0; g < groups; ++g) {
      if (g > 0) a.get(locals.col()), a.i32(4), a.op(0x6a, "i32.add"), a.set(locals.col());
      for (std::size_t j = 0; j < L.body.size(); ++j) {
        const kir::Expr& e = L.body[j];
        const int t = locals.temp(true, static_cast<int>(j));
        if (!kir::is_reduction(e.op))
          expr(e, true, 0), a.set(t);
        else if (g > 0)
          a.get(locals.held(static_cast<int>(j))), a.set(t);
        store_nest(L, e, t, true);
      }
    }
    if (groups > 1)
      a.get(locals.col()), a.i32(4 * (groups - 1)), a.op(0x6b, "i32.sub"), a.set(locals.col());
  }

  // Row by row: the columns in blocks of eight, then one of four if as many are left, then one
  // by one.
  void nest(const kir::Loop& L) {
    a.i32(0), a.set(locals.row());
    counted(locals.row(), static_cast<unsigned>(L.rows), 1, [&] {
      a.i32(0), a.set(locals.col());
      counted(locals.col(), static_cast<unsigned>(L.n - L.n % 8), 8, [&] { nest_block(L, 2); });
      if (L.n % 8 >= 4) {  // the column is n - n % 8 here
        nest_block(L, 1);
        a.get(locals.col()), a.i32(4), a.op(0x6a, "i32.add"), a.set(locals.col());
      }
      counted(locals.col(), static_cast<unsigned>(L.n), 1, [&] { nest_column(L); });
    });
  }

  void loop(const kir::Loop& L) {
    pointer_of = pointers_of(L);
    for (const auto& [slot, p] : pointer_of) slot_pointer(slot), a.set(locals.pointer(p));
    for (std::size_t r = 0; r < L.scalar_loads.size(); ++r) {
      slot_pointer(L.scalar_loads[r]), a.load_f32(0),
          a.set(locals.scalar(false, static_cast<int>(r)));
    }
    for (std::size_t j = 0; j < L.scalar_exprs.size(); ++j) {
      expr(L.scalar_exprs[j], false, 0);
      a.set(locals.scalar(false, static_cast<int>(L.scalar_loads.size() + j)));
    }
    for (int r = 0; r < L.scalars(); ++r)
      a.get(locals.scalar(false, r)), a.simd(19, "f32x4.splat"), a.set(locals.scalar(true, r));
    for (std::size_t s = 0; s < L.sinks.size(); ++s) {
      for (int k = 0; k < 4; ++k)
        a.v128_splat(0.0f), a.set(locals.acc(true, static_cast<int>(s), k));
      a.f32(0.0f), a.set(locals.acc(false, static_cast<int>(s), 0));
    }
    if (L.nest()) return nest(L);
    const kir::FlatOrder f = kir::flat_order(L.n);
    a.i32(0), a.set(locals.off());
    counted(locals.off(), static_cast<unsigned>(4 * f.blocks), 4 * kir::kLanes, [&] {
      for (int k = 0; k < kir::kLanes / 4; ++k) body(L, true, k);
    });
    counted(locals.off(), static_cast<unsigned>(4 * f.n), 4, [&] { body(L, false, 0); });
    for (std::size_t s = 0; s < L.sinks.size(); ++s) finish(L, static_cast<int>(s), f);
  }

  // The partial sums in f.finish's order (lane l is lane l % 4 of f32x4 accumulator l / 4, the
  // tail the f32 one), the factors, ÷ n for a mean; to element 0 of the out slot.
  void finish(const kir::Loop& L, int s, const kir::FlatOrder& f) {
    slot_pointer(L.sinks[static_cast<std::size_t>(s)].out);
    for (std::size_t i = 0; i < f.finish.size(); ++i) {
      const int l = f.finish[i];
      if (l == kir::FlatOrder::kTail)
        a.get(locals.acc(false, s, 0));
      else
        a.get(locals.acc(true, s, l / 4)), a.lane(31, l % 4, "f32x4.extract_lane");
      if (i > 0) a.op(0x92, "f32.add");
    }
    for (const kir::Sink::Factor& f : L.sinks[static_cast<std::size_t>(s)].after)
      push(f.by, false, 0), f.divide ? a.op(0x95, "f32.div") : a.op(0x94, "f32.mul");
    if (L.sinks[static_cast<std::size_t>(s)].mean)
      a.f32(static_cast<float>(f.n)), a.op(0x95, "f32.div");
    a.store_f32(0);
  }

  void stmt(const kir::Stmt& st) {
    // The reader sees which statements are still the op's kernel, as in the C (emit_c.cpp).
    if (a.with_text) a.line(";; " + st.note + (st.kind == kir::Stmt::Kind::Call ? " kernel" : ""));
    switch (st.kind) {
      case kir::Stmt::Kind::Loop:
        return loop(ir.loops[static_cast<std::size_t>(st.index)]);
      case kir::Stmt::Kind::Call:  // k[index].fn(k[index].args)
        a.get(1), a.load_i32(8u * static_cast<unsigned>(st.index) + 4);
        a.get(1), a.load_i32(8u * static_cast<unsigned>(st.index));
        return a.call_indirect(kKernelType);
      case kir::Stmt::Kind::Copy:  // memory.copy(dst, src, bytes)
        slot_pointer(st.dst), slot_pointer(st.src), a.i32(static_cast<long long>(4 * st.n));
        a.code.insert(a.code.end(), {0xfc, 10, 0, 0});
        a.line("memory.copy");
        return;
    }
  }

  // NOTE: the loops are functions of their own, called by the step, consecutive loops packed
  // into one function up to kLoopFunctionBytes. A WebAssembly engine runs new code in a baseline
  // tier first and optimizes a function once that function has run a fixed amount of its code
  // (V8: a budget of about 1.8 MB executed), so every function costs a stretch of unoptimized
  // steps, and W2 as 26 functions, one per loop, paid it 26 times. One function for the whole
  // step is no better: an optimizing compiler's time grows faster than linearly with a function's
  // size (V8's TurboFan: W2's step as one 19 KB function took 46 ms, while the student's first
  // steps ran unoptimized), as gcc's does (emit_c.cpp). W2's 26 loops now make 6. Each loop loads
  // its pointers from s itself, so no local lives across loops (tests/bench/README.md, cold runs).
  static constexpr std::size_t kLoopFunctionBytes = 4096;
  struct Function {
    Bytes code;  // without the locals and the final end
    std::string text;
    std::vector<std::string> notes;  // of its loops, for the step's call
  };
  std::vector<Function> loop_functions;  // function 1 + i
  std::vector<int> loop_function_of;     // per statement: the function its loop opens, or -1

  Bytes locals_declaration() const {
    Bytes d;
    uleb(d, 4);  // local groups
    uleb(d, static_cast<unsigned>(Locals::kIntLocals + locals.pointers)), d.push_back(kI32);
    uleb(d, static_cast<unsigned>(locals.f32_count())), d.push_back(kF32);
    uleb(d, static_cast<unsigned>(locals.v128_count())), d.push_back(kV128);
    uleb(d, kir::kNestPartials), d.push_back(kF32);  // a nest's column sums
    return d;
  }
  Bytes loop_function_body(const Function& f) const {
    Bytes body = locals_declaration();
    body.insert(body.end(), f.code.begin(), f.code.end());
    body.push_back(0x0b);
    return body;
  }
  std::string locals_text() const {
    return "    (local i32 x" + std::to_string(Locals::kIntLocals + locals.pointers) +
           ") (local f32 x" + std::to_string(locals.f32_count()) + ") (local v128 x" +
           std::to_string(locals.v128_count()) + ") (local f32 x" +
           std::to_string(kir::kNestPartials) + ")\n";
  }

  // Every loop into a function, (s, k, steps) like the step: the next loop joins the previous
  // one's function when no other statement lies between them and the function stays under
  // kLoopFunctionBytes.
  void pack_loops() {
    bool open = false;  // may the next loop join the last function?
    for (const kir::Stmt& st : ir.stmts) {
      loop_function_of.push_back(-1);
      if (st.kind != kir::Stmt::Kind::Loop) {
        open = false;
        continue;
      }
      Asm step = std::move(a);
      a = Asm{};
      a.with_text = step.with_text;
      stmt(st);
      if (!open || loop_functions.back().code.size() + a.code.size() > kLoopFunctionBytes) {
        loop_functions.emplace_back();
        loop_function_of.back() = static_cast<int>(loop_functions.size());
        open = true;
      }
      Function& f = loop_functions.back();
      f.code.insert(f.code.end(), a.code.begin(), a.code.end());
      f.text += a.text;
      f.notes.push_back(st.note);
      a = std::move(step);
    }
  }

  // The step's call of function `index`, which holds the loops from this statement on.
  void call_loops(int index) {
    a.get(0), a.get(1), a.i32(0);
    a.code.push_back(0x10);
    uleb(a.code, static_cast<unsigned>(index));
    if (!a.with_text) return;
    std::string notes;
    for (const std::string& n : loop_functions[static_cast<std::size_t>(index - 1)].notes)
      notes += (notes.empty() ? "" : "; ") + n;
    a.line("call $loop" + std::to_string(index) + "  ;; " + notes);
  }

  Bytes function_body() {
    a.block(), a.loop();
    a.get(2), a.i32(0), a.op(0x4c, "i32.le_s"), a.br_if(1);
    pack_loops();
    for (std::size_t i = 0; i < ir.stmts.size(); ++i) {
      if (ir.stmts[i].kind != kir::Stmt::Kind::Loop)
        stmt(ir.stmts[i]);
      else if (loop_function_of[i] > 0)
        call_loops(loop_function_of[i]);
    }
    a.get(2), a.i32(1), a.op(0x6b, "i32.sub"), a.set(2);
    a.br(0), a.end(), a.end();
    a.code.push_back(0x0b);
    Bytes body;
    uleb(body, 0);  // no locals: the loops have theirs
    body.insert(body.end(), a.code.begin(), a.code.end());
    return body;
  }
};

Bytes functype(std::initializer_list<unsigned char> params,
               std::initializer_list<unsigned char> results) {
  Bytes t{0x60};
  uleb(t, params.size());
  t.insert(t.end(), params);
  uleb(t, results.size());
  t.insert(t.end(), results);
  return t;
}

}  // namespace

WasmModule emit_wasm(const kir::Program& ir, const WasmImports& imports, bool with_text) {
  Emitter e{ir, imports, {}, {}, {}, {}, {}};
  e.a.with_text = with_text;
  e.size_locals();
  const Bytes body = e.function_body();

  Bytes m{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};
  Bytes types;
  uleb(types, 3);
  for (const Bytes& t :
       {functype({kI32, kI32, kI32}, {}), functype({kI32}, {}), functype({kF32}, {kF32})})
    types.insert(types.end(), t.begin(), t.end());
  section(m, 1, types);
  Bytes imp;
  uleb(imp, 2);
  name(imp, "env"), name(imp, "memory"), imp.insert(imp.end(), {0x02, 0x00, 0x00});
  name(imp, "env"), name(imp, "table"), imp.insert(imp.end(), {0x01, 0x70, 0x00, 0x00});
  section(m, 2, imp);
  const std::size_t functions = 1 + e.loop_functions.size();
  Bytes fns;
  uleb(fns, functions);
  for (std::size_t i = 0; i < functions; ++i) fns.push_back(kStepType);
  section(m, 3, fns);
  Bytes exp;
  uleb(exp, 1);
  name(exp, "step"), exp.insert(exp.end(), {0x00, 0x00});
  section(m, 7, exp);
  Bytes code;
  uleb(code, functions);
  uleb(code, body.size());
  code.insert(code.end(), body.begin(), body.end());
  for (const Emitter::Function& f : e.loop_functions) {
    const Bytes fbody = e.loop_function_body(f);
    uleb(code, fbody.size());
    code.insert(code.end(), fbody.begin(), fbody.end());
  }
  section(m, 10, code);

  WasmModule out;
  out.bytes = std::move(m);
  if (!with_text) return out;
  out.text =
      "(module\n"
      "  (type (;0;) (func (param i32 i32 i32)))  ;; step(s, k, steps)\n"
      "  (type (;1;) (func (param i32)))          ;; a kernel(args)\n"
      "  (type (;2;) (func (param f32) (result f32)))  ;; log\n"
      "  (import \"env\" \"memory\" (memory 0))\n"
      "  (import \"env\" \"table\" (table 0 funcref))\n"
      "  (func (export \"step\") (type 0)\n" +
      e.a.text + "  )\n";
  for (std::size_t i = 0; i < e.loop_functions.size(); ++i)
    out.text += "  (func $loop" + std::to_string(i + 1) + " (type 0)\n" + e.locals_text() +
                e.loop_functions[i].text + "  )\n";
  out.text += ")\n";
  return out;
}

}  // namespace looplab

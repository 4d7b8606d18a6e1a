// looplab/engine/fusion.hpp — which ops of a compiled step run together (a pure compiler pass).
//
// The traced step is a list of small ops; run one by one, each reads its inputs from memory and
// writes a whole buffer back. Fusion groups them so fewer buffers are written and read:
//   Dense  MatMul → AddRow (bias) → Tanh | Relu | Sigmoid: the matmul writes the group's one output
//          buffer and bias and activation are applied in place, while it is hot in the cache;
//   Loop   ops over vectors of one length n (elementwise ops, ops with a [1 x 1] scalar operand
//          such as MulScalar, AddConst, a bias on one column, a column times a scalar) run as ONE
//          loop over tiles of the data: intermediates live in a small scratch tile in the L1
//          cache, not in arena buffers, and reductions of the loop's values (Mean, Sum, SumRows of
//          one column, the dot product MatMul(aᵀ, b)) accumulate tile by tile as the loop goes
//          ("sinks");
//   Single everything else, one op as before.
// What an op may be comes from its row in the op table (OpDef::fusion, ops.hpp): this pass names
// no op. It only decides; the lowering (lowering.hpp) turns each group into one instruction that
// runs the ops' own kernels, so there is still one op vocabulary and fused == unfused bit for bit.
//
// Rules (each a test in fusion_test.cpp):
//   - a node joins a group only through an input that is a member of it (so every member's shape
//     follows from the same shape rules when a relaxed batch changes the rows);
//   - a group is closed once a node outside it reads one of its members: it must run before that
//     reader, so it can take no later members. Groups therefore run in the order of their last
//     member, which is a valid topological order;
//   - a member gets a buffer ("materialized") only when something outside its group reads it or it
//     is a root (a program output or a value written back into a parameter); a sink's [1 x 1]
//     result always does. Multi-consumer intermediates whose readers are all in the loop stay in
//     the scratch tile;
//   - a Dense group takes the bias and the activation only when the previous member has that one
//     reader and is not a root;
//   - a Loop needs vectors of at least 64 elements (kMinLoopLength): below that there is no
//     traffic to save and the loop's set-up costs more than it buys (the optimizer's updates of
//     small parameters); compiled mode's generated loops have no set-up, so it asks for 1.
// Peepholes inside a loop, decided here and applied by the lowering (intermediates without a
// buffer, so every reader is in the loop):
//   - a Square read only by a Reduction sink is folded into it (the sink sums squares);
//   - a uniform value (every operand read as a scalar or a shape: MeanGrad, Fill) read only by
//     Muls, each with one such operand, is computed once per run, and the Muls run as MulScalar.
//
//   std::vector<OpNode> g = {...};      // live op nodes in topological order (step_graph.hpp)
//   FusionPlan plan = plan_fusion(g);   // plan.groups[k] becomes instruction k
#pragma once

#include <array>
#include <vector>

#include "looplab/engine/step_graph.hpp"

namespace looplab {

enum class GroupKind { Single, Dense, Loop };

struct FusionGroup {
  GroupKind kind = GroupKind::Single;
  std::vector<int> members;  // node indices, in node order
};

enum class Peephole : unsigned char {
  None,
  FoldedSquare,  // a Square folded into its only reader, a sink, which sums squares
  Once,          // a uniform value computed once per run, not per tile
  ByOnce,        // a Mul by a Once value: runs as MulScalar, the Once value its scalar
};

struct FusionPlan {
  std::vector<FusionGroup> groups;  // in execution order
  std::vector<int> group_of;        // node -> index into groups
  std::vector<bool> materialized;   // node -> needs a buffer of its own
  std::vector<Peephole> peephole;   // node -> the rewrite the lowering applies to it
  int fused_groups = 0;             // groups with more than one member
};

// NOTE: an interpreted loop pays per run for its set-up and per step for a kernel call built on
// the fly; below this length there is no memory traffic worth saving (a few cache lines), so short
// vectors such as the optimizer's updates of small parameters stay one instruction per op.
// Measured: W2's 20-element Adam updates were slower fused. Generated code (compiled mode) has no
// such cost and fuses loops of any length (min_loop_length 1).
constexpr std::size_t kMinLoopLength = 64;
FusionPlan plan_fusion(const std::vector<OpNode>& nodes,
                       std::size_t min_loop_length = kMinLoopLength);

// Fusion off: every op a Single group of its own, with a buffer (to measure what fusion buys).
FusionPlan unfused_plan(std::size_t nodes);

// How a node can take part in a Loop, from its op's FusionRole and its shapes: a Row operand
// resolves to Scalar (or the node is not fusible), so `operand` is never Row here.
struct LoopRole {
  bool fusible = false;  // the node can be a member of a Loop
  bool sink = false;     // a reduction to [1 x 1] of the loop's vectors
  bool dot = false;      // a sink that sums a·b of its two operands (a Contraction)
  std::array<LoopOperand, kMaxArity> operand{LoopOperand::None, LoopOperand::None};
};
LoopRole loop_role(const OpNode& n);

}  // namespace looplab

// looplab/engine/fusion.hpp — which ops of a compiled step run together (a pure compiler pass).
//
// The traced step is a list of small ops; run one by one, each reads its inputs from memory and
// writes a whole buffer back. Fusion groups them so fewer buffers are written and read:
//   Dense  MatMul → AddRow (bias) → Tanh | Relu | Sigmoid: the matmul writes the group's one output
//          buffer and bias and activation are applied in place, while it is hot in the cache;
//   Loop   ops over vectors of one length n (elementwise ops, ops with a [1 x 1] scalar operand
//   such
//          as MulScalar, AddConst, a bias on one column, a column times a scalar) run as ONE loop
//          over tiles of the data: intermediates live in a small scratch tile in the L1 cache, not
//          in arena buffers, and reductions of the loop's values (Mean, Sum, SumRows of one column,
//          the dot product MatMul(aᵀ, b)) accumulate tile by tile as the loop goes ("sinks");
//   Single everything else, one op as before.
// The pass only decides; trace.cpp lowers each group to one instruction that runs the ops' own
// kernels (ops.cpp), so there is still one op vocabulary and fused == unfused bit for bit.
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
//   - a Loop needs vectors of at least 64 elements: below that there is no traffic to save and the
//     loop's set-up costs more than it buys (the optimizer's updates of small parameters).
// Lowering adds two peepholes inside a loop (trace.cpp): a Square read only by a Mean/Sum/SumRows
// is folded into it, and a MeanGrad read only by Muls is computed once per run (Mul → MulScalar).
//
//   std::vector<FusionNode> g = {...};   // live op nodes in topological order
//   FusionPlan plan = plan_fusion(g);     // plan.groups[k] becomes instruction k
#pragma once

#include <array>
#include <vector>

#include "looplab/engine/ops.hpp"

namespace looplab {

// One live op node as the pass sees it. in[i] is the index of the producing node in the list, or
// -1 when input i is a leaf (an input, parameter, state or constant) or absent.
struct FusionNode {
  OpKind op = OpKind::Add;
  std::array<int, kMaxArity> in{-1, -1};
  std::array<Shape, kMaxArity> in_shape{};
  Shape shape{};
  OpAttrs attrs{};
  bool root = false;  // a program output or an update value: read after the step
};

enum class GroupKind { Single, Dense, Loop };

struct FusionGroup {
  GroupKind kind = GroupKind::Single;
  std::vector<int> members;  // node indices, in node order
};

struct FusionPlan {
  std::vector<FusionGroup> groups;  // in execution order
  std::vector<int> group_of;        // node -> index into groups
  std::vector<bool> materialized;   // node -> needs a buffer of its own
  int fused_groups = 0;             // groups with more than one member
};

FusionPlan plan_fusion(const std::vector<FusionNode>& nodes);

// How a Loop member reads each input: a vector of the loop's length, the first element of a [1 x 1]
// tensor (broadcast), only the shape (MeanGrad, Fill and RepeatRows take their output shape from
// their second input), or not at all.
enum class LoopOperand { None, Vector, Scalar, ShapeOnly };
struct LoopRole {
  bool fusible = false;  // the node can be a member of a Loop
  bool sink = false;     // a reduction to [1 x 1] of the loop's vectors
  std::array<LoopOperand, kMaxArity> operand{LoopOperand::None, LoopOperand::None};
};
LoopRole loop_role(const FusionNode& n);

}  // namespace looplab

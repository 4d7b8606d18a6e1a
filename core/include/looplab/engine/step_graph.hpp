// looplab/engine/step_graph.hpp — the compiler's view of a traced step: its live op nodes.
//
// Dead-node removal (dead_nodes.hpp) turns the tracer's recorded graph into a StepGraph; fusion,
// the memory plan and the lowering read it. Op nodes are numbered 0.. in node order (the "op
// index"); an input that is a leaf (an input, parameter, state or constant) has no op index.
//
//   StepGraph g = remove_dead_nodes(tracer, roots);
//   g.ops[k].in[0]   // the op index of the node computing k's first input, or -1 for a leaf
#pragma once

#include <array>
#include <vector>

#include "looplab/engine/ops.hpp"

namespace looplab {

// One live op node. in[i] is the op index of the node producing input i, or -1 when input i is a
// leaf or absent. Synthetic graphs for the passes' tests are lists of these.
struct OpNode {
  OpKind op = OpKind::Add;
  std::array<int, kMaxArity> in{-1, -1};
  std::array<Shape, kMaxArity> in_shape{};
  Shape shape{};
  OpAttrs attrs{};
  bool root = false;  // a program output or an update value: read after the step
};

struct StepGraph {
  std::vector<OpNode> ops;   // the live op nodes in topological (node) order
  std::vector<int> node_id;  // op index -> node id in the tracer
  std::vector<int> op_of;    // node id -> op index, or -1 for leaves and dead nodes
  int live_nodes = 0;        // live nodes, leaves included
};

}  // namespace looplab

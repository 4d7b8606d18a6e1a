// looplab/engine/dead_nodes.hpp — dead-node removal, the compiler's first pass (a pure pass).
//
// The tracer records everything the step's code built: the model, the loss, autodiff's gradient
// nodes and the optimizer's updates, including values nobody reads (the gradient of a frozen
// input, a diagnostic left in the model). Only what the roots (the program's outputs and the
// values written back into parameters) need is kept, walking the graph backwards once.
//
//   std::vector<Value> roots = {loss, new_w};
//   StepGraph g = remove_dead_nodes(tracer, roots);   // g.ops: the live op nodes, numbered 0..
#pragma once

#include <vector>

#include "looplab/engine/builder.hpp"
#include "looplab/engine/step_graph.hpp"

namespace looplab {

// node id -> whether a root needs it (roots themselves included).
std::vector<bool> live_nodes(const Builder& g, const std::vector<Value>& roots);

// The live op nodes, numbered in node order, with the roots marked.
StepGraph remove_dead_nodes(const Builder& g, const std::vector<Value>& roots);

}  // namespace looplab

// looplab/engine/lowering.hpp — the last compiler pass: groups become instructions.
//
// Each fusion group becomes one instruction with every pointer resolved: a Single or Dense group
// calls the ops' kernels (a Dense group's bias and activation as an epilogue), a Loop runs its
// members tile by tile with the same kernels, applying the fusion plan's peepholes. Buffers are
// placed where the memory plan says, in one arena; constants are copied, so the tracer may go.
// It also records, per op node, what a relaxed batch needs to derive every shape again, and per
// input leaf, every pointer that reads it (bind_input() rebinds them).
//
//   StepGraph g = remove_dead_nodes(t, roots);
//   FusionPlan f = plan_fusion(g.ops);
//   std::unique_ptr<detail::Code> code = lower(t, g, f, plan_buffers(g.ops, f), outputs, updates);
#pragma once

#include <memory>
#include <vector>

#include "looplab/engine/fusion.hpp"
#include "looplab/engine/memory_plan.hpp"
#include "looplab/engine/program.hpp"
#include "looplab/engine/step_graph.hpp"
#include "looplab/engine/tracer.hpp"

namespace looplab {

namespace detail {
struct Code;
}

// Fills the Code's instructions, buffers, outputs, updates and these stats: arena_bytes,
// unplanned_bytes, flops_per_step, instructions.
std::unique_ptr<detail::Code> lower(const Tracer& t, const StepGraph& g, const FusionPlan& plan,
                                    BufferPlan buffers, const std::vector<Value>& outputs,
                                    const std::vector<Assign>& updates);

}  // namespace looplab

// compile.cpp — the compiler's pipeline: dead nodes → fusion → memory plan → lowering.
#include "looplab/base/clock.hpp"
#include "looplab/engine/dead_nodes.hpp"
#include "looplab/engine/detail/code.hpp"
#include "looplab/engine/detail/generated.hpp"
#include "looplab/engine/fusion.hpp"
#include "looplab/engine/lowering.hpp"
#include "looplab/engine/memory_plan.hpp"
#include "looplab/engine/program.hpp"

namespace looplab {

Program compile(const Tracer& t, const std::vector<Value>& outputs,
                const std::vector<Assign>& updates, const CompileOptions& options) {
  const Stopwatch watch;
  std::vector<Value> roots = outputs;
  for (const Assign& a : updates) roots.push_back(a.value);

  const StepGraph g = remove_dead_nodes(t, roots);
  const FusionPlan plan = !options.fuse      ? unfused_plan(g.ops.size())
                          : options.generate ? plan_fusion(g.ops, 1)
                                             : plan_fusion(g.ops);
  std::unique_ptr<detail::Code> code =
      lower(t, g, plan, plan_buffers(g.ops, plan), outputs, updates);

  CompileStats& s = code->stats;
  s.nodes_traced = t.size();
  s.nodes_live = g.live_nodes;
  s.nodes_before_fusion = static_cast<int>(g.ops.size());
  s.nodes_after_fusion = s.instructions;
  s.fused_groups = plan.fused_groups;
  std::unique_ptr<detail::Generated> generated;
  if (options.generate) {
    const Stopwatch codegen;
    generated = detail::generate(*code);
    s.codegen_ms = codegen.elapsed_ms();
    s.code_cached = generated->build.cached;
    s.emit_ms = generated->build.emit_ms;
    s.build_ms = generated->build.build_ms;
    s.load_ms = generated->build.load_ms;
  }
  s.compile_ms = watch.elapsed_ms();
  return Program(std::move(code), std::move(generated));
}

}  // namespace looplab

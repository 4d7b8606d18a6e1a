// looplab/engine/memory_plan.hpp — liveness-based placement of buffers in one arena (a pure pass).
//
// Each buffer is needed from the step that writes it to the last step that reads it. Two buffers
// may share bytes only if those intervals do not overlap; the planner places buffers in order of
// definition, reusing the lowest free gap that fits (first fit) and freeing a buffer's bytes once
// its last reader has run. It knows nothing of kernels, so it is tested on synthetic lists.
// plan_buffers() is the pass the compiler runs: it asks for one buffer per materialized node of a
// fused step (instruction indices as steps) and places them with plan_memory().
//
//   std::vector<BufferRequest> req = {{4000, 0, 2}, {4000, 1, 3}, {4000, 3, 4}};
//   MemoryPlan plan = plan_memory(req);   // the third reuses the first's bytes
//   BufferPlan buffers = plan_buffers(graph.ops, plan_fusion(graph.ops));
#pragma once

#include <cstddef>
#include <vector>

#include "looplab/engine/fusion.hpp"

namespace looplab {

struct BufferRequest {
  std::size_t bytes = 0;
  int first = 0;  // the step that writes it
  int last = 0;   // the last step that reads it (inclusive); ≥ first
};

struct MemoryPlan {
  std::vector<std::size_t> offsets;  // one per request, in bytes, aligned to kAlignment
  std::size_t total_bytes = 0;
};

constexpr std::size_t kAlignment = 64;  // a cache line; also enough for any SIMD load

MemoryPlan plan_memory(const std::vector<BufferRequest>& requests);

// True when two requests whose lifetimes overlap also overlap in bytes (the property tests check).
bool plan_has_conflict(const std::vector<BufferRequest>& requests, const MemoryPlan& plan);

// The buffers of a fused step. A materialized node's buffer lives from its group's instruction to
// the last instruction that reads it; a root's to the end of the step (it is read after it).
struct BufferPlan {
  std::vector<BufferRequest> requests;
  std::vector<int> request_of;  // node -> index into requests, or -1 (no buffer of its own)
  MemoryPlan memory;
  std::size_t unplanned_bytes = 0;  // what one buffer per node would have taken
};
BufferPlan plan_buffers(const std::vector<OpNode>& nodes, const FusionPlan& plan);

}  // namespace looplab

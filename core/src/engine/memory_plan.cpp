// memory_plan.cpp — first-fit placement with liveness; the buffers of a fused step.
#include "looplab/engine/memory_plan.hpp"

#include <algorithm>
#include <climits>

#include "looplab/base/order.hpp"

namespace looplab {
namespace {

std::size_t aligned(std::size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferRequest>& requests) {
  MemoryPlan plan;
  plan.offsets.assign(requests.size(), 0);
  std::vector<long long> firsts;
  for (const BufferRequest& r : requests) firsts.push_back(r.first);
  const std::vector<std::size_t> order = order_by(firsts);

  struct Placed {
    std::size_t offset, bytes;
    int last;
  };
  std::vector<Placed> live;  // sorted by offset
  for (std::size_t r : order) {
    const BufferRequest& req = requests[r];
    // Free what nobody reads any more: its last reader ran before this buffer is written.
    live.erase(std::remove_if(live.begin(), live.end(),
                              [&](const Placed& p) { return p.last < req.first; }),
               live.end());
    const std::size_t bytes = aligned(std::max<std::size_t>(req.bytes, 1));
    std::size_t offset = 0;
    for (const Placed& p : live) {
      if (offset + bytes <= p.offset) break;  // the gap before p fits
      offset = std::max(offset, p.offset + p.bytes);
    }
    const Placed mine{offset, bytes, req.last};
    live.insert(
        std::upper_bound(live.begin(), live.end(), mine,
                         [](const Placed& a, const Placed& b) { return a.offset < b.offset; }),
        mine);
    plan.offsets[r] = offset;
    plan.total_bytes = std::max(plan.total_bytes, offset + bytes);
  }
  return plan;
}

bool plan_has_conflict(const std::vector<BufferRequest>& requests, const MemoryPlan& plan) {
  for (std::size_t i = 0; i < requests.size(); ++i)
    for (std::size_t j = i + 1; j < requests.size(); ++j) {
      const auto& a = requests[i];
      const auto& b = requests[j];
      const bool live_together = a.first <= b.last && b.first <= a.last;
      const bool share_bytes = plan.offsets[i] < plan.offsets[j] + b.bytes &&
                               plan.offsets[j] < plan.offsets[i] + a.bytes;
      if (live_together && share_bytes && a.bytes > 0 && b.bytes > 0) return true;
    }
  return false;
}

BufferPlan plan_buffers(const std::vector<OpNode>& nodes, const FusionPlan& plan) {
  BufferPlan b;
  b.request_of.assign(nodes.size(), -1);
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    b.unplanned_bytes += nodes[k].shape.size() * sizeof(float);
    if (!plan.materialized[k]) continue;
    const int at = plan.group_of[k];
    b.request_of[k] = static_cast<int>(b.requests.size());
    b.requests.push_back({nodes[k].shape.size() * sizeof(float), at, nodes[k].root ? INT_MAX : at});
  }
  for (std::size_t k = 0; k < nodes.size(); ++k)
    for (int i : nodes[k].in)
      if (i >= 0 && b.request_of[static_cast<std::size_t>(i)] >= 0) {
        BufferRequest& r =
            b.requests[static_cast<std::size_t>(b.request_of[static_cast<std::size_t>(i)])];
        r.last = std::max(r.last, plan.group_of[k]);
      }
  b.memory = plan_memory(b.requests);
  return b;
}

}  // namespace looplab

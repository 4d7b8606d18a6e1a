// dead_nodes.cpp — one backward walk marks what the roots need; the live op nodes are numbered.
#include "looplab/engine/dead_nodes.hpp"

namespace looplab {

std::vector<bool> live_nodes(const Builder& g, const std::vector<Value>& roots) {
  std::vector<bool> live(static_cast<std::size_t>(g.size()), false);
  for (Value r : roots) live[static_cast<std::size_t>(r.id)] = true;
  for (int id = g.size() - 1; id >= 0; --id) {
    const Node& n = g.node(Value{id});
    if (!live[static_cast<std::size_t>(id)] || n.leaf != LeafKind::None) continue;
    for (int i = 0; i < op_def(n.op).arity; ++i) live[static_cast<std::size_t>(n.in[i].id)] = true;
  }
  return live;
}

StepGraph remove_dead_nodes(const Builder& g, const std::vector<Value>& roots) {
  const std::vector<bool> live = live_nodes(g, roots);
  StepGraph s;
  s.op_of.assign(static_cast<std::size_t>(g.size()), -1);
  for (int id = 0; id < g.size(); ++id) {
    if (!live[static_cast<std::size_t>(id)]) continue;
    ++s.live_nodes;
    if (g.node(Value{id}).leaf != LeafKind::None) continue;
    s.op_of[static_cast<std::size_t>(id)] = static_cast<int>(s.node_id.size());
    s.node_id.push_back(id);
  }
  s.ops.resize(s.node_id.size());
  for (std::size_t k = 0; k < s.ops.size(); ++k) {
    const Node& n = g.node(Value{s.node_id[k]});
    OpNode& op = s.ops[k];
    op.op = n.op;
    op.shape = n.shape;
    op.attrs = n.attrs;
    for (int i = 0; i < op_def(n.op).arity; ++i) {
      op.in[static_cast<std::size_t>(i)] = s.op_of[static_cast<std::size_t>(n.in[i].id)];
      op.in_shape[static_cast<std::size_t>(i)] = g.shape(n.in[i]);
    }
  }
  for (Value r : roots)
    if (const int k = s.op_of[static_cast<std::size_t>(r.id)]; k >= 0)
      s.ops[static_cast<std::size_t>(k)].root = true;
  return s;
}

}  // namespace looplab

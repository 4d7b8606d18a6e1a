// trace.cpp — the tracer, the compiler passes and the program executor.
#include "looplab/trace.hpp"

#include <algorithm>
#include <climits>

#include "looplab/memory_plan.hpp"
#include "looplab/results.hpp"

namespace looplab {

void Tracer::on_leaf(Value v, const float* data, Tensor* writable, Tensor* owned) {
  leaf_ptr_.resize(static_cast<std::size_t>(v.id) + 1, nullptr);
  params_.resize(static_cast<std::size_t>(v.id) + 1, nullptr);
  if (owned) {
    constants_.push_back(std::make_unique<Tensor>(std::move(*owned)));
    data = constants_.back()->data();
  }
  leaf_ptr_[static_cast<std::size_t>(v.id)] = data;
  params_[static_cast<std::size_t>(v.id)] = writable;  // parameters and state: what updates may write
}

void Tracer::on_op(Value v) {
  leaf_ptr_.resize(static_cast<std::size_t>(v.id) + 1, nullptr);
  params_.resize(static_cast<std::size_t>(v.id) + 1, nullptr);
}

float* Tracer::parameter_data(Value v) const {
  Tensor* t = params_.at(static_cast<std::size_t>(v.id));
  if (!t) throw ShapeError("assignment target must be a parameter or optimizer state");
  return t->data();
}

namespace {

// Pass 1: which nodes the outputs and updates need.
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

}  // namespace

Program compile(const Tracer& t, const std::vector<Value>& outputs, const std::vector<Assign>& updates) {
  const Stopwatch watch;
  Program p;
  p.stats_.nodes_traced = t.size();

  std::vector<Value> roots = outputs;
  for (const Assign& a : updates) roots.push_back(a.value);
  const std::vector<bool> live = live_nodes(t, roots);

  // Instruction order = node order (already topological). Lifetimes in instruction indices.
  std::vector<int> instr_of(static_cast<std::size_t>(t.size()), -1);
  std::vector<int> op_nodes;
  for (int id = 0; id < t.size(); ++id) {
    if (!live[static_cast<std::size_t>(id)]) continue;
    ++p.stats_.nodes_live;
    if (t.node(Value{id}).leaf != LeafKind::None) continue;
    instr_of[static_cast<std::size_t>(id)] = static_cast<int>(op_nodes.size());
    op_nodes.push_back(id);
  }
  std::vector<BufferRequest> requests(op_nodes.size());
  for (std::size_t k = 0; k < op_nodes.size(); ++k) {
    const Node& n = t.node(Value{op_nodes[k]});
    requests[k] = {n.shape.size() * sizeof(float), static_cast<int>(k), static_cast<int>(k)};
    p.stats_.unplanned_bytes += n.shape.size() * sizeof(float);
    for (int i = 0; i < op_def(n.op).arity; ++i) {
      const int producer = instr_of[static_cast<std::size_t>(n.in[i].id)];
      if (producer >= 0) requests[static_cast<std::size_t>(producer)].last = static_cast<int>(k);
    }
  }
  for (Value r : roots) {  // outputs are read after the step: keep them to the end
    const int producer = instr_of[static_cast<std::size_t>(r.id)];
    if (producer >= 0) requests[static_cast<std::size_t>(producer)].last = INT_MAX;
  }

  // Pass 2: memory plan. Pass 3: lower to instructions with resolved pointers.
  const MemoryPlan plan = plan_memory(requests);
  p.arena_.assign(plan.total_bytes / sizeof(float) + 1, 0.0f);
  p.stats_.arena_bytes = plan.total_bytes;
  std::vector<const float*> constant_copy(static_cast<std::size_t>(t.size()), nullptr);
  auto data_of = [&](Value v) -> float* {
    const int k = instr_of[static_cast<std::size_t>(v.id)];
    if (k >= 0) return p.arena_.data() + plan.offsets[static_cast<std::size_t>(k)] / sizeof(float);
    if (t.node(v).leaf == LeafKind::Constant) {  // the program owns its constants: the tracer may go
      const float*& copy = constant_copy[static_cast<std::size_t>(v.id)];
      if (!copy) {
        p.constants_.push_back(std::make_unique<Tensor>(t.shape(v), std::vector<float>(t.leaf_data(v), t.leaf_data(v) + t.shape(v).size())));
        copy = p.constants_.back()->data();
      }
      return const_cast<float*>(copy);
    }
    return const_cast<float*>(t.leaf_data(v));
  };
  p.attrs_.reserve(op_nodes.size());  // KernelArgs point into attrs_: no reallocation after this
  p.leaf_shape_.resize(static_cast<std::size_t>(t.size()));
  for (int id = 0; id < t.size(); ++id)
    if (t.node(Value{id}).leaf != LeafKind::None) p.leaf_shape_[static_cast<std::size_t>(id)] = t.shape(Value{id});
  for (std::size_t k = 0; k < op_nodes.size(); ++k) {
    const Node& n = t.node(Value{op_nodes[k]});
    const OpDef& def = op_def(n.op);
    p.attrs_.push_back(n.attrs);
    Program::Instruction ins{def.forward, {}};
    std::array<Shape, kMaxArity> shapes{};
    std::array<Program::Source, kMaxArity> sources{};
    for (int i = 0; i < def.arity; ++i) {
      const int producer = instr_of[static_cast<std::size_t>(n.in[i].id)];
      (producer >= 0 ? sources[static_cast<std::size_t>(i)].instruction : sources[static_cast<std::size_t>(i)].leaf) =
          producer >= 0 ? producer : n.in[i].id;
      ins.args.in[static_cast<std::size_t>(i)] = data_of(n.in[i]);
      ins.args.in_shape[static_cast<std::size_t>(i)] = shapes[static_cast<std::size_t>(i)] = t.shape(n.in[i]);
      if (t.node(n.in[i]).leaf == LeafKind::Input) {
        p.input_uses_.resize(static_cast<std::size_t>(t.size()));
        p.input_uses_[static_cast<std::size_t>(n.in[i].id)].push_back({static_cast<int>(k), i});
      }
    }
    ins.args.out = data_of(Value{op_nodes[k]});
    ins.args.out_shape = n.shape;
    ins.args.attrs = &p.attrs_.back();
    p.defs_.push_back(&def);
    p.sources_.push_back(sources);
    p.capacity_.push_back(n.shape.size() * sizeof(float));
    p.stats_.flops_per_step += def.flops(shapes, n.shape, n.attrs);
    p.code_.push_back(ins);
  }
  for (Value o : outputs) p.outputs_.push_back(data_of(o));
  for (const Assign& a : updates) p.updates_.push_back({t.parameter_data(a.target), data_of(a.value), t.shape(a.target).size()});
  p.stats_.instructions = static_cast<int>(p.code_.size());
  p.stats_.compile_ms = watch.elapsed_ms();
  return p;
}

void Program::run(int steps) {
  if (shapes_dirty_) derive_shapes();
  for (int s = 0; s < steps; ++s) {
    for (const Instruction& ins : code_) ins.forward(ins.args);
    for (const Update& u : updates_) std::copy(u.src, u.src + u.n, u.dst);
  }
}

void Program::bind_input(Value input, const float* data, Shape shape) {
  bind_input(input, data);
  Shape& current = leaf_shape_.at(static_cast<std::size_t>(input.id));
  if (current != shape) {
    current = shape;
    shapes_dirty_ = true;
  }
}

// Shape inference again, instruction by instruction, from the leaves' current shapes.
void Program::derive_shapes() {
  for (std::size_t k = 0; k < code_.size(); ++k) {
    KernelArgs& a = code_[k].args;
    for (int i = 0; i < defs_[k]->arity; ++i) {
      const Source& src = sources_[k][static_cast<std::size_t>(i)];
      a.in_shape[static_cast<std::size_t>(i)] =
          src.instruction >= 0 ? code_[static_cast<std::size_t>(src.instruction)].args.out_shape
                               : leaf_shape_[static_cast<std::size_t>(src.leaf)];
    }
    a.out_shape = defs_[k]->shape(a.in_shape, *a.attrs);
    if (a.out_shape.size() * sizeof(float) > capacity_[k])
      throw CapacityError(std::string(defs_[k]->name) + " needs " + std::to_string(a.out_shape.size() * sizeof(float)) +
                          " bytes, the program was planned for " + std::to_string(capacity_[k]));
  }
  shapes_dirty_ = false;
}

void Program::bind_input(Value input, const float* data) {
  if (static_cast<std::size_t>(input.id) >= input_uses_.size()) return;  // an input nothing reads
  for (const InputUse& use : input_uses_[static_cast<std::size_t>(input.id)])
    code_[static_cast<std::size_t>(use.instruction)].args.in[static_cast<std::size_t>(use.slot)] = data;
}

}  // namespace looplab

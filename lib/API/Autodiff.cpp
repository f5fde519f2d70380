//===- Autodiff.cpp - Reverse-mode gradients ------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements GradientTape. A tape records recorded nodes, not API
// calls: the graph below the API is explicit (broadcasts and casts are nodes
// of their own, elementwise operands have equal shapes and dtypes), so each
// node kind has one small vector-Jacobian product, and broadcasting is
// undone in exactly one place (the Broadcast node's). The backward pass is
// built from the public ops, so it is lazy and fuses with the forward pass.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Autodiff.h"
#include "Attention.h"
#include "Collectives.h"
#include "Convolution.h"
#include "Tape.h"
#include "TensorAccess.h"

#include "lazyc/API/Ops.h"
#include "lazyc/Runtime/Collectives.h"
#include "lazyc/Runtime/Shape.h"

#include "Engine/Engine.h"
#include "Rows.h"

#include "lazyc/API/ControlFlow.h"
#include "lazyc/Trace/Region.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"

#include <cmath>
#include <numeric>

using namespace lazyc;
using namespace lazyc::trace;

namespace lazyc::detail {
struct TapeState {
  /// A recorded node and its inputs, or a CompileBlock's bound (no
  /// `output`).
  struct Entry {
    NodePtr output;
    NodeInputs inputs;
    /// The op whose kind and attributes the backward pass reads, when it is
    /// not `output` (a region's node, whose value `output` stands for).
    const Node *op = nullptr;
    const Node &node() const { return op ? *op : *output; }
    bool isBlockBound() const { return !output; }
  };
  std::vector<Entry> entries;
  /// Watched nodes and every recorded node that depends on one.
  llvm::DenseSet<const Node *> dependent;
  /// Keeps the watched nodes alive (the set holds raw pointers).
  std::vector<NodePtr> watched;
  /// The nodes each variable was read as while the tape recorded.
  llvm::DenseMap<uint64_t, llvm::SmallVector<NodePtr, 1>> variableReads;
  bool recording = true;
  SourceLocation where;

  void watch(const NodePtr &node) {
    if (dependent.insert(node.get()).second)
      watched.push_back(node);
  }
};
} // namespace lazyc::detail

using detail::TapeState;

namespace {
/// This thread's live tapes, outermost first.
thread_local std::vector<TapeState *> liveTapes;
/// Set by NoGradScope.
thread_local bool tapesPaused = false;
} // namespace

bool tape::recording() { return !liveTapes.empty() && !tapesPaused; }

bool tape::tracks(const Node &node) {
  if (!recording())
    return false;
  return llvm::any_of(liveTapes, [&](const TapeState *state) {
    return state->recording && state->dependent.contains(&node);
  });
}

void tape::recorded(const NodePtr &node) {
  for (TapeState *state : liveTapes) {
    if (!state->recording)
      continue;
    bool depends = false;
    for (const NodePtr &input : node->inputs)
      depends = depends || state->dependent.contains(input.get());
    if (!depends)
      continue;
    state->dependent.insert(node.get());
    state->entries.push_back({node, node->inputs});
  }
}

void tape::blockBound() {
  for (TapeState *state : liveTapes)
    if (state->recording && !tapesPaused &&
        (state->entries.empty() || !state->entries.back().isBlockBound()))
      state->entries.push_back({});
}

void tape::variableRead(uint64_t variable, const NodePtr &node) {
  if (tapesPaused)
    return;
  for (TapeState *state : liveTapes) {
    if (!state->recording)
      continue;
    state->watch(node);
    auto &reads = state->variableReads[variable];
    if (reads.empty() || reads.back() != node)
      reads.push_back(node);
  }
}

//===----------------------------------------------------------------------===//
// Vector-Jacobian products
//===----------------------------------------------------------------------===//

namespace {

Tensor wrap(const NodePtr &node) { return detail::TensorAccess::wrap(node); }

bool isFloatNode(const Node &node) { return isFloatingPoint(node.dtype); }

/// `g` placed at positions start[d], start[d] + step[d], ... of zeros shaped
/// `full`, built from reshape and concat (no scatter op): per dimension,
/// step - 1 zeros after every element, then zeros before and after.
Tensor placeStrided(Tensor g, const Shape &full,
                    const std::vector<int64_t> &start,
                    const std::vector<int64_t> &step, SourceLocation where) {
  Shape shape = g.shape();
  bool placed = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t size = full[d], count = shape[d];
    if (count == size)
      continue; // The whole dimension (start 0, step 1).
    if (step[d] > 1 && count > 1) {
      Shape column = shape;
      column.insert(column.begin() + d + 1, 1);
      Shape gap = column;
      gap[d + 1] = step[d] - 1;
      Shape spaced = shape;
      spaced[d] = count * step[d];
      g = lazyc::reshape(lazyc::concat({lazyc::reshape(g, column, where),
                                        lazyc::zeros(gap, g.dtype(), where)},
                                       static_cast<int64_t>(d) + 1, where),
                         spaced, where);
      shape[d] = (count - 1) * step[d] + 1;
      g = lazyc::slice(g, std::vector<int64_t>(shape.size(), 0), shape, {},
                       where);
      placed = true; // A strided view of the spread values.
    }
    std::vector<Tensor> parts;
    Shape before = shape, after = shape;
    before[d] = start[d];
    after[d] = size - start[d] - shape[d];
    if (before[d] == 0 && after[d] == 0)
      continue; // Spread to the full size.
    if (before[d] > 0)
      parts.push_back(lazyc::zeros(before, g.dtype(), where));
    // A float part that an earlier dimension spread or padded enters as a
    // loop (`+ 0.0`) writing into its place, not as a strided copy, which
    // the runtime does element by element.
    parts.push_back(placed && isFloatingPoint(g.dtype()) ? At(g, where) + 0.0
                                                         : g);
    if (after[d] > 0)
      parts.push_back(lazyc::zeros(after, g.dtype(), where));
    g = lazyc::concat(parts, static_cast<int64_t>(d), where);
    shape[d] = size;
    placed = true;
  }
  return g;
}

/// Builds the backward pass of one tape call.
class Backward {
public:
  Backward(TapeState &state, SourceLocation where)
      : state(state), where(where) {}

  /// Propagates `seed` (d target / d target) from `target` down the tape.
  void run(const NodePtr &target, const Tensor &seed) {
    grads[target.get()] = seed;
    propagate();
  }

  /// Adds `g` to the gradient of `node` before propagate().
  void seed(const NodePtr &node, const Tensor &g) {
    Tensor &slot = grads[node.get()];
    slot = slot.defined() ? Tensor(add(slot, g)) : g;
  }

  /// Runs the tape backward from the gradients seeded so far.
  void propagate() {
    for (auto it = state.entries.rbegin(); it != state.entries.rend(); ++it) {
      if (it->isBlockBound()) {
        // Each block's gradient is a block too.
        trace::markBlockBound();
        continue;
      }
      if (hasRegions(it->node().kind)) {
        if (resultGrads.contains(it->output.get()))
          vjpControlFlow(*it);
        continue;
      }
      auto found = grads.find(it->output.get());
      if (found == grads.end())
        continue;
      Tensor g = found->second;
      vjp(*it, g);
    }
  }

  /// The accumulated gradient of `node`, or an undefined Tensor.
  Tensor gradientOf(const Node *node) const {
    auto found = grads.find(node);
    return found == grads.end() ? Tensor() : found->second;
  }

private:
  /// Adds `contribution` to the gradient of `input`, if it wants one.
  void accumulate(const NodePtr &input, const Tensor &contribution) {
    if (!isFloatNode(*input) || !state.dependent.contains(input.get()))
      return;
    Tensor &slot = grads[input.get()];
    slot = slot.defined() ? Tensor(add(slot, contribution)) : contribution;
  }

  Tensor add(const Tensor &a, const Tensor &b) { return At(a, where) + b; }
  Tensor mul(const Tensor &a, const Tensor &b) { return At(a, where) * b; }
  Tensor sub(const Tensor &a, const Tensor &b) { return At(a, where) - b; }
  Tensor div(const Tensor &a, const Tensor &b) { return At(a, where) / b; }
  Tensor zerosLike(const Tensor &x) {
    return lazyc::zeros(x.shape(), x.dtype(), where);
  }
  /// 1 where `mask` holds, 0 elsewhere, in `like`'s dtype.
  Tensor indicator(const Tensor &mask, const Tensor &like) {
    return lazyc::cast(mask, like.dtype(), where);
  }

  /// `g` (shaped like the reduction's result) spread back over `input`'s
  /// shape: the reduced axes become 1 and broadcast.
  Tensor unreduce(const Tensor &g, const Node &input, const Node &reduction) {
    return lazyc::broadcastTo(keepReduced(g, input, reduction), input.shape,
                              where);
  }

  /// `g` (shaped like the reduction's result) with the reduced axes of
  /// `input`'s shape kept as 1.
  Tensor keepReduced(const Tensor &g, const Node &input,
                     const Node &reduction) {
    Shape kept = input.shape;
    for (int64_t axis : reduction.ints)
      kept[axis] = 1;
    return lazyc::reshape(g, kept, where);
  }

  void vjp(const TapeState::Entry &entry, const Tensor &g);
  void vjpControlFlow(const TapeState::Entry &entry);
  void vjpWhile(const TapeState::Entry &entry);
  std::vector<Tensor> branchGradient(const TapeState::Entry &entry,
                                     size_t region,
                                     const std::vector<size_t> &wanted);
  /// The values of a control-flow node's region as its gradient reads
  /// them, with a tape (`local`) of the region's computed nodes: captures
  /// are the node's operands, Parameters `parameters`, computed nodes are
  /// intermediates of a tape's own If, or replayed here.
  std::vector<NodePtr> regionValues(const TapeState::Entry &entry,
                                    size_t region,
                                    const std::vector<NodePtr> &parameters,
                                    TapeState &local);
  /// A Result of the entry's control-flow node for the gradient to read.
  Tensor intermediate(const TapeState::Entry &entry, int64_t region,
                      int64_t index, const Node &like);
  /// Whether the gradient of `node` is wanted on this tape.
  bool wantsGradient(const Node &node) const {
    return isFloatNode(node) && state.dependent.contains(&node);
  }
  /// The gradient of `node` so far, or zeros.
  Tensor gradientOr0(const Node &node) const {
    Tensor g = gradientOf(&node);
    return g.defined() ? g : lazyc::zeros(node.shape, node.dtype, where);
  }
  void vjpReduction(const Node &node, const NodeInputs &in, const Tensor &out,
                    const Tensor &g);
  void vjpCollective(const Node &node, const NodeInputs &in, const Tensor &out,
                     const Tensor &g);
  Tensor unslice(const Node &node, const Node &input, Tensor g);
  void vjpConv2d(const Node &node, const NodeInputs &in, const Tensor &g);

  TapeState &state;
  SourceLocation where;
  llvm::DenseMap<const Node *, Tensor> grads;
  /// Per control-flow node: the gradients of its Result nodes (the Result
  /// op, whose `ints` say which value it is, and the gradient).
  llvm::DenseMap<const Node *, std::vector<std::pair<const Node *, Tensor>>>
      resultGrads;

public:
  /// How a region's intermediates reach its gradient. A tape's own
  /// control-flow nodes expose them as extra results (computed by the
  /// forward op, seed 002's design), created at `outerDepth` regions deep;
  /// a node inside a region being differentiated has no results to add,
  /// so its region is replayed inside the gradient.
  bool replayRegions = false;
  size_t outerDepth = 0;
};

void Backward::vjp(const TapeState::Entry &entry, const Tensor &g) {
  const Node &node = entry.node();
  const NodeInputs &in = entry.inputs;
  Tensor out = wrap(entry.output);
  auto x = [&](size_t i) { return wrap(in[i]); };
  switch (node.kind) {
  case OpKind::Result:
    // Collected for the control-flow node's own backward pass.
    resultGrads[in[0].get()].push_back({&node, g});
    return;
  case OpKind::If:
  case OpKind::While:
    llvm_unreachable("control flow is differentiated by vjpControlFlow");
  case OpKind::IndexRow: {
    Tensor zeros = zerosLike(x(0));
    accumulate(in[0], lazyc::detail::updateRow(zeros, x(1), g, where));
    return;
  }
  case OpKind::Gather:
    accumulate(in[0], lazyc::scatterAdd(zerosLike(x(0)), node.integer, x(1), g,
                                        where));
    return;
  case OpKind::ScatterAdd:
    accumulate(in[0], g);
    accumulate(in[2], lazyc::gather(g, node.integer, x(1), where));
    return;
  case OpKind::Cumsum:
    accumulate(in[0], lazyc::cumsum(g, node.integer, !node.flag, where));
    return;
  case OpKind::Collective:
    vjpCollective(node, in, out, g);
    return;
  case OpKind::UpdateRow:
    accumulate(in[0],
               lazyc::detail::updateRow(g, x(1), zerosLike(x(2)), where));
    accumulate(in[2], lazyc::detail::indexRow(g, x(1), where));
    return;
  case OpKind::Parameter:
  case OpKind::Buffer:
  case OpKind::Literal:
  case OpKind::RandomUniform:
  case OpKind::RandomNormal:
  case OpKind::ArgMax: // Positions carry no gradient.
  case OpKind::ArgMin:
  case OpKind::Compare: // Bool results carry no gradient.
  case OpKind::Bitcast: // Bits, not values.
    return;
  case OpKind::Add:
    accumulate(in[0], g);
    accumulate(in[1], g);
    return;
  case OpKind::Sub:
    accumulate(in[0], g);
    accumulate(in[1], lazyc::operator-(At(g, where)));
    return;
  case OpKind::Mul:
    accumulate(in[0], mul(g, x(1)));
    accumulate(in[1], mul(g, x(0)));
    return;
  case OpKind::Div:
    // d(a/b)/db = -a/b^2 = -(a/b)/b.
    accumulate(in[0], div(g, x(1)));
    accumulate(in[1], lazyc::operator-(At(div(mul(g, out), x(1)), where)));
    return;
  case OpKind::FloorDiv: // Piecewise constant: no gradient.
    return;
  case OpKind::BitAnd: // Of integers and booleans: no gradient.
  case OpKind::BitOr:
  case OpKind::BitXor:
  case OpKind::BitNot:
  case OpKind::ShiftLeft:
  case OpKind::ShiftRight:
    return;
  case OpKind::Mod:
    // a - floorDiv(a, b) * b, the quotient piecewise constant.
    accumulate(in[0], g);
    accumulate(in[1], lazyc::operator-(At(
                          mul(g, lazyc::floorDiv(x(0), x(1), where)), where)));
    return;
  case OpKind::Pow: {
    // d(a^b)/da = b a^(b-1); d(a^b)/db = a^b log a, taken as 0 where a <= 0
    // (the limit at a = 0 for b > 0; undefined below).
    Tensor a = x(0), b = x(1);
    accumulate(
        in[0],
        mul(g, mul(b, lazyc::pow(a, sub(b, lazyc::ones({}, b.dtype(), where)),
                                 where))));
    Tensor positive = At(a, where) > 0.0;
    Tensor safeLog = lazyc::where(
        positive,
        lazyc::log(
            lazyc::where(positive, a, lazyc::ones({}, a.dtype(), where), where),
            where),
        zerosLike(a), where);
    accumulate(in[1], mul(g, mul(out, safeLog)));
    return;
  }
  case OpKind::Max:
  case OpKind::Min: {
    // The winner takes the gradient; a tie splits it evenly.
    Tensor a = x(0), b = x(1);
    Tensor wins = node.kind == OpKind::Max ? Tensor(At(a, where) > b)
                                           : Tensor(At(a, where) < b);
    Tensor share = add(indicator(wins, a),
                       At(indicator(At(a, where) == b, a), where) * 0.5);
    accumulate(in[0], mul(g, share));
    accumulate(in[1], mul(g, lazyc::operator-(1.0, share)));
    return;
  }
  case OpKind::Neg:
    accumulate(in[0], lazyc::operator-(At(g, where)));
    return;
  case OpKind::Abs: {
    Tensor a = x(0), zero = zerosLike(a);
    Tensor sign = sub(indicator(At(a, where) > zero, a),
                      indicator(At(a, where) < zero, a));
    accumulate(in[0], mul(g, sign));
    return;
  }
  case OpKind::Relu:
    // relu(a) > 0 exactly where a > 0: the mask reads the result, so a
    // backward pass traced apart from its forward pass (after the loss was
    // read) does not recompute the input (a matmul, typically).
    accumulate(in[0], mul(g, indicator(At(out, where) > zerosLike(out), out)));
    return;
  case OpKind::Exp:
    accumulate(in[0], mul(g, out));
    return;
  case OpKind::Log:
    accumulate(in[0], div(g, x(0)));
    return;
  case OpKind::Tanh:
    accumulate(in[0], mul(g, lazyc::operator-(1.0, mul(out, out))));
    return;
  case OpKind::Sigmoid:
    accumulate(in[0], mul(g, mul(out, lazyc::operator-(1.0, out))));
    return;
  case OpKind::Sqrt:
    accumulate(in[0], div(At(g, where) * 0.5, out));
    return;
  case OpKind::Rsqrt:
    // d(a^-1/2)/da = -a^-3/2 / 2 = -out^3 / 2.
    accumulate(in[0], mul(At(g, where) * -0.5, mul(out, mul(out, out))));
    return;
  case OpKind::Sin:
    accumulate(in[0], mul(g, lazyc::cos(x(0), where)));
    return;
  case OpKind::Cos:
    accumulate(in[0],
               lazyc::operator-(At(mul(g, lazyc::sin(x(0), where)), where)));
    return;
  case OpKind::Erf: {
    Tensor a = x(0);
    Tensor density = lazyc::exp(lazyc::operator-(At(mul(a, a), where)), where);
    accumulate(in[0], mul(At(g, where) * (2.0 / std::sqrt(M_PI)), density));
    return;
  }
  case OpKind::Asin:
  case OpKind::Acos: {
    // d asin(a)/da = 1 / sqrt(1 - a^2) = -d acos(a)/da: infinite at |a| = 1,
    // NaN beyond. 1 - a^2 as (1 - a)(1 + a), whose factor near 0 is exact,
    // where a * a would round away most of the difference.
    Tensor a = x(0);
    Tensor oneMinusSquare =
        mul(lazyc::operator-(1.0, a), lazyc::operator+(1.0, a));
    Tensor slope = div(g, lazyc::sqrt(oneMinusSquare, where));
    accumulate(in[0], node.kind == OpKind::Asin
                          ? slope
                          : lazyc::operator-(At(slope, where)));
    return;
  }
  case OpKind::Atan: {
    Tensor a = x(0);
    accumulate(in[0], div(g, lazyc::operator+(1.0, mul(a, a))));
    return;
  }
  case OpKind::Select: {
    Tensor condition = x(0), zero = zerosLike(g);
    accumulate(in[1], lazyc::where(condition, g, zero, where));
    accumulate(in[2], lazyc::where(condition, zero, g, where));
    return;
  }
  case OpKind::Cast:
    accumulate(in[0], lazyc::cast(g, in[0]->dtype, where));
    return;
  case OpKind::Broadcast: {
    // Sum over the dimensions the broadcast added or stretched.
    const Shape &from = in[0]->shape, &to = node.shape;
    size_t offset = to.size() - from.size();
    std::vector<int64_t> axes;
    for (size_t d = 0; d < to.size(); ++d)
      if (d < offset || (from[d - offset] == 1 && to[d] != 1))
        axes.push_back(static_cast<int64_t>(d));
    Tensor reduced = axes.empty() ? g : lazyc::sum(g, axes, true, where);
    accumulate(in[0], lazyc::reshape(reduced, from, where));
    return;
  }
  case OpKind::Reshape:
    accumulate(in[0], lazyc::reshape(g, in[0]->shape, where));
    return;
  case OpKind::Transpose: {
    std::vector<int64_t> inverse(node.ints.size());
    for (size_t i = 0; i < node.ints.size(); ++i)
      inverse[node.ints[i]] = static_cast<int64_t>(i);
    accumulate(in[0], lazyc::transpose(g, inverse, where));
    return;
  }
  case OpKind::Slice:
    accumulate(in[0], unslice(node, *in[0], g));
    return;
  case OpKind::Concat: {
    int64_t axis = node.integer, offset = 0;
    for (const NodePtr &input : in) {
      std::vector<int64_t> start(node.shape.size(), 0), limit = node.shape;
      start[axis] = offset;
      limit[axis] = offset + input->shape[axis];
      offset = limit[axis];
      accumulate(input, lazyc::slice(g, start, limit, {}, where));
    }
    return;
  }
  case OpKind::ReduceSum:
  case OpKind::ReduceMean:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
    vjpReduction(node, in, out, g);
    return;
  case OpKind::Matmul: {
    // [..., m, k] x [..., k, n], batch dimensions already equal.
    std::vector<int64_t> swap(node.shape.size());
    std::iota(swap.begin(), swap.end(), 0);
    std::swap(swap[swap.size() - 2], swap.back());
    accumulate(in[0],
               lazyc::matmul(g, lazyc::transpose(x(1), swap, where), where));
    accumulate(in[1],
               lazyc::matmul(lazyc::transpose(x(0), swap, where), g, where));
    return;
  }
  case OpKind::Conv2d:
    vjpConv2d(node, in, g);
    return;
  case OpKind::Attention: {
    // The statistics column is the gradients' own input: no user reads it.
    std::vector<int64_t> start(node.shape.size(), 0), limit = node.shape;
    limit.back() -= 1;
    Tensor dOut =
        lazyc::slice(g, std::move(start), std::move(limit), {}, where);
    auto [dq, dk, dv] = detail::attentionGradients(node, in, out, dOut, where);
    accumulate(in[0], dq);
    accumulate(in[1], dk);
    accumulate(in[2], dv);
    return;
  }
  case OpKind::AttentionGrad:
    throw Error(opName(node.kind),
                "has no gradient: tiled attention is differentiable once "
                "(nn::scaledDotProductAttention with AttentionTiles::Never "
                "records the materialized form, which is differentiable again)",
                where);
  case OpKind::Softmax: {
    // dx = y * (g - sum(g * y)) along the axis.
    Tensor dot = lazyc::sum(mul(g, out), {node.integer}, true, where);
    accumulate(in[0], mul(out, sub(g, dot)));
    return;
  }
  case OpKind::LogSoftmax: {
    // dx = g - softmax(x) * sum(g) along the axis.
    Tensor total = lazyc::sum(g, {node.integer}, true, where);
    accumulate(in[0], sub(g, mul(lazyc::exp(out, where), total)));
    return;
  }
  }
}

void Backward::vjpCollective(const Node &node, const NodeInputs &in,
                             const Tensor &out, const Tensor &g) {
  // Every rank's loss counts (PyTorch's distributed autograd): an input's
  // gradient gathers the gradients of every rank's result it reaches.
  int reduction = static_cast<int>(node.ints[0]);
  auto sumOver = [&](int kind, const Tensor &value) {
    return detail::collective(value, kind, LAZYRT_REDUCE_SUM, 0, where);
  };
  Tensor x = wrap(in[0]);
  switch (node.integer) {
  case LAZYRT_ALL_REDUCE: {
    Tensor total = sumOver(LAZYRT_ALL_REDUCE, g);
    if (reduction != LAZYRT_REDUCE_SUM) // The ranks holding the extreme.
      total = mul(total, indicator(At(x, where) == out, x));
    accumulate(in[0], total);
    return;
  }
  case LAZYRT_BROADCAST: {
    // Every rank takes part in the sum; only the root keeps it (a data
    // literal, so the trace is the same on every rank).
    bool isRoot = node.ints[1] == lazyrt_dist_rank();
    accumulate(in[0], At(sumOver(LAZYRT_ALL_REDUCE, g), where) *
                          Scalar(isRoot ? 1.0f : 0.0f, where));
    return;
  }
  case LAZYRT_ALL_GATHER: {
    Tensor rows = sumOver(LAZYRT_REDUCE_SCATTER, g);
    accumulate(in[0], lazyc::reshape(rows, x.shape(), where));
    return;
  }
  case LAZYRT_REDUCE_SCATTER: {
    Tensor spread = detail::collective(g, LAZYRT_ALL_GATHER, 0, 0, where);
    if (reduction != LAZYRT_REDUCE_SUM) {
      Tensor extreme = detail::collective(out, LAZYRT_ALL_GATHER, 0, 0, where);
      spread = mul(spread, indicator(At(x, where) == extreme, x));
    }
    accumulate(in[0], spread);
    return;
  }
  }
  llvm_unreachable("unknown collective kind");
}

void Backward::vjpReduction(const Node &node, const NodeInputs &in,
                            const Tensor &out, const Tensor &g) {
  const Node &input = *in[0];
  Tensor spread = unreduce(g, input, node);
  switch (node.kind) {
  case OpKind::ReduceSum:
    accumulate(in[0], spread);
    return;
  case OpKind::ReduceMean: {
    int64_t count = 1;
    for (int64_t axis : node.ints)
      count *= input.shape[axis];
    accumulate(in[0], At(spread, where) / static_cast<double>(count));
    return;
  }
  case OpKind::ReduceMax:
  case OpKind::ReduceMin: {
    // The elements equal to the extreme share its gradient evenly: the
    // share is computed once per reduced element and selected where the
    // input hits, so the full-size work is a compare and a select (no
    // arithmetic, nothing to round in bf16), and an element that missed
    // gets 0 whatever the gradient (0 * inf would be NaN).
    Tensor x = wrap(in[0]);
    Tensor hits = At(x, where) == unreduce(out, input, node);
    Tensor count = lazyc::sum(indicator(hits, x), node.ints, true, where);
    Tensor share = div(keepReduced(g, input, node), count);
    accumulate(in[0], lazyc::where(hits, share,
                                   lazyc::zeros({}, x.dtype(), where), where));
    return;
  }
  // Not reductions (vjp() sends only reductions here).
#define LAZYC_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_REDUCE_OP(Kind, Name, ShapeAttr)
#include "lazyc/Trace/Ops.def"
    llvm_unreachable("not a reduction");
  }
}

/// The gradient of an If (seed 002): an If on the same predicate whose
/// branches are the gradients of the forward branches with respect to the
/// captured values.
void Backward::vjpControlFlow(const TapeState::Entry &entry) {
  const NodeInputs &in = entry.inputs;
  if (entry.node().kind == OpKind::While) {
    vjpWhile(entry);
    return;
  }
  // The captured operands (after the predicate) that want a gradient.
  std::vector<size_t> wanted;
  for (size_t j = 1; j < in.size(); ++j)
    if (wantsGradient(*in[j]))
      wanted.push_back(j);
  if (wanted.empty())
    return;
  std::vector<Tensor> gradients = lazyc::detail::cond(
      wrap(in[0]), [&] { return branchGradient(entry, 0, wanted); },
      [&] { return branchGradient(entry, 1, wanted); }, where);
  for (size_t k = 0; k < wanted.size(); ++k)
    accumulate(in[wanted[k]], gradients[k]);
}

Tensor Backward::intermediate(const TapeState::Entry &entry, int64_t region,
                              int64_t index, const Node &like) {
  // A replayed node lives in the region being traced; a tape's own one
  // where the backward pass started.
  auto &regions = engine::tracedRegions();
  std::vector<engine::TracedRegion *> inside = regions;
  if (!replayRegions)
    regions.resize(outerDepth);
  auto restore = llvm::scope_exit([&] { regions = inside; });
  return engine::recordResult(entry.output, region, index, like, where);
}

std::vector<NodePtr>
Backward::regionValues(const TapeState::Entry &entry, size_t region,
                       const std::vector<NodePtr> &parameters,
                       TapeState &local) {
  const trace::Region &forward = regionsOf(entry.node()).regions[region];
  const Trace &body = forward.body;
  std::vector<NodePtr> value(body.nodes.size());
  for (auto [capture, index] : llvm::enumerate(body.arguments))
    value[index] = entry.inputs[forward.captureOperands[capture]];
  for (size_t i = 0; i < body.nodes.size(); ++i) {
    if (value[i])
      continue;
    const Node &original = *body.nodes[i];
    if (original.kind == OpKind::Parameter) {
      value[i] = parameters[original.integer];
      continue;
    }
    NodeInputs inputs;
    for (int32_t operand : body.operands(i))
      inputs.push_back(value[operand]);
    // Control flow nested in an exposed region is replayed too: its own
    // gradient reads its values, which only a node here can give.
    bool expose = !replayRegions && entry.node().kind == OpKind::If &&
                  !hasRegions(original.kind);
    if (!expose) {
      value[i] = trace::cloneNode(original, inputs);
      if (tape::recording())
        tape::recorded(value[i]);
      engine::recorded(value[i], where);
    } else {
      value[i] = detail::TensorAccess::node(
          intermediate(entry, static_cast<int64_t>(region),
                       static_cast<int64_t>(i), original));
    }
    local.entries.push_back({value[i], std::move(inputs), &original});
  }
  for (const NodePtr &v : value)
    local.dependent.insert(v.get());
  return value;
}

/// Inside the gradient If: the gradient of region `region` of the entry's
/// If with respect to its operands `wanted`, from its Results' gradients.
std::vector<Tensor>
Backward::branchGradient(const TapeState::Entry &entry, size_t region,
                         const std::vector<size_t> &wanted) {
  const NodeInputs &in = entry.inputs;
  const Trace &body = regionsOf(entry.node()).regions[region].body;
  TapeState local;
  std::vector<NodePtr> value = regionValues(entry, region, {}, local);
  Backward inner(local, where);
  inner.replayRegions = true;
  for (const auto &[result, g] : resultGrads.at(entry.output.get())) {
    int64_t which = result->ints[0], index = result->ints[1];
    if (which == kUserResult)
      inner.seed(value[body.outputs[index]], g);
    else if (which == static_cast<int64_t>(region))
      inner.seed(value[index], g);
  }
  inner.propagate();
  std::vector<Tensor> gradients;
  for (size_t j : wanted)
    gradients.push_back(inner.gradientOr0(*in[j]));
  return gradients;
}

/// The gradient of a bounded While: a While that runs the iterations
/// backward, reading each iteration's carried values from the stacks the
/// forward loop kept, replaying the body on them and pulling the
/// cotangents through it.
void Backward::vjpWhile(const TapeState::Entry &entry) {
  const Node &node = entry.node();
  const NodeInputs &in = entry.inputs;
  const Regions &regions = regionsOf(node);
  auto fail = [&](const std::string &why) {
    throw Error("gradient",
                "cannot differentiate the whileLoop at " +
                    std::string(node.loc.file) + ":" +
                    std::to_string(node.loc.line) + ": " + why,
                where);
  };
  if (regions.maxIterations < 0)
    fail("give it LoopOptions{maxIterations}: a bounded loop keeps each "
         "iteration's values for its gradient");
  if (!regions.stacked)
    fail("no GradientTape was recording when the loop was recorded, so it "
         "kept no values for a gradient");
  int32_t m = regions.userCarried;
  std::vector<size_t> carriedWanted, capturesWanted;
  for (int32_t k = 0; k < m; ++k)
    if (isFloatNode(*in[k]))
      carriedWanted.push_back(k);
  for (size_t j = regions.carried; j < in.size(); ++j)
    if (wantsGradient(*in[j]))
      capturesWanted.push_back(j);
  bool anyInit = llvm::any_of(carriedWanted,
                              [&](size_t k) { return wantsGradient(*in[k]); });
  if (!anyInit && capturesWanted.empty())
    return;

  // What the forward loop left: its trip count and per-iteration values.
  Tensor trips = intermediate(entry, kUserResult, m, *in[m]);
  std::vector<Tensor> stacks;
  for (int32_t k = 0; k < m; ++k)
    stacks.push_back(
        intermediate(entry, kUserResult, m + 1 + k, *in[m + 1 + k]));
  // Carried backward: the iteration, the carried values' cotangents, and
  // the captured values' gradients so far.
  std::vector<Tensor> initial{trips};
  for (size_t k : carriedWanted) {
    Tensor seed;
    for (const auto &[result, g] : resultGrads.at(entry.output.get()))
      if (result->ints[1] == static_cast<int64_t>(k))
        seed = seed.defined() ? Tensor(add(seed, g)) : g;
    initial.push_back(seed.defined()
                          ? seed
                          : lazyc::zeros(in[k]->shape, in[k]->dtype, where));
  }
  // Captured values' gradients start from -0.0, the identity of IEEE
  // addition, so that they sum the iterations' contributions as the
  // unrolled loop (eager mode) does: zeros would turn a sum of negative
  // zeros positive (lazyc-fuzz seed 601190: rsqrt of the gradient gave +inf
  // in lazy mode, -inf in eager mode). A body with no path from the value,
  // or a loop that ran no iteration, contributes nothing.
  for (size_t j : capturesWanted)
    initial.push_back(
        lazyc::full(in[j]->shape, Scalar(-0.0, where), in[j]->dtype));
  std::vector<bool> contributes(capturesWanted.size());

  auto step = [&](const std::vector<Tensor> &carried) {
    Tensor t = sub(carried[0], lazyc::full({}, int64_t(1), DType::Int64));
    std::vector<NodePtr> parameters(regions.carried);
    for (int32_t k = 0; k < m; ++k)
      parameters[k] = detail::TensorAccess::node(
          lazyc::detail::indexRow(stacks[k], t, where));
    parameters[m] = detail::TensorAccess::node(t);
    for (int32_t k = 0; k < m; ++k)
      parameters[m + 1 + k] = detail::TensorAccess::node(stacks[k]);
    TapeState local;
    std::vector<NodePtr> value = regionValues(entry, 1, parameters, local);
    const Trace &body = regions.regions[1].body;
    Backward inner(local, where);
    inner.replayRegions = true;
    for (auto [slot, k] : llvm::enumerate(carriedWanted))
      inner.seed(value[body.outputs[k]], carried[1 + slot]);
    inner.propagate();
    std::vector<Tensor> next{t};
    for (size_t k : carriedWanted)
      next.push_back(inner.gradientOr0(*parameters[k]));
    for (auto [slot, j] : llvm::enumerate(capturesWanted)) {
      const Tensor &sum = carried[1 + carriedWanted.size() + slot];
      Tensor g = inner.gradientOf(in[j].get());
      contributes[slot] = g.defined();
      next.push_back(g.defined() ? add(sum, g) : sum);
    }
    return next;
  };
  std::vector<Tensor> final = lazyc::whileLoop(
      [&](const std::vector<Tensor> &carried) {
        return At(carried[0], where) > Scalar(int64_t(0), where);
      },
      step, initial, {}, where);
  for (auto [slot, k] : llvm::enumerate(carriedWanted))
    accumulate(in[k], final[1 + slot]);
  for (auto [slot, j] : llvm::enumerate(capturesWanted)) {
    if (!contributes[slot])
      continue;
    const Tensor &sum = final[1 + carriedWanted.size() + slot];
    accumulate(in[j], lazyc::where(At(trips, where) > Scalar(int64_t(0), where),
                                   sum, zerosLike(sum), where));
  }
}

/// The gradient of a slice: `g` placed at the sliced positions of zeros
/// shaped like `input`.
Tensor Backward::unslice(const Node &node, const Node &input, Tensor g) {
  if (node.numel() == 0)
    return lazyc::zeros(input.shape, g.dtype(), where);
  return placeStrided(std::move(g), input.shape, node.ints, node.ints3, where);
}

/// The gradient of a convolution, itself two convolutions:
/// - the images': the gradient spread by the stride (zeros between its
///   pixels), padded so that the flipped kernel's sweep lands on the image
///   rows (cropped where the forward padding exceeds the kernel's reach),
///   convolved with the filters flipped and with their channel dimensions
///   swapped;
/// - the filters': the images, with batch and channels swapped and the
///   forward padding, convolved with the gradient as the filters (stride
///   and dilation swap roles too), cut to the kernel's size.
void Backward::vjpConv2d(const Node &node, const NodeInputs &in,
                         const Tensor &g) {
  // Both operands are float (the op's verifier).
  const Shape &images = in[0]->shape, &filters = in[1]->shape;
  std::array<int64_t, 2> stride = {node.ints[0], node.ints[1]};
  std::array<int64_t, 2> dilation = {node.ints2[0], node.ints2[1]};
  detail::Padding padding = {node.ints3[0], node.ints3[1], node.ints3[2],
                             node.ints3[3]};
  // Output pixel y reads image row y s + i d - top. Spread, the gradient's
  // row y sits at y s; image row h then sums spread rows h + top - reach +
  // i' d over the flipped kernel (i' = KH - 1 - i): a sweep of the spread
  // with `reach - top` rows of padding above and `H + top - M` below (M
  // the spread's height). Negative amounts crop rows that meet padding
  // only.
  Tensor spread = g;
  if (stride[0] > 1 || stride[1] > 1) {
    Shape frame = g.shape();
    for (int d = 0; d < 2; ++d)
      frame[2 + d] = (frame[2 + d] - 1) * stride[d] + 1;
    spread = placeStrided(At(g, where) + 0.0, frame, {0, 0, 0, 0},
                          {1, 1, stride[0], stride[1]}, where);
  }
  detail::Padding sweep;
  std::vector<int64_t> cropStart(4, 0), cropLimit = spread.shape();
  bool crops = false;
  for (int d = 0; d < 2; ++d) {
    int64_t reach = dilation[d] * (filters[2 + d] - 1);
    int64_t size = spread.shape()[2 + d];
    int64_t low = reach - padding[2 * d];
    int64_t high = images[2 + d] + padding[2 * d] - size;
    if (low < 0)
      cropStart[2 + d] = -low;
    if (high < 0)
      cropLimit[2 + d] = size + high;
    crops |= low < 0 || high < 0;
    sweep[2 * d] = std::max<int64_t>(low, 0);
    sweep[2 * d + 1] = std::max<int64_t>(high, 0);
  }
  if (crops)
    spread = lazyc::slice(spread, cropStart, cropLimit, {}, where);
  Tensor flipped = wrap(in[1]);
  for (int64_t axis : {2, 3})
    flipped =
        lazyc::indexSelect(flipped, axis,
                           lazyc::arange(static_cast<double>(filters[axis] - 1),
                                         -1, -1, DType::Int64, where),
                           where);
  accumulate(in[0], detail::conv2d(
                        spread, lazyc::transpose(flipped, {1, 0, 2, 3}, where),
                        {1, 1}, dilation, sweep, where));
  Tensor sums =
      detail::conv2d(lazyc::transpose(wrap(in[0]), {1, 0, 2, 3}, where),
                     lazyc::transpose(g, {1, 0, 2, 3}, where), dilation, stride,
                     padding, where); // [C, F, >= KH, >= KW]
  Shape kernel = {filters[1], filters[0], filters[2], filters[3]};
  accumulate(in[1], lazyc::transpose(
                        lazyc::slice(sums, {0, 0, 0, 0}, kernel, {}, where),
                        {1, 0, 2, 3}, where));
}

} // namespace

//===----------------------------------------------------------------------===//
// GradientTape
//===----------------------------------------------------------------------===//

GradientTape::GradientTape(SourceLocation where) : state(new TapeState()) {
  state->where = where;
  liveTapes.push_back(state);
}

GradientTape::~GradientTape() {
  // Tapes die in reverse order of creation (scopes), but be robust to
  // out-of-order destruction (a moved unique_ptr).
  for (auto it = liveTapes.begin(); it != liveTapes.end(); ++it)
    if (*it == state) {
      liveTapes.erase(it);
      break;
    }
  delete state;
}

bool GradientTape::isRecording() const {
  return state->recording && !tapesPaused;
}

bool GradientTape::anyRecording() { return tape::recording(); }

void GradientTape::watch(const Tensor &x, SourceLocation where) {
  if (!x.defined())
    throw Error("watch",
                "the tensor is empty (default-constructed or moved "
                "from)",
                where);
  if (!isFloatingPoint(x.dtype()))
    throw Error("watch",
                std::string("only floating-point tensors have gradients; "
                            "this one is ") +
                    dtypeName(x.dtype()),
                where);
  state->watch(detail::TensorAccess::node(x));
}

namespace {
/// Pauses a tape while it builds its own backward pass (the tapes around
/// it keep recording: that is what makes second derivatives work).
struct PauseTape {
  explicit PauseTape(TapeState &state) : state(state), was(state.recording) {
    state.recording = false;
  }
  ~PauseTape() { state.recording = was; }
  TapeState &state;
  bool was;
};

void checkTarget(const Tensor &target, SourceLocation where) {
  if (!target.defined())
    throw Error("gradient", "the target is an empty Tensor", where);
  if (!isFloatingPoint(target.dtype()))
    throw Error("gradient",
                std::string("the target must be floating point to have a "
                            "gradient; it is ") +
                    dtypeName(target.dtype()) + " of shape " +
                    shapeText(target.shape()),
                where);
}

/// Runs the backward pass of `state` from `target`.
Backward backwardFrom(TapeState &state, const Tensor &target,
                      SourceLocation where) {
  checkTarget(target, where);
  // The backward pass's constants (the seed, zeros) live with the target.
  DeviceScope onTargetDevice(target.device());
  Backward backward(state, where);
  backward.outerDepth = engine::tracedRegions().size();
  backward.run(detail::TensorAccess::node(target),
               lazyc::ones(target.shape(), target.dtype(), where));
  return backward;
}
} // namespace

std::vector<Tensor> GradientTape::gradient(const Tensor &target,
                                           const std::vector<Tensor> &sources,
                                           SourceLocation where) {
  for (const Tensor &source : sources) {
    if (!source.defined())
      throw Error("gradient", "a source is an empty Tensor", where);
    if (!isFloatingPoint(source.dtype()))
      throw Error("gradient",
                  std::string("sources must be floating point; one is ") +
                      dtypeName(source.dtype()),
                  where);
  }
  PauseTape pause(*state);
  Backward backward = backwardFrom(*state, target, where);
  std::vector<Tensor> result;
  for (const Tensor &source : sources) {
    Tensor g = backward.gradientOf(detail::TensorAccess::node(source).get());
    result.push_back(
        g.defined() ? g : lazyc::zeros(source.shape(), source.dtype(), where));
  }
  return result;
}

std::vector<Tensor>
GradientTape::gradient(const Tensor &target,
                       const std::vector<VariableRef> &sources,
                       SourceLocation where) {
  for (const VariableRef &ref : sources) {
    const Variable *source = &ref.get();
    if (!source->defined())
      throw Error("gradient", "a source is an empty Variable", where);
    if (!isFloatingPoint(source->dtype()))
      throw Error("gradient",
                  "sources must be floating point; variable '" +
                      source->name() + "' is " + dtypeName(source->dtype()),
                  where);
  }
  PauseTape pause(*state);
  Backward backward = backwardFrom(*state, target, where);
  std::vector<Tensor> result;
  for (const VariableRef &ref : sources) {
    const Variable *source = &ref.get();
    // Every value the variable was read as while the tape recorded.
    Tensor total;
    auto reads = state->variableReads.find(source->id());
    if (reads != state->variableReads.end())
      for (const NodePtr &read : reads->second) {
        Tensor g = backward.gradientOf(read.get());
        if (g.defined())
          total = total.defined() ? Tensor(At(total, where) + g) : g;
      }
    result.push_back(total.defined() ? total
                                     : lazyc::zeros(source->shape(),
                                                    source->dtype(), where));
  }
  return result;
}

std::vector<Tensor>
GradientTape::gradient(const Tensor &target,
                       const std::vector<Variable *> &sources,
                       SourceLocation where) {
  std::vector<VariableRef> refs;
  for (Variable *source : sources) {
    if (!source)
      throw Error("gradient", "a source is a null Variable pointer", where);
    refs.emplace_back(*source);
  }
  return gradient(target, refs, where);
}

Tensor GradientTape::gradient(const Tensor &target, const Tensor &source,
                              SourceLocation where) {
  return gradient(target, std::vector<Tensor>{source}, where).front();
}

Tensor GradientTape::gradient(const Tensor &target, const Variable &source,
                              SourceLocation where) {
  return gradient(target, std::vector<VariableRef>{source}, where).front();
}

NoGradScope::NoGradScope() : previous(tapesPaused) { tapesPaused = true; }
NoGradScope::~NoGradScope() { tapesPaused = previous; }

//===- MlOps.cpp - ONNX's ai.onnx.ml ops on numbers ----------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The kernels of the ai.onnx.ml domain whose inputs and outputs are numeric
// tensors: Binarizer, ArrayFeatureExtractor and TreeEnsemble (opset 5). A
// tree's structure is in its attributes, so it is recorded as the
// comparisons on the path to each leaf, not walked per sample.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace lazyc;
using namespace lazyc::onnx::detail;

namespace {

using Tensors = std::vector<Tensor>;

Tensors binarizer(const NodeContext &node) {
  const Tensor &x = node.input(0);
  double threshold = node.attribute("threshold", 0.0);
  return {where(x > threshold, ones({}, x.dtype()), zeros({}, x.dtype()))};
}

/// data[..., indices] (the indices flattened); a vector's result is one
/// row, as ONNX Runtime gives.
Tensors arrayFeatureExtractor(const NodeContext &node) {
  const Tensor &data = node.input(0);
  Tensor indices = reshape(node.input(1), {-1});
  Tensor picked = indexSelect(data, data.rank() - 1, indices);
  if (data.rank() == 1)
    picked = reshape(picked, {1, picked.shape()[0]});
  return {picked};
}

/// TreeEnsemble's node modes.
enum class Mode {
  LessOrEqual,
  Less,
  GreaterOrEqual,
  Greater,
  Equal,
  NotEqual,
  Member
};

/// TreeEnsemble (ai.onnx.ml opset 5): for each sample the leaf each tree
/// reaches, its weight added to (or averaged into, or the minimum or maximum
/// of) its target's score. Each interior node is one comparison of a
/// feature (in Float64, where every input type is exact); a leaf is reached
/// where every comparison on its path goes its way. Sums and averages are
/// one product of the reached leaves [N, leaves] with their weights
/// [leaves, targets].
Tensors treeEnsemble(const NodeContext &node) {
  const Tensor &x = node.input(0);
  if (x.rank() != 2 || !isFloatingPoint(x.dtype()))
    node.fail("needs X of floats [N, features], not " +
              std::string(dtypeName(x.dtype())) + " of rank " +
              std::to_string(x.rank()));
  std::vector<double> splits = node.attributeNumbers("nodes_splits");
  std::vector<double> modes = node.attributeNumbers("nodes_modes");
  std::vector<int64_t> features = node.attributeInts("nodes_featureids");
  std::vector<int64_t> trueIds = node.attributeInts("nodes_truenodeids");
  std::vector<int64_t> falseIds = node.attributeInts("nodes_falsenodeids");
  std::vector<int64_t> trueLeafs = node.attributeInts("nodes_trueleafs");
  std::vector<int64_t> falseLeafs = node.attributeInts("nodes_falseleafs");
  std::vector<int64_t> missingTrue =
      node.attributeInts("nodes_missing_value_tracks_true");
  std::vector<int64_t> targets = node.attributeInts("leaf_targetids");
  std::vector<double> weights = node.attributeNumbers("leaf_weights");
  std::vector<int64_t> roots = node.attributeInts("tree_roots");
  std::vector<double> members = node.attributeNumbers("membership_values");
  int64_t targetCount = node.attribute("n_targets", int64_t(0));
  int64_t aggregate = node.attribute("aggregate_function", int64_t(1));
  int64_t transform = node.attribute("post_transform", int64_t(0));
  size_t nodes = splits.size();
  if (modes.size() != nodes || features.size() != nodes ||
      trueIds.size() != nodes || falseIds.size() != nodes ||
      trueLeafs.size() != nodes || falseLeafs.size() != nodes ||
      (!missingTrue.empty() && missingTrue.size() != nodes))
    node.fail("needs one entry per node in every nodes_* attribute (" +
              std::to_string(nodes) + " splits)");
  if (targets.size() != weights.size())
    node.fail("needs one leaf_targetids entry per leaf weight");
  if (targetCount <= 0 || roots.empty())
    node.fail("needs n_targets and tree_roots");
  for (int64_t target : targets)
    if (target < 0 || target >= targetCount)
      node.fail("leaf target " + std::to_string(target) + " is not below " +
                "n_targets " + std::to_string(targetCount));
  if (aggregate < 0 || aggregate > 3)
    node.fail("aggregate_function " + std::to_string(aggregate) +
              " is none of AVERAGE, SUM, MIN, MAX (0 to 3)");
  if (transform < 0 || transform > 3)
    node.fail("post_transform " + std::to_string(transform) +
              (transform == 4 ? " (PROBIT) is not supported"
                              : " is none of NONE, SOFTMAX, LOGISTIC, "
                                "SOFTMAX_ZERO, PROBIT (0 to 4)"));
  // The set of each MEMBER node: membership_values' runs between NaNs, in
  // node order.
  std::vector<std::vector<double>> sets(nodes);
  size_t next = 0;
  for (size_t i = 0; i < nodes; ++i) {
    if (Mode(int64_t(modes[i])) != Mode::Member)
      continue;
    while (next < members.size() && !std::isnan(members[next]))
      sets[i].push_back(members[next++]);
    if (next++ >= members.size())
      node.fail("membership_values ends before the set of node " +
                std::to_string(i));
  }
  int64_t featureCount = x.shape()[1];
  Tensor wide = cast(x, DType::Float64);
  // Each interior node's comparison, recorded once (nodes may be shared).
  std::vector<Tensor> goesTrue(nodes);
  auto comparison = [&](size_t i) -> const Tensor & {
    if (goesTrue[i].defined())
      return goesTrue[i];
    if (features[i] < 0 || features[i] >= featureCount)
      node.fail("node " + std::to_string(i) + " reads feature " +
                std::to_string(features[i]) + " of " +
                std::to_string(featureCount));
    Tensor value = reshape(
        slice(wide, {0, features[i]}, {x.shape()[0], features[i] + 1}), {-1});
    Tensor split = full({}, splits[i], DType::Float64);
    Tensor result;
    switch (Mode(int64_t(modes[i]))) {
    case Mode::LessOrEqual:
      result = value <= split;
      break;
    case Mode::Less:
      result = value < split;
      break;
    case Mode::GreaterOrEqual:
      result = value >= split;
      break;
    case Mode::Greater:
      result = value > split;
      break;
    case Mode::Equal:
      result = value == split;
      break;
    case Mode::NotEqual:
      result = value != split;
      break;
    case Mode::Member:
      result = zeros(value.shape(), DType::Bool);
      for (double member : sets[i])
        result = logicalOr(result, value == full({}, member, DType::Float64));
      break;
    default:
      node.fail("node " + std::to_string(i) + " has mode " +
                std::to_string(int64_t(modes[i])) +
                ", none of BRANCH_LEQ ... BRANCH_MEMBER (0 to 6)");
    }
    if (!missingTrue.empty() && missingTrue[i])
      result = logicalOr(result, value != value); // NaN
    return goesTrue[i] = result;
  };
  // Every leaf each tree reaches: the conjunction of its path's outcomes.
  std::vector<Tensor> reached;
  std::vector<size_t> leaves;
  std::function<void(int64_t, bool, const Tensor &, size_t)> walk =
      [&](int64_t id, bool isLeaf, const Tensor &path, size_t depth) {
        if (isLeaf) {
          if (id < 0 || size_t(id) >= weights.size())
            node.fail("leaf " + std::to_string(id) + " is not one of the " +
                      std::to_string(weights.size()) + " leaf weights");
          reached.push_back(path);
          leaves.push_back(size_t(id));
          return;
        }
        if (id < 0 || size_t(id) >= nodes || depth > nodes)
          node.fail("node " + std::to_string(id) +
                    " is not an interior node of a tree");
        const Tensor &yes = comparison(size_t(id));
        Tensor no = logicalNot(yes);
        walk(trueIds[id], trueLeafs[id] != 0,
             path.defined() ? logicalAnd(path, yes) : yes, depth + 1);
        walk(falseIds[id], falseLeafs[id] != 0,
             path.defined() ? logicalAnd(path, no) : no, depth + 1);
      };
  int64_t samples = x.shape()[0];
  for (int64_t root : roots) {
    if (root < 0 || size_t(root) >= nodes)
      node.fail("tree root " + std::to_string(root) + " is not a node");
    // A tree that is one leaf: both branches the same leaf.
    if (trueLeafs[root] && falseLeafs[root] && trueIds[root] == falseIds[root])
      walk(trueIds[root], true, ones({samples}, DType::Bool), 0);
    else
      walk(root, false, Tensor(), 0);
  }
  Tensor scores;
  if (aggregate <= 1) { // AVERAGE, SUM
    std::vector<double> table(leaves.size() * targetCount, 0.0);
    double share = aggregate == 0 ? 1.0 / double(roots.size()) : 1.0;
    for (size_t l = 0; l < leaves.size(); ++l)
      table[l * targetCount + targets[leaves[l]]] = weights[leaves[l]] * share;
    std::vector<Tensor> columns;
    for (const Tensor &mask : reached)
      columns.push_back(reshape(cast(mask, DType::Float64), {samples, 1}));
    scores = matmul(
        concat(columns, 1),
        Tensor::fromVector(table, {int64_t(leaves.size()), targetCount}));
  } else { // MIN, MAX: from the dtype's largest or lowest finite value
    bool minimum = aggregate == 2;
    double start = minimum ? -lowestFinite(x.dtype()) : lowestFinite(x.dtype());
    std::vector<Tensor> columns;
    for (int64_t t = 0; t < targetCount; ++t) {
      Tensor column = full({samples}, start, DType::Float64);
      for (size_t l = 0; l < leaves.size(); ++l) {
        if (targets[leaves[l]] != t)
          continue;
        Tensor weight = full({}, weights[leaves[l]], DType::Float64);
        Tensor better = minimum ? lazyc::minimum(column, weight)
                                : lazyc::maximum(column, weight);
        column = where(reached[l], better, column);
      }
      columns.push_back(reshape(column, {samples, 1}));
    }
    scores = concat(columns, 1);
  }
  switch (transform) {
  case 1: // SOFTMAX
    scores = softmax(scores, -1);
    break;
  case 2: // LOGISTIC
    scores = sigmoid(scores);
    break;
  case 3: { // SOFTMAX_ZERO: zero scores stay zero, out of the softmax
    Tensor kept = scores != 0.0;
    Tensor lowest =
        full({}, -std::numeric_limits<double>::infinity(), DType::Float64);
    Tensor normalized = softmax(where(kept, scores, lowest), -1);
    scores = where(kept, normalized, zeros({}, DType::Float64));
    break;
  }
  default:
    break;
  }
  return {cast(scores, x.dtype())};
}

} // namespace

void lazyc::onnx::detail::addMlKernels(std::map<std::string, Kernel> &table) {
  table["ai.onnx.ml:Binarizer"] = binarizer;
  table["ai.onnx.ml:ArrayFeatureExtractor"] = arrayFeatureExtractor;
  table["ai.onnx.ml:TreeEnsemble"] = treeEnsemble;
}

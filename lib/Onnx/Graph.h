//===- Graph.h - A loaded ONNX graph and the node kernels -------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The parsed model kept for its calls, and the table of kernels: one
// function per ONNX op that records the node's computation with lazyc ops.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_ONNX_GRAPH_H
#define LAZYC_LIB_ONNX_GRAPH_H

#include "lazyc/API/Ops.h"
#include "lazyc/Onnx/Onnx.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lazyc::onnx::detail {

/// A small integer value known on the host (a shape, axes, an index).
struct HostValue {
  DType dtype = DType::Int64;
  std::vector<int64_t> shape;
  std::vector<int64_t> values;
};

struct Graph {
  std::string path;
  int64_t opset = 0;
  /// The opsets the model imports of the other domains ("ai.onnx.ml").
  std::map<std::string, int64_t> domainOpsets;
  ::onnx::GraphProto proto;
  std::vector<ValueInfo> inputs, outputs;
  /// The initializers, in the model's order.
  std::vector<std::unique_ptr<Variable>> parameters;
  std::map<std::string, Variable *> parameterByName;
  /// The small integer initializers' values (see HostValue).
  std::map<std::string, HostValue> knownInitializers;
};

/// "model.onnx: node 'conv1' (Conv)": where an error is.
std::string describeNode(const Graph &graph, const ::onnx::NodeProto &node);

/// lazyc's dtype for an ONNX TensorProto element type; an Error naming
/// `context` for one lazyc lacks.
DType dtypeFromOnnx(int32_t elementType, const std::string &context);

/// The tensor a TensorProto holds (its data inline, in raw_data or typed
/// fields, or external, in a file beside the model in `directory`).
Tensor tensorFromProto(const ::onnx::TensorProto &proto,
                       const std::string &directory,
                       const std::string &context);

/// The value of an INT64 or INT32 TensorProto of at most a few thousand
/// elements, inline; nothing otherwise.
std::optional<HostValue> hostValueOf(const ::onnx::TensorProto &proto);
/// A constant tensor holding `value`.
Tensor tensorOf(const HostValue &value);

class NodeContext;
/// What a Shape node gives for `shape`: its start..end dimensions.
HostValue shapeValue(const NodeContext &node,
                     const std::vector<int64_t> &shape);

/// One node being recorded: its inputs and attributes.
class NodeContext {
public:
  NodeContext(const Graph &graph, const ::onnx::NodeProto &node,
              std::vector<Tensor> inputs,
              std::vector<const HostValue *> known = {},
              SourceLocation where = SourceLocation::current())
      : graph(graph), node(node), where(where), values(std::move(inputs)),
        known(std::move(known)) {}

  int64_t opset() const { return graph.opset; }
  size_t inputCount() const { return values.size(); }
  /// Whether input `i` is given (an optional input may be left empty).
  bool has(size_t i) const { return i < values.size() && values[i].defined(); }
  /// Input `i`; an Error if the node leaves it out.
  const Tensor &input(size_t i) const;
  /// The elements of input `i`, a small integer tensor (a shape, axes):
  /// they decide the shapes of what the node records, so they are read
  /// now (computing them first if they are not known yet).
  std::vector<int64_t> integers(size_t i) const;
  /// The same for a scalar input, as a double.
  double scalar(size_t i) const;

  bool hasAttribute(const std::string &name) const;
  int64_t attribute(const std::string &name, int64_t otherwise) const;
  double attribute(const std::string &name, double otherwise) const;
  std::string attribute(const std::string &name,
                        const std::string &otherwise) const;
  std::vector<int64_t> attributeInts(const std::string &name) const;
  std::vector<float> attributeFloats(const std::string &name) const;
  /// A STRINGS attribute's values (none if absent).
  std::vector<std::string> attributeStrings(const std::string &name) const;
  Tensor attributeTensor(const std::string &name) const;
  /// A TENSOR attribute's elements read on the host, as doubles (exact for
  /// every float and integer type of up to 32 bits; none if absent): values
  /// that decide what the node records, such as a tree's splits.
  std::vector<double> attributeNumbers(const std::string &name) const;

  /// Throws an Error naming the node.
  [[noreturn]] void fail(const std::string &message) const;

  const Graph &graph;
  const ::onnx::NodeProto &node;
  /// The user's call of the model: what a value read on the host (a shape,
  /// a data-dependent size) names as its place (LAZYC_EXPLAIN).
  SourceLocation where;

private:
  const ::onnx::AttributeProto *find(const std::string &name) const;
  std::vector<Tensor> values;
  std::vector<const HostValue *> known;
};

/// The node's outputs computed on the host (see HostValues.cpp) when it is
/// shape arithmetic on values known there; nothing otherwise.
std::optional<std::vector<HostValue>>
foldOnHost(const NodeContext &node, const std::vector<Tensor> &inputs,
           const std::vector<const HostValue *> &known);

using Kernel = std::function<std::vector<Tensor>(const NodeContext &)>;

/// Every kernel, by op type; an op of another domain than the default one
/// as "<domain>:<op type>" (kernelName()).
const std::map<std::string, Kernel> &kernels();
std::string kernelName(const ::onnx::NodeProto &node);

/// The kernels of ai.onnx.preview.training (TrainingOps.cpp) and of the
/// signal ops: windows, DFT, STFT, MelWeightMatrix (SignalOps.cpp).
void addTrainingKernels(std::map<std::string, Kernel> &table);
void addSignalKernels(std::map<std::string, Kernel> &table);
/// QuantizeLinear and its family (QuantizedOps.cpp).
void addQuantizedKernels(std::map<std::string, Kernel> &table);
void addAttentionKernels(std::map<std::string, Kernel> &table);
/// Binarizer, ArrayFeatureExtractor, TreeEnsemble of ai.onnx.ml (MlOps.cpp).
void addMlKernels(std::map<std::string, Kernel> &table);

/// x rounded to the nearest integer, ties to even (ONNX's Round).
Tensor roundHalfEven(const Tensor &x);

/// `axis` counted from the end when negative; an Error naming the node if
/// it is outside [-rank, rank).
int64_t normalizeAxis(const NodeContext &node, int64_t axis, int64_t rank);

/// What a normalization computes its statistics on: x, in Float32 when it
/// is Float16 or BFloat16 (stash_type 1, the only one supported).
Tensor statisticsOf(const NodeContext &node, const Tensor &x);

inline bool isFloat(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float64 ||
         dtype == DType::Float16 || dtype == DType::BFloat16;
}

/// A 0-d tensor of `value` in `like`'s dtype (a constant of the op).
inline Tensor constant(double value, const Tensor &like) {
  return full({}, value, like.dtype());
}

} // namespace lazyc::onnx::detail

#endif // LAZYC_LIB_ONNX_GRAPH_H

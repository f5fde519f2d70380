//===- Onnx.h - Run ONNX models through lazyc -------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An ONNX model, loaded once, is called like a function: each call records
// its graph's nodes as lazyc ops, so the model is traced, cached, fused and
// compiled like any lazyc code, and a call with new shapes or new input
// values compiles nothing new when the structure is the same.
//
//   lazyc::onnx::Model model = lazyc::onnx::load("model.onnx");
//   lazyc::Tensor y = model(x);
//   std::vector<float> values = y.toVector<float>();
//
// Initializers (the trained weights) become Variables: `parameters()` can
// be trained with a GradientTape and an optimizer.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_ONNX_ONNX_H
#define LAZYC_ONNX_ONNX_H

#include "lazyc/API/Error.h"
#include "lazyc/API/Function.h"
#include "lazyc/API/Tensor.h"
#include "lazyc/API/Variable.h"

#include <memory>
#include <string>
#include <vector>

namespace lazyc::onnx {

namespace detail {
struct Graph;
void saveFunction(const ::lazyc::detail::FunctionState &state,
                  const std::string &path, SourceLocation where);
} // namespace detail

/// A graph input or output as the model declares it.
struct ValueInfo {
  std::string name;
  DType dtype = DType::Float32;
  /// -1 for a dimension the model leaves unknown or names symbolically.
  std::vector<int64_t> shape;
  /// The symbolic names of those dimensions ("batch"), "" where none.
  std::vector<std::string> dimensionNames;
};

class Model {
public:
  /// Runs the graph on `inputs`, in the order of inputs() (initializers
  /// are not inputs), and returns its outputs in the order of outputs().
  /// Each input must have the declared dtype, and the declared size along
  /// every known dimension.
  std::vector<Tensor>
  operator()(const std::vector<Tensor> &inputs,
             SourceLocation where = SourceLocation::current()) const;
  /// A model of one input and one output.
  Tensor operator()(const Tensor &input,
                    SourceLocation where = SourceLocation::current()) const;

  const std::vector<ValueInfo> &inputs() const;
  const std::vector<ValueInfo> &outputs() const;
  /// The initializers, as Variables named as in the model.
  std::vector<Variable *> parameters() const;
  /// The file it was loaded from.
  const std::string &path() const;
  /// The default-domain opset the model imports.
  int64_t opsetVersion() const;

private:
  friend Model load(const std::string &path, SourceLocation where);
  explicit Model(std::shared_ptr<detail::Graph> graph);
  std::shared_ptr<detail::Graph> graph;
};

/// Reads an ONNX model. A missing, truncated or corrupt file, an opset
/// newer than supportedOpsetVersion(), an op lazyc does not map (see
/// supportedOps()), an attribute it does not support, a dtype lazyc lacks,
/// or external data that cannot be read is an Error naming the file, and
/// the node (name, op, domain) where there is one.
Model load(const std::string &path,
           SourceLocation where = SourceLocation::current());

/// A tensor stored as a serialized ONNX TensorProto (the .pb files of
/// ONNX's test data); an Error naming the file if it cannot be read.
Tensor loadTensor(const std::string &path,
                  SourceLocation where = SourceLocation::current());

/// Writes the first concrete function of `function` (traced at the
/// argument types of its first call) as an ONNX model of opset 17, for
/// ONNX Runtime and other runtimes: the Tensor arguments are the graph's
/// inputs, in order and named as the signature names them; the Variables
/// and other values it reads are initializers (Variables under their
/// names); its results are the outputs ("output", or "output_<i>"), then
/// the new value of each Variable it assigns ("<name>_new"). A dimension
/// the signature leaves unknown (-1) stays symbolic ("x_dim0"; unknown
/// dimensions of the same size at the first call are one). cond and
/// whileLoop become ONNX's If and Loop (in functions of static shapes).
/// Collectives, control flow over unknown dimensions, and sizes that ONNX
/// cannot compute from the inputs' shapes are an Error naming the op and
/// where it was recorded. Random ops become ONNX's, which draw other
/// numbers.
template <typename F, typename A>
void save(const ::lazyc::detail::StagedFunction<F, A> &function,
          const std::string &path,
          SourceLocation where = SourceLocation::current()) {
  detail::saveFunction(*function.handle(), path, where);
}

/// The ops load() maps, sorted: those of the default domain by name ("Conv"),
/// others as "<domain>:<name>" ("ai.onnx.preview.training:Adam").
std::vector<std::string> supportedOps();
/// The newest default-domain opset load() accepts.
int64_t supportedOpsetVersion();

} // namespace lazyc::onnx

#endif // LAZYC_ONNX_ONNX_H

//===- Linear.h - Fully connected layers ------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// nn::Linear (y = x W + b, with W and b as lazyc::Variable) and nn::Mlp, a
// stack of Linear layers with ReLU between them. Parameters are handed to
// optimizers as Variable pointers, so a layer must stay where it is (not be
// moved) while an optimizer holds them.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_NN_LINEAR_H
#define LAZYC_NN_LINEAR_H

#include "lazyc/API/Autodiff.h"
#include "lazyc/API/Variable.h"
#include "lazyc/NN/Init.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace lazyc::nn {

class Linear {
public:
  struct Options {
    Init weightInit = Init::KaimingUniform;
    bool bias = true; ///< the bias starts at zero
    DType dtype = DType::Float32;
  };

  /// W is [inFeatures, outFeatures] (so the forward product needs no
  /// transpose), initialized from `seed`; b is [outFeatures].
  Linear(int64_t inFeatures, int64_t outFeatures, int64_t seed, Options options,
         std::string name = "linear", Where where = Where::current());
  Linear(int64_t inFeatures, int64_t outFeatures, int64_t seed,
         std::string name = "linear", Where where = Where::current())
      : Linear(inFeatures, outFeatures, seed, Options(), std::move(name),
               where) {}
  /// A layer whose weight is `shared`, a 2-D Variable another module owns
  /// (a language model's output projection tied to its token embedding).
  /// With `transposed`, `shared` is [outFeatures, inFeatures] (an embedding
  /// table [vocabulary, dim] for a head from dim to vocabulary) and the
  /// product is x shared^T, read in place; else it is [inFeatures,
  /// outFeatures]. Gradients reach `shared` through every use. The bias
  /// (options.bias, of shared's dtype) is the layer's own, and parameters()
  /// lists only it: the owner lists the weight. `shared` must outlive the
  /// layer and stay where it is.
  Linear(Variable &shared, bool transposed, Options options,
         std::string name = "linear", Where where = Where::current());
  Linear(Linear &&) noexcept = default;
  Linear &operator=(Linear &&) noexcept = default;

  /// x [..., inFeatures] -> [..., outFeatures] (recorded; runs nothing).
  Tensor forward(const Tensor &x, Where where = Where::current()) const;
  Tensor operator()(const Tensor &x, Where where = Where::current()) const {
    return forward(x, where);
  }

  /// W, then b when the layer has one (b alone for a shared weight).
  std::vector<Variable *> parameters();
  /// W, or the shared Variable (as its owner stores it: transposed if so).
  Variable &weight() { return sharedWeight ? *sharedWeight : weightVariable; }
  bool sharesWeight() const { return sharedWeight != nullptr; }
  Variable &bias() { return biasVariable; }
  bool hasBias() const { return biasVariable.defined(); }
  int64_t inFeatures() const { return inSize; }
  int64_t outFeatures() const { return outSize; }

private:
  int64_t inSize, outSize;
  Variable weightVariable;
  Variable biasVariable;
  Variable *sharedWeight = nullptr;
  bool transposedWeight = false;
};

/// Linear layers of the given sizes (`{784, 512, 512, 10}` is three
/// layers) with ReLU after every layer but the last; the output is logits.
/// Layer i is initialized (Kaiming uniform weights, zero biases) from
/// seed + i.
class Mlp {
public:
  Mlp(const std::vector<int64_t> &sizes, int64_t seed,
      DType dtype = DType::Float32, Where where = Where::current());
  Mlp(Mlp &&) noexcept = default;
  Mlp &operator=(Mlp &&) noexcept = default;

  Tensor forward(const Tensor &x, Where where = Where::current()) const;
  Tensor operator()(const Tensor &x, Where where = Where::current()) const {
    return forward(x, where);
  }

  /// Every layer's parameters, in layer order.
  std::vector<Variable *> parameters();
  std::vector<Linear> &layers() { return stack; }

private:
  std::vector<Linear> stack;
};

/// The parameters as GradientTape::gradient takes them:
/// `tape.gradient(loss, nn::refs(model.parameters()))`.
std::vector<VariableRef> refs(const std::vector<Variable *> &variables);

/// The parameters by name() (PyTorch's named_parameters), the map
/// `loadVariables(path, map)` loads a checkpoint into by name. An unnamed
/// parameter, or two with one name, is an error naming their positions.
std::map<std::string, Variable *>
namedParameters(const std::vector<Variable *> &parameters,
                Where where = Where::current());

} // namespace lazyc::nn

#endif // LAZYC_NN_LINEAR_H

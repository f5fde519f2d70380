//===- Export.h - Saving staged functions and loading them ------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Seed 003's "export of functions and state": lazyc::save writes a staged
// function to one versioned `.lazyc` file (its concrete functions as MLIR
// bytecode, what each takes and returns, and the values of the Variables
// they use); lazyc::load in another process returns a callable with the
// same results, and `lazyc-run model.lazyc --input=x.npy` runs it.
//
//   lazyc::save(step, "model.lazyc");
//   LoadedFunction step2 = lazyc::load("model.lazyc");
//   std::vector<Tensor> out = step2({batch, labels});
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_EXPORT_H
#define LAZYC_API_EXPORT_H

#include "lazyc/API/Function.h"
#include "lazyc/API/Variable.h"

#include <string>
#include <vector>

namespace lazyc {

namespace detail {
void saveFunction(const FunctionState &state, const std::string &path,
                  SourceLocation where);
struct LoadedState;
} // namespace detail

/// Writes every concrete function of `function` called so far, traced at the
/// argument types of its first call, with the current values of the
/// Variables it uses. Errors (a body that cannot be called again because it
/// is not copyable, an unwritable path) are a lazyc::Error.
template <typename F, typename A>
void save(const detail::StagedFunction<F, A> &function, const std::string &path,
          SourceLocation where = SourceLocation::current()) {
  detail::saveFunction(*function.handle(), path, where);
}

/// A function lazyc::load read back: call it with the Tensor arguments of
/// one of its concrete functions; it returns that function's results, and
/// updates its Variables as the original did.
class LoadedFunction {
public:
  LoadedFunction(LoadedFunction &&other) noexcept;
  LoadedFunction &operator=(LoadedFunction &&other) noexcept;
  LoadedFunction(const LoadedFunction &) = delete;
  LoadedFunction &operator=(const LoadedFunction &) = delete;
  ~LoadedFunction();

  std::vector<Tensor>
  operator()(const std::vector<Tensor> &inputs,
             SourceLocation where = SourceLocation::current());
  const std::string &name() const;
  /// The concrete functions' signatures, as concreteFunctions() gave them.
  std::vector<std::string> signatures() const;
  /// The function's Variables (their saved values, then as calls update
  /// them), by name.
  Variable &variable(const std::string &name);
  std::vector<std::string> variableNames() const;

private:
  friend LoadedFunction load(const std::string &path, SourceLocation where);
  explicit LoadedFunction(detail::LoadedState *state) : state(state) {}
  detail::LoadedState *state;
};

/// Reads a `.lazyc` file lazyc::save wrote and compiles its functions. A
/// missing, truncated or corrupted file, or one of another format version,
/// is a lazyc::Error naming the file and the problem.
LoadedFunction load(const std::string &path,
                    SourceLocation where = SourceLocation::current());

} // namespace lazyc

#endif // LAZYC_API_EXPORT_H

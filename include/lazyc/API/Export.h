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
//   std::vector<Tensor> out = step2(batch, labels);   // or step2({batch,
//   labels})
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_EXPORT_H
#define LAZYC_API_EXPORT_H

#include "lazyc/API/Device.h"
#include "lazyc/API/Function.h"
#include "lazyc/API/Variable.h"

#include <string>
#include <type_traits>
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

/// What a LoadedFunction called with Tensors returns: the one Tensor of a
/// function of one result (`Tensor y = g(x);`), or all of its results
/// (`std::vector<Tensor> ys = g(x, y);`).
class LoadedResults {
public:
  LoadedResults(std::vector<Tensor> values, std::string function,
                SourceLocation where)
      : values(std::move(values)), function(std::move(function)), where(where) {
  }
  /// The one result; an Error naming the function if it has another count.
  operator Tensor() const;
  operator std::vector<Tensor>() const { return values; }
  size_t size() const { return values.size(); }
  const Tensor &operator[](size_t i) const { return values.at(i); }
  std::vector<Tensor>::const_iterator begin() const { return values.begin(); }
  std::vector<Tensor>::const_iterator end() const { return values.end(); }

private:
  std::vector<Tensor> values;
  std::string function;
  SourceLocation where;
};

/// A function lazyc::load read back: call it as the saved function was
/// called, `g(x)` or `g(x, y)`, or with a vector of its Tensor arguments,
/// `g({x, y})`; it runs the concrete function saved for those argument
/// types, returns its results, and updates its Variables as the original
/// did.
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
  /// g(x), g(x, y), ...: as the saved function was called. (A template,
  /// so that `g({x})` stays the vector form above.)
  template <typename... T, typename = std::enable_if_t<(
                               std::is_same_v<std::decay_t<T>, Tensor> && ...)>>
  LoadedResults operator()(detail::Located<Tensor> first, const T &...rest) {
    std::vector<Tensor> inputs = {std::move(first.value), rest...};
    return LoadedResults((*this)(inputs, first.where), name(), first.where);
  }
  const std::string &name() const;
  /// The device it runs on: its inputs must live there, its results and
  /// Variables do.
  Device device() const;
  /// The function compiled for `device`, its Variables (as calls left
  /// them) copied there.
  LoadedFunction to(Device device,
                    SourceLocation where = SourceLocation::current()) const;
  /// The concrete functions' signatures, as concreteFunctions() gave them.
  std::vector<std::string> signatures() const;
  /// The function's Variables (their saved values, then as calls update
  /// them), by name.
  Variable &variable(const std::string &name);
  std::vector<std::string> variableNames() const;

private:
  friend LoadedFunction load(const std::string &path, Device device,
                             SourceLocation where);
  explicit LoadedFunction(detail::LoadedState *state) : state(state) {}
  detail::LoadedState *state;
};

/// Reads a `.lazyc` file lazyc::save wrote and compiles its functions. A
/// missing, truncated or corrupted file, or one of another format version,
/// is a lazyc::Error naming the file and the problem.
/// The functions lazyc::save wrote to `path`, compiled for `device` (the
/// thread's default device unless given), with their saved Variables
/// there. A dimension the saved signature left unknown (-1) takes any size.
LoadedFunction load(const std::string &path, Device device = defaultDevice(),
                    SourceLocation where = SourceLocation::current());

} // namespace lazyc

#endif // LAZYC_API_EXPORT_H

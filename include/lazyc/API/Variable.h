//===- Variable.h - State that lives across steps ---------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares lazyc::Variable: a named, mutable slot holding a tensor
// across training steps (weights, optimizer moments). Assignments are
// recorded like any op: `w.assignSub(lr * grad)` runs nothing; the next
// materialization computes the new value in the same trace as the step that
// produced it, in program order, and writes it over the old buffer when
// nothing else can still read the old value.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_VARIABLE_H
#define LAZYC_API_VARIABLE_H

#include "lazyc/API/Tensor.h"

#include <string>

namespace lazyc {

namespace detail {
struct VariableState;
} // namespace detail

class Variable {
public:
  /// An empty variable; using it is an error.
  Variable();
  /// A variable holding `initial` (its shape and dtype are the variable's
  /// for good). Reading it under a GradientTape watches it.
  explicit Variable(const Tensor &initial, std::string name = "",
                    SourceLocation where = SourceLocation::current());
  Variable(Variable &&other) noexcept;
  Variable &operator=(Variable &&other) noexcept;
  /// A variable is one piece of state: copy its value with `read()`.
  Variable(const Variable &) = delete;
  Variable &operator=(const Variable &) = delete;
  ~Variable();

  /// The current value (lazy). Every active GradientTape watches it.
  Tensor read(SourceLocation where = SourceLocation::current()) const;
  /// Replaces the value; `value` must have the variable's shape and a dtype
  /// that converts to it without loss of kind (it is cast to the dtype).
  void assign(const Tensor &value,
              SourceLocation where = SourceLocation::current());
  void assignAdd(const Tensor &delta,
                 SourceLocation where = SourceLocation::current());
  void assignSub(const Tensor &delta,
                 SourceLocation where = SourceLocation::current());

  const std::vector<int64_t> &shape() const;
  DType dtype() const;
  int64_t numel() const;
  const std::string &name() const;
  bool defined() const { return state != nullptr; }
  /// Identifies the variable (stable across moves), for tapes.
  uint64_t id() const;

private:
  const detail::VariableState &checked(const char *what) const;
  detail::VariableState *state = nullptr;
};

} // namespace lazyc

#endif // LAZYC_API_VARIABLE_H

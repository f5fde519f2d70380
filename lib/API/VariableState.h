//===- VariableState.h - What a Variable holds ------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycAPI: a Variable's state, shared by Variable.cpp and the
// control flow that turns assignments in a branch into results of the branch.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_API_VARIABLESTATE_H
#define LAZYC_LIB_API_VARIABLESTATE_H

#include "lazyc/API/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lazyc::detail {

struct VariableState {
  Tensor value;
  std::string name;
  uint64_t id;

  /// "variable 'w'", or "a variable" when it has no name.
  std::string describe() const {
    return name.empty() ? "a variable" : "variable '" + name + "'";
  }
};

/// Called by Variable::assign before it replaces `state.value`: while a
/// branch is traced, the assignment becomes a result of its cond.
void assigningVariable(VariableState &state, SourceLocation where);

/// Called by the Variable constructor: a lazyc::function may create state
/// on its first call only.
void creatingVariable(const std::string &name, SourceLocation where);

/// Whether a lazyc::function's call is being traced on this thread (the
/// Variables it creates and reads are then part of that trace).
bool tracingFunctionCall();

/// Called when a Variable is read or assigned: the functions running list
/// it as captured, and the collector set below, if any, gets it.
void usingVariable(const VariableState &state);

/// Collects the Variables read or assigned on this thread into `collector`
/// while it is set (lazyc::save names the values it saves); null stops.
void collectVariables(std::vector<const VariableState *> *collector);

} // namespace lazyc::detail

#endif // LAZYC_LIB_API_VARIABLESTATE_H

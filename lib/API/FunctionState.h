//===- FunctionState.h - What a staged function keeps -----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycAPI: the state behind a lazyc::function, shared by its
// calls (Function.cpp) and by lazyc::save (Export.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_API_FUNCTIONSTATE_H
#define LAZYC_LIB_API_FUNCTIONSTATE_H

#include "lazyc/API/Function.h"

#include <atomic>
#include <deque>
#include <functional>

namespace lazyc::detail {
struct FunctionState {
  std::string name;
  std::optional<std::vector<TensorSpec>> signature;
  size_t tensorParameters;
  SourceLocation where;
  /// A deque: calls keep pointers to their concrete function.
  std::deque<ConcreteFunction> concrete;
  /// Per concrete function, its arguments' descriptions (for the warning).
  std::vector<std::vector<std::string>> argumentTexts;
  /// What the calls used, as it was then (a Variable may die first).
  std::vector<CapturedVariable> variables;
  /// Per concrete function: its Tensor arguments' types at its first call,
  /// and how to call the body again (null if the body is not copyable).
  std::vector<std::vector<std::pair<DType, std::vector<int64_t>>>> inputTypes;
  std::vector<std::function<std::vector<Tensor>(const std::vector<Tensor> &)>>
      replays;
  bool warned = false;
  std::atomic<int> owners{1};
};
} // namespace lazyc::detail

#endif // LAZYC_LIB_API_FUNCTIONSTATE_H

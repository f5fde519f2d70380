//===- ControlFlow.h - cond and whileLoop as single ops ---------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Data-dependent control flow that stays in the trace. `cond` traces both
// branches once into one op (`lazy.if`) and `whileLoop` traces its condition
// and body once into one op (`lazy.while`): the trace neither splits at the
// branch nor unrolls the loop, and a cached trace serves every outcome.
//
//   Tensor y = cond(sum(x) > 0.0f, [&] { return x * 2.0f; },
//                   [&] { return -x; });
//   auto [i, acc] = whileLoop(
//       [](Tensor i, Tensor acc) { return i < 10; },
//       [](Tensor i, Tensor acc) { return std::tuple{i + 1, acc * 0.5f}; },
//       std::tuple{zeros({}, DType::Int32), x});
//
// Branches and bodies are ordinary C++ callables that use lazyc ops; they
// run once, while tracing, so they must not read values (toVector, item,
// printing, sync): that is an error there. They may use any tensor or
// Variable from outside (it is captured), nest cond and whileLoop, and a
// cond branch may assign Variables (the assignment happens only if the
// branch is taken). In eager mode only the taken branch runs, and a loop
// runs as a C++ loop: the results are the same.
//
// A branch returns a Tensor, a std::tuple or std::pair of Tensors, or a
// std::vector<Tensor>; both branches return the same number of tensors,
// pairwise of one shape and dtype. Gradients flow through both (see
// docs/API.md, "Control flow").
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_CONTROLFLOW_H
#define LAZYC_API_CONTROLFLOW_H

#include "lazyc/API/Tensor.h"

#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace lazyc {

namespace detail {
std::vector<Tensor> cond(const Tensor &predicate,
                         const std::function<std::vector<Tensor>()> &thenBranch,
                         const std::function<std::vector<Tensor>()> &elseBranch,
                         SourceLocation where);
std::vector<Tensor> whileLoop(
    const std::function<Tensor(const std::vector<Tensor> &)> &condition,
    const std::function<std::vector<Tensor>(const std::vector<Tensor> &)> &body,
    const std::vector<Tensor> &initial, int64_t maxIterations,
    SourceLocation where);

/// Tensor, tuple, pair or vector of Tensors, as a vector and back.
template <typename T> struct TensorPack;
template <> struct TensorPack<Tensor> {
  static std::vector<Tensor> flatten(Tensor value) {
    return {std::move(value)};
  }
  static Tensor unflatten(std::vector<Tensor> values) {
    return std::move(values[0]);
  }
};
template <> struct TensorPack<std::vector<Tensor>> {
  static std::vector<Tensor> flatten(std::vector<Tensor> values) {
    return values;
  }
  static std::vector<Tensor> unflatten(std::vector<Tensor> values) {
    return values;
  }
};
template <typename... Ts> struct TensorPack<std::tuple<Ts...>> {
  static_assert((std::is_convertible_v<Ts, Tensor> && ...),
                "a branch or loop body returns only Tensors");
  static std::vector<Tensor> flatten(std::tuple<Ts...> values) {
    return std::apply(
        [](auto &&...v) { return std::vector<Tensor>{Tensor(v)...}; },
        std::move(values));
  }
  static std::tuple<Ts...> unflatten(std::vector<Tensor> values) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return std::tuple<Ts...>{std::move(values[I])...};
    }(std::index_sequence_for<Ts...>());
  }
};
template <typename A, typename B> struct TensorPack<std::pair<A, B>> {
  static std::vector<Tensor> flatten(std::pair<A, B> values) {
    return {Tensor(values.first), Tensor(values.second)};
  }
  static std::pair<A, B> unflatten(std::vector<Tensor> values) {
    return {std::move(values[0]), std::move(values[1])};
  }
};
template <typename T> using PackOf = TensorPack<std::decay_t<T>>;

/// Calls `function` with the elements of `values` as arguments.
template <size_t N, typename F>
decltype(auto) applyTensors(F &function, const std::vector<Tensor> &values) {
  return [&]<size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
    return function(values[I]...);
  }(std::make_index_sequence<N>());
}
} // namespace detail

/// The result of `thenBranch()` if the Bool scalar `predicate` holds, else
/// of `elseBranch()`: one op, both branches traced once. Returns what the
/// branches return (a Tensor, tuple, pair or vector of Tensors).
template <typename Then, typename Else>
auto cond(const Tensor &predicate, Then &&thenBranch, Else &&elseBranch,
          SourceLocation where = SourceLocation::current()) {
  using Result = std::decay_t<std::invoke_result_t<Then &>>;
  static_assert(
      std::is_same_v<Result, std::decay_t<std::invoke_result_t<Else &>>>,
      "both branches of cond return the same C++ type");
  using Pack = detail::TensorPack<Result>;
  return Pack::unflatten(detail::cond(
      predicate, [&] { return Pack::flatten(thenBranch()); },
      [&] { return Pack::flatten(elseBranch()); }, where));
}

/// Loop options: `maxIterations` bounds the trip count (the loop stops
/// after that many iterations even if the condition still holds); a bound
/// makes the loop differentiable.
struct LoopOptions {
  int64_t maxIterations = -1;
};

/// Runs `body` on the carried values while `condition` on them yields true,
/// starting from `initial` (a tuple of Tensors, or a vector), and returns
/// the final carried values in the same form. `condition` takes the carried
/// values as arguments and returns a Bool scalar; `body` takes them and
/// returns the next ones, each of its initial value's shape and dtype.
template <typename Condition, typename Body, typename... Ts>
std::tuple<Ts...> whileLoop(Condition &&condition, Body &&body,
                            std::tuple<Ts...> initial, LoopOptions options = {},
                            SourceLocation where = SourceLocation::current()) {
  constexpr size_t N = sizeof...(Ts);
  using Pack = detail::TensorPack<std::tuple<Ts...>>;
  return Pack::unflatten(detail::whileLoop(
      [&](const std::vector<Tensor> &carried) {
        return Tensor(detail::applyTensors<N>(condition, carried));
      },
      [&](const std::vector<Tensor> &carried) {
        return detail::PackOf<decltype(detail::applyTensors<N>(
            body, carried))>::flatten(detail::applyTensors<N>(body, carried));
      },
      Pack::flatten(std::move(initial)), options.maxIterations, where));
}

/// The same over a vector of carried values: `condition` and `body` take
/// `const std::vector<Tensor> &`.
template <typename Condition, typename Body>
std::vector<Tensor>
whileLoop(Condition &&condition, Body &&body,
          const std::vector<Tensor> &initial, LoopOptions options = {},
          SourceLocation where = SourceLocation::current()) {
  return detail::whileLoop(
      [&](const std::vector<Tensor> &carried) {
        return Tensor(condition(carried));
      },
      [&](const std::vector<Tensor> &carried) {
        return std::vector<Tensor>(body(carried));
      },
      initial, options.maxIterations, where);
}

} // namespace lazyc

#endif // LAZYC_API_CONTROLFLOW_H

//===- Function.h - Staged functions with input signatures ------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyc::function (seed 003, "Functions, not Sessions"): a C++ callable named
// and staged as a unit. Each call is keyed like a trace cache key: the dtypes
// and shapes of its Tensor arguments (a -1 in an input signature matches
// every size), the values of its other arguments, and the context (device,
// eager or lazy mode). Each new key is a concrete function, listed by
// concreteFunctions(); dimensions a signature leaves unknown (or that change
// between calls) compile to shape-polymorphic code, so a function over
// batches of any size runs on one compiled trace.
//
//   auto step = lazyc::function("train_step",
//       [&](Tensor x, Tensor labels) { ...; return loss; },
//       {TensorSpec({-1, 784}, DType::Float32, "x"),
//        TensorSpec({-1, 10}, DType::Float32, "labels")});
//   Tensor loss = step(batch, labels);
//   for (const ConcreteFunction &c : step.concreteFunctions())
//     std::cout << c.signature() << "\n";
//
// Variables are captured by reference: a call sees their current values, and
// its assignments land in program order with the rest of the program. A
// function may create Variables on its first call only (later calls would
// create new state each time); capturedVariables() lists the ones it used.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_FUNCTION_H
#define LAZYC_API_FUNCTION_H

#include "lazyc/API/ControlFlow.h"
#include "lazyc/API/Tensor.h"

#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace lazyc {

namespace detail {
class FunctionCall;
} // namespace detail

/// What a Tensor argument of a function must be: a dtype and a shape whose
/// -1 entries match every size.
struct TensorSpec {
  TensorSpec(std::vector<int64_t> shape, DType dtype = DType::Float32,
             std::string name = "")
      : shape(std::move(shape)), dtype(dtype), name(std::move(name)) {}
  std::vector<int64_t> shape;
  DType dtype;
  std::string name;

  bool matches(const Tensor &tensor) const;
  /// "Float32[?, 784]".
  std::string str() const;
};

/// One traced variant of a function: a key of its calls.
class ConcreteFunction {
public:
  /// "train_step(x: Float32[?, 784], labels: Float32[?, 10]) -> Float32[]".
  const std::string &signature() const { return text; }
  /// How many calls it served.
  int64_t calls() const { return callCount; }

private:
  friend class detail::FunctionCall;
  std::string key, text;
  int64_t callCount = 0;
};

/// A Variable a function read or assigned.
struct CapturedVariable {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype;
  uint64_t id;
};

namespace detail {
struct FunctionState;

/// One argument of a call: a Tensor, or another value as text (its value is
/// part of the key).
struct FunctionArgument {
  const Tensor *tensor = nullptr;
  std::string value;
  SourceLocation where;
};

/// The bookkeeping of one call, while it runs: checks the arguments against
/// the signature, finds or creates the concrete function, and tells the
/// Variables created or used meanwhile which function runs.
class FunctionCall {
public:
  FunctionCall(FunctionState &state, std::vector<FunctionArgument> arguments);
  ~FunctionCall();
  FunctionCall(const FunctionCall &) = delete;
  FunctionCall &operator=(const FunctionCall &) = delete;
  /// The call returned `results` (typed in the signature text).
  void finish(const std::vector<Tensor> &results);
  /// Whether the call made a new concrete function.
  bool isFirst() const { return first; }
  /// For lazyc::save: how to call the body again on other Tensors (the
  /// other arguments as this call passed them).
  void setReplay(
      std::function<std::vector<Tensor>(const std::vector<Tensor> &)> replay);

private:
  FunctionState &state;
  ConcreteFunction *concrete;
  bool first;
};

/// Shared ownership of a FunctionState (copies of a function share its
/// concrete functions). Not std::shared_ptr: <memory> declares POSIX
/// ::sync(), which would make a user's `sync()` ambiguous.
class FunctionHandle {
public:
  explicit FunctionHandle(FunctionState *state) : state(state) {}
  FunctionHandle(const FunctionHandle &other);
  FunctionHandle &operator=(const FunctionHandle &other);
  ~FunctionHandle();
  FunctionState &operator*() const { return *state; }

private:
  FunctionState *state;
};

FunctionHandle
makeFunctionState(std::string name,
                  std::optional<std::vector<TensorSpec>> signature,
                  size_t tensorParameters, SourceLocation where);
std::vector<ConcreteFunction> concreteFunctions(const FunctionState &);
std::vector<CapturedVariable> capturedVariables(const FunctionState &);

/// `value` exactly, as text ("0.1" for 0.1).
std::string numberText(double value);

template <typename T>
FunctionArgument describeArgument(const T &value, SourceLocation where) {
  FunctionArgument argument;
  argument.where = where;
  if constexpr (std::is_same_v<std::decay_t<T>, Tensor>) {
    argument.tensor = &value;
  } else if constexpr (std::is_same_v<std::decay_t<T>, bool>) {
    argument.value = value ? "true" : "false";
  } else if constexpr (std::is_integral_v<std::decay_t<T>>) {
    argument.value = std::to_string(value);
  } else if constexpr (std::is_floating_point_v<std::decay_t<T>>) {
    argument.value = numberText(static_cast<double>(value));
  } else {
    static_assert(std::is_convertible_v<const T &, std::string>,
                  "a lazyc::function takes Tensors, arithmetic values and "
                  "strings");
    argument.value = "\"" + std::string(value) + "\"";
  }
  return argument;
}

/// An argument with the user's line of the call.
template <typename T> struct Located {
  template <typename U>
  Located(U &&value, SourceLocation where = SourceLocation::current())
      : value(std::forward<U>(value)), where(where) {}
  T value;
  SourceLocation where;
};

template <typename T>
struct CallableTraits : CallableTraits<decltype(&std::decay_t<T>::operator())> {
};
template <typename C, typename R, typename... A>
struct CallableTraits<R (C::*)(A...) const> {
  using Result = R;
  using Arguments = std::tuple<std::decay_t<A>...>;
};
template <typename C, typename R, typename... A>
struct CallableTraits<R (C::*)(A...)> : CallableTraits<R (C::*)(A...) const> {};
template <typename R, typename... A> struct CallableTraits<R (*)(A...)> {
  using Result = R;
  using Arguments = std::tuple<std::decay_t<A>...>;
};

template <typename F, typename Arguments> class StagedFunction;
} // namespace detail

/// A function staged by lazyc::function(); call it like the callable.
template <typename F, typename... A>
class detail::StagedFunction<F, std::tuple<A...>> {
public:
  using Result = typename CallableTraits<F>::Result;

  StagedFunction(std::string name, F body,
                 std::optional<std::vector<TensorSpec>> signature,
                 SourceLocation where)
      : body(std::move(body)),
        state(makeFunctionState(
            std::move(name), std::move(signature),
            (size_t(0) + ... + size_t(std::is_same_v<A, Tensor>)), where)) {}

  Result operator()(Located<A>... arguments) {
    FunctionCall call(*state,
                      {describeArgument(arguments.value, arguments.where)...});
    if constexpr (std::is_copy_constructible_v<F>)
      if (call.isFirst())
        call.setReplay(replayOf(arguments.value...));
    Result result = body(std::move(arguments.value)...);
    call.finish(PackOf<Result>::flatten(result));
    return result;
  }

  /// The function's state (for lazyc::save).
  const FunctionHandle &handle() const { return state; }

  /// Every concrete function so far, in the order they were first called.
  std::vector<ConcreteFunction> concreteFunctions() const {
    return detail::concreteFunctions(*state);
  }
  /// The Variables the calls read or assigned, in first-use order.
  std::vector<CapturedVariable> capturedVariables() const {
    return detail::capturedVariables(*state);
  }

private:
  /// The body as a function of the Tensor arguments, the others as given
  /// (copies; the Tensors are not kept).
  std::function<std::vector<Tensor>(const std::vector<Tensor> &)>
  replayOf(const A &...values) {
    std::tuple<A...> saved(values...);
    std::apply([](auto &...value) { (clearTensor(value), ...); }, saved);
    return [body = body, saved](const std::vector<Tensor> &tensors) mutable {
      std::tuple<A...> arguments = saved;
      size_t next = 0;
      std::apply(
          [&](auto &...value) { (fillTensor(value, tensors, next), ...); },
          arguments);
      return PackOf<Result>::flatten(std::apply(body, std::move(arguments)));
    };
  }
  template <typename T> static void clearTensor(T &value) {
    if constexpr (std::is_same_v<T, Tensor>)
      value = Tensor();
  }
  template <typename T>
  static void fillTensor(T &value, const std::vector<Tensor> &tensors,
                         size_t &next) {
    if constexpr (std::is_same_v<T, Tensor>)
      value = tensors[next++];
  }

  F body;
  FunctionHandle state;
};

/// Stages `body` as the function `name`. Every call must match `signature`
/// (one TensorSpec per Tensor parameter, in order).
template <typename F>
auto function(std::string name, F body, std::vector<TensorSpec> signature,
              SourceLocation where = SourceLocation::current()) {
  return detail::StagedFunction<F,
                                typename detail::CallableTraits<F>::Arguments>(
      std::move(name), std::move(body), std::move(signature), where);
}

/// Stages `body` as the function `name` without a signature: each new
/// argument type is a new concrete function, and a warning names the
/// changing argument once five have been traced.
template <typename F>
auto function(std::string name, F body,
              SourceLocation where = SourceLocation::current()) {
  return detail::StagedFunction<F,
                                typename detail::CallableTraits<F>::Arguments>(
      std::move(name), std::move(body), std::nullopt, where);
}

} // namespace lazyc

#endif // LAZYC_API_FUNCTION_H

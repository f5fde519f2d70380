//===- Function.cpp - Staged functions with input signatures --------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the bookkeeping of lazyc::function: signature checks,
// the trace cache key of a call (seed 003's rules) and its concrete
// functions, the retrace warning, and the Variables a function creates or
// uses. The ops of a call are recorded like any others; the compiled traces
// they end up in are the engine's (with automatic dynamic dimensions, one
// function serves every size a signature leaves unknown).
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Function.h"
#include "Engine/Engine.h"
#include "FunctionState.h"
#include "TensorAccess.h"
#include "VariableState.h"
#include "lazyc/API/Autocast.h"
#include "lazyc/API/Compile.h"

#include "lazyc/API/Device.h"
#include "lazyc/Runtime/Shape.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <deque>

using namespace lazyc;

using detail::FunctionState;

namespace {
/// A function call running on this thread, innermost last.
struct ActiveCall {
  FunctionState *state;
  bool first;
};
thread_local std::vector<ActiveCall> activeCalls;

/// How many concrete functions without a signature before the warning.
constexpr size_t kRetraceWarning = 5;

std::string parameterName(const FunctionState &state, size_t tensorIndex,
                          size_t argument) {
  if (state.signature && !(*state.signature)[tensorIndex].name.empty())
    return (*state.signature)[tensorIndex].name;
  return "arg" + std::to_string(argument);
}
} // namespace

bool TensorSpec::matches(const Tensor &tensor) const {
  if (!tensor.defined() || tensor.dtype() != dtype ||
      tensor.shape().size() != shape.size())
    return false;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] >= 0 && shape[d] != tensor.shape()[d])
      return false;
  return true;
}

std::string TensorSpec::str() const { return typeText(dtype, shape); }

detail::FunctionHandle::FunctionHandle(const FunctionHandle &other)
    : state(other.state) {
  ++state->owners;
}

detail::FunctionHandle &
detail::FunctionHandle::operator=(const FunctionHandle &other) {
  FunctionHandle copy(other);
  std::swap(state, copy.state);
  return *this;
}

detail::FunctionHandle::~FunctionHandle() {
  if (--state->owners == 0)
    delete state;
}

detail::FunctionHandle
detail::makeFunctionState(std::string name,
                          std::optional<std::vector<TensorSpec>> signature,
                          size_t tensorParameters, SourceLocation where) {
  if (name.empty())
    throw Error("function", "a function needs a name", where);
  if (signature) {
    if (signature->size() != tensorParameters)
      throw Error(name,
                  "the signature has " + std::to_string(signature->size()) +
                      " TensorSpecs, but the function takes " +
                      std::to_string(tensorParameters) + " Tensors",
                  where);
    for (const TensorSpec &spec : *signature)
      for (int64_t dim : spec.shape)
        if (dim < -1)
          throw Error(name,
                      "a TensorSpec dimension is a size or -1 (any size), "
                      "got " +
                          spec.str() + " with " + std::to_string(dim),
                      where);
  }
  auto *state = new FunctionState();
  state->name = std::move(name);
  state->signature = std::move(signature);
  state->tensorParameters = tensorParameters;
  state->where = where;
  return FunctionHandle(state);
}

std::string detail::numberText(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

detail::FunctionCall::FunctionCall(FunctionState &state,
                                   std::vector<FunctionArgument> arguments)
    : state(state) {
  // The key: each argument as the signature sees it, then the context.
  std::vector<std::string> texts;
  std::string key;
  Device device = defaultDevice();
  size_t tensorIndex = 0;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const FunctionArgument &argument = arguments[i];
    std::string text;
    if (argument.tensor) {
      const Tensor &tensor = *argument.tensor;
      std::string name = parameterName(state, tensorIndex, i);
      if (!tensor.defined())
        throw Error(state.name,
                    "argument " + std::to_string(i) + " (" + name +
                        ") is an empty Tensor",
                    argument.where);
      if (state.signature) {
        const TensorSpec &spec = (*state.signature)[tensorIndex];
        if (!spec.matches(tensor))
          throw Error(state.name,
                      "argument " + std::to_string(i) + " (" + name +
                          ") does not match the signature: expected " +
                          spec.str() + ", got " +
                          typeText(tensor.dtype(), tensor.shape()),
                      argument.where);
        text = spec.str();
        // The sizes the signature leaves unknown vary: compile for any.
        std::vector<int64_t> unknown;
        for (size_t d = 0; d < spec.shape.size(); ++d)
          if (spec.shape[d] < 0)
            unknown.push_back(tensor.shape()[d]);
        if (!unknown.empty())
          engine::hintDynamicSizes(TensorAccess::node(tensor),
                                   std::move(unknown));
      } else {
        text = typeText(tensor.dtype(), tensor.shape());
      }
      device = tensor.device();
      text = name + ": " + text;
      ++tensorIndex;
    } else {
      text = "arg" + std::to_string(i) + ": " + argument.value;
    }
    key += text + "; ";
    texts.push_back(std::move(text));
  }
  key += std::string(isEager() ? "eager" : "lazy") + " on " + device.str();
  std::optional<DType> autocast = autocastDType();
  if (autocast)
    key += std::string(", autocast to ") + dtypeName(*autocast);

  auto found = llvm::find_if(
      state.concrete, [&](const ConcreteFunction &c) { return c.key == key; });
  first = found == state.concrete.end();
  if (first) {
    ConcreteFunction &created = state.concrete.emplace_back();
    created.key = key;
    created.text = state.name + "(" + llvm::join(texts, ", ") + ")";
    if (isEager())
      created.text += " [eager]";
    if (device != Device::cpu())
      created.text += " on " + device.str();
    if (autocast)
      created.text +=
          std::string(" [autocast to ") + dtypeName(*autocast) + "]";
    concrete = &created;
    // Without a signature, many concrete functions mean an argument keeps
    // changing: say which, once.
    if (!state.signature && !state.warned &&
        state.concrete.size() >= kRetraceWarning &&
        !state.argumentTexts.empty()) {
      state.warned = true;
      const std::vector<std::string> &before = state.argumentTexts.back();
      std::string change;
      for (size_t i = 0; i < texts.size() && change.empty(); ++i)
        if (i >= before.size() || before[i] != texts[i])
          change = "argument " + std::to_string(i) + " changed from " +
                   (i < before.size() ? before[i] : "nothing") + " to " +
                   texts[i];
      std::fprintf(stderr,
                   "lazyc: warning: function '%s' (%s:%u) has traced %zu "
                   "concrete functions; the last time %s. Give it a "
                   "signature (TensorSpec with -1 for a size that changes) "
                   "to trace it once.\n",
                   state.name.c_str(), state.where.file_name(),
                   state.where.line(), state.concrete.size(),
                   change.empty() ? "the context changed" : change.c_str());
    }
    state.argumentTexts.push_back(std::move(texts));
    auto &types = state.inputTypes.emplace_back();
    for (const FunctionArgument &argument : arguments)
      if (argument.tensor)
        types.emplace_back(argument.tensor->dtype(), argument.tensor->shape());
    state.replays.emplace_back();
  } else {
    concrete = &*found;
  }
  ++concrete->callCount;
  activeCalls.push_back({&state, first});
}

detail::FunctionCall::~FunctionCall() { activeCalls.pop_back(); }

void detail::FunctionCall::setReplay(
    std::function<std::vector<Tensor>(const std::vector<Tensor> &)> replay) {
  // A deque's elements are not contiguous: find the index by identity.
  size_t index = 0;
  for (size_t i = 0; i < state.concrete.size(); ++i)
    if (&state.concrete[i] == concrete)
      index = i;
  state.replays[index] = std::move(replay);
}

void detail::FunctionCall::finish(const std::vector<Tensor> &results) {
  if (!first)
    return;
  std::vector<std::string> types;
  for (const Tensor &result : results)
    types.push_back(result.defined() ? typeText(result.dtype(), result.shape())
                                     : std::string("(empty)"));
  std::string returned =
      types.size() == 1 ? types.front() : "(" + llvm::join(types, ", ") + ")";
  concrete->text += " -> " + returned;
}

std::vector<ConcreteFunction>
detail::concreteFunctions(const FunctionState &state) {
  return {state.concrete.begin(), state.concrete.end()};
}

std::vector<CapturedVariable>
detail::capturedVariables(const FunctionState &state) {
  return state.variables;
}

//===----------------------------------------------------------------------===//
// Variables inside functions
//===----------------------------------------------------------------------===//

void detail::creatingVariable(const std::string &name, SourceLocation where) {
  for (const ActiveCall &call : activeCalls)
    if (!call.first)
      throw Error(call.state->name,
                  "creates " +
                      (name.empty() ? std::string("a Variable")
                                    : "Variable '" + name + "'") +
                      " on a later call: a function creates its state on its "
                      "first call only (create it outside, or once behind a "
                      "check)",
                  where);
}

bool detail::tracingFunctionCall() { return !activeCalls.empty(); }

namespace {
thread_local std::vector<const detail::VariableState *> *variableCollector =
    nullptr;
} // namespace

void detail::collectVariables(std::vector<const VariableState *> *collector) {
  variableCollector = collector;
}

void detail::usingVariable(const VariableState &variable) {
  if (variableCollector && !llvm::is_contained(*variableCollector, &variable))
    variableCollector->push_back(&variable);
  for (const ActiveCall &call : activeCalls) {
    std::vector<CapturedVariable> &used = call.state->variables;
    if (llvm::none_of(used, [&](const CapturedVariable &v) {
          return v.id == variable.id;
        }))
      used.push_back({variable.name, variable.value.shape(),
                      variable.value.dtype(), variable.id});
  }
}

void lazyc::markDynamic(const Tensor &x, const std::vector<int64_t> &dims,
                        SourceLocation where) {
  if (!x.defined())
    throw Error("markDynamic", "the tensor is empty", where);
  std::vector<int64_t> sizes;
  for (int64_t d : dims) {
    if (d < -x.rank() || d >= x.rank())
      throw Error("markDynamic",
                  "dimension " + std::to_string(d) + " of " +
                      typeText(x.dtype(), x.shape()) + " does not exist",
                  where);
    sizes.push_back(x.shape()[d < 0 ? d + x.rank() : d]);
  }
  if (!sizes.empty())
    engine::hintDynamicSizes(detail::TensorAccess::node(x), std::move(sizes));
}

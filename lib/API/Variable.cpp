//===- Variable.cpp - State that lives across steps -----------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A Variable is a Tensor handle that assignments move to new values. Being a
// handle is what makes the step's new value an output of the step's trace
// (the live-tensor rule), and what lets the old value's buffer be reused
// once no handle or pending op can read it.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Variable.h"
#include "Engine/Engine.h"
#include "ShapeCheck.h"
#include "Tape.h"
#include "TensorAccess.h"
#include "VariableState.h"

#include "lazyc/API/Ops.h"

#include <atomic>

using namespace lazyc;

Variable::Variable() = default;

Variable::Variable(const Tensor &initial, std::string name,
                   SourceLocation where) {
  if (!initial.defined())
    throw Error("Variable", "the initial value is an empty Tensor", where);
  detail::creatingVariable(name, where);
  static std::atomic<uint64_t> nextId{1};
  state = new detail::VariableState{initial, std::move(name), nextId++};
  if (!detail::tracingFunctionCall() && engine::tracedRegions().empty())
    engine::initialValue(detail::TensorAccess::node(initial));
}

Variable::Variable(Variable &&other) noexcept : state(other.state) {
  other.state = nullptr;
}

Variable &Variable::operator=(Variable &&other) noexcept {
  if (this != &other) {
    delete state;
    state = other.state;
    other.state = nullptr;
  }
  return *this;
}

Variable::~Variable() { delete state; }

const detail::VariableState &Variable::checked(const char *what) const {
  if (!state)
    throw Error(what, "the Variable is empty (default-constructed or moved "
                      "from)");
  return *state;
}

Tensor Variable::read(SourceLocation where) const {
  if (!state)
    throw Error("read",
                "the Variable is empty (default-constructed or moved "
                "from)",
                where);
  if (!detail::tracingFunctionCall() && engine::tracedRegions().empty())
    engine::computeInitialValues(where);
  if (tape::recording())
    tape::variableRead(state->id, detail::TensorAccess::node(state->value));
  detail::usingVariable(*state);
  return state->value;
}

void Variable::assign(const Tensor &value, SourceLocation where) {
  if (!state)
    throw Error("assign",
                "the Variable is empty (default-constructed or "
                "moved from)",
                where);
  if (!value.defined())
    throw Error("assign", "the new value is an empty Tensor", where);
  const Tensor &old = state->value;
  std::string who = state->describe();
  if (value.shape() != old.shape())
    throw Error("assign",
                "cannot assign a value of shape " + shapeText(value.shape()) +
                    " to " + who + " of shape " + shapeText(old.shape()),
                where);
  bool sameKind =
      isFloatingPoint(value.dtype()) == isFloatingPoint(old.dtype()) &&
      (value.dtype() == DType::Bool) == (old.dtype() == DType::Bool);
  if (!sameKind)
    throw Error("assign",
                std::string("cannot assign a ") + dtypeName(value.dtype()) +
                    " value to " + who + " of dtype " + dtypeName(old.dtype()),
                where);
  detail::assigningVariable(*state, where);
  detail::usingVariable(*state);
  state->value = value.dtype() == old.dtype()
                     ? value
                     : lazyc::cast(value, old.dtype(), where);
}

void Variable::assignAdd(const Tensor &delta, SourceLocation where) {
  assign(At(checked("assignAdd").value, where) + delta, where);
}

void Variable::assignSub(const Tensor &delta, SourceLocation where) {
  assign(At(checked("assignSub").value, where) - delta, where);
}

const std::vector<int64_t> &Variable::shape() const {
  return checked("shape()").value.shape();
}
DType Variable::dtype() const { return checked("dtype()").value.dtype(); }
int64_t Variable::numel() const { return checked("numel()").value.numel(); }
const std::string &Variable::name() const { return checked("name()").name; }
uint64_t Variable::id() const { return checked("id()").id; }

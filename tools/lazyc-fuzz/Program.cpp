//===- Program.cpp - Running and printing fuzz programs -------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements apply(), which makes each step's API call, and
// print(), which writes the same calls as C++. The two switch over the same
// step kinds in the same order, so a printed reproducer makes the calls the
// fuzzer made.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include "lazyc/NN/Layers.h"
#include "lazyc/NN/Losses.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

using namespace lazyc;
using namespace lazyc::fuzz;

std::string fuzz::dtypeSpelling(DType dtype) {
  return std::string("DType::") + dtypeInfo(dtype).name;
}

namespace {

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

Scalar makeScalar(ScalarType type, double value) {
  switch (type) {
  case ScalarType::Float:
    return Scalar(static_cast<float>(value));
  case ScalarType::Double:
    return Scalar(value);
  case ScalarType::Int:
    return Scalar(static_cast<int>(value));
  case ScalarType::Int64:
    return Scalar(static_cast<int64_t>(value));
  case ScalarType::Bool:
    return Scalar(value != 0);
  }
  return Scalar(value);
}

Tensor makeInput(const Step &step) {
  switch (step.dtype) {
  case DType::Float64:
    return Tensor::fromVector<double>(step.floatData, step.shape);
  case DType::Int32: {
    std::vector<int32_t> data(step.intData.begin(), step.intData.end());
    return Tensor::fromVector<int32_t>(data, step.shape);
  }
  case DType::Int64:
    return Tensor::fromVector<int64_t>(step.intData, step.shape);
  case DType::Int8: {
    std::vector<int8_t> data(step.intData.begin(), step.intData.end());
    return Tensor::fromVector<int8_t>(data, step.shape);
  }
  case DType::UInt8: {
    std::vector<uint8_t> data(step.intData.begin(), step.intData.end());
    return Tensor::fromVector<uint8_t>(data, step.shape);
  }
  case DType::Int16: {
    std::vector<int16_t> data(step.intData.begin(), step.intData.end());
    return Tensor::fromVector<int16_t>(data, step.shape);
  }
  case DType::UInt16: {
    std::vector<uint16_t> data(step.intData.begin(), step.intData.end());
    return Tensor::fromVector<uint16_t>(data, step.shape);
  }
  case DType::UInt32: {
    std::vector<uint32_t> data(step.intData.begin(), step.intData.end());
    return Tensor::fromVector<uint32_t>(data, step.shape);
  }
  case DType::UInt64: { // Values past 2^63 held as their bits.
    std::vector<uint64_t> data(step.intData.begin(), step.intData.end());
    return Tensor::fromVector<uint64_t>(data, step.shape);
  }
  case DType::Bool:
    return Tensor::fromBools(
        std::vector<bool>(step.intData.begin(), step.intData.end()),
        step.shape);
  default: {
    // f32 data; f16 and bf16 are cast from it (exact: the generator only
    // writes values the narrow type holds, or wants rounded).
    std::vector<float> data(step.floatData.begin(), step.floatData.end());
    Tensor tensor = Tensor::fromVector<float>(data, step.shape);
    return step.dtype == DType::Float32 ? tensor : cast(tensor, step.dtype);
  }
  }
}

/// The operands of the bitwise ops: floats cast to Int32 (the ops take
/// integers and Bool); of the shifts, Bool too. The printed programs
/// define the same two helpers (print()).
Tensor bits(const Tensor &t) {
  return isFloatingPoint(t.dtype()) ? cast(t, DType::Int32) : t;
}
Tensor integral(const Tensor &t) {
  return isFloatingPoint(t.dtype()) || t.dtype() == DType::Bool
             ? cast(t, DType::Int32)
             : t;
}

Tensor binary(BinaryOp op, const Tensor &a, const Tensor &b) {
  switch (op) {
  case BinaryOp::Add:
    return a + b;
  case BinaryOp::Sub:
    return a - b;
  case BinaryOp::Mul:
    return a * b;
  case BinaryOp::Div:
    return a / b;
  case BinaryOp::FloorDiv:
    return floorDiv(a, b);
  case BinaryOp::Mod:
    return mod(a, b);
  case BinaryOp::Pow:
    return pow(a, b);
  case BinaryOp::Max:
    return maximum(a, b);
  case BinaryOp::Min:
    return minimum(a, b);
  case BinaryOp::BitAnd:
    return bitwiseAnd(bits(a), bits(b));
  case BinaryOp::BitOr:
    return bitwiseOr(bits(a), bits(b));
  case BinaryOp::BitXor:
    return bitwiseXor(bits(a), bits(b));
  case BinaryOp::ShiftLeft:
    return leftShift(integral(a), integral(b));
  case BinaryOp::ShiftRight:
    return rightShift(integral(a), integral(b));
  }
  throw std::logic_error("lazyc-fuzz: bad binary op");
}

Tensor binaryScalar(BinaryOp op, const Tensor &a, Scalar s, bool scalarFirst) {
  switch (op) {
  case BinaryOp::Add:
    return scalarFirst ? s + a : a + s;
  case BinaryOp::Sub:
    return scalarFirst ? s - a : a - s;
  case BinaryOp::Mul:
    return scalarFirst ? s * a : a * s;
  case BinaryOp::Div:
    return scalarFirst ? s / a : a / s;
  case BinaryOp::FloorDiv:
    return scalarFirst ? floorDiv(s, a) : floorDiv(a, s);
  case BinaryOp::Mod:
    return scalarFirst ? mod(s, a) : mod(a, s);
  case BinaryOp::Pow:
    return pow(a, s);
  // No scalar form (kScalarBinaryOps).
  case BinaryOp::Max:
  case BinaryOp::Min:
  case BinaryOp::BitAnd:
  case BinaryOp::BitOr:
  case BinaryOp::BitXor:
  case BinaryOp::ShiftLeft:
  case BinaryOp::ShiftRight:
    break;
  }
  throw std::logic_error("lazyc-fuzz: bad scalar op");
}

/// `a op= b` on a copy of the handle a (Add, Sub, Mul, Div).
template <typename Rhs> Tensor compound(BinaryOp op, Tensor a, const Rhs &b) {
  switch (op) {
  case BinaryOp::Add:
    return a += b;
  case BinaryOp::Sub:
    return a -= b;
  case BinaryOp::Mul:
    return a *= b;
  case BinaryOp::Div:
    return a /= b;
  default:
    break;
  }
  throw std::logic_error("lazyc-fuzz: no compound assignment");
}

/// `scalar op a`: the mirrored comparison's operator with the scalar on the
/// left.
Tensor compareScalarFirst(CompareOp op, Scalar s, const Tensor &a) {
  switch (op) {
  case CompareOp::Lt:
    return s < a;
  case CompareOp::Le:
    return s <= a;
  case CompareOp::Gt:
    return s > a;
  case CompareOp::Ge:
    return s >= a;
  case CompareOp::Eq:
    return lazyc::operator==(s, a);
  case CompareOp::Ne:
    return lazyc::operator!=(s, a);
  }
  throw std::logic_error("lazyc-fuzz: bad compare op");
}

template <typename Rhs>
Tensor compare(CompareOp op, const Tensor &a, const Rhs &b) {
  switch (op) {
  case CompareOp::Lt:
    return a < b;
  case CompareOp::Le:
    return a <= b;
  case CompareOp::Gt:
    return a > b;
  case CompareOp::Ge:
    return a >= b;
  // Spelled as calls: C++20 also considers the reversed b == a.
  case CompareOp::Eq:
    return lazyc::operator==(a, b);
  case CompareOp::Ne:
    return lazyc::operator!=(a, b);
  }
  throw std::logic_error("lazyc-fuzz: bad compare op");
}

Tensor unary(UnaryOp op, const Tensor &a) {
  switch (op) {
  case UnaryOp::Neg:
    return -a;
  case UnaryOp::Abs:
    return abs(a);
  case UnaryOp::Relu:
    return relu(a);
  case UnaryOp::Exp:
    return exp(a);
  case UnaryOp::Log:
    return log(a);
  case UnaryOp::Tanh:
    return tanh(a);
  case UnaryOp::Sigmoid:
    return sigmoid(a);
  case UnaryOp::Sqrt:
    return sqrt(a);
  case UnaryOp::Rsqrt:
    return rsqrt(a);
  case UnaryOp::Sin:
    return sin(a);
  case UnaryOp::Cos:
    return cos(a);
  case UnaryOp::Erf:
    return erf(a);
  case UnaryOp::Asin:
    return asin(a);
  case UnaryOp::Acos:
    return acos(a);
  case UnaryOp::Atan:
    return atan(a);
  case UnaryOp::BitNot:
    return bitwiseNot(bits(a));
  }
  throw std::logic_error("lazyc-fuzz: bad unary op");
}

Tensor reduce(ReduceOp op, const Tensor &a, std::vector<int64_t> axes,
              bool keepDims) {
  switch (op) {
  case ReduceOp::ReduceSum:
    return sum(a, std::move(axes), keepDims);
  case ReduceOp::ReduceMean:
    return mean(a, std::move(axes), keepDims);
  case ReduceOp::ReduceMax:
    return max(a, std::move(axes), keepDims);
  case ReduceOp::ReduceMin:
    return min(a, std::move(axes), keepDims);
  }
  throw std::logic_error("lazyc-fuzz: bad reduction");
}

Tensor layer(const Step &step, const Tensor &a, const Tensor &b) {
  const std::vector<int64_t> &n = step.ints;
  switch (static_cast<LayerOp>(step.op)) {
  case LayerOp::Conv2d:
    return nn::conv2d(a, b, nn::Conv2dOptions{n[0], n[1], n[2], n[3]});
  case LayerOp::MaxPool2d:
    return nn::maxPool2d(a, n[0], n[1], n[2]);
  case LayerOp::AvgPool2d:
    return nn::avgPool2d(a, n[0], n[1], n[2]);
  case LayerOp::LayerNorm: {
    Shape last(a.shape().end() - n[0], a.shape().end());
    return nn::layerNorm(a, last);
  }
  case LayerOp::Dropout:
    return nn::dropout(a, step.start, step.seed);
  case LayerOp::Attention: {
    nn::AttentionOptions options;
    options.causal = step.flag;
    options.dropout = step.start;
    options.seed = step.seed;
    options.tiles = static_cast<nn::AttentionTiles>(n[0]);
    return nn::scaledDotProductAttention(a, a, a, options);
  }
  case LayerOp::BatchNorm:
    return nn::batchNorm(a, nullptr, nullptr, Tensor(), Tensor(),
                         /*training=*/true);
  }
  throw std::logic_error("lazyc-fuzz: bad layer");
}

} // namespace

namespace {

/// This thread's ProgramTape's tape, if any.
thread_local GradientTape *programTape = nullptr;

/// The step's op (apply without the gradient).
Tensor applyOp(const Program &program, size_t index,
               const std::vector<Tensor> &slots, int iteration) {
  const Step &step = program.steps[index];
  auto operand = [&](size_t i) -> const Tensor & {
    return slots[step.operands[i]];
  };
  switch (step.kind) {
  case StepKind::Input:
    return makeInput(step);
  case StepKind::Full: {
    Scalar value =
        makeScalar(step.scalarType, program.constant(step, iteration));
    return step.hasDType ? full(step.shape, value, step.dtype)
                         : full(step.shape, value);
  }
  case StepKind::Arange:
    return arange(step.start, step.stop, step.step, step.dtype);
  case StepKind::RandomUniform:
    return randomUniform(step.shape, step.start, step.stop, step.seed,
                         step.dtype);
  case StepKind::RandomNormal:
    return randomNormal(step.shape, step.start, step.stop, step.seed,
                        step.dtype);
  case StepKind::Binary:
    if (step.op2)
      return compound(static_cast<BinaryOp>(step.op), operand(0), operand(1));
    return binary(static_cast<BinaryOp>(step.op), operand(0), operand(1));
  case StepKind::BinaryScalar: {
    Scalar s = makeScalar(step.scalarType, program.constant(step, iteration));
    if (step.op2)
      return compound(static_cast<BinaryOp>(step.op), operand(0), s);
    return binaryScalar(static_cast<BinaryOp>(step.op), operand(0), s,
                        step.flag);
  }
  case StepKind::Compare:
    return compare(static_cast<CompareOp>(step.op), operand(0), operand(1));
  case StepKind::CompareScalar: {
    Scalar s = makeScalar(step.scalarType, program.constant(step, iteration));
    auto op = static_cast<CompareOp>(step.op);
    return step.flag ? compareScalarFirst(op, s, operand(0))
                     : compare(op, operand(0), s);
  }
  case StepKind::Unary:
    return unary(static_cast<UnaryOp>(step.op), operand(0));
  case StepKind::Composite:
    switch (static_cast<CompositeOp>(step.op)) {
    case CompositeOp::LogicalNot:
      return logicalNot(operand(0));
    case CompositeOp::Square:
      return square(operand(0));
    case CompositeOp::Gelu:
      return gelu(operand(0));
    case CompositeOp::GeluTanh:
      return gelu(operand(0), GeluApproximation::Tanh);
    case CompositeOp::Softplus:
      return softplus(operand(0));
    case CompositeOp::Silu:
      return silu(operand(0));
    case CompositeOp::ClampScalars:
      return clamp(operand(0), step.start, step.stop);
    case CompositeOp::LogicalAnd:
      return logicalAnd(operand(0), operand(1));
    case CompositeOp::LogicalOr:
      return logicalOr(operand(0), operand(1));
    case CompositeOp::LogicalXor:
      return logicalXor(operand(0), operand(1));
    case CompositeOp::ClampTensors:
      return clamp(operand(0), operand(1), operand(2));
    case CompositeOp::Any:
      return any(operand(0), step.ints, step.flag);
    case CompositeOp::All:
      return all(operand(0), step.ints, step.flag);
    }
    throw std::logic_error("lazyc-fuzz: bad composite op");
  case StepKind::Where:
    return where(operand(0), operand(1), operand(2));
  case StepKind::Cast:
    return step.flag ? bitcast(operand(0), step.dtype)
                     : cast(operand(0), step.dtype);
  case StepKind::Matmul: {
    if (!step.flag)
      return matmul(operand(0), operand(1));
    // Under autocast, cast back to the type the product has without it.
    Tensor product;
    {
      AutocastScope autocast(step.op ? DType::Float16 : DType::BFloat16);
      product = matmul(operand(0), operand(1));
    }
    return cast(product, promoteTypes(operand(0).dtype(), operand(1).dtype()));
  }
  case StepKind::Reduce:
    return reduce(static_cast<ReduceOp>(step.op), operand(0), step.ints,
                  step.flag);
  case StepKind::Softmax:
    return step.flag ? logSoftmax(operand(0), step.axis)
                     : softmax(operand(0), step.axis);
  case StepKind::Reshape:
    return reshape(operand(0), step.shape);
  case StepKind::Transpose:
    return transpose(operand(0), step.ints);
  case StepKind::BroadcastTo:
    return broadcastTo(operand(0), step.shape);
  case StepKind::Slice:
    return slice(operand(0), step.ints, step.ints2, step.ints3);
  case StepKind::Concat: {
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < step.operands.size(); ++i)
      inputs.push_back(operand(i));
    return concat(inputs, step.axis);
  }
  case StepKind::Cond: {
    Tensor predicate = sum(cast(operand(0), DType::Float64)) >
                       program.constant(step, iteration);
    const Tensor &a = operand(1), &b = operand(2);
    return cond(
        predicate, [&] { return unary(static_cast<UnaryOp>(step.op), a); },
        [&] { return binary(static_cast<BinaryOp>(step.op2), a, b); });
  }
  case StepKind::Loop: {
    const Tensor &a = operand(0);
    if (step.flag) {
      int64_t stride = step.ints[0], last = step.axis * stride;
      auto [count, v] =
          whileLoop([&](Tensor s, Tensor) { return At(s) < Scalar(last); },
                    [&](Tensor s, Tensor v) {
                      return std::tuple{
                          At(s) + Scalar(stride),
                          binary(static_cast<BinaryOp>(step.op2),
                                 unary(static_cast<UnaryOp>(step.op), v), a)};
                    },
                    std::tuple{full({}, int64_t(0), DType::Int64), a});
      return where(At(count) == Scalar(last), v, a);
    }
    double threshold = program.constant(step, iteration);
    return std::get<0>(whileLoop(
        [&](Tensor v) { return sum(abs(cast(v, DType::Float64))) > threshold; },
        [&](Tensor v) {
          return std::tuple{binary(static_cast<BinaryOp>(step.op2),
                                   unary(static_cast<UnaryOp>(step.op), v), a)};
        },
        std::tuple{a}, LoopOptions{step.axis}));
  }
  case StepKind::Call: {
    const Tensor &a = operand(0), &b = operand(1);
    std::vector<int64_t> any = a.shape();
    if (!any.empty())
      any[0] = -1;
    auto f = lazyc::function("fuzzed",
                             [&](Tensor x, Tensor y) {
                               return binary(
                                   static_cast<BinaryOp>(step.op2),
                                   unary(static_cast<UnaryOp>(step.op), x), y);
                             },
                             {TensorSpec(any, a.dtype(), "x"),
                              TensorSpec(b.shape(), b.dtype(), "y")});
    return f(a, b);
  }
  case StepKind::Gather:
    switch (static_cast<GatherOp>(step.op)) {
    case GatherOp::Gather:
      return gather(operand(0), step.axis, indicesOf(step));
    case GatherOp::IndexSelect:
      return indexSelect(operand(0), step.axis, indicesOf(step));
    case GatherOp::Take:
      return take(operand(0), indicesOf(step));
    case GatherOp::Embedding:
      return nn::embedding(operand(0), indicesOf(step));
    case GatherOp::OneHot:
      return nn::oneHot(step.operands.empty() ? indicesOf(step) : operand(0),
                        step.seed, step.dtype);
    }
    throw std::logic_error("lazyc-fuzz: bad gather op");
  case StepKind::ScatterAdd:
    return scatterAdd(operand(0), step.axis, indicesOf(step), operand(1));
  case StepKind::ArgReduce:
    if (step.ints.empty())
      return step.op ? argmin(operand(0)) : argmax(operand(0));
    return step.op ? argmin(operand(0), step.axis, step.flag)
                   : argmax(operand(0), step.axis, step.flag);
  case StepKind::Cumsum:
    return cumsum(operand(0), step.axis, step.flag);
  case StepKind::TopK: {
    TopK top = topk(operand(0), step.seed, step.axis);
    return step.flag ? top.indices : top.values;
  }
  case StepKind::Index:
    return operand(0).index(indexEntries(step));
  case StepKind::Collective: {
    auto reduce = static_cast<distributed::ReduceOp>(step.seed);
    switch (step.op) {
    case 0:
      return distributed::allReduce(operand(0), reduce);
    case 1:
      return distributed::broadcast(operand(0));
    case 2:
      return distributed::allGather(operand(0));
    default:
      return distributed::reduceScatter(operand(0), reduce);
    }
  }
  case StepKind::Layer:
    return layer(step, operand(0),
                 step.operands.size() > 1 ? operand(1) : Tensor());
  case StepKind::Read:
    return Tensor();
  case StepKind::Gradient:
    if (!programTape)
      throw std::logic_error("lazyc-fuzz: a gradient step without a tape");
    return programTape->gradient(operand(0) * operand(0), operand(1));
  case StepKind::BlockBound: {
    CompileBlock bound;
    return Tensor();
  }
  }
  throw std::logic_error("lazyc-fuzz: bad step");
}

} // namespace

ProgramTape::ProgramTape(bool needed) : previous(programTape) {
  if (!needed)
    return;
  tape = std::make_unique<GradientTape>();
  programTape = tape.get();
}

ProgramTape::~ProgramTape() { programTape = previous; }

bool ProgramTape::neededBy(const Program &program) {
  return std::any_of(program.steps.begin(), program.steps.end(),
                     [](const Step &step) { return step.watched; });
}

Tensor fuzz::apply(const Program &program, size_t index,
                   const std::vector<Tensor> &slots, int iteration) {
  const Step &step = program.steps[index];
  if (step.watched) {
    Tensor result = applyOp(program, index, slots, iteration);
    if (programTape)
      programTape->watch(result);
    return result;
  }
  if (!step.gradient)
    return applyOp(program, index, slots, iteration);
  const Tensor &a = slots[step.operands[0]];
  GradientTape tape;
  tape.watch(a);
  Tensor y = applyOp(program, index, slots, iteration);
  return tape.gradient(y * y, a);
}

Tensor fuzz::indicesOf(const Step &step) {
  return Tensor::fromVector<int64_t>(step.intData, step.shape);
}

std::vector<Index> fuzz::indexEntries(const Step &step) {
  std::vector<Index> entries;
  size_t data = 0;
  for (size_t e = 0; e < step.ints.size(); ++e) {
    const int64_t *n = &step.ints2[3 * e];
    auto optional = [](int64_t value) {
      return value == kNone ? std::nullopt : std::optional<int64_t>(value);
    };
    switch (static_cast<IndexKind>(step.ints[e])) {
    case IndexKind::Integer:
      entries.push_back(n[0]);
      break;
    case IndexKind::Range:
      entries.push_back(Range{optional(n[0]), optional(n[1]), n[2]});
      break;
    case IndexKind::NewAxis:
      entries.push_back(newAxis);
      break;
    case IndexKind::Ellipsis:
      entries.push_back(ellipsis);
      break;
    case IndexKind::Tensor: {
      std::vector<int64_t> values(step.intData.begin() + data,
                                  step.intData.begin() + data + n[0]);
      data += n[0];
      entries.push_back(Tensor::fromVector<int64_t>(values, {n[0]}));
      break;
    }
    }
  }
  return entries;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

namespace {

std::string list(const std::vector<int64_t> &values) {
  std::string text = "{";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "}";
}

/// A double as C++ source that reads back to the same value.
std::string doubleLiteral(double value) {
  if (std::isnan(value))
    return "NAN";
  if (std::isinf(value))
    return value > 0 ? "INFINITY" : "-INFINITY";
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  std::string text = buffer;
  if (text.find_first_of(".en") == std::string::npos)
    text += ".0";
  return text;
}

std::string floatLiteral(double value) {
  if (std::isnan(value))
    return "NAN";
  if (std::isinf(value))
    return value > 0 ? "INFINITY" : "-INFINITY";
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  std::string text = buffer;
  if (text.find_first_of(".en") == std::string::npos)
    text += ".0";
  return text + "f";
}

std::string scalarLiteral(ScalarType type, double value) {
  switch (type) {
  case ScalarType::Float:
    return floatLiteral(value);
  case ScalarType::Double:
    return doubleLiteral(value);
  case ScalarType::Int: {
    int integer = static_cast<int>(value);
    return integer < 0 ? "(" + std::to_string(integer) + ")"
                       : std::to_string(integer);
  }
  case ScalarType::Int64:
    return "int64_t(" + std::to_string(static_cast<int64_t>(value)) + ")";
  case ScalarType::Bool:
    return value != 0 ? "true" : "false";
  }
  return "?";
}

const char *scalarTypeName(ScalarType type) {
  switch (type) {
  case ScalarType::Float:
    return "float";
  case ScalarType::Double:
    return "double";
  case ScalarType::Int:
    return "int";
  case ScalarType::Int64:
    return "int64_t";
  case ScalarType::Bool:
    return "bool";
  }
  return "?";
}

/// The entries of an Index step as C++ source.
std::string indexExpression(const Step &step) {
  std::string text = "{";
  size_t data = 0;
  auto bound = [](int64_t value) {
    return value == kNone ? std::string("std::nullopt") : std::to_string(value);
  };
  for (size_t e = 0; e < step.ints.size(); ++e) {
    const int64_t *n = &step.ints2[3 * e];
    text += e ? ", " : "";
    switch (static_cast<IndexKind>(step.ints[e])) {
    case IndexKind::Integer:
      text += std::to_string(n[0]);
      break;
    case IndexKind::Range:
      text += "Range{" + bound(n[0]) + ", " + bound(n[1]) + ", " +
              std::to_string(n[2]) + "}";
      break;
    case IndexKind::NewAxis:
      text += "newAxis";
      break;
    case IndexKind::Ellipsis:
      text += "ellipsis";
      break;
    case IndexKind::Tensor:
      text += "Tensor::fromVector<int64_t>(" +
              list(std::vector<int64_t>(step.intData.begin() + data,
                                        step.intData.begin() + data + n[0])) +
              ", {" + std::to_string(n[0]) + "})";
      data += n[0];
      break;
    }
  }
  return text + "}";
}

std::string inputExpression(const Step &step) {
  std::ostringstream data;
  bool isFloat = isFloatingPoint(step.dtype);
  size_t count = isFloat ? step.floatData.size() : step.intData.size();
  for (size_t i = 0; i < count; ++i) {
    if (i)
      data << ", ";
    if (step.dtype == DType::Float64)
      data << doubleLiteral(step.floatData[i]);
    else if (isFloat)
      data << floatLiteral(step.floatData[i]);
    else if (step.dtype == DType::Bool)
      data << (step.intData[i] ? "true" : "false");
    else if (step.dtype == DType::Int64 &&
             step.intData[i] == std::numeric_limits<int64_t>::min())
      data << "INT64_MIN";
    else if (step.dtype == DType::Int32 &&
             step.intData[i] == std::numeric_limits<int32_t>::min())
      data << "INT32_MIN";
    else if (step.dtype == DType::UInt64)
      data << static_cast<uint64_t>(step.intData[i]) << "ull";
    else
      data << step.intData[i];
  }
  std::string shape = list(step.shape);
  switch (step.dtype) {
  case DType::Float64:
    return "Tensor::fromVector<double>({" + data.str() + "}, " + shape + ")";
  case DType::Int32:
    return "Tensor::fromVector<int32_t>({" + data.str() + "}, " + shape + ")";
  case DType::Int64:
    return "Tensor::fromVector<int64_t>({" + data.str() + "}, " + shape + ")";
  case DType::Int8:
    return "Tensor::fromVector<int8_t>({" + data.str() + "}, " + shape + ")";
  case DType::UInt8:
    return "Tensor::fromVector<uint8_t>({" + data.str() + "}, " + shape + ")";
  case DType::Int16:
    return "Tensor::fromVector<int16_t>({" + data.str() + "}, " + shape + ")";
  case DType::UInt16:
    return "Tensor::fromVector<uint16_t>({" + data.str() + "}, " + shape + ")";
  case DType::UInt32:
    return "Tensor::fromVector<uint32_t>({" + data.str() + "}, " + shape + ")";
  case DType::UInt64:
    return "Tensor::fromVector<uint64_t>({" + data.str() + "}, " + shape + ")";
  case DType::Bool:
    return "Tensor::fromBools({" + data.str() + "}, " + shape + ")";
  case DType::Float32:
    return "Tensor::fromVector<float>({" + data.str() + "}, " + shape + ")";
  default:
    return std::string("cast(Tensor::fromVector<float>({") + data.str() +
           "}, " + shape + "), " + dtypeSpelling(step.dtype) + ")";
  }
}

const char *binarySymbol(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::FloorDiv:
    return "floorDiv";
  case BinaryOp::Mod:
    return "mod";
  case BinaryOp::Pow:
    return "pow";
  case BinaryOp::Max:
    return "maximum";
  case BinaryOp::Min:
    return "minimum";
  case BinaryOp::BitAnd:
    return "bitwiseAnd";
  case BinaryOp::BitOr:
    return "bitwiseOr";
  case BinaryOp::BitXor:
    return "bitwiseXor";
  case BinaryOp::ShiftLeft:
    return "leftShift";
  case BinaryOp::ShiftRight:
    return "rightShift";
  }
  return "?";
}

bool isBitOp(BinaryOp op) {
  return op == BinaryOp::BitAnd || op == BinaryOp::BitOr ||
         op == BinaryOp::BitXor;
}
bool isShift(BinaryOp op) {
  return op == BinaryOp::ShiftLeft || op == BinaryOp::ShiftRight;
}

/// `a + b`, or `pow(a, b)` for the ops that are functions.
std::string binaryExpression(BinaryOp op, const std::string &a,
                             const std::string &b) {
  if (isBitOp(op))
    return std::string(binarySymbol(op)) + "(bits(" + a + "), bits(" + b + "))";
  if (isShift(op))
    return std::string(binarySymbol(op)) + "(integral(" + a + "), integral(" +
           b + "))";
  if (op == BinaryOp::Pow || op == BinaryOp::Max || op == BinaryOp::Min ||
      op == BinaryOp::FloorDiv || op == BinaryOp::Mod)
    return std::string(binarySymbol(op)) + "(" + a + ", " + b + ")";
  return a + " " + binarySymbol(op) + " " + b;
}

/// `a op= b` as an expression: a lambda rebinding a copy of the handle.
std::string compoundExpression(BinaryOp op, const std::string &a,
                               const std::string &b) {
  return "[&] { Tensor r = " + a + "; r " + binarySymbol(op) + "= " + b +
         "; return r; }()";
}

const char *compareSymbol(CompareOp op) {
  static const char *const symbols[] = {"<", "<=", ">", ">=", "==", "!="};
  return symbols[static_cast<int>(op)];
}

/// The API function of a unary op (its name in Ops.def; print() writes
/// neg as `-`).
const char *unaryName(UnaryOp op) {
  switch (op) {
#define LAZYC_UNARY_OP(Kind, Name, ShapeAttr)                                  \
  case UnaryOp::Kind:                                                          \
    return Name;
#include "lazyc/Trace/Ops.def"
  }
  return "?";
}

/// `-x`, `exp(x)`, `bitwiseNot(bits(x))`: the unary op on `x` as C++.
std::string unaryExpression(UnaryOp op, const std::string &x) {
  if (op == UnaryOp::Neg)
    return "-" + x;
  if (op == UnaryOp::BitNot)
    return std::string(unaryName(op)) + "(bits(" + x + "))";
  return std::string(unaryName(op)) + "(" + x + ")";
}

/// The API function of a reduction (its name in Ops.def).
const char *reduceName(ReduceOp op) {
  switch (op) {
#define LAZYC_REDUCE_OP(Kind, Name, ShapeAttr)                                 \
  case ReduceOp::Kind:                                                         \
    return Name;
#include "lazyc/Trace/Ops.def"
  }
  return "?";
}

} // namespace

std::string fuzz::print(const Program &program, bool eager) {
  std::ostringstream os;
  std::string indent = "  ";
  os << "// lazyc-fuzz program " << program.seed << "\n"
     << "#include <lazyc/lazyc.h>\n#include <lazyc/nn.h>\n#include <cmath>\n"
     << "#include <iostream>\n"
     << "using namespace lazyc;\n\n"
     << "// The bitwise ops take integers (the shifts no Bool).\n"
     << "inline Tensor bits(const Tensor &t) {\n"
     << "  return isFloatingPoint(t.dtype()) ? cast(t, DType::Int32) : t;\n}\n"
     << "inline Tensor integral(const Tensor &t) {\n"
     << "  return isFloatingPoint(t.dtype()) || t.dtype() == DType::Bool\n"
     << "             ? cast(t, DType::Int32)\n             : t;\n}\n\n"
     << "int main() {\n";
  if (std::ranges::any_of(program.steps, [](const Step &step) {
        return step.kind == StepKind::Collective;
      }))
    os << indent << "distributed::init();\n";
  if (eager)
    os << indent << "EagerScope eager;\n";
  // Varying constants: one array each, indexed by the iteration.
  bool loop = program.iterations > 1;
  auto constant = [&](size_t index) {
    const Step &step = program.steps[index];
    if (step.constants.size() == 1 || !loop)
      return scalarLiteral(step.scalarType, step.constants[0]);
    return scalarTypeName(step.scalarType) + std::string("(c") +
           std::to_string(index) + "[iteration])";
  };
  for (size_t i = 0; i < program.steps.size(); ++i) {
    const Step &step = program.steps[i];
    if (!loop || step.constants.size() <= 1)
      continue;
    os << indent << "const double c" << i << "[] = {";
    for (int it = 0; it < program.iterations; ++it)
      os << (it ? ", " : "") << doubleLiteral(program.constant(step, it));
    os << "};\n";
  }
  if (loop) {
    os << indent << "for (int iteration = 0; iteration < " << program.iterations
       << "; ++iteration) {\n";
    indent = "    ";
  }
  if (ProgramTape::neededBy(program))
    os << indent << "GradientTape tape;\n";
  // Handles are dropped after their last use, as the fuzzer drops them
  // (held tensors become outputs of a trace).
  std::vector<size_t> lastUse(program.steps.size(), 0);
  for (size_t i = 0; i < program.steps.size(); ++i)
    for (int operand : program.steps[i].operands)
      lastUse[operand] = i;
  for (size_t i = 0; i < program.steps.size(); ++i) {
    const Step &step = program.steps[i];
    auto t = [&](size_t k) { return "t" + std::to_string(step.operands[k]); };
    std::string expression;
    switch (step.kind) {
    case StepKind::Input:
      expression = inputExpression(step);
      break;
    case StepKind::Full:
      expression =
          "full(" + list(step.shape) + ", " + constant(i) +
          (step.hasDType ? std::string(", ") + dtypeSpelling(step.dtype)
                         : std::string()) +
          ")";
      break;
    case StepKind::Arange:
      expression = "arange(" + doubleLiteral(step.start) + ", " +
                   doubleLiteral(step.stop) + ", " + doubleLiteral(step.step) +
                   ", " + dtypeSpelling(step.dtype) + ")";
      break;
    case StepKind::RandomUniform:
    case StepKind::RandomNormal:
      expression =
          std::string(step.kind == StepKind::RandomUniform ? "randomUniform("
                                                           : "randomNormal(") +
          list(step.shape) + ", " + doubleLiteral(step.start) + ", " +
          doubleLiteral(step.stop) + ", " + std::to_string(step.seed) + ", " +
          dtypeSpelling(step.dtype) + ")";
      break;
    case StepKind::Binary:
      if (step.op2)
        expression =
            compoundExpression(static_cast<BinaryOp>(step.op), t(0), t(1));
      else
        expression =
            binaryExpression(static_cast<BinaryOp>(step.op), t(0), t(1));
      break;
    case StepKind::BinaryScalar: {
      auto op = static_cast<BinaryOp>(step.op);
      if (step.op2)
        expression = compoundExpression(op, t(0), constant(i));
      else if (op == BinaryOp::Pow)
        expression = "pow(" + t(0) + ", " + constant(i) + ")";
      else if (step.flag)
        expression = binaryExpression(op, constant(i), t(0));
      else
        expression = binaryExpression(op, t(0), constant(i));
      break;
    }
    case StepKind::Compare:
      expression = t(0) + " " + compareSymbol(static_cast<CompareOp>(step.op)) +
                   " " + t(1);
      break;
    case StepKind::CompareScalar: {
      std::string symbol = compareSymbol(static_cast<CompareOp>(step.op));
      expression = step.flag ? constant(i) + " " + symbol + " " + t(0)
                             : t(0) + " " + symbol + " " + constant(i);
      break;
    }
    case StepKind::Unary: {
      auto op = static_cast<UnaryOp>(step.op);
      expression = unaryExpression(op, t(0));
      break;
    }
    case StepKind::Composite: {
      static const char *const names[] = {
          "logicalNot", "square", "gelu",       "gelu",      "softplus",
          "silu",       "clamp",  "logicalAnd", "logicalOr", "logicalXor",
          "clamp",      "any",    "all"};
      static_assert(std::size(names) == kCompositeOps);
      auto op = static_cast<CompositeOp>(step.op);
      expression = std::string(names[step.op]) + "(" + t(0);
      if (op == CompositeOp::GeluTanh)
        expression += ", GeluApproximation::Tanh";
      else if (op == CompositeOp::ClampScalars)
        expression +=
            ", " + doubleLiteral(step.start) + ", " + doubleLiteral(step.stop);
      else if (op == CompositeOp::Any || op == CompositeOp::All)
        expression +=
            ", " + list(step.ints) + ", " + (step.flag ? "true" : "false");
      for (size_t k = 1; k < step.operands.size(); ++k)
        expression += ", " + t(k);
      expression += ")";
      break;
    }
    case StepKind::Where:
      expression = "where(" + t(0) + ", " + t(1) + ", " + t(2) + ")";
      break;
    case StepKind::Cast:
      expression = std::string(step.flag ? "bitcast(" : "cast(") + t(0) + ", " +
                   dtypeSpelling(step.dtype) + ")";
      break;
    case StepKind::Matmul:
      expression = "matmul(" + t(0) + ", " + t(1) + ")";
      if (step.flag)
        expression = std::string("cast([&] { AutocastScope autocast(DType::") +
                     (step.op ? "Float16" : "BFloat16") + "); return " +
                     expression + "; }(), promoteTypes(" + t(0) + ".dtype(), " +
                     t(1) + ".dtype()))";
      break;
    case StepKind::Reduce:
      expression = std::string(reduceName(static_cast<ReduceOp>(step.op))) +
                   "(" + t(0) + ", " + list(step.ints) + ", " +
                   (step.flag ? "true" : "false") + ")";
      break;
    case StepKind::Softmax:
      expression = std::string(step.flag ? "logSoftmax(" : "softmax(") + t(0) +
                   ", " + std::to_string(step.axis) + ")";
      break;
    case StepKind::Reshape:
      expression = "reshape(" + t(0) + ", " + list(step.shape) + ")";
      break;
    case StepKind::Transpose:
      expression = "transpose(" + t(0) + ", " + list(step.ints) + ")";
      break;
    case StepKind::BroadcastTo:
      expression = "broadcastTo(" + t(0) + ", " + list(step.shape) + ")";
      break;
    case StepKind::Slice:
      expression = "slice(" + t(0) + ", " + list(step.ints) + ", " +
                   list(step.ints2) + ", " + list(step.ints3) + ")";
      break;
    case StepKind::Concat: {
      expression = "concat({";
      for (size_t k = 0; k < step.operands.size(); ++k)
        expression += (k ? ", " : "") + t(k);
      expression += "}, " + std::to_string(step.axis) + ")";
      break;
    }
    case StepKind::Gather: {
      std::string indices = "Tensor::fromVector<int64_t>(" +
                            list(step.intData) + ", " + list(step.shape) + ")";
      std::string axis = std::to_string(step.axis);
      switch (static_cast<GatherOp>(step.op)) {
      case GatherOp::Gather:
        expression = "gather(" + t(0) + ", " + axis + ", " + indices + ")";
        break;
      case GatherOp::IndexSelect:
        expression = "indexSelect(" + t(0) + ", " + axis + ", " + indices + ")";
        break;
      case GatherOp::Take:
        expression = "take(" + t(0) + ", " + indices + ")";
        break;
      case GatherOp::Embedding:
        expression = "nn::embedding(" + t(0) + ", " + indices + ")";
        break;
      case GatherOp::OneHot:
        expression = "nn::oneHot(" + (step.operands.empty() ? indices : t(0)) +
                     ", " + std::to_string(step.seed) + ", " +
                     dtypeSpelling(step.dtype) + ")";
        break;
      }
      break;
    }
    case StepKind::ScatterAdd:
      expression = "scatterAdd(" + t(0) + ", " + std::to_string(step.axis) +
                   ", Tensor::fromVector<int64_t>(" + list(step.intData) +
                   ", " + list(step.shape) + "), " + t(1) + ")";
      break;
    case StepKind::ArgReduce:
      expression =
          std::string(step.op ? "argmin(" : "argmax(") + t(0) +
          (step.ints.empty() ? std::string()
                             : ", " + std::to_string(step.axis) + ", " +
                                   (step.flag ? "true" : "false")) +
          ")";
      break;
    case StepKind::Cumsum:
      expression = "cumsum(" + t(0) + ", " + std::to_string(step.axis) + ", " +
                   (step.flag ? "true" : "false") + ")";
      break;
    case StepKind::TopK:
      expression = "topk(" + t(0) + ", " + std::to_string(step.seed) + ", " +
                   std::to_string(step.axis) + ")." +
                   (step.flag ? "indices" : "values");
      break;
    case StepKind::Index:
      expression = t(0) + ".index(" + indexExpression(step) + ")";
      break;
    case StepKind::Collective: {
      static const char *const names[] = {"allReduce", "broadcast", "allGather",
                                          "reduceScatter"};
      static const char *const reductions[] = {"Sum", "Mean", "Max", "Min"};
      expression = std::string("distributed::") + names[step.op] + "(" + t(0);
      if (step.op == 0 || step.op == 3)
        expression +=
            std::string(", distributed::ReduceOp::") + reductions[step.seed];
      expression += ")";
      break;
    }
    case StepKind::Layer: {
      const std::vector<int64_t> &n = step.ints;
      auto number = [&](size_t k) { return std::to_string(n[k]); };
      switch (static_cast<LayerOp>(step.op)) {
      case LayerOp::Conv2d:
        expression = "nn::conv2d(" + t(0) + ", " + t(1) +
                     ", nn::Conv2dOptions{" + number(0) + ", " + number(1) +
                     ", " + number(2) + ", " + number(3) + "})";
        break;
      case LayerOp::MaxPool2d:
      case LayerOp::AvgPool2d:
        expression =
            std::string(static_cast<LayerOp>(step.op) == LayerOp::MaxPool2d
                            ? "nn::maxPool2d("
                            : "nn::avgPool2d(") +
            t(0) + ", " + number(0) + ", " + number(1) + ", " + number(2) + ")";
        break;
      case LayerOp::LayerNorm:
        expression = "nn::layerNorm(" + t(0) + ", Shape(" + t(0) +
                     ".shape().end() - " + number(0) + ", " + t(0) +
                     ".shape().end()))";
        break;
      case LayerOp::Dropout:
        expression = "nn::dropout(" + t(0) + ", " + doubleLiteral(step.start) +
                     ", " + std::to_string(step.seed) + ")";
        break;
      case LayerOp::Attention: {
        const char *tiles[] = {"Auto", "Always", "Never"};
        expression = "nn::scaledDotProductAttention(" + t(0) + ", " + t(0) +
                     ", " + t(0) + ", nn::AttentionOptions{" +
                     (step.flag ? "true" : "false") + ", std::nullopt, " +
                     "Tensor(), " + doubleLiteral(step.start) + ", " +
                     std::to_string(step.seed) +
                     ", nn::AttentionTiles::" + tiles[step.ints[0]] + "})";
        break;
      }
      case LayerOp::BatchNorm:
        expression = "nn::batchNorm(" + t(0) +
                     ", nullptr, nullptr, Tensor(), Tensor(), true)";
        break;
      }
      break;
    }
    case StepKind::Cond: {
      auto op = static_cast<UnaryOp>(step.op);
      std::string then = unaryExpression(op, t(1));
      expression =
          "cond(sum(cast(" + t(0) + ", DType::Float64)) > " + constant(i) +
          ", [&] { return " + then + "; }, [&] { return " +
          binaryExpression(static_cast<BinaryOp>(step.op2), t(1), t(2)) +
          "; })";
      break;
    }
    case StepKind::Loop: {
      auto op = static_cast<UnaryOp>(step.op);
      std::string next = unaryExpression(op, "v");
      if (step.flag) {
        std::string last = std::to_string(step.axis * step.ints[0]);
        expression =
            "[&] { auto [count, v] = whileLoop([&](Tensor s, Tensor) { "
            "return At(s) < Scalar(int64_t(" +
            last +
            ")); }, [&](Tensor s, Tensor v) { return std::tuple{At(s) "
            "+ Scalar(int64_t(" +
            std::to_string(step.ints[0]) + ")), " +
            binaryExpression(static_cast<BinaryOp>(step.op2), next, t(0)) +
            "}; }, std::tuple{full({}, int64_t(0), DType::Int64), " + t(0) +
            "}); return where(At(count) == Scalar(int64_t(" + last + ")), v, " +
            t(0) + "); }()";
        break;
      }
      expression =
          "std::get<0>(whileLoop([&](Tensor v) { return "
          "sum(abs(cast(v, DType::Float64))) > " +
          constant(i) + "; }, [&](Tensor v) { return std::tuple{" +
          binaryExpression(static_cast<BinaryOp>(step.op2), next, t(0)) +
          "}; }, std::tuple{" + t(0) + "}, LoopOptions{" +
          std::to_string(step.axis) + "}))";
      break;
    }
    case StepKind::Call: {
      auto op = static_cast<UnaryOp>(step.op);
      std::string inner = unaryExpression(op, "x");
      expression =
          "lazyc::function(\"fuzzed\", [](Tensor x, Tensor y) { "
          "return " +
          binaryExpression(static_cast<BinaryOp>(step.op2), inner, "y") +
          "; })(" + t(0) + ", " + t(1) + ")";
      break;
    }
    case StepKind::Read:
      switch (static_cast<ReadKind>(step.op)) {
      case ReadKind::ToVector:
        os << indent << t(0) << ".toVector<double>();\n";
        break;
      case ReadKind::Item:
        os << indent << t(0) << ".item<double>();\n";
        break;
      case ReadKind::Bool:
        os << indent << "(void)static_cast<bool>(" << t(0) << ");\n";
        break;
      case ReadKind::Sync:
        os << indent << "sync();\n";
        break;
      }
      break;
    case StepKind::Gradient:
      expression = "tape.gradient(" + t(0) + " * " + t(0) + ", " + t(1) + ")";
      break;
    case StepKind::BlockBound:
      os << indent << "{ CompileBlock bound; }\n";
      break;
    }
    if (step.gradient)
      expression = "[&] { GradientTape tape; tape.watch(" + t(0) +
                   "); Tensor y = " + expression +
                   "; return tape.gradient(y * y, " + t(0) + "); }()";
    if (step.kind != StepKind::Read && step.kind != StepKind::BlockBound)
      os << indent << "Tensor t" << i << " = " << expression << ";\n";
    if (step.watched)
      os << indent << "tape.watch(t" << i << ");\n";
    // Drop handles whose last use this was (once: `t2 / t2` uses t2 twice).
    std::vector<int> dropped;
    for (int operand : step.operands)
      if (lastUse[operand] == i && !program.steps[operand].output &&
          std::find(dropped.begin(), dropped.end(), operand) == dropped.end()) {
        dropped.push_back(operand);
        os << indent << "t" << operand << " = Tensor();\n";
      }
  }
  for (size_t i = 0; i < program.steps.size(); ++i)
    if (program.steps[i].output)
      os << indent << "std::cout << t" << i << " << \"\\n\";\n";
  if (loop)
    os << "  }\n";
  os << "  return 0;\n}\n";
  return os.str();
}

//===- Generator.cpp - Random programs over every op and dtype ------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file generates random programs: DAGs of API calls over all op kinds
// and dtypes, on shapes with broadcasting, size-1 and zero-size dimensions,
// with reads at random points and scalars that vary between iterations.
// Each candidate call is recorded lazily (nothing runs) to learn its result's
// shape and dtype; a call the API rejects is dropped and another drawn.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>

using namespace lazyc;
using namespace lazyc::fuzz;

namespace {

/// Deterministic random choices (mt19937_64's output is the same
/// everywhere; the standard distributions are not).
class Random {
public:
  explicit Random(uint64_t seed) : engine(seed) {}
  uint64_t next() { return engine(); }
  /// Uniform in [0, n).
  int64_t below(int64_t n) {
    return n <= 0 ? 0 : static_cast<int64_t>(next() % static_cast<uint64_t>(n));
  }
  int64_t between(int64_t low, int64_t high) {
    return low + below(high - low + 1);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  bool chance(double p) { return unit() < p; }
  template <typename T> const T &pick(const std::vector<T> &items) {
    return items[below(static_cast<int64_t>(items.size()))];
  }

private:
  std::mt19937_64 engine;
};

const std::vector<DType> kAllDTypes = {
    DType::Float32,  DType::Float32, DType::Float64, DType::Float16,
    DType::BFloat16, DType::Int32,   DType::Int64,   DType::Bool,
    DType::Int8,     DType::UInt8,   DType::Int16,   DType::UInt16,
    DType::UInt32,   DType::UInt64};
const std::vector<DType> kFloatDTypes = {DType::Float32, DType::Float32,
                                         DType::Float64, DType::Float16,
                                         DType::BFloat16};

int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

class Generator {
public:
  Generator(uint64_t seed, const GeneratorOptions &options)
      : random(seed), options(options) {
    program.seed = seed;
  }

  Program run();
  /// A program over millions of elements: random data, maybe scaled, then a
  /// float reduction or softmax along random axes, whose error the
  /// reference checks against the bound of blocked summation.
  Program runLarge();
  /// A block of shape-preserving ops (products with fresh weights, biases,
  /// gains, activations, softmax, scales, a residual add) repeated enough
  /// times to pass the repeated-block threshold, each copy with its own
  /// parameters and reading the previous copy's result, as a deep model's
  /// layers do: the engine cuts it into one trace per copy (setRepeatedBlocks)
  /// and the reference checks what crosses the cuts. Some mark each copy
  /// as a CompileBlock, some take the chain's gradient.
  Program runRepeated();

private:
  // Shapes and data.
  int64_t randomDim();
  std::vector<int64_t> randomShape(int maxRank = 4);
  std::vector<int64_t> compatibleShape(const std::vector<int64_t> &shape);
  double randomFloat();
  int64_t randomInteger(DType dtype);
  double randomConstant(ScalarType type);
  Step input(DType dtype, std::vector<int64_t> shape);

  // Picking operands.
  int pickSlot();
  int pickSlot(const std::function<bool(const Tensor &)> &fits);
  /// A slot fitting `fits`, or a new input of `shape` and `dtype`.
  int slotOrInput(const std::function<bool(const Tensor &)> &fits,
                  std::vector<int64_t> shape, DType dtype);

  /// Records `step` (to learn its result), or sometimes its gradient
  /// (Step::gradient); false if the API rejects it.
  bool add(Step step);
  /// Records `step` as it is; false if the API rejects it.
  bool record(Step step);
  bool addRandomOp();
  /// Gather, ScatterAdd, ArgReduce, Cumsum, TopK or Index on slot `a`.
  bool addIndexingOp(int a);
  /// take, nn::embedding or nn::oneHot of slot `a` (a GatherOp).
  bool addLookup(int a);
  /// `count` positions along an axis of `n` elements: mostly in range, some
  /// negative, a few outside (clamped).
  std::vector<int64_t> positions(int64_t count, int64_t n);
  /// An nn layer on slot `a` (LayerOp).
  bool addLayer(int a);
  /// Scalars next to a tensor of `tensor`'s dtype: non-negative integers
  /// next to an unsigned tensor, which does not hold negative ones.
  void setConstants(Step &step, ScalarType type, DType tensor = DType::Float32);

  Random random;
  GeneratorOptions options;
  Program program;
  /// The recorded result of each step (never materialized).
  std::vector<Tensor> slots;
};

int64_t Generator::randomDim() {
  // Few distinct sizes: eager mode compiles broadcasts, reshapes and
  // slices once per shape, and a small vocabulary lets its cache hit.
  static const std::vector<int64_t> dims = {1, 1, 1, 2, 2, 3, 3, 4, 5, 7, 16};
  if (random.chance(0.04))
    return 0;
  return random.pick(dims);
}

std::vector<int64_t> Generator::randomShape(int maxRank) {
  for (;;) {
    static const std::vector<int> ranks = {0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4};
    int rank = std::min(random.pick(ranks), maxRank);
    std::vector<int64_t> shape;
    for (int d = 0; d < rank; ++d)
      shape.push_back(randomDim());
    if (elementCount(shape) <= options.maxElements)
      return shape;
  }
}

/// A shape that broadcasts with `shape`: some dimensions become 1, leading
/// ones may be dropped or added.
std::vector<int64_t>
Generator::compatibleShape(const std::vector<int64_t> &shape) {
  std::vector<int64_t> result = shape;
  for (int64_t &dim : result)
    if (random.chance(0.3))
      dim = 1;
  if (!result.empty() && random.chance(0.3))
    result.erase(result.begin(),
                 result.begin() + random.below(result.size() + 1));
  if (result.size() < 4 && random.chance(0.15))
    result.insert(result.begin(), random.chance(0.5) ? 1 : 2);
  return result;
}

double Generator::randomFloat() {
  // Mostly ordinary values; sometimes exactly representable ones (ties,
  // cancellation), sometimes the special values.
  double p = random.unit();
  if (p < 0.03) {
    static const std::vector<double> special = {
        0.0,  -0.0,    INFINITY, -INFINITY, NAN, 1e-40, -1e-39,
        3e38, 65504.0, 70000.0,  1e-8,      0.5, -1.0,  2.0};
    return random.pick(special);
  }
  if (p < 0.35)
    return static_cast<double>(random.between(-32, 32)) / 8;
  if (p < 0.4)
    return (random.unit() - 0.5) * std::ldexp(1.0, random.between(-20, 20));
  return std::round((random.unit() * 8 - 4) * 1e6) / 1e6;
}

int64_t Generator::randomInteger(DType dtype) {
  if (dtype == DType::Bool)
    return random.below(2);
  double p = random.unit();
  if (sizeOf(dtype) == 1) {
    // Small values, and the ends of the range and values past 127 (where
    // signed and unsigned bytes differ) now and then.
    static const std::vector<int64_t> int8Special = {127, -128, 100, -100, -1};
    static const std::vector<int64_t> uint8Special = {255, 200, 128, 127, 0};
    bool isUnsigned = isUnsignedInteger(dtype);
    if (p < 0.15)
      return random.pick(isUnsigned ? uint8Special : int8Special);
    return isUnsigned ? random.between(0, 12) : random.between(-6, 6);
  }
  if (dtype != DType::Int32 && dtype != DType::Int64) {
    // Int16 and the wider unsigned integers: their ends, and values where
    // signed and unsigned differ (UInt64's past 2^63 held as their bits).
    static const std::vector<int64_t> int16Special = {32767, -32768, 1000,
                                                      -1000, -1};
    static const std::vector<int64_t> uint16Special = {65535, 40000, 32768,
                                                       32767, 0};
    static const std::vector<int64_t> uint32Special = {
        4294967295, 3000000000, 2147483648, 2147483647, 0};
    static const std::vector<int64_t> uint64Special = {
        -1, std::numeric_limits<int64_t>::min(), (int64_t(1) << 53) + 1,
        int64_t(1) << 62, 0};
    if (p < 0.15)
      return random.pick(dtype == DType::Int16    ? int16Special
                         : dtype == DType::UInt16 ? uint16Special
                         : dtype == DType::UInt32 ? uint32Special
                                                  : uint64Special);
    return isUnsignedInteger(dtype) ? random.between(0, 12)
                                    : random.between(-6, 6);
  }
  if (p < 0.05) {
    static const std::vector<int64_t> special = {
        2147483647, -2147483647 - 1, (1 << 24) + (1 << 16) + 1, 65521, -46341,
        46341,      1000000007};
    return random.pick(special);
  }
  if (p < 0.08 && dtype == DType::Int64) {
    static const std::vector<int64_t> special = {
        std::numeric_limits<int64_t>::max(),
        std::numeric_limits<int64_t>::min(), (int64_t(1) << 53) + 1,
        int64_t(1) << 62, -(int64_t(1) << 40) - 3};
    return random.pick(special);
  }
  return random.between(-6, 6);
}

double Generator::randomConstant(ScalarType type) {
  switch (type) {
  case ScalarType::Bool:
    return static_cast<double>(random.below(2));
  case ScalarType::Int:
  case ScalarType::Int64:
    return static_cast<double>(random.between(-4, 4));
  default:
    if (random.chance(0.5))
      return static_cast<double>(random.between(-16, 16)) / 4;
    if (random.chance(0.05))
      return random.pick(std::vector<double>{0.0, -0.0, 1e-30, 1e5, 0.1,
                                             1 + 0x1p-11 + 0x1p-30});
    return std::round((random.unit() * 6 - 3) * 1000) / 1000;
  }
}

Step Generator::input(DType dtype, std::vector<int64_t> shape) {
  Step step;
  step.kind = StepKind::Input;
  step.dtype = dtype;
  step.shape = std::move(shape);
  int64_t count = elementCount(step.shape);
  for (int64_t i = 0; i < count; ++i) {
    if (isFloatingPoint(dtype))
      step.floatData.push_back(dtype == DType::Float64
                                   ? randomFloat()
                                   : static_cast<float>(randomFloat()));
    else
      step.intData.push_back(randomInteger(dtype));
  }
  return step;
}

void Generator::setConstants(Step &step, ScalarType type, DType tensor) {
  step.scalarType = type;
  // An unsigned tensor holds non-negative constants: a negative one
  // converts to an unspecified value (docs/API.md, `cast`), which eager
  // mode, the compiled code and the reference evaluator need not agree on.
  bool nonNegative = isUnsignedInteger(tensor);
  auto constant = [&] {
    double value = randomConstant(type);
    return nonNegative ? std::fabs(value) : value;
  };
  step.constants = {constant()};
  // Varying constants: the loop promotes them to arguments.
  if (program.iterations > 1 && random.chance(0.6))
    for (int i = 1; i < program.iterations; ++i)
      step.constants.push_back(constant());
}

int Generator::pickSlot() {
  // Prefer recent results: long chains are what fusion works on.
  int count = static_cast<int>(slots.size());
  for (;;) {
    int index = random.chance(0.6)
                    ? count - 1 - random.below(std::min(count, 4))
                    : random.below(count);
    if (slots[index].defined())
      return index;
  }
}

int Generator::pickSlot(const std::function<bool(const Tensor &)> &fits) {
  std::vector<int> candidates;
  for (int i = 0; i < static_cast<int>(slots.size()); ++i)
    if (slots[i].defined() && fits(slots[i]))
      candidates.push_back(i);
  if (candidates.empty())
    return -1;
  // Half the time the most recent fitting one.
  return random.chance(0.5) ? candidates.back() : random.pick(candidates);
}

int Generator::slotOrInput(const std::function<bool(const Tensor &)> &fits,
                           std::vector<int64_t> shape, DType dtype) {
  int slot = random.chance(0.6) ? pickSlot(fits) : -1;
  if (slot >= 0)
    return slot;
  if (!add(input(dtype, std::move(shape))))
    return -1;
  return static_cast<int>(slots.size()) - 1;
}

/// Whether a step of `kind` may be differentiated with respect to its
/// operand 0 (Step::gradient): ops of tensors, not creation or reads.
bool differentiable(StepKind kind) {
  switch (kind) {
  case StepKind::Input:
  case StepKind::Full:
  case StepKind::Arange:
  case StepKind::RandomUniform:
  case StepKind::RandomNormal:
  case StepKind::Collective:
  case StepKind::Read:
  case StepKind::Gradient:
  case StepKind::BlockBound:
    return false;
  default:
    return true;
  }
}

bool Generator::add(Step step) {
  // Sometimes the op's backward graph instead (the API rejects ops of
  // integers and ops without gradients: then the op itself).
  if (differentiable(step.kind) && !step.operands.empty() &&
      random.chance(0.15)) {
    Step backward = step;
    backward.gradient = true;
    if (record(std::move(backward)))
      return true;
  }
  return record(std::move(step));
}

bool Generator::record(Step step) {
  program.steps.push_back(std::move(step));
  size_t index = program.steps.size() - 1;
  try {
    Tensor result = apply(program, index, slots, 0);
    if (result.defined() && elementCount(result.shape()) > options.maxElements)
      throw Error("", "too large");
    slots.push_back(result);
    return true;
  } catch (const Error &) {
    program.steps.pop_back();
    return false;
  }
}

/// Whether `a` and `b` broadcast together (numpy's rule).
bool broadcasts(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    int64_t da = a[a.size() - 1 - i], db = b[b.size() - 1 - i];
    if (da != db && da != 1 && db != 1)
      return false;
  }
  return true;
}

bool Generator::addRandomOp() {
  int a = pickSlot();
  const Tensor &x = slots[a];
  std::vector<int64_t> shape = x.shape();
  int64_t rank = static_cast<int64_t>(shape.size());
  DType dtype = x.dtype();
  Step step;
  step.operands = {a};
  int64_t choice = random.below(114);
  if (choice >= 110) {
    // A collective: in a world of one a copy, but compiled like any other.
    step.kind = StepKind::Collective;
    step.op = static_cast<int>(random.below(4));
    step.seed = random.below(4);
    return add(step);
  }
  if (choice >= 100)
    return addIndexingOp(a);
  if (choice < 5) {
    // A fresh leaf.
    int64_t kind = random.below(5);
    Step leaf;
    if (kind == 0) {
      leaf = input(random.pick(kAllDTypes), randomShape());
    } else if (kind == 1) {
      leaf.kind = StepKind::Full;
      leaf.shape = randomShape();
      leaf.dtype = random.pick(kAllDTypes);
      leaf.hasDType = random.chance(0.6);
      setConstants(leaf, static_cast<ScalarType>(random.below(5)), leaf.dtype);
    } else if (kind == 2) {
      leaf.kind = StepKind::Arange;
      leaf.start = static_cast<double>(random.between(-5, 5)) / 2;
      leaf.step = static_cast<double>(random.between(1, 4)) / 2 *
                  (random.chance(0.2) ? -1 : 1);
      leaf.stop = leaf.start + leaf.step * random.between(0, 12);
      leaf.dtype = random.pick(kAllDTypes);
    } else {
      leaf.kind = kind == 3 ? StepKind::RandomUniform : StepKind::RandomNormal;
      leaf.shape = randomShape();
      leaf.dtype = random.pick(kFloatDTypes);
      leaf.start = static_cast<double>(random.between(-4, 4)) / 2;
      leaf.stop = kind == 3 ? leaf.start + random.between(1, 8) / 2.0
                            : random.between(0, 4) / 2.0;
      leaf.seed = random.between(0, 1000);
    }
    return add(std::move(leaf));
  }
  if (choice < 25) {
    step.kind = StepKind::Binary;
    step.op = static_cast<int>(random.below(kBinaryOps));
    step.op2 = step.op <= static_cast<int>(BinaryOp::Div) && random.chance(0.2);
    int b = slotOrInput(
        [&](const Tensor &t) { return broadcasts(t.shape(), shape); },
        compatibleShape(shape),
        random.chance(0.7) ? dtype : random.pick(kAllDTypes));
    if (b < 0)
      return false;
    step.operands =
        random.chance(0.5) ? std::vector<int>{a, b} : std::vector<int>{b, a};
    return add(step);
  }
  if (choice < 37) {
    step.kind = StepKind::BinaryScalar;
    step.op = static_cast<int>(random.below(kScalarBinaryOps));
    step.op2 = step.op <= static_cast<int>(BinaryOp::Div) && random.chance(0.2);
    step.flag = !step.op2 && step.op != static_cast<int>(BinaryOp::Pow) &&
                random.chance(0.3);
    setConstants(step, static_cast<ScalarType>(random.below(5)), dtype);
    return add(step);
  }
  if (choice < 44) {
    step.op = static_cast<int>(random.below(6));
    if (random.chance(0.5)) {
      step.kind = StepKind::CompareScalar;
      step.flag = random.chance(0.4); // the scalar on the left
      setConstants(step, static_cast<ScalarType>(random.below(5)));
      return add(step);
    }
    step.kind = StepKind::Compare;
    int b = slotOrInput(
        [&](const Tensor &t) { return broadcasts(t.shape(), shape); },
        compatibleShape(shape),
        random.chance(0.7) ? dtype : random.pick(kAllDTypes));
    if (b < 0)
      return false;
    step.operands.push_back(b);
    return add(step);
  }
  if (choice < 58 && random.chance(0.3)) {
    // An op recorded from others (Ops.h), in the unary ops' share.
    step.kind = StepKind::Composite;
    step.op = static_cast<int>(random.below(kCompositeOps));
    auto op = static_cast<CompositeOp>(step.op);
    auto fits = [&](const Tensor &t) { return broadcasts(t.shape(), shape); };
    int operands = op >= CompositeOp::ClampTensors ? 3
                   : op >= CompositeOp::LogicalAnd ? 2
                                                   : 1;
    if (op >= CompositeOp::Any)
      operands = 1;
    for (int k = 1; k < operands; ++k) {
      int b = slotOrInput(fits, compatibleShape(shape),
                          random.chance(0.7) ? dtype : random.pick(kAllDTypes));
      if (b < 0)
        return false;
      step.operands.push_back(b);
    }
    if (op == CompositeOp::ClampScalars) {
      step.start = static_cast<double>(random.between(-6, 2)) / 2;
      step.stop = step.start + static_cast<double>(random.between(-1, 6)) / 2;
    }
    if (op >= CompositeOp::Any) {
      step.flag = random.chance(0.4);
      for (int64_t d = 0; d < rank; ++d)
        if (random.chance(0.5))
          step.ints.push_back(random.chance(0.3) ? d - rank : d);
    }
    return add(step);
  }
  if (choice < 58) {
    step.kind = StepKind::Unary;
    step.op = static_cast<int>(random.below(kUnaryOps));
    return add(step);
  }
  if (choice < 62) {
    step.kind = StepKind::Where;
    auto fits = [&](const Tensor &t) { return broadcasts(t.shape(), shape); };
    int c = slotOrInput(fits, compatibleShape(shape), DType::Bool);
    int b = c < 0 ? -1
                  : slotOrInput(fits, compatibleShape(shape),
                                random.pick(kAllDTypes));
    if (b < 0)
      return false;
    step.operands = {c, a, b};
    if (random.chance(0.5))
      std::swap(step.operands[1], step.operands[2]);
    return add(step);
  }
  if (choice < 68) {
    step.kind = StepKind::Cast;
    step.dtype = random.pick(kAllDTypes);
    // Sometimes its bits instead, where the widths agree.
    step.flag = sizeOf(step.dtype) == sizeOf(dtype) && random.chance(0.3);
    return add(step);
  }
  if (choice < 72) {
    // Control flow. The threshold is a varying constant: one compiled
    // trace serves both outcomes (and every trip count).
    auto sameType = [&](const Tensor &t) {
      return t.shape() == shape && t.dtype() == dtype;
    };
    step.op = static_cast<int>(random.below(kUnaryOps));
    step.op2 = static_cast<int>(random.below(kBinaryOps));
    setConstants(step, ScalarType::Double);
    if (random.chance(0.5)) {
      step.kind = StepKind::Loop;
      step.axis = random.between(0, 6);
      step.flag = random.chance(0.5);
      step.ints = {random.between(1, 3)};
      return add(step);
    }
    if (random.chance(0.3)) {
      step.kind = StepKind::Call;
      int b = slotOrInput(
          [&](const Tensor &t) { return broadcasts(t.shape(), shape); },
          compatibleShape(shape), dtype);
      if (b < 0)
        return false;
      step.operands.push_back(b);
      return add(step);
    }
    step.kind = StepKind::Cond;
    int p = pickSlot([](const Tensor &) { return true; });
    int b = slotOrInput(sameType, shape, dtype);
    if (p < 0 || b < 0)
      return false;
    step.operands = {p, a, b};
    return add(step);
  }
  if (choice < 74) {
    if (rank == 0)
      return false;
    step.kind = StepKind::Matmul;
    int64_t k = shape.back();
    std::vector<int64_t> other;
    if (random.chance(0.2)) {
      other = {k};
    } else {
      if (rank > 2 && random.chance(0.6))
        other.assign(shape.begin(), shape.end() - 2);
      for (int64_t &dim : other)
        if (random.chance(0.3))
          dim = 1;
      other.push_back(k);
      other.push_back(randomDim());
    }
    int b = slotOrInput(
        [&](const Tensor &t) {
          const std::vector<int64_t> &s = t.shape();
          return !s.empty() && s.size() == other.size() &&
                 s[s.size() - (s.size() == 1 ? 1 : 2)] == k;
        },
        other, random.chance(0.7) ? dtype : random.pick(kAllDTypes));
    if (b < 0)
      return false;
    step.operands.push_back(b);
    // Programs whose seed ends in 6 run their float products under
    // autocast, BFloat16 and Float16 in turn (from the seed, not the random
    // stream: the other programs stay as they were drawn).
    if (program.seed % 10 == 6 && isFloatingPoint(dtype)) {
      step.flag = true;
      step.op = static_cast<int>(program.steps.size() % 2);
    }
    return add(step);
  }
  if (choice < 82) {
    step.kind = StepKind::Reduce;
    step.op = static_cast<int>(random.below(kReduceOps));
    step.flag = random.chance(0.4);
    if (rank > 0 && random.chance(0.8)) {
      for (int64_t d = 0; d < rank; ++d)
        if (random.chance(0.5))
          step.ints.push_back(random.chance(0.3) ? d - rank : d);
      if (step.ints.empty())
        step.ints.push_back(random.below(rank));
    }
    return add(step);
  }
  if (choice < 85) {
    if (rank == 0)
      return false;
    step.kind = StepKind::Softmax;
    step.flag = random.chance(0.5);
    step.axis = random.between(-rank, rank - 1);
    return add(step);
  }
  if (choice < 89) {
    step.kind = StepKind::Reshape;
    int64_t count = elementCount(shape);
    // Factor the count into up to 4 dimensions.
    std::vector<int64_t> factors;
    int64_t left = count;
    if (count == 0) {
      factors = randomShape(3);
      factors.push_back(0);
      std::shuffle(factors.begin(), factors.end(),
                   std::mt19937_64(random.next()));
    } else {
      while (left > 1 && factors.size() < 3) {
        std::vector<int64_t> divisors;
        for (int64_t f = 2; f <= left; ++f)
          if (left % f == 0)
            divisors.push_back(f);
        int64_t f = random.chance(0.3) ? left : random.pick(divisors);
        factors.push_back(f);
        left /= f;
      }
      if (left > 1)
        factors.push_back(left);
      if (random.chance(0.3))
        factors.insert(factors.begin() + random.below(factors.size() + 1), 1);
      if (!factors.empty() && random.chance(0.3))
        factors[random.below(factors.size())] = -1;
    }
    step.shape = factors;
    return add(step);
  }
  if (choice < 92) {
    step.kind = StepKind::Transpose;
    if (random.chance(0.8)) {
      step.ints.resize(rank);
      std::iota(step.ints.begin(), step.ints.end(), 0);
      std::shuffle(step.ints.begin(), step.ints.end(),
                   std::mt19937_64(random.next()));
      for (int64_t &axis : step.ints)
        if (random.chance(0.2))
          axis -= rank;
    }
    return add(step);
  }
  if (choice < 94) {
    step.kind = StepKind::BroadcastTo;
    step.shape = shape;
    for (int64_t &dim : step.shape)
      if (dim == 1 && random.chance(0.7))
        dim = randomDim();
    if (step.shape.size() < 4 && random.chance(0.5))
      step.shape.insert(step.shape.begin(), randomDim());
    return add(step);
  }
  if (choice < 97) {
    step.kind = StepKind::Slice;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = shape[d];
      step.ints.push_back(random.between(-size - 1, size + 1));
      step.ints2.push_back(random.chance(0.3)
                               ? size + random.below(3)
                               : random.between(-size - 1, size + 1));
      step.ints3.push_back(random.chance(0.6) ? 1 : random.between(1, 3));
    }
    return add(step);
  }
  if (rank == 0)
    return false;
  step.kind = StepKind::Concat;
  step.axis = random.between(-rank, rank - 1);
  int64_t axis = step.axis < 0 ? step.axis + rank : step.axis;
  for (int64_t n = random.between(1, 2); n > 0; --n) {
    std::vector<int64_t> other = shape;
    other[axis] = random.between(0, 4);
    int b = slotOrInput(
        [&](const Tensor &t) {
          const std::vector<int64_t> &s = t.shape();
          if (s.size() != shape.size())
            return false;
          for (int64_t d = 0; d < rank; ++d)
            if (d != axis && s[d] != shape[d])
              return false;
          return true;
        },
        other, random.chance(0.7) ? dtype : random.pick(kAllDTypes));
    if (b < 0)
      return false;
    step.operands.push_back(b);
  }
  std::shuffle(step.operands.begin(), step.operands.end(),
               std::mt19937_64(random.next()));
  return add(step);
}

bool Generator::addIndexingOp(int a) {
  std::vector<int64_t> shape = slots[a].shape();
  int64_t rank = static_cast<int64_t>(shape.size());
  Step step;
  step.operands = {a};
  int64_t kind = random.below(8);
  if (kind >= 6)
    return addLayer(a);
  if (kind == 0 && random.chance(0.3))
    return addLookup(a);
  if (kind == 0 || kind == 1) {
    if (rank == 0)
      return false;
    step.kind = kind == 0 ? StepKind::Gather : StepKind::ScatterAdd;
    step.axis = random.below(rank);
    if (kind == 0 && random.chance(0.3)) {
      // indexSelect: indices of any shape
      step.op = static_cast<int>(GatherOp::IndexSelect);
      step.shape = randomShape(2);
    } else {
      step.shape = shape;
      step.shape[step.axis] = random.between(kind == 0 ? 0 : 1, 4);
      for (int64_t d = 0; d < rank && kind == 0; ++d)
        if (d != step.axis && random.chance(0.2))
          step.shape[d] = 1; // broadcast
    }
    step.intData = positions(elementCount(step.shape), shape[step.axis]);
    if (kind == 1) {
      int b = slotOrInput(
          [&](const Tensor &t) { return t.shape() == step.shape; }, step.shape,
          random.chance(0.7) ? slots[a].dtype() : random.pick(kAllDTypes));
      if (b < 0)
        return false;
      step.operands.push_back(b);
    }
    return add(step);
  }
  if (kind == 2) {
    step.kind = StepKind::ArgReduce;
    step.op = static_cast<int>(random.below(2));
    if (rank > 0 && random.chance(0.8)) {
      step.axis = random.between(-rank, rank - 1);
      step.ints = {step.axis};
      step.flag = random.chance(0.4);
    }
    return add(step);
  }
  if (rank == 0)
    return false;
  step.axis = random.between(-rank, rank - 1);
  if (kind == 3) {
    step.kind = StepKind::Cumsum;
    step.flag = random.chance(0.5);
    return add(step);
  }
  if (kind == 4) {
    step.kind = StepKind::TopK;
    int64_t n = shape[step.axis < 0 ? step.axis + rank : step.axis];
    step.seed = random.between(1, std::min<int64_t>(n, 3));
    step.flag = random.chance(0.4);
    return add(step);
  }
  step.kind = StepKind::Index;
  bool ellipsisUsed = false;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t n = shape[d];
    int64_t entry = random.below(10);
    if (entry < 1 && !ellipsisUsed) {
      ellipsisUsed = true;
      step.ints.push_back(static_cast<int64_t>(IndexKind::Ellipsis));
      step.ints2.insert(step.ints2.end(), {0, 0, 0});
      break; // the rest of the dimensions
    }
    if (entry < 2) {
      step.ints.push_back(static_cast<int64_t>(IndexKind::NewAxis));
      step.ints2.insert(step.ints2.end(), {0, 0, 0});
    }
    if (entry < 4 && n > 0) {
      step.ints.push_back(static_cast<int64_t>(IndexKind::Integer));
      step.ints2.insert(step.ints2.end(), {random.between(-n, n - 1), 0, 0});
    } else if (entry < 6 && n > 0) {
      int64_t length = random.between(1, 3);
      std::vector<int64_t> values = positions(length, n);
      for (int64_t &value : values)
        value = std::clamp<int64_t>(value, -n, n - 1);
      step.ints.push_back(static_cast<int64_t>(IndexKind::Tensor));
      step.ints2.insert(step.ints2.end(), {length, 0, 0});
      step.intData.insert(step.intData.end(), values.begin(), values.end());
    } else {
      auto bound = [&] {
        return random.chance(0.3) ? kNone : random.between(-n - 2, n + 1);
      };
      int64_t stride = random.between(1, 3) * (random.chance(0.3) ? -1 : 1);
      step.ints.push_back(static_cast<int64_t>(IndexKind::Range));
      step.ints2.insert(step.ints2.end(), {bound(), bound(), stride});
    }
  }
  return add(step);
}

std::vector<int64_t> Generator::positions(int64_t count, int64_t n) {
  std::vector<int64_t> values;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(random.chance(0.1) ? random.between(-n - 3, n + 2)
                                        : random.between(-n, n - 1));
  return values;
}

bool Generator::addLookup(int a) {
  std::vector<int64_t> shape = slots[a].shape();
  Step step;
  step.kind = StepKind::Gather;
  step.operands = {a};
  auto op = static_cast<GatherOp>(
      random.between(static_cast<int64_t>(GatherOp::Take),
                     static_cast<int64_t>(GatherOp::OneHot)));
  step.op = static_cast<int>(op);
  switch (op) {
  case GatherOp::Take: {
    int64_t n = elementCount(shape);
    if (n == 0)
      return false;
    step.shape = randomShape(2);
    step.intData = positions(elementCount(step.shape), n);
    break;
  }
  case GatherOp::Embedding: {
    // A table [V, D]: slot a when it is one, mostly a new one.
    if (shape.size() != 2 || shape[0] == 0 || random.chance(0.6)) {
      shape = {random.between(1, 9), random.between(1, 16)};
      if (!add(input(random.pick(kFloatDTypes), shape)))
        return false;
      step.operands = {static_cast<int>(slots.size()) - 1};
    }
    step.shape = randomShape(2);
    step.intData = positions(elementCount(step.shape), shape[0]);
    break;
  }
  case GatherOp::OneHot: {
    step.seed = random.between(1, 6); // classes
    step.dtype = random.pick(kAllDTypes);
    DType labels = slots[a].dtype();
    bool computedLabels = shape.size() == 1 &&
                          (labels == DType::Int32 || labels == DType::Int64) &&
                          random.chance(0.6);
    if (!computedLabels) {
      // Labels as data; -1 and `classes` give rows of zeros.
      step.operands.clear();
      step.shape = {random.between(0, 6)};
      for (int64_t i = 0; i < step.shape[0]; ++i)
        step.intData.push_back(random.between(-1, step.seed));
    }
    break;
  }
  default:
    return false;
  }
  return add(step);
}

bool Generator::addLayer(int a) {
  std::vector<int64_t> shape = slots[a].shape();
  int64_t rank = static_cast<int64_t>(shape.size());
  Step step;
  step.kind = StepKind::Layer;
  step.operands = {a};
  auto op = static_cast<LayerOp>(random.below(kLayerOps));
  step.op = static_cast<int>(op);
  // Images are rare among random shapes: convolutions and pooling mostly
  // read a new [N, C, H, W] input.
  if ((op == LayerOp::Conv2d || op == LayerOp::MaxPool2d ||
       op == LayerOp::AvgPool2d) &&
      rank != 4 && random.chance(0.8)) {
    // Sometimes more channels: over 32 taps (C kH kW), conv2d is one
    // lazy.conv2d (register-blocked direct convolution), not a sum of taps.
    shape = {random.between(1, 2),
             random.chance(0.3) ? random.between(4, 9) : random.between(1, 3),
             random.between(2, 6), random.between(2, 9)};
    rank = 4;
    if (!add(input(random.pick(kFloatDTypes), shape)))
      return false;
    step.operands = {static_cast<int>(slots.size()) - 1};
  }
  switch (op) {
  case LayerOp::Conv2d: {
    if (rank != 4)
      return false;
    int64_t channels = shape[1];
    int64_t groups = channels > 1 && random.chance(0.3) ? channels : 1;
    // Up to 20 output channels: a vector and a masked part of one.
    int64_t out =
        groups * (groups == 1 && random.chance(0.3) ? random.between(3, 20)
                                                    : random.between(1, 2));
    step.ints = {random.between(1, 2), random.between(0, 1),
                 random.between(1, 2), groups};
    int b = slotOrInput([](const Tensor &) { return false; },
                        {out, channels / groups,
                         random.between(channels >= 4 ? 2 : 1, 3),
                         random.between(channels >= 4 ? 2 : 1, 3)},
                        random.pick(kFloatDTypes));
    if (b < 0)
      return false;
    step.operands.push_back(b);
    break;
  }
  case LayerOp::MaxPool2d:
  case LayerOp::AvgPool2d: {
    if (rank != 4 && rank != 3)
      return false;
    int64_t kernel = random.between(1, 3);
    step.ints = {kernel, random.between(0, 2), random.between(0, kernel / 2)};
    break;
  }
  case LayerOp::LayerNorm:
    if (rank == 0)
      return false;
    step.ints = {random.between(1, std::min<int64_t>(rank, 2))};
    break;
  case LayerOp::Dropout:
    step.start = random.chance(0.5) ? 0.25 : 0.5;
    step.seed = random.between(0, 1000);
    break;
  case LayerOp::Attention:
    if (rank < 2)
      return false;
    step.flag = random.chance(0.5);
    // nn::AttentionTiles: Auto, Always (up to four batch dimensions), Never.
    step.ints = {rank <= 6 ? random.between(0, 2) : 2};
    step.start = random.chance(0.3) ? 0.25 : 0.0;
    step.seed = random.between(0, 1000);
    break;
  case LayerOp::BatchNorm:
    if (rank < 2)
      return false;
    break;
  }
  return add(step);
}

Program Generator::run() {
  program.iterations =
      random.chance(0.35) ? static_cast<int>(random.between(2, 3)) : 1;
  int operations = static_cast<int>(random.between(1, options.maxOps));
  for (int64_t n = random.between(1, 2); n > 0; --n)
    add(input(random.pick(kAllDTypes), randomShape()));
  for (int made = 0, attempts = 0;
       made < operations && attempts < 20 * operations; ++attempts) {
    if (!addRandomOp())
      continue;
    ++made;
    // Reads at random points: their traces end there.
    if (random.chance(0.1)) {
      Step read;
      read.kind = StepKind::Read;
      int slot = pickSlot();
      read.operands = {slot};
      int64_t count = elementCount(slots[slot].shape());
      int64_t kind = random.below(4);
      if ((kind == 1 || kind == 2) && count != 1)
        kind = 0;
      read.op = static_cast<int>(kind);
      add(read);
    }
  }
  // Outputs: every result nothing uses, and some intermediate ones.
  std::vector<bool> used(program.steps.size(), false);
  for (const Step &step : program.steps)
    for (int operand : step.operands)
      used[operand] = true;
  for (size_t i = 0; i < program.steps.size(); ++i) {
    Step &step = program.steps[i];
    if (step.kind == StepKind::Read)
      continue;
    step.output = !used[i] || random.chance(0.15);
  }
  slots.clear();
  return program;
}

Program Generator::runLarge() {
  // Powers of two, a prime, sizes with odd factors, and three dimensions:
  // rows, columns and everything of each.
  static const std::vector<std::vector<int64_t>> shapes = {
      {1 << 20},   {1000003},   {4, 1 << 18},   {1 << 18, 4},  {1024, 1024},
      {3, 333331}, {64, 16384}, {16, 256, 256}, {5, 3000, 70}, {100000, 7}};
  static const std::vector<DType> dtypes = {DType::Float32, DType::Float32,
                                            DType::Float32, DType::Float64,
                                            DType::BFloat16};
  program.iterations = 1;
  // Mostly positive data: the rounding errors of a running total add up.
  Step data;
  data.kind = StepKind::RandomUniform;
  data.shape = random.pick(shapes);
  data.dtype = random.pick(dtypes);
  data.start = static_cast<double>(random.between(-4, 4)) / 4;
  data.stop = data.start + static_cast<double>(random.between(1, 8)) / 2;
  data.seed = random.below(1 << 20);
  if (!record(std::move(data)))
    return program;
  int64_t rank = static_cast<int64_t>(program.steps.back().shape.size());
  if (random.chance(0.4)) {
    Step scaled;
    scaled.kind = StepKind::BinaryScalar;
    scaled.op =
        static_cast<int>(random.chance(0.5) ? BinaryOp::Mul : BinaryOp::Add);
    scaled.operands = {static_cast<int>(program.steps.size()) - 1};
    setConstants(scaled, ScalarType::Float);
    (void)record(std::move(scaled));
  }
  Step reduce;
  reduce.operands = {static_cast<int>(program.steps.size()) - 1};
  if (random.chance(0.75)) {
    reduce.kind = StepKind::Reduce;
    // Sum or mean: maxima are exact in any order.
    reduce.op = static_cast<int>(random.chance(0.5) ? ReduceOp::ReduceSum
                                                    : ReduceOp::ReduceMean);
    reduce.flag = random.chance(0.3);
    for (int64_t d = 0; d < rank; ++d)
      if (random.chance(0.5))
        reduce.ints.push_back(d);
  } else {
    reduce.kind = StepKind::Softmax;
    reduce.flag = random.chance(0.5);
    reduce.axis = random.between(0, rank - 1);
  }
  (void)add(std::move(reduce));
  for (Step &step : program.steps)
    step.output = false;
  program.steps.back().output = true;
  slots.clear();
  return program;
}

Program Generator::runRepeated() {
  program.iterations = 1;
  int64_t rows = random.between(1, 4);
  int64_t width = random.pick(std::vector<int64_t>{4, 8, 16});
  // The block as templates: operand -1 is the copy's input, -2 the
  // previous copy's input (a residual), k >= 0 the block's step k; an
  // Input step is a parameter, with new data in every copy.
  std::vector<Step> block;
  auto push = [&](Step step) {
    block.push_back(std::move(step));
    return static_cast<int>(block.size()) - 1;
  };
  int value = -1;
  // Ordinary values in [-scale, scale] (the weights' sums contract), so
  // that errors stay bounded over many copies and the reference's bounds
  // stay tight (special values and wide ranges are run() programs' job).
  auto parameter = [&](std::vector<int64_t> shape, double scale) {
    Step step;
    step.kind = StepKind::Input;
    step.dtype = DType::Float32;
    step.shape = std::move(shape);
    step.start = scale; // Unused by Input: the template keeps its scale.
    for (int64_t i = 0; i < elementCount(step.shape); ++i)
      step.floatData.push_back(
          static_cast<float>((random.unit() * 2 - 1) * scale));
    return step;
  };
  auto unary = [&](UnaryOp op) {
    Step step;
    step.kind = StepKind::Unary;
    step.op = static_cast<int>(op);
    step.operands = {value};
    value = push(std::move(step));
  };
  auto binary = [&](BinaryOp op, int other) {
    Step step;
    step.kind = StepKind::Binary;
    step.op = static_cast<int>(op);
    step.operands = {value, other};
    value = push(std::move(step));
  };
  // Blocks of 32 trace positions or more (BlockSearchOptions).
  int ops = static_cast<int>(random.between(16, 24));
  for (int i = 0; i < ops; ++i) {
    switch (random.below(7)) {
    case 0: { // A product with a fresh weight.
      int weight = push(parameter({width, width}, 1.0 / double(width)));
      Step product;
      product.kind = StepKind::Matmul;
      product.operands = {value, weight};
      value = push(std::move(product));
      break;
    }
    case 1:
      binary(BinaryOp::Add, push(parameter({width}, 1.0)));
      break;
    case 2:
      binary(BinaryOp::Mul, push(parameter({width}, 1.0)));
      break;
    case 3:
      unary(random.pick(std::vector<UnaryOp>{UnaryOp::Tanh, UnaryOp::Sigmoid,
                                             UnaryOp::Sin, UnaryOp::Relu}));
      break;
    case 4: {
      Step softmax;
      softmax.kind = StepKind::Softmax;
      softmax.axis = 1;
      softmax.flag = random.chance(0.3);
      softmax.operands = {value};
      value = push(std::move(softmax));
      break;
    }
    case 5: { // A scale the program writes.
      Step scaled;
      scaled.kind = StepKind::BinaryScalar;
      scaled.op = static_cast<int>(BinaryOp::Mul);
      scaled.operands = {value};
      scaled.scalarType = ScalarType::Float;
      scaled.constants = {static_cast<double>(random.between(1, 8)) / 8};
      value = push(std::move(scaled));
      break;
    }
    default:
      binary(BinaryOp::Add, -2);
      break;
    }
  }
  unary(UnaryOp::Tanh); // Bounded, whatever the depth.

  // Copies past the repeated-block threshold (500 nodes). The variant
  // comes from the seed, not from the random stream (a seed's program stays
  // what it was): each copy between CompileBlock bounds, and the gradient
  // of the chain with respect to its input (whose backward passes repeat
  // too), each every other time.
  const uint64_t variant =
      program.seed / std::max<uint64_t>(options.repeatedEvery, 1);
  const bool bounds = variant % 2 == 1, gradient = variant / 2 % 2 == 1;
  ProgramTape tape(gradient);
  int copies = std::min<int>(40, 900 / static_cast<int>(block.size()) + 2);
  Step input = parameter({rows, width}, 2.0);
  input.watched = gradient;
  if (!record(std::move(input)))
    return program;
  const int first = static_cast<int>(program.steps.size()) - 1;
  int current = first;
  int previous = current;
  for (int copy = 0; copy < copies; ++copy) {
    if (bounds) {
      Step bound;
      bound.kind = StepKind::BlockBound;
      record(std::move(bound));
    }
    std::vector<int> at(block.size());
    for (size_t k = 0; k < block.size(); ++k) {
      Step step = block[k];
      if (step.kind == StepKind::Input) // New values, the same scale.
        step = parameter(step.shape, step.start);
      for (int &operand : step.operands)
        operand = operand == -1   ? current
                  : operand == -2 ? previous
                                  : at[static_cast<size_t>(operand)];
      if (!record(std::move(step))) {
        program.steps.clear();
        slots.clear();
        return program;
      }
      at[k] = static_cast<int>(program.steps.size()) - 1;
    }
    previous = current;
    current = at.back();
    // Some copies' results are outputs too: values crossing a cut.
    program.steps.back().output = random.chance(0.1);
  }
  program.steps.back().output = true;
  if (gradient) {
    Step backward;
    backward.kind = StepKind::Gradient;
    backward.operands = {current, first};
    backward.output = true;
    if (!record(std::move(backward))) {
      program.steps.clear();
      slots.clear();
      return program;
    }
  }
  // One sync first: the whole chain is one trace (reading the outputs one
  // by one would cut it at each), which the engine cuts into blocks. Not
  // recorded: generating runs nothing.
  Step sync;
  sync.kind = StepKind::Read;
  sync.op = static_cast<int>(ReadKind::Sync);
  sync.operands = {static_cast<int>(program.steps.size()) - 1};
  program.steps.push_back(std::move(sync));
  slots.clear();
  return program;
}

} // namespace

Program fuzz::generate(uint64_t seed, const GeneratorOptions &options) {
  if (options.repeatedEvery > 0 &&
      seed % options.repeatedEvery == 1 % options.repeatedEvery)
    return Generator(seed, options).runRepeated();
  if (options.largeEvery > 0 && seed % options.largeEvery == 0) {
    GeneratorOptions large = options;
    large.maxElements = int64_t(1) << 22;
    return Generator(seed, large).runLarge();
  }
  return Generator(seed, options).run();
}

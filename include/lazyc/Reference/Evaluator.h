//===- Evaluator.h - A plain interpreter of the lazy graph ------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the reference evaluator: naive loops over the recorded
// graph (lazyc::trace::Node), one op at a time, in double precision for
// floats (each result rounded to its dtype, sums and products accumulated in
// float64) and exactly for integers and booleans. It is what compiled code is
// checked against by tests and by lazyc-fuzz; nothing in lazyc's own
// execution path uses it.
//
// Every element also carries a tolerance: how far a correct compiler's
// result may be from the reference value. It is 0 where the compiled
// result must be bit-exact (integer and boolean ops, IEEE add/sub/mul/div,
// casts, data movement), and grows only where the op's documented semantics
// leave room (polynomial transcendentals, float reductions in the dtype in
// any order) or where an input's tolerance propagates (bounded by
// evaluating the op at the corners of its inputs' intervals). It is +inf
// where any value is acceptable: unspecified results (integer division by
// zero, float-to-int casts of NaN or out-of-range values) and results an
// input's tolerance cannot decide (a comparison of values closer than their
// tolerances).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_REFERENCE_EVALUATOR_H
#define LAZYC_REFERENCE_EVALUATOR_H

#include "lazyc/API/Tensor.h"
#include "lazyc/Trace/Node.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace lazyc::reference {

namespace impl {
struct ControlFlowValue;
} // namespace impl

/// A value computed by the reference evaluator.
struct Value {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  /// Float dtypes: the elements, rounded to the dtype (so held exactly).
  std::vector<double> floats;
  /// Integer dtypes and Bool: the elements (Bool as 0 or 1, UInt8 as 0 to
  /// 255).
  std::vector<int64_t> ints;
  /// Per element: the largest distance a correct compiled result may have
  /// from the reference value; 0 means bit-exact (NaN matches NaN, and
  /// +0.0 matches -0.0), +inf means any value.
  std::vector<double> tolerance;

  int64_t numel() const;
  bool isFloat() const { return isFloatingPoint(dtype); }
};

/// Evaluates nodes of the lazy graph. Results are memoized per node (and
/// the nodes kept alive), so evaluating several values of one graph visits
/// each node once. The walk is iterative: graph depth is unbounded.
class Evaluator {
public:
  Evaluator();
  ~Evaluator();

  /// The reference value of `node`. Materialized nodes are leaves: their
  /// buffer is the value (exact).
  const Value &evaluate(const trace::NodePtr &node);

  /// The reference value of what `tensor` refers to, computed from its
  /// recorded graph; the tensor is not materialized.
  const Value &evaluate(const Tensor &tensor);

  /// How many leaves were materialized values of ops rather than user
  /// data or literals: those values came from compiled code, so a check
  /// against them is not independent.
  int64_t computedLeaves() const { return computedLeafCount; }

  /// Whether `tensor` is itself such a leaf (a trace size limit computed
  /// it): its reference value is its own compiled value, so a check of
  /// another mode's result against it is no check of the op.
  static bool isComputedLeaf(const Tensor &tensor);

private:
  /// The values an If or While computed, which its Result nodes read.
  std::unordered_map<const trace::Node *,
                     std::unique_ptr<impl::ControlFlowValue>>
      controlFlow;
  struct Entry {
    trace::NodePtr node; ///< Keeps the memo key alive.
    Value value;
  };
  std::unordered_map<const trace::Node *, Entry> memo;
  int64_t computedLeafCount = 0;
};

/// The reference value of `tensor`, without materializing it.
Value evaluate(const Tensor &tensor);

/// The first element where `actual` (a compiled result) is farther from the
/// reference than its tolerance.
struct Mismatch {
  int64_t index = -1; ///< Row-major element index.
  double expected = 0, actual = 0, tolerance = 0;
  /// "element 3 of [2, 4]: expected 1.5 (tolerance 0), got 1.25".
  std::string describe(const Value &reference) const;
};

/// Checks a compiled result (the elements in row-major order, widened to
/// double; exact for every dtype but Int64 beyond 2^53, which is why
/// integers have their own overload).
std::vector<Mismatch> check(const Value &reference,
                            const std::vector<double> &actual,
                            size_t maxReported = 1);
std::vector<Mismatch> check(const Value &reference,
                            const std::vector<int64_t> &actual,
                            size_t maxReported = 1);

/// Reads `tensor` (materializing it) and checks it against `reference`.
/// Shape or dtype differences are reported as a mismatch at index -1.
std::vector<Mismatch> check(const Value &reference, const Tensor &tensor,
                            size_t maxReported = 1);

/// Numerics the evaluator uses, exposed for tests.
namespace numerics {
/// `value` rounded to nearest-even in `dtype` (a float dtype), with
/// subnormals and overflow to infinity: one correct rounding, which
/// converting through float first would not give for Float16 and BFloat16.
double roundTo(long double value, DType dtype);
/// The distance between adjacent values of `dtype` around |value|.
double ulp(double value, DType dtype);
/// The largest finite value of `dtype`.
double maxFinite(DType dtype);
/// SplitMix64's output for `counter` under `seed`, as random_uniform and
/// random_normal use it.
uint64_t randomBits(int64_t seed, uint64_t counter);
} // namespace numerics

} // namespace lazyc::reference

#endif // LAZYC_REFERENCE_EVALUATOR_H

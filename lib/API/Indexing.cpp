//===- Indexing.cpp - Indexing composed from gather, slice and reshape ----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the indexing ops that are compositions of the
// recorded primitives (gather, slice, reshape, transpose, argmax): they add
// no op kind, so fusion, gradients and the reference evaluator see their
// parts. Tensor::index follows numpy's rules for basic and integer-array
// indexing.
//
//===----------------------------------------------------------------------===//

#include "ShapeCheck.h"
#include "lazyc/API/Ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace lazyc;

namespace {

[[noreturn]] void fail(const char *op, const std::string &message,
                       Where where) {
  throw Error(op, message, where);
}

void checkIndices(const char *op, const Tensor &indices, Where where) {
  if (!indices.defined())
    fail(op, "the indices are an empty Tensor", where);
  if (indices.dtype() != DType::Int32 && indices.dtype() != DType::Int64)
    fail(op,
         std::string("needs Int32 or Int64 indices, got ") +
             dtypeName(indices.dtype()),
         where);
}

/// [1, ..., n, ..., 1]: size n at `axis` of a rank-`rank` shape.
Shape alongAxis(int64_t n, int64_t axis, int64_t rank) {
  Shape shape(rank, 1);
  shape[axis] = n;
  return shape;
}

/// The lowest value of `dtype`: what a taken element becomes in topk.
double lowest(DType dtype) {
  if (isFloatingPoint(dtype))
    return -std::numeric_limits<double>::infinity();
  if (isUnsignedInteger(dtype) || dtype == DType::Bool)
    return 0;
  return -std::ldexp(1.0, 8 * static_cast<int>(sizeOf(dtype)) - 1);
}

} // namespace

Tensor lazyc::indexSelect(const Tensor &x, int64_t axis, const Tensor &indices,
                          Where where) {
  if (!x.defined())
    fail("indexSelect", "an operand is an empty Tensor", where);
  checkIndices("indexSelect", indices, where);
  int64_t rank = x.rank();
  axis = detail::normalizeAxis(axis, rank, "indexSelect", where);
  Tensor flat = reshape(indices, alongAxis(indices.numel(), axis, rank), where);
  Tensor picked = gather(x, axis, flat, where);
  Shape shape(x.shape().begin(), x.shape().begin() + axis);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), x.shape().begin() + axis + 1, x.shape().end());
  return reshape(picked, shape, where);
}

Tensor lazyc::take(const Tensor &x, const Tensor &indices, Where where) {
  if (!x.defined())
    fail("take", "an operand is an empty Tensor", where);
  checkIndices("take", indices, where);
  return indexSelect(reshape(x, {-1}, where), 0, indices, where);
}

TopK lazyc::topk(const Tensor &x, int64_t k, int64_t axis, Where where) {
  if (!x.defined())
    fail("topk", "an operand is an empty Tensor", where);
  int64_t rank = x.rank();
  axis = detail::normalizeAxis(axis, rank, "topk", where);
  int64_t n = x.shape()[axis];
  if (k < 1 || k > n)
    fail("topk",
         "needs 1 <= k <= " + std::to_string(n) + " (the size of axis " +
             std::to_string(axis) + " of " + shapeText(x.shape()) +
             "), got k = " + std::to_string(k),
         where);
  Tensor values = x.dtype() == DType::Bool ? cast(x, DType::Int32, where) : x;
  Tensor positions =
      reshape(arange(0, static_cast<double>(n), 1, DType::Int64, where),
              alongAxis(n, axis, rank), where);
  Tensor floor =
      full(x.shape(), Scalar(lowest(values.dtype()), where), values.dtype());
  // Each round takes the first maximum among the elements not taken yet.
  // Taken elements become the lowest value; when every element left is the
  // lowest too, the first one left is the answer.
  Tensor taken = zeros(x.shape(), DType::Int32, where);
  std::vector<Tensor> topValues, topIndices;
  for (int64_t round = 0; round < k; ++round) {
    Tensor isTaken = At(taken, where) > 0;
    Tensor best =
        argmax(lazyc::where(isTaken, floor, values, where), axis, true, where);
    Tensor firstLeft = argmin(taken, axis, true, where);
    Tensor pick = lazyc::where(gather(isTaken, axis, best, where), firstLeft,
                               best, where);
    topIndices.push_back(pick);
    topValues.push_back(gather(x, axis, pick, where));
    taken =
        maximum(taken, cast(At(positions, where) == pick, DType::Int32), where);
  }
  return TopK{concat(topValues, axis, where), concat(topIndices, axis, where)};
}

//===----------------------------------------------------------------------===//
// Tensor::index
//===----------------------------------------------------------------------===//

namespace {

/// Python's slice.indices(n): the first element, the step and the count.
struct Span {
  int64_t first, step, count;
};

Span resolve(const Range &range, int64_t n, int64_t dim, Where where) {
  int64_t step = range.step;
  if (step == 0)
    fail("index", "a Range step in dimension " + std::to_string(dim) + " is 0",
         where);
  auto bound = [&](std::optional<int64_t> value, int64_t fallback) {
    if (!value)
      return fallback;
    int64_t v = *value < 0 ? *value + n : *value;
    return step > 0 ? std::clamp<int64_t>(v, 0, n)
                    : std::clamp<int64_t>(v, -1, n - 1);
  };
  int64_t start = bound(range.start, step > 0 ? 0 : n - 1);
  int64_t stop = bound(range.stop, step > 0 ? n : -1);
  int64_t count = step > 0 ? (stop - start + step - 1) / step
                           : (start - stop - step - 1) / -step;
  return {start, step, std::max<int64_t>(count, 0)};
}

/// An integer index of a dimension of n elements, checked (numpy raises
/// IndexError) and counted from the end when negative.
int64_t checkedInteger(int64_t index, int64_t n, int64_t dim, Where where) {
  if (index < -n || index >= n)
    fail("index",
         "index " + std::to_string(index) + " is out of range for dimension " +
             std::to_string(dim) + " of size " + std::to_string(n),
         where);
  return index < 0 ? index + n : index;
}

/// The shape numpy broadcasts `shapes` to, or an error.
Shape broadcastShapes(const std::vector<Shape> &shapes, Where where) {
  size_t rank = 0;
  for (const Shape &shape : shapes)
    rank = std::max(rank, shape.size());
  Shape out(rank, 1);
  for (const Shape &shape : shapes)
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t &dim = out[rank - shape.size() + d];
      if (dim == 1)
        dim = shape[d];
      else if (shape[d] != 1 && shape[d] != dim)
        fail("index",
             "the index tensors' shapes " + shapeText(shape) + " and " +
                 shapeText(out) + " do not broadcast",
             where);
    }
  return out;
}

} // namespace

Tensor lazyc::index(const Tensor &x, const std::vector<Index> &indices,
                    Where where) {
  if (!x.defined())
    fail("index", "indexes an empty Tensor", where);
  // Expand the ellipsis, then insert the new axes as size-1 dimensions
  // that a full Range selects: every entry then names one dimension.
  int64_t consumed = 0, ellipses = 0;
  for (const Index &entry : indices) {
    if (entry.kind == Index::Kind::Ellipsis)
      ++ellipses;
    else if (entry.kind != Index::Kind::NewAxis)
      ++consumed;
    if (entry.kind == Index::Kind::Tensor) {
      if (entry.tensor.defined() && entry.tensor.dtype() == DType::Bool)
        fail("index",
             "a Bool mask selects a data-dependent number of elements; use "
             "where() to mask, or pass Int64 positions",
             where);
      checkIndices("index", entry.tensor, where);
    }
  }
  if (ellipses > 1)
    fail("index", "takes at most one ellipsis", where);
  if (consumed > x.rank())
    fail("index",
         "has " + std::to_string(consumed) + " indices for the rank-" +
             std::to_string(x.rank()) + " tensor " + shapeText(x.shape()),
         where);
  std::vector<Index> entries;
  Shape inserted;
  int64_t dim = 0;
  for (const Index &entry : indices) {
    if (entry.kind == Index::Kind::Ellipsis) {
      for (int64_t i = 0; i < x.rank() - consumed; ++i) {
        entries.push_back(Range{});
        inserted.push_back(x.shape()[dim++]);
      }
    } else if (entry.kind == Index::Kind::NewAxis) {
      entries.push_back(Range{});
      inserted.push_back(1);
    } else {
      entries.push_back(entry);
      inserted.push_back(x.shape()[dim++]);
    }
  }
  for (; dim < x.rank(); ++dim) {
    entries.push_back(Range{});
    inserted.push_back(x.shape()[dim]);
  }
  Tensor work = reshape(x, inserted, where);
  int64_t rank = static_cast<int64_t>(entries.size());

  bool advanced = std::any_of(entries.begin(), entries.end(), [](auto &e) {
    return e.kind == Index::Kind::Tensor;
  });
  // Ranges (and, without tensors, integers) slice; negative steps slice
  // the span, then reverse it with a gather.
  Shape start(rank, 0), limit = work.shape(), step(rank, 1);
  std::vector<int64_t> reversed;
  std::vector<bool> dropped(rank, false);
  for (int64_t d = 0; d < rank; ++d) {
    const Index &entry = entries[d];
    int64_t n = work.shape()[d];
    if (entry.kind == Index::Kind::Range) {
      Span span = resolve(entry.range, n, d, where);
      int64_t last = span.first + (span.count - 1) * span.step;
      start[d] = span.count ? std::min(span.first, last) : 0;
      limit[d] = span.count ? std::max(span.first, last) + 1 : 0;
      step[d] = span.count > 1 ? std::abs(span.step) : 1;
      if (span.step < 0 && span.count > 1)
        reversed.push_back(d);
    } else if (entry.kind == Index::Kind::Integer) {
      int64_t i = checkedInteger(entry.integer, n, d, where);
      if (!advanced) {
        start[d] = i;
        limit[d] = i + 1;
        dropped[d] = true;
      }
    }
  }
  work = slice(work, start, limit, step, where);
  for (int64_t d : reversed) {
    int64_t n = work.shape()[d];
    Tensor backwards =
        arange(static_cast<double>(n - 1), -1, -1, DType::Int64, where);
    work = indexSelect(work, d, backwards, where);
  }
  if (!advanced) {
    Shape shape;
    for (int64_t d = 0; d < rank; ++d)
      if (!dropped[d])
        shape.push_back(work.shape()[d]);
    return reshape(work, shape, where);
  }

  // Integer-array indexing: the indexed dimensions (integers count as 0-d
  // tensors) are brought together, merged into one, and a single
  // indexSelect reads them at the merged position.
  std::vector<int64_t> axes;
  std::vector<Tensor> tensors;
  for (int64_t d = 0; d < rank; ++d) {
    if (entries[d].kind == Index::Kind::Tensor) {
      axes.push_back(d);
      tensors.push_back(cast(entries[d].tensor, DType::Int64, where));
    } else if (entries[d].kind == Index::Kind::Integer) {
      axes.push_back(d);
      int64_t i = checkedInteger(entries[d].integer, work.shape()[d], d, where);
      tensors.push_back(full({}, Scalar(i, where), DType::Int64));
    }
  }
  bool adjacent =
      axes.back() - axes.front() + 1 == static_cast<int64_t>(axes.size());
  std::vector<int64_t> order;
  if (!adjacent) { // numpy puts the result's indexed part first
    order = axes;
    for (int64_t d = 0; d < rank; ++d)
      if (!std::binary_search(axes.begin(), axes.end(), d))
        order.push_back(d);
    work = transpose(work, order, where);
  }
  int64_t first = adjacent ? axes.front() : 0;
  std::vector<Shape> shapes;
  for (const Tensor &t : tensors)
    shapes.push_back(t.shape());
  Shape common = broadcastShapes(shapes, where);
  // The merged position, each index counted from the end when negative
  // and clamped to its dimension (so that it cannot reach a neighbour).
  Tensor merged;
  int64_t mergedSize = 1;
  for (size_t k = axes.size(); k-- > 0;) {
    int64_t n = work.shape()[first + static_cast<int64_t>(k)];
    Tensor i = broadcastTo(tensors[k], common, where);
    i = lazyc::where(At(i, where) < 0, At(i, where) + n, i, where);
    i = lazyc::where(At(i, where) < 0,
                     full(common, Scalar(0, where), DType::Int64), i, where);
    i = lazyc::where(At(i, where) >= n,
                     full(common, Scalar(n - 1, where), DType::Int64), i,
                     where);
    Tensor term = At(i, where) * mergedSize;
    merged = merged.defined() ? At(merged, where) + term : term;
    mergedSize *= n;
  }
  Shape shape(work.shape().begin(), work.shape().begin() + first);
  shape.push_back(mergedSize);
  shape.insert(shape.end(),
               work.shape().begin() + first + static_cast<int64_t>(axes.size()),
               work.shape().end());
  work = reshape(work, shape, where);
  return indexSelect(work, first, merged, where);
}

Tensor Tensor::index(const std::vector<Index> &indices,
                     SourceLocation where) const {
  return lazyc::index(*this, indices, where);
}

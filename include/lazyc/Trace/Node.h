//===- Node.h - The recorded lazy graph -------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the nodes of the lazy graph that lazyc::Tensor records:
// what an op is (kind, attributes), what it produces (dtype, shape), where the
// user wrote it, and, once computed, its buffer. No MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_TRACE_NODE_H
#define LAZYC_TRACE_NODE_H

#include "lazyc/Runtime/DType.h"
#include "lazyc/Runtime/Device.h"

#include "llvm/ADT/SmallVector.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace lazyc::trace {

/// What a node computes. Mirrors the `lazy` dialect's ops one to one, plus
/// the two kinds of leaves (a buffer; a literal, which may be promoted).
/// lazyc/Trace/Ops.def lists them and says where a new one is handled.
enum class OpKind : uint8_t {
#define LAZYC_OP(Kind, Name, ShapeAttr) Kind,
#include "lazyc/Trace/Ops.def"
};

/// Mixes a 64-bit word into `hash`, for content hashes and trace keys
/// (every input bit reaches every output bit: sequences of small numbers, as
/// shapes and axes are, must not collide).
inline void mixHash(uint64_t &hash, uint64_t value) {
  value *= 0x9E3779B97F4A7C15ULL;
  value ^= value >> 32;
  hash = (hash ^ value) * 0xBF58476D1CE4E5B9ULL;
  hash ^= hash >> 31;
}

/// The name of an op kind as the user knows it ("add", "matmul", ...).
const char *opName(OpKind kind);

/// Whether `kind` computes each element from the same element of its
/// operands (the binary, unary and other elementwise rows of Ops.def).
constexpr bool isElementwiseOp(OpKind kind) {
  switch (kind) {
#define LAZYC_OP(Kind, Name, ShapeAttr)                                        \
  case OpKind::Kind:                                                           \
    return false;
#define LAZYC_BINARY_OP(Kind, Name, ShapeAttr)                                 \
  case OpKind::Kind:                                                           \
    return true;
#define LAZYC_UNARY_OP(Kind, Name, ShapeAttr) LAZYC_BINARY_OP(Kind, Name, _)
#define LAZYC_ELEMENTWISE_OP(Kind, Name, ShapeAttr)                            \
  LAZYC_BINARY_OP(Kind, Name, _)
#include "lazyc/Trace/Ops.def"
  }
  return false;
}

/// Whether the result shape of `kind` is fixed by its attributes, not only
/// by its operands' shapes: eager mode compiles such ops once per shape, the
/// others once per rank.
constexpr bool shapeIsAttribute(OpKind kind) {
  switch (kind) {
#define LAZYC_OP(Kind, Name, ShapeAttr)                                        \
  case OpKind::Kind:                                                           \
    return ShapeAttr;
#include "lazyc/Trace/Ops.def"
  }
  return false;
}

/// The comparison of a Compare node (the `lazy.compare` predicates).
enum class Predicate : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

/// Where the user's program created a node.
struct SourceLoc {
  const char *file = "";
  unsigned line = 0;
};

/// A buffer in one device's memory, from that device's allocator (freed
/// when the last owner goes).
class Buffer {
public:
  /// Throws std::bad_alloc when the allocator has no memory.
  Buffer(DType dtype, int64_t elements, Device device,
         DeviceAllocator &allocator);
  /// Wraps `data`, memory lazyc did not allocate (Tensor::fromBuffer,
  /// fromDLPack); `release`, if set, runs when the last owner goes. Such a
  /// buffer is only read: the engine never donates it to an output.
  Buffer(void *data, DType dtype, int64_t elements, Device device,
         std::function<void()> release);
  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  void *data() const { return bytes; }
  int64_t size() const { return elements; }
  DType dtype() const { return type; }
  Device device() const { return where; }
  /// Whether the memory is the user's (see the wrapping constructor).
  bool isExternal() const { return external; }

private:
  void *bytes;
  DeviceAllocator *allocator; ///< Null for external memory.
  std::function<void()> release;
  bool external = false;
  int64_t elements;
  DType type;
  Device where;
};

struct Node;
using NodePtr = std::shared_ptr<Node>;
/// A node's operands: most ops have one or two, held inline.
using NodeInputs = llvm::SmallVector<NodePtr, 2>;

/// One recorded op. Nodes form a DAG through `inputs`; a materialized node
/// drops its inputs (the graph above it is released) and keeps `value`.
/// Create nodes with makeNode().
struct Node {
  // Fields are ordered to leave no padding: a node and its reference count
  // fill one 256-byte pool block (four cache lines), and a cached trace
  // creates and frees a node per op.
  OpKind kind;
  DType dtype : 8;
  bool flag = false;                   ///< Attribute: keep_dims.
  Predicate predicate = Predicate::Eq; ///< Attribute: the comparison.
  /// Where the value lives and the op runs (an op's operands share it).
  Device device;
  std::vector<int64_t> shape;
  NodeInputs inputs;

  // Attributes (which ones are used depends on `kind`).
  std::vector<int64_t> ints;  ///< Axes, shape, permutation, slice bounds.
  std::vector<int64_t> ints2; ///< Slice limits.
  std::vector<int64_t> ints3; ///< Slice steps.
  double scalar = 0;          ///< Literal value; random low / mean.
  double scalar2 = 0;         ///< Random high / stddev.
  int64_t integer = 0;        ///< Axis (concat, softmax), seed.

  /// No unique address: `position` fills the tail padding of `loc`
  /// (SourceLoc is not trivially constructible, so its padding is reusable).
  [[no_unique_address]] SourceLoc loc;
  /// Scratch for extractTrace: the node's position in the trace that last
  /// visited it (see visitedBy).
  int32_t position = -1;

  /// Hash of this node's own content (kind, attributes, dtype, shape; not
  /// literal values, not inputs, not the device, which a trace's signature
  /// holds once), computed once at creation. Trace keys
  /// combine these with the trace's wiring.
  uint64_t contentHash = 0;

  /// Scratch for extractTrace: the extraction that last visited this node
  /// (no hash map on the hot path).
  uint64_t visitedBy = 0;

  /// How many Tensor handles refer to this node (the live-tensor rule).
  std::atomic<int> handles{0};

  /// The pending list this node is on (see addPending; opaque), and its
  /// entry there; only that list's thread reads the entry.
  uint32_t pendingIndex = 0;
  std::atomic<const void *> pendingList{nullptr};

  /// The computed value, once materialized.
  std::shared_ptr<Buffer> value;

  Node();
  /// Releases the inputs iteratively: a chain of a million pending ops must
  /// not be destroyed by a million nested destructor calls.
  ~Node();
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;

  int64_t numel() const;
  bool isMaterialized() const { return value != nullptr; }

  /// Computes contentHash from the fields above.
  void computeContentHash();
};

/// A new, empty node. Nodes come from a per-thread pool: a cached trace
/// records and frees hundreds of nodes per step, and the general-purpose
/// allocator's small-object caches are far smaller than that.
NodePtr makeNode();

/// Puts `node` on this thread's pending list: the nodes the thread
/// recorded that may not be computed yet (what sync() materializes), each
/// with the number of trace nodes it stands for. A node leaves the list when
/// it dies or, at the next prune, once computed.
void addPending(const NodePtr &node, size_t traceNodes);

/// Drops computed and dead nodes from this thread's pending list.
void prunePending();

/// Entries on this thread's pending list (computed or dead ones too until
/// the next prune), and the trace nodes they stand for.
size_t pendingEntries();
size_t pendingTraceNodes();

/// The nodes on this thread's pending list that a handle holds and that
/// are not computed, in recording order.
std::vector<Node *> heldPendingNodes();

/// A CompileBlock's bound on this thread: the nodes it records from now on
/// are in the next block.
void markBlockBound();

/// The block `node` was recorded in (the bounds this thread had marked by
/// then), if it is on this thread's pending list; -1 if not.
int64_t blockOf(const Node &node);

/// Whether this thread's pending nodes were recorded in more than one
/// block (else no trace of them is cut at bounds: a constant-time check,
/// made at every materialization).
bool pendingSpansBlocks();

/// How many nodes exist now, in every thread (for tests and diagnostics:
/// a loop that holds only its latest values must keep this bounded).
int64_t liveNodeCount();

} // namespace lazyc::trace

#endif // LAZYC_TRACE_NODE_H

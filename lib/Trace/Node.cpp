//===- Node.cpp - The recorded lazy graph ---------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/Trace/Node.h"
#include "lazyc/Runtime/Runtime.h"
#include "lazyc/Trace/Region.h"

#include <algorithm>
#include <mutex>
#include <new>
#include <type_traits>

using namespace lazyc;
using namespace lazyc::trace;

const char *trace::opName(OpKind kind) {
  switch (kind) {
#define LAZYC_OP(Kind, Name, ShapeAttr)                                        \
  case OpKind::Kind:                                                           \
    return Name;
#include "lazyc/Trace/Ops.def"
  }
  return "?";
}

Buffer::Buffer(DType dtype, int64_t elements, Device device,
               DeviceAllocator &allocator)
    : bytes(allocator.allocate(static_cast<size_t>(elements) * sizeOf(dtype))),
      allocator(&allocator), elements(elements), type(dtype), where(device) {
  if (!bytes)
    throw std::bad_alloc();
}

Buffer::Buffer(void *data, DType dtype, int64_t elements, Device device,
               std::function<void()> release)
    : bytes(data), allocator(nullptr), release(std::move(release)),
      external(true), elements(elements), type(dtype), where(device) {}

Buffer::~Buffer() {
  if (allocator)
    allocator->deallocate(bytes);
  else if (release)
    release();
}

namespace {
/// Fixed-size node blocks (see PoolAllocator). A block freed on another
/// thread joins that thread's cache; every block is its own operator new
/// allocation, so any thread may return it to the system.
constexpr size_t kBlockSize = 256;
constexpr size_t kMaxCachedBlocks = 1 << 14;
constexpr size_t kMaxSpareShapes = 4096;

struct FreeBlock {
  FreeBlock *next;
};

/// Nodes alive: each thread counts the nodes it creates and frees in its
/// own counter, which only it writes (recording an op creates and frees
/// nodes: no shared cache line, no locked instruction); liveNodeCount()
/// adds them up.
struct NodeCounter {
  std::atomic<int64_t> count{0};
  void add(int64_t delta) {
    count.store(count.load(std::memory_order_relaxed) + delta,
                std::memory_order_relaxed);
  }
};
std::mutex nodeCountersMutex;
std::vector<const NodeCounter *> nodeCounters; ///< Of the running threads.
/// Of exited threads, and of nodes made or freed during a thread's exit.
std::atomic<int64_t> otherNodes{0};

/// An entry of a thread's pending list: the node, and the trace nodes it
/// stands for. `node` is null once the entry is cleared.
struct PendingEntry {
  std::weak_ptr<Node> weak;
  const Node *node;
  uint32_t traceNodes;
  /// The block bounds marked before the node was recorded.
  uint32_t block;
};

/// What each thread keeps for its nodes: so that recording and releasing a
/// graph allocates nothing once warm, and releasing a million-node chain
/// needs no recursion.
struct ThreadState {
  /// Inputs of dying nodes, released one at a time by the outermost ~Node.
  std::vector<NodePtr> dying;
  /// The pending list (see addPending).
  std::vector<PendingEntry> pendingNodes;
  size_t pendingTraceNodes = 0;
  /// Block bounds marked so far (markBlockBound).
  uint32_t blockBounds = 0;
  bool draining = false;
  /// Shape buffers of dead nodes, handed to new ones.
  std::vector<std::vector<int64_t>> spareShapes;
  /// Free node blocks.
  FreeBlock *freeBlocks = nullptr;
  size_t freeBlockCount = 0;
  NodeCounter nodes;
  ThreadState();
  ~ThreadState();
};
/// This thread's state once made, null before and after (thread exit; a
/// static Tensor may die later). Trivially constructible and destructible:
/// reading it is one load, no initialization check.
thread_local ThreadState *currentState = nullptr;
/// Set once this thread's state is gone.
thread_local bool threadStateGone = false;

/// This thread's state, made on first use; null during and after thread
/// exit.
ThreadState *threadState() {
  if (currentState) [[likely]]
    return currentState;
  if (threadStateGone)
    return nullptr;
  thread_local ThreadState state;
  currentState = &state;
  return currentState;
}

ThreadState::ThreadState() {
  std::lock_guard<std::mutex> lock(nodeCountersMutex);
  nodeCounters.push_back(&nodes);
}

ThreadState::~ThreadState() {
  currentState = nullptr;
  threadStateGone = true;
  {
    std::lock_guard<std::mutex> lock(nodeCountersMutex);
    std::erase(nodeCounters, &nodes);
    otherNodes += nodes.count.load();
  }
  while (freeBlocks) {
    FreeBlock *block = freeBlocks;
    freeBlocks = block->next;
    ::operator delete(block);
  }
}
} // namespace

int64_t trace::liveNodeCount() {
  std::lock_guard<std::mutex> lock(nodeCountersMutex);
  int64_t count = otherNodes.load();
  for (const NodeCounter *counter : nodeCounters)
    count += counter->count.load(std::memory_order_relaxed);
  return count;
}

Node::Node() {
  if (ThreadState *state = threadState())
    state->nodes.add(1);
  else
    ++otherNodes;
}

Node::~Node() {
  if (hasRegions(kind))
    releaseRegions(*this);
  ThreadState *current = threadState();
  if (!current) {
    --otherNodes;
    // Past thread exit: the last owner takes a node's inputs over first.
    std::vector<NodePtr> pending(std::make_move_iterator(inputs.begin()),
                                 std::make_move_iterator(inputs.end()));
    while (!pending.empty()) {
      NodePtr node = std::move(pending.back());
      pending.pop_back();
      if (node.use_count() == 1)
        for (NodePtr &input : node->inputs)
          pending.push_back(std::move(input));
    }
    return;
  }
  ThreadState &state = *current;
  state.nodes.add(-1);
  // Leave this thread's pending list now, while the entry is in cache (the
  // list's reference is a weak one: clearing it here lets the node's memory
  // go back to the pool as soon as this destructor returns). A node
  // recorded on another thread is dropped there, at its next prune.
  if (pendingList.load(std::memory_order_relaxed) == &state &&
      pendingIndex < state.pendingNodes.size()) {
    PendingEntry &entry = state.pendingNodes[pendingIndex];
    if (entry.node == this) {
      state.pendingTraceNodes -= entry.traceNodes;
      entry.node = nullptr;
      entry.weak.reset();
    }
  }
  if (shape.capacity() && shape.capacity() <= 8 &&
      state.spareShapes.size() < kMaxSpareShapes)
    state.spareShapes.push_back(std::move(shape));
  for (NodePtr &input : inputs)
    state.dying.push_back(std::move(input));
  // A destructor that runs while an outer one drains leaves its inputs to it.
  if (state.draining)
    return;
  state.draining = true;
  while (!state.dying.empty()) {
    NodePtr node = std::move(state.dying.back());
    state.dying.pop_back();
    node.reset(); // May run ~Node, which queues that node's inputs.
  }
  state.draining = false;
}

//===----------------------------------------------------------------------===//
// The node pool
//===----------------------------------------------------------------------===//

namespace {
void *allocateBlock() {
  ThreadState *current = threadState();
  if (!current || !current->freeBlocks)
    return ::operator new(kBlockSize);
  ThreadState &state = *current;
  FreeBlock *block = state.freeBlocks;
  state.freeBlocks = block->next;
  --state.freeBlockCount;
  return block;
}

void freeBlock(void *pointer) {
  ThreadState *current = threadState();
  if (!current || current->freeBlockCount >= kMaxCachedBlocks) {
    ::operator delete(pointer);
    return;
  }
  ThreadState &state = *current;
  auto *block = static_cast<FreeBlock *>(pointer);
  block->next = state.freeBlocks;
  state.freeBlocks = block;
  ++state.freeBlockCount;
}

/// The allocator std::allocate_shared uses for a node and its control
/// block (one allocation).
template <typename T> struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U> PoolAllocator(const PoolAllocator<U> &) {}
  T *allocate(size_t n) {
    static_assert(sizeof(T) <= kBlockSize || std::is_same_v<T, Node>,
                  "a pooled node does not fit a block: raise kBlockSize");
    if (n != 1 || sizeof(T) > kBlockSize)
      return static_cast<T *>(::operator new(n * sizeof(T)));
    return static_cast<T *>(allocateBlock());
  }
  void deallocate(T *pointer, size_t n) {
    if (n != 1 || sizeof(T) > kBlockSize)
      ::operator delete(pointer);
    else
      freeBlock(pointer);
  }
  template <typename U> bool operator==(const PoolAllocator<U> &) const {
    return true;
  }
};
} // namespace

NodePtr trace::makeNode() {
  NodePtr node = std::allocate_shared<Node>(PoolAllocator<Node>());
  ThreadState *state = threadState();
  if (state && !state->spareShapes.empty()) {
    node->shape = std::move(state->spareShapes.back());
    state->spareShapes.pop_back();
    node->shape.clear();
  }
  return node;
}

int64_t Node::numel() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

void Node::computeContentHash() {
  // The small fields and the list lengths in one word; then only the
  // values present (most ops have a short shape and no attributes: this
  // runs for every recorded op).
  uint64_t hash = 0xCBF29CE484222325ULL;
  mixHash(hash, static_cast<uint64_t>(kind) |
                    static_cast<uint64_t>(dtype) << 8 |
                    static_cast<uint64_t>(predicate) << 16 |
                    static_cast<uint64_t>(flag) << 24 |
                    static_cast<uint64_t>(shape.size() & 0xFF) << 32 |
                    static_cast<uint64_t>(ints.size() & 0xFF) << 40 |
                    static_cast<uint64_t>(ints2.size() & 0xFF) << 48 |
                    static_cast<uint64_t>(ints3.size() & 0xFF) << 56);
  for (int64_t dim : shape)
    mixHash(hash, static_cast<uint64_t>(dim));
  if (!ints.empty() || !ints2.empty() || !ints3.empty())
    for (const std::vector<int64_t> *list : {&ints, &ints2, &ints3})
      for (int64_t value : *list)
        mixHash(hash, static_cast<uint64_t>(value));
  // Literal values are deliberately left out (constant promotion); random
  // parameters and other scalars are structure. Zero words are skipped:
  // the kind says which fields an op uses.
  if (kind != OpKind::Literal) {
    uint64_t bits[2];
    static_assert(sizeof(bits[0]) == sizeof(scalar));
    __builtin_memcpy(&bits[0], &scalar, sizeof(scalar));
    __builtin_memcpy(&bits[1], &scalar2, sizeof(scalar2));
    if (bits[0] | bits[1]) {
      mixHash(hash, bits[0]);
      mixHash(hash, bits[1]);
    }
  }
  if (integer)
    mixHash(hash, static_cast<uint64_t>(integer));
  contentHash = hash;
}

//===----------------------------------------------------------------------===//
// The pending list
//===----------------------------------------------------------------------===//

void trace::addPending(const NodePtr &node, size_t traceNodes) {
  ThreadState *state = threadState();
  if (!state)
    return; // Thread exit: nothing can sync() any more.
  node->pendingList.store(state, std::memory_order_relaxed);
  node->pendingIndex = static_cast<uint32_t>(state->pendingNodes.size());
  state->pendingNodes.push_back({node, node.get(),
                                 static_cast<uint32_t>(traceNodes),
                                 state->blockBounds});
  state->pendingTraceNodes += traceNodes;
}

void trace::prunePending() {
  ThreadState *state = threadState();
  if (!state)
    return;
  std::vector<PendingEntry> &entries = state->pendingNodes;
  size_t kept = 0;
  for (PendingEntry &entry : entries) {
    if (!entry.node)
      continue; // Cleared by its node's destructor.
    NodePtr node = entry.weak.lock();
    if (node && !node->isMaterialized()) {
      node->pendingIndex = static_cast<uint32_t>(kept);
      // Not onto itself: a self-move empties a std::weak_ptr.
      if (&entries[kept] != &entry)
        entries[kept] = std::move(entry);
      ++kept;
      continue;
    }
    if (node)
      node->pendingList.store(nullptr, std::memory_order_relaxed);
    state->pendingTraceNodes -= entry.traceNodes;
  }
  entries.resize(kept);
}

void trace::markBlockBound() {
  if (ThreadState *state = threadState())
    ++state->blockBounds;
}

int64_t trace::blockOf(const Node &node) {
  ThreadState *state = threadState();
  if (!state || node.pendingList.load(std::memory_order_relaxed) != state ||
      node.pendingIndex >= state->pendingNodes.size())
    return -1;
  const PendingEntry &entry = state->pendingNodes[node.pendingIndex];
  return entry.node == &node ? entry.block : -1;
}

bool trace::pendingSpansBlocks() {
  // Entries are in recording order, so their blocks never decrease.
  ThreadState *state = threadState();
  return state && !state->pendingNodes.empty() &&
         state->pendingNodes.front().block != state->pendingNodes.back().block;
}

size_t trace::pendingEntries() {
  ThreadState *state = threadState();
  return state ? state->pendingNodes.size() : 0;
}

size_t trace::pendingTraceNodes() {
  ThreadState *state = threadState();
  return state ? state->pendingTraceNodes : 0;
}

std::vector<Node *> trace::heldPendingNodes() {
  std::vector<Node *> held;
  ThreadState *state = threadState();
  if (!state)
    return held;
  for (const PendingEntry &entry : state->pendingNodes) {
    if (!entry.node)
      continue;
    NodePtr node = entry.weak.lock();
    if (node && !node->isMaterialized() && node->handles.load() > 0)
      held.push_back(node.get());
  }
  return held;
}

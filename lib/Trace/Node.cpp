//===- Node.cpp - The recorded lazy graph ---------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/Trace/Node.h"
#include "lazyc/Runtime/Runtime.h"

#include <new>

using namespace lazyc;
using namespace lazyc::trace;

const char *trace::opName(OpKind kind) {
  switch (kind) {
  case OpKind::Buffer: return "buffer";
  case OpKind::Literal: return "literal";
  case OpKind::Add: return "add";
  case OpKind::Sub: return "sub";
  case OpKind::Mul: return "mul";
  case OpKind::Div: return "div";
  case OpKind::Pow: return "pow";
  case OpKind::Max: return "maximum";
  case OpKind::Min: return "minimum";
  case OpKind::Neg: return "neg";
  case OpKind::Abs: return "abs";
  case OpKind::Relu: return "relu";
  case OpKind::Exp: return "exp";
  case OpKind::Log: return "log";
  case OpKind::Tanh: return "tanh";
  case OpKind::Sigmoid: return "sigmoid";
  case OpKind::Sqrt: return "sqrt";
  case OpKind::Rsqrt: return "rsqrt";
  case OpKind::Sin: return "sin";
  case OpKind::Cos: return "cos";
  case OpKind::Erf: return "erf";
  case OpKind::Compare: return "compare";
  case OpKind::Select: return "where";
  case OpKind::Cast: return "cast";
  case OpKind::Broadcast: return "broadcastTo";
  case OpKind::Reshape: return "reshape";
  case OpKind::Transpose: return "transpose";
  case OpKind::Slice: return "slice";
  case OpKind::Concat: return "concat";
  case OpKind::ReduceSum: return "sum";
  case OpKind::ReduceMean: return "mean";
  case OpKind::ReduceMax: return "max";
  case OpKind::ReduceMin: return "min";
  case OpKind::Matmul: return "matmul";
  case OpKind::Softmax: return "softmax";
  case OpKind::LogSoftmax: return "logSoftmax";
  case OpKind::RandomUniform: return "randomUniform";
  case OpKind::RandomNormal: return "randomNormal";
  }
  return "?";
}

Buffer::Buffer(DType dtype, int64_t elements)
    : bytes(lazyrt_alloc(static_cast<size_t>(elements) * sizeOf(dtype))),
      elements(elements), type(dtype) {
  if (!bytes)
    throw std::bad_alloc();
}

Buffer::~Buffer() { lazyrt_free(bytes); }

static std::atomic<int64_t> nodesAlive{0};

int64_t trace::liveNodeCount() { return nodesAlive.load(); }

Node::Node() { ++nodesAlive; }

Node::~Node() {
  --nodesAlive;
  std::vector<NodePtr> pending = std::move(inputs);
  while (!pending.empty()) {
    NodePtr node = std::move(pending.back());
    pending.pop_back();
    // The last owner takes the node's inputs over before it dies, so its
    // destructor finds none.
    if (node.use_count() == 1)
      for (NodePtr &input : node->inputs)
        pending.push_back(std::move(input));
  }
}

int64_t Node::numel() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

/// FNV-1a style mixing of 64-bit words.
static void mix(uint64_t &hash, uint64_t value) {
  hash ^= value + 0x9E3779B97F4A7C15ULL + (hash << 6) + (hash >> 2);
}

void Node::computeContentHash() {
  uint64_t hash = 0xCBF29CE484222325ULL;
  mix(hash, static_cast<uint64_t>(kind));
  mix(hash, static_cast<uint64_t>(dtype));
  mix(hash, shape.size());
  for (int64_t dim : shape)
    mix(hash, static_cast<uint64_t>(dim));
  for (const std::vector<int64_t> *list : {&ints, &ints2, &ints3}) {
    mix(hash, list->size());
    for (int64_t value : *list)
      mix(hash, static_cast<uint64_t>(value));
  }
  // Literal values are deliberately left out (constant promotion); random
  // parameters and other scalars are structure.
  if (kind != OpKind::Literal) {
    uint64_t bits;
    static_assert(sizeof(bits) == sizeof(scalar));
    __builtin_memcpy(&bits, &scalar, sizeof(bits));
    mix(hash, bits);
    __builtin_memcpy(&bits, &scalar2, sizeof(bits));
    mix(hash, bits);
  }
  mix(hash, static_cast<uint64_t>(integer));
  mix(hash, flag);
  mix(hash, static_cast<uint64_t>(predicate));
  contentHash = hash;
}

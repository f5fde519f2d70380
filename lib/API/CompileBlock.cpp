//===- CompileBlock.cpp - Blocks compiled on their own --------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A CompileBlock marks its bounds on this thread's pending list, where
// materialization cuts a trace (lib/Trace/Blocks.h, cutAtBlockBounds), and
// on the recording tapes, whose backward passes mark them again as they
// reach them. Each instance of a block is then a trace of its own, and
// instances of the same code are traces of one structure: the function
// cache compiles one.
//
//===----------------------------------------------------------------------===//

#include "Engine/Engine.h"
#include "Tape.h"
#include "lazyc/API/Compile.h"

using namespace lazyc;

static void markBound() {
  trace::markBlockBound();
  tape::blockBound();
}

CompileBlock::CompileBlock()
    : active(engine::tracedRegions().empty() && !isEager()) {
  if (active)
    markBound();
}

CompileBlock::~CompileBlock() {
  if (active)
    markBound();
}

//===- Views.h - Looking at the recorded graph ------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pending graph as a picture: toDot(tensors) is the trace that computing
// them would run, in Graphviz's dot language (`dot -Tsvg trace.dot`), with
// each op's name, dtype and shape and the user's line; arguments (buffers)
// are ellipses, literals notes (marked when the cache passes them as
// arguments), and the values the trace must write out (the requested ones
// and every other value a Tensor still holds) have a double border.
// LAZYC_DUMP_DOT=dir writes the same for every trace lazyc compiles.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_VIEWS_H
#define LAZYC_API_VIEWS_H

#include "lazyc/API/Tensor.h"

#include <string>
#include <vector>

namespace lazyc {

/// The trace computing `tensors` (nothing runs), as a Graphviz graph.
std::string toDot(const std::vector<Tensor> &tensors,
                  SourceLocation where = SourceLocation::current());

} // namespace lazyc

#endif // LAZYC_API_VIEWS_H

//===- DotGraph.cpp - A trace as a Graphviz graph -------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the Graphviz text of a trace that lazyc::toDot and
// LAZYC_DUMP_DOT write.
//
//===----------------------------------------------------------------------===//

#include "DotGraph.h"
#include "Engine.h"

#include "lazyc/Runtime/Shape.h"
#include "lazyc/Trace/Region.h"

#include "llvm/ADT/STLExtras.h"

#include <cstdio>

using namespace lazyc;
using namespace lazyc::trace;

namespace {

/// `text` as a dot string literal's contents (a line break as `\n`).
std::string escaped(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

std::string lineOf(const Node &node) {
  return node.loc.line ? engine::fileAndLine(node.loc.file, node.loc.line) : "";
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

} // namespace

std::string detail::dotOfTrace(const Trace &trace,
                               const std::vector<bool> &promoted) {
  std::vector<bool> isOutput(trace.nodes.size());
  for (int32_t index : trace.outputs)
    isOutput[index] = true;
  std::vector<bool> isArgument(trace.nodes.size());
  for (int32_t index : trace.arguments)
    isArgument[index] = true;
  std::vector<int> literalIndex(trace.nodes.size(), -1);
  for (auto [i, index] : llvm::enumerate(trace.literals))
    literalIndex[index] = static_cast<int>(i);

  std::string dot = "digraph trace {\n"
                    "  node [fontname=\"monospace\", fontsize=10];\n";
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const Node &node = *trace.nodes[i];
    std::string type = typeText(node.dtype, node.shape);
    std::string label, shape = "box";
    if (isArgument[i]) {
      label = "argument\n" + type;
      shape = "ellipse";
    } else if (literalIndex[i] >= 0) {
      bool passed = static_cast<size_t>(literalIndex[i]) < promoted.size() &&
                    promoted[literalIndex[i]];
      label = "literal " + number(node.scalar) + (passed ? " (promoted)" : "") +
              "\n" + type;
      shape = "note";
    } else if (hasRegions(node.kind)) {
      const Regions &regions = regionsOf(node);
      label = std::string(opName(node.kind)) + " (";
      for (auto [r, region] : llvm::enumerate(regions.regions))
        label += (r ? ", " : "") +
                 std::to_string(region.body.nodes.size() -
                                region.body.arguments.size()) +
                 (node.kind == OpKind::If ? (r ? " else" : " then")
                                          : (r ? " body" : " condition"));
      label += " nodes)";
      shape = "diamond";
    } else {
      label = std::string(opName(node.kind)) + "\n" + type;
    }
    std::string line = lineOf(node);
    if (!line.empty() && !isArgument[i])
      label += "\n" + line;
    dot += "  n" + std::to_string(i) + " [shape=" + shape + ", label=\"" +
           escaped(label) + "\"" + (isOutput[i] ? ", peripheries=2" : "") +
           "];\n";
  }
  for (size_t i = 0; i < trace.nodes.size(); ++i)
    for (int32_t operand : trace.operands(i))
      dot +=
          "  n" + std::to_string(operand) + " -> n" + std::to_string(i) + ";\n";
  return dot + "}\n";
}

//===- Explain.cpp - Why a trace missed the function cache ----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Explain.h"
#include "Engine.h"

#include "lazyc/API/Metrics.h"
#include "lazyc/API/Tensor.h"
#include "lazyc/Runtime/Shape.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>

using namespace lazyc;
using namespace lazyc::explain;
using trace::Node;
using trace::OpKind;

static std::atomic<bool> &explainFlag() {
  static std::atomic<bool> flag = [] {
    const char *value = std::getenv("LAZYC_EXPLAIN");
    return value && *value && std::strcmp(value, "0") != 0;
  }();
  return flag;
}

void lazyc::setExplain(bool enable) { explainFlag() = enable; }
bool lazyc::isExplaining() { return explainFlag(); }
bool explain::enabled() { return explainFlag(); }

TraceSummary explain::summarize(const trace::Trace &trace) {
  std::vector<bool> isArgument(trace.nodes.size()), isOutput(isArgument),
      isDonated(isArgument);
  for (int32_t index : trace.arguments)
    isArgument[index] = true;
  for (int32_t index : trace.outputs)
    isOutput[index] = true;
  for (int32_t slot : trace.tiedArguments)
    if (slot >= 0)
      isDonated[trace.arguments[slot]] = true;
  TraceSummary summary;
  summary.reserve(trace.nodes.size());
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const Node &node = *trace.nodes[i];
    bool literal = node.kind == OpKind::Literal;
    summary.push_back({node.kind,
                       isArgument[i],
                       node.device,
                       node.dtype,
                       node.shape,
                       node.ints,
                       node.ints2,
                       node.ints3,
                       literal ? 0.0 : node.scalar,
                       node.scalar2,
                       node.integer,
                       node.flag,
                       node.predicate,
                       {trace.operands(i).begin(), trace.operands(i).end()},
                       isOutput[i],
                       isDonated[i],
                       node.loc});
  }
  return summary;
}

/// "`mul` at tour.cpp:12", "an argument (fromVector at tour.cpp:3)".
static std::string describe(const NodeSummary &node) {
  std::string where =
      node.loc.line ? engine::fileAndLine(node.loc.file, node.loc.line) : "";
  if (node.isArgument)
    return "an argument" + (where.empty() ? "" : " (made at " + where + ")");
  return "`" + std::string(trace::opName(node.kind)) + "`" +
         (where.empty() ? "" : " at " + where);
}

const char *explain::missReasonName(MissReason reason) {
  switch (reason) {
  case MissReason::NothingCached:
    return "nothing cached";
  case MissReason::NewStructure:
    return "new structure";
  case MissReason::DeviceChanged:
    return "device changed";
  case MissReason::DtypeChanged:
    return "dtype changed";
  case MissReason::ShapeChanged:
    return "shape changed";
  case MissReason::InPlaceChanged:
    return "in-place update changed";
  case MissReason::AttributesChanged:
    return "attributes changed";
  case MissReason::OutputsChanged:
    return "outputs changed";
  case MissReason::OtherMode:
    return "other mode";
  case MissReason::ConstantsChanged:
    return "literal changed";
  case MissReason::SizesChanged:
    return "sizes changed";
  }
  return "unknown";
}

/// The first way `now` differs from `cached`, if any. No strings: a miss
/// compares against every cached trace.
static std::optional<MissReason> difference(const NodeSummary &now,
                                            const NodeSummary &cached,
                                            bool dynamicShapes) {
  if (now.isArgument != cached.isArgument ||
      (!now.isArgument && now.kind != cached.kind))
    return MissReason::NewStructure;
  if (now.device != cached.device)
    return MissReason::DeviceChanged;
  if (now.dtype != cached.dtype)
    return MissReason::DtypeChanged;
  if (now.shape.size() != cached.shape.size() ||
      (!dynamicShapes && now.shape != cached.shape))
    return MissReason::ShapeChanged;
  if (now.isArgument && now.isDonated != cached.isDonated)
    return MissReason::InPlaceChanged;
  if (now.isArgument)
    return std::nullopt;
  if (now.ints != cached.ints || now.ints2 != cached.ints2 ||
      now.ints3 != cached.ints3 || now.integer != cached.integer ||
      now.flag != cached.flag || now.predicate != cached.predicate ||
      now.scalar != cached.scalar || now.scalar2 != cached.scalar2)
    return MissReason::AttributesChanged;
  if (now.operands != cached.operands)
    return MissReason::NewStructure;
  if (now.isOutput != cached.isOutput)
    return MissReason::OutputsChanged;
  return std::nullopt;
}

/// The difference `reason` between `now` and `cached`, in words.
static std::string differenceText(const NodeSummary &now,
                                  const NodeSummary &cached,
                                  MissReason reason) {
  std::string self = describe(now);
  switch (reason) {
  case MissReason::NewStructure:
    if (now.isArgument != cached.isArgument ||
        (!now.isArgument && now.kind != cached.kind))
      return self + ", where the cached trace has " + describe(cached);
    return self + " reads other values than the cached one";
  case MissReason::DeviceChanged:
    return self + " lives on " + now.device.str() + ", the cached one on " +
           cached.device.str();
  case MissReason::DtypeChanged:
    return self + " is " + dtypeName(now.dtype) + ", the cached one " +
           dtypeName(cached.dtype);
  case MissReason::ShapeChanged:
    return self + " has shape " + shapeText(now.shape) + ", the cached one " +
           shapeText(cached.shape);
  case MissReason::InPlaceChanged:
    return self +
           (now.isDonated
                ? " is dead (nothing can read it afterwards), so the new "
                  "value is written over it"
                : " can still be read afterwards (a Tensor, a pending op or "
                  "a tape holds it), so it is not overwritten") +
           ", unlike in the cached trace";
  case MissReason::AttributesChanged:
    return self + " has other attributes (axes, shape, bounds, predicate, "
                  "seed or range) than the cached one";
  case MissReason::OutputsChanged:
    return self +
           (now.isOutput ? " is an output (a Tensor still holds it)"
                         : " is not an output") +
           ", unlike in the cached trace";
  default:
    return "";
  }
}

MissReason
explain::classifyStructuralMiss(const TraceSummary &summary,
                                const std::vector<const TraceSummary *> &cached,
                                bool dynamicShapes, std::string *text) {
  if (cached.empty()) {
    if (text)
      *text = "nothing is cached yet";
    return MissReason::NothingCached;
  }
  // The closest: the longest common prefix, then the nearest size.
  const TraceSummary *closest = nullptr;
  size_t bestPrefix = 0;
  std::optional<MissReason> bestDifference;
  for (const TraceSummary *other : cached) {
    size_t prefix = 0;
    std::optional<MissReason> diff;
    for (; prefix < summary.size() && prefix < other->size(); ++prefix) {
      diff = difference(summary[prefix], (*other)[prefix], dynamicShapes);
      if (diff)
        break;
    }
    auto distance = [&](const TraceSummary *t) {
      return t->size() > summary.size() ? t->size() - summary.size()
                                        : summary.size() - t->size();
    };
    if (!closest || prefix > bestPrefix ||
        (prefix == bestPrefix && distance(other) < distance(closest))) {
      closest = other;
      bestPrefix = prefix;
      bestDifference = diff;
    }
  }
  MissReason reason = bestDifference ? *bestDifference
                      : summary.size() != closest->size()
                          ? MissReason::NewStructure
                          : MissReason::OtherMode;
  if (!text)
    return reason;
  std::string head = "the closest cached trace (" +
                     std::to_string(closest->size()) + " nodes) ";
  if (bestDifference)
    *text = head + "differs at node " + std::to_string(bestPrefix) + ": " +
            differenceText(summary[bestPrefix], (*closest)[bestPrefix],
                           *bestDifference);
  else if (summary.size() > closest->size())
    *text = head + "ends where this one continues with " +
            describe(summary[bestPrefix]);
  else if (summary.size() < closest->size())
    *text = head + "continues with " + describe((*closest)[bestPrefix]) +
            " where this one ends";
  else
    *text = head + "was evicted or compiled for another mode";
  return reason;
}

std::string
explain::structuralMiss(const TraceSummary &summary,
                        const std::vector<const TraceSummary *> &cached,
                        bool dynamicShapes) {
  std::string text;
  classifyStructuralMiss(summary, cached, dynamicShapes, &text);
  return text;
}

static std::string valueText(double value) {
  std::ostringstream os;
  os.precision(9);
  os << value;
  return os.str();
}

std::string explain::constantMiss(const trace::Trace &trace,
                                  const std::vector<double> &baked,
                                  const std::vector<bool> &differs) {
  TraceSummary summary = summarize(trace);
  std::string text = "same structure as a cached trace, but constants "
                     "changed:";
  size_t changed = 0, shown = 0;
  for (size_t i = 0; i < differs.size(); ++i) {
    if (!differs[i])
      continue;
    ++changed;
    if (shown++ == 3)
      continue;
    // The op that uses the literal, past the broadcasts and casts that
    // only adapt it.
    int32_t index = trace.literals[i], user = index;
    for (bool adapting = true; adapting;) {
      adapting = false;
      for (size_t j = user + 1; j < summary.size(); ++j)
        if (std::count(summary[j].operands.begin(), summary[j].operands.end(),
                       user)) {
          user = static_cast<int32_t>(j);
          OpKind kind = summary[j].kind;
          adapting = kind == OpKind::Broadcast || kind == OpKind::Cast ||
                     kind == OpKind::Reshape;
          break;
        }
    }
    std::string usedIn = user == index ? "" : " in " + describe(summary[user]);
    text += (shown > 1 ? "," : "") + std::string(" ") +
            valueText(trace.nodes[index]->scalar) + " (was " +
            valueText(baked[i]) + ")" + usedIn;
  }
  if (changed > 3)
    text += ", and " + std::to_string(changed - 3) + " more";
  return text + "; they become arguments, so new values reuse the code";
}

std::string explain::sizeMiss(const trace::Trace &trace,
                              const std::vector<int64_t> &sizes,
                              const std::vector<bool> &newSizes,
                              const std::vector<double> &baked,
                              const std::vector<bool> &newLiterals) {
  TraceSummary summary = summarize(trace);
  // Each changed size as (node, dimension, size index); arguments first:
  // their sizes are what the program changed, the others follow from them.
  struct Changed {
    size_t node, dim, index;
  };
  std::vector<Changed> changed;
  for (bool arguments : {true, false}) {
    size_t index = 0;
    for (size_t i = 0; i < summary.size(); ++i)
      for (size_t d = 0; d < summary[i].shape.size(); ++d, ++index)
        if (index < newSizes.size() && newSizes[index] &&
            summary[i].isArgument == arguments)
          changed.push_back({i, d, index});
  }
  std::string text;
  if (!changed.empty()) {
    text = "same structure as a cached trace, but sizes changed:";
    for (size_t k = 0; k < changed.size() && k < 3; ++k) {
      const Changed &at = changed[k];
      text += std::string(k ? ", " : " ") + "dimension " +
              std::to_string(at.dim) + " of " + describe(summary[at.node]) +
              " is " + std::to_string(summary[at.node].shape[at.dim]) +
              " (was " + std::to_string(sizes[at.index]) + ")";
    }
    if (changed.size() > 3)
      text += ", and " + std::to_string(changed.size() - 3) + " more";
    text += "; they become dynamic (`?`), so other sizes reuse the code";
  }
  if (std::count(newLiterals.begin(), newLiterals.end(), true)) {
    if (!text.empty())
      text += "; and ";
    text += constantMiss(trace, baked, newLiterals);
  }
  return text;
}

void explain::report(const trace::Trace &trace, const std::string &cause,
                     const std::string &reason) {
  std::string line = "lazyc: cache miss: a trace of " +
                     std::to_string(trace.nodes.size()) + " nodes (" + cause +
                     "): " + reason + "\n";
  std::fputs(line.c_str(), stderr);
}

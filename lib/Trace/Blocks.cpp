//===- Blocks.cpp - Repeated blocks of a trace ----------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the search for repeated blocks. Each position of the
// trace gets a token: its node's content and its operands' (their content,
// and their distance when near). A token that comes back every `length`
// positions anchors a candidate: the longest run where every token equals
// the one `length` positions later holds copies of one block of that
// length. Candidates are taken by the work they save, largest first, each
// clipped to what the ones taken before left free; each block is then cut
// at the phase where the fewest computed values cross its cuts (between
// layers: the residual stream, not the middle of an attention).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Trace/Blocks.h"

#include <algorithm>
#include <iterator>
#include <queue>
#include <unordered_map>
#include <unordered_set>

using namespace lazyc;
using namespace lazyc::trace;

namespace {

/// Positions that are computed in the trace: not arguments, and not
/// literals re-emitted per use (which go with their reader).
std::vector<char> computedPositions(const Trace &trace) {
  std::vector<char> computed(trace.nodes.size(), 1);
  for (int32_t index : trace.arguments)
    computed[index] = 0;
  for (int32_t index : trace.literals)
    computed[index] = !isPerUseLiteral(*trace.nodes[index]);
  return computed;
}

/// Each position's own content: its node's content hash, or an argument's
/// dtype and shape.
std::vector<uint64_t> contentsOf(const Trace &trace) {
  const size_t size = trace.nodes.size();
  std::vector<char> isArgument(size, 0);
  for (int32_t index : trace.arguments)
    isArgument[index] = 1;
  std::vector<uint64_t> own(size);
  for (size_t i = 0; i < size; ++i) {
    const Node &node = *trace.nodes[i];
    if (!isArgument[i]) {
      own[i] = node.contentHash;
      continue;
    }
    uint64_t hash = 0x51ED27A1F3C0B9D7ULL;
    mixHash(hash, static_cast<uint64_t>(node.dtype));
    for (int64_t dim : node.shape)
      mixHash(hash, static_cast<uint64_t>(dim));
    own[i] = hash;
  }
  return own;
}

/// Each position's token: its content (contentsOf) mixed with its
/// operands' and, for an operand closer than `nearDistance`, how far back
/// it is. A far operand (a value saved in the forward pass, read in the
/// backward) is far in every copy of a block.
std::vector<uint64_t> tokensOf(const Trace &trace, int32_t nearDistance) {
  const size_t size = trace.nodes.size();
  std::vector<uint64_t> own = contentsOf(trace), tokens(size);
  for (size_t i = 0; i < size; ++i) {
    uint64_t token = own[i];
    for (int32_t operand : trace.operands(i)) {
      mixHash(token, own[operand]);
      int64_t distance = static_cast<int64_t>(i) - operand;
      mixHash(token, distance < nearDistance ? distance : -1);
    }
    tokens[i] = token;
  }
  return tokens;
}

/// A run [runStart, runEnd) of positions whose token equals the one
/// `length` later: copies of a block of `length` fit in [runStart,
/// runEnd + length).
struct Run {
  int32_t runStart, runEnd, length;
  /// Positions the copies after the first save compiling.
  int64_t saving() const {
    int32_t copies = (runEnd - runStart) / length + 1;
    return copies >= 2 ? int64_t(copies - 1) * length : 0;
  }
  bool operator<(const Run &other) const { return saving() < other.saving(); }
};

/// Every maximal run found from a token's consecutive occurrences at least
/// `minLength` apart.
std::vector<Run> candidateRuns(const std::vector<uint64_t> &tokens,
                               int32_t minLength) {
  const int32_t size = static_cast<int32_t>(tokens.size());
  std::vector<std::pair<uint64_t, int32_t>> occurrences(size);
  for (int32_t i = 0; i < size; ++i)
    occurrences[i] = {tokens[i], i};
  std::sort(occurrences.begin(), occurrences.end());
  // Runs already explored, by length: a position inside one is not
  // explored again.
  std::unordered_map<int32_t, std::vector<std::pair<int32_t, int32_t>>>
      explored;
  std::vector<Run> runs;
  for (size_t k = 0; k + 1 < occurrences.size(); ++k) {
    if (occurrences[k].first != occurrences[k + 1].first)
      continue;
    int32_t at = occurrences[k].second;
    int32_t length = occurrences[k + 1].second - at;
    if (length < minLength)
      continue;
    std::vector<std::pair<int32_t, int32_t>> &seen = explored[length];
    if (std::any_of(seen.begin(), seen.end(), [&](const auto &run) {
          return run.first <= at && at < run.second;
        }))
      continue;
    int32_t start = at, end = at;
    while (start > 0 && tokens[start - 1] == tokens[start - 1 + length])
      --start;
    while (end + length < size && tokens[end] == tokens[end + length])
      ++end;
    seen.push_back({start, end});
    if (end - start >= length)
      runs.push_back({start, end, length});
  }
  return runs;
}

/// The longest stretch of [start, end) that overlaps no taken interval.
std::pair<int32_t, int32_t>
largestFreePart(int32_t start, int32_t end,
                const std::vector<std::pair<int32_t, int32_t>> &taken) {
  std::pair<int32_t, int32_t> best = {start, start};
  int32_t from = start;
  auto consider = [&](int32_t to) {
    if (to - from > best.second - best.first)
      best = {from, to};
  };
  // `taken` is sorted and disjoint.
  for (const auto &[takenStart, takenEnd] : taken) {
    if (takenEnd <= from)
      continue;
    if (takenStart >= end)
      break;
    consider(std::min(takenStart, end));
    from = std::max(from, takenEnd);
  }
  if (from < end)
    consider(end);
  return best;
}

/// The value a cut would store for position `index`: itself, or for a
/// computed view the value it re-indexes.
int32_t storedSource(const Trace &trace, const std::vector<char> &computed,
                     int32_t index) {
  while (computed[index] && isViewOp(trace.nodes[index]->kind) &&
         !trace.operands(index).empty())
    index = trace.operands(index)[0];
  return index;
}

/// How many computed values cross a cut before each position (index
/// trace.nodes.size() included: none).
std::vector<int32_t> liveAcross(const Trace &trace,
                                const std::vector<char> &computed) {
  const size_t size = trace.nodes.size();
  std::vector<int32_t> lastUse(size, -1);
  for (size_t i = 0; i < size; ++i)
    for (int32_t operand : trace.operands(i))
      if (int32_t source = storedSource(trace, computed, operand);
          computed[source])
        lastUse[source] = std::max(lastUse[source], static_cast<int32_t>(i));
  for (int32_t output : trace.outputs)
    lastUse[output] = static_cast<int32_t>(size);
  // +1 from the position after the definition to the last use.
  std::vector<int32_t> delta(size + 2, 0);
  for (size_t i = 0; i < size; ++i)
    if (computed[i] && lastUse[i] > static_cast<int32_t>(i)) {
      ++delta[i + 1];
      --delta[lastUse[i] + 1];
    }
  std::vector<int32_t> live(size + 1, 0);
  int32_t running = 0;
  for (size_t i = 0; i <= size; ++i) {
    running += delta[i];
    live[i] = running;
  }
  live[size] = 0;
  return live;
}

/// Whether no copy of `block` reads a value of more than `maxElements`
/// elements that an earlier copy computes (views looked through: the
/// reader recomputes them from their input).
bool copiesCarryLittle(const Trace &trace, const std::vector<char> &computed,
                       const RepeatedBlock &block, int64_t maxElements) {
  for (int32_t copy = 1; copy < block.count; ++copy) {
    int32_t copyStart = block.start + copy * block.length;
    for (int32_t i = copyStart; i < copyStart + block.length; ++i)
      for (int32_t operand : trace.operands(i)) {
        int32_t source = storedSource(trace, computed, operand);
        if (computed[source] && source >= block.start && source < copyStart &&
            trace.nodes[source]->numel() > maxElements)
          return false;
      }
  }
  return true;
}

/// The elements the first copy of `block` computes (views aside).
int64_t elementsOfACopy(const Trace &trace, const std::vector<char> &computed,
                        const RepeatedBlock &block) {
  int64_t elements = 0;
  for (int32_t i = block.start; i < block.start + block.length; ++i)
    if (computed[i] && !isViewOp(trace.nodes[i]->kind))
      elements += trace.nodes[i]->numel();
  return elements;
}

/// The copies of the block of `run` (clipped to free space) cut at the
/// phase with the fewest live values per cut, more copies on a tie.
RepeatedBlock placeCopies(const Run &run, const std::vector<int32_t> &live) {
  RepeatedBlock best;
  double bestCost = 0;
  for (int32_t start = run.runStart;
       start < run.runStart + run.length && start + run.length <= run.runEnd;
       ++start) {
    int32_t copies = (run.runEnd - start) / run.length + 1;
    int64_t crossing = 0;
    for (int32_t cut = 0; cut <= copies; ++cut)
      crossing += live[start + cut * run.length];
    double cost = double(crossing) / (copies + 1);
    if (best.count == 0 || cost < bestCost ||
        (cost == bestCost && copies > best.count)) {
      best = {start, run.length, copies};
      bestCost = cost;
    }
  }
  return best;
}

} // namespace

BlockCut trace::findRepeatedBlocks(const Trace &trace,
                                   const BlockSearchOptions &options) {
  BlockCut cut;
  const int32_t size = static_cast<int32_t>(trace.nodes.size());
  if (size < options.minTraceNodes)
    return cut;
  for (const Node *node : trace.nodes)
    if (node->kind == OpKind::If || node->kind == OpKind::While ||
        node->kind == OpKind::Result)
      return cut;

  std::vector<uint64_t> tokens = tokensOf(trace, options.minBlockLength);
  std::priority_queue<Run> queue;
  const int32_t minLength =
      std::min(options.minBlockLength, options.minIndependentBlockLength);
  for (const Run &run : candidateRuns(tokens, minLength))
    queue.push(run);

  // A block is worth its cuts when it saves a twentieth of the trace (or
  // enoughSaving nodes); the cut is worth making when the blocks save a
  // quarter of it.
  const int64_t minSaving = std::clamp<int64_t>(
      size / 20, 1, std::max<int64_t>(options.enoughSaving, 1));
  std::vector<char> computed = computedPositions(trace);
  std::vector<int32_t> live = liveAcross(trace, computed);
  std::vector<std::pair<int32_t, int32_t>> taken;
  int64_t saved = 0;
  while (!queue.empty() && queue.top().saving() >= minSaving) {
    Run run = queue.top();
    queue.pop();
    auto [start, end] =
        largestFreePart(run.runStart, run.runEnd + run.length, taken);
    Run clipped = {start, std::max(start, end - run.length), run.length};
    if (clipped.saving() < run.saving()) {
      // Smaller now: back in line behind the others.
      if (clipped.saving() >= minSaving)
        queue.push(clipped);
      continue;
    }
    RepeatedBlock block = placeCopies(clipped, live);
    if (block.count < 2)
      continue;
    if (block.length < options.minBlockLength &&
        (block.count < options.minIndependentCopies ||
         elementsOfACopy(trace, computed, block) < options.minCopyElements ||
         !copiesCarryLittle(trace, computed, block,
                            options.maxCarriedElements)))
      continue;
    int32_t blockEnd = block.start + block.count * block.length;
    taken.insert(std::upper_bound(taken.begin(), taken.end(),
                                  std::make_pair(block.start, blockEnd)),
                 {block.start, blockEnd});
    cut.blocks.push_back(block);
    saved += int64_t(block.count - 1) * block.length;
  }
  if (saved * 4 < size) {
    cut.blocks.clear();
    return cut;
  }

  std::sort(cut.blocks.begin(), cut.blocks.end(),
            [](const RepeatedBlock &a, const RepeatedBlock &b) {
              return a.start < b.start;
            });
  cut.segmentStarts.push_back(0);
  for (const RepeatedBlock &block : cut.blocks)
    for (int32_t copy = 0; copy <= block.count; ++copy)
      cut.segmentStarts.push_back(block.start + copy * block.length);
  std::sort(cut.segmentStarts.begin(), cut.segmentStarts.end());
  cut.segmentStarts.erase(
      std::unique(cut.segmentStarts.begin(), cut.segmentStarts.end()),
      cut.segmentStarts.end());
  if (cut.segmentStarts.back() == size)
    cut.segmentStarts.pop_back();
  return cut;
}

BlockCut trace::cutAtBlockBounds(const Trace &trace) {
  // The trace's order follows the recording's, but for values that depend
  // on little (a loss's one-hot targets, emitted before the model) and
  // values finished late (a weight's gradient, read by an update at the
  // end): the blocks of the longest run of positions whose blocks never
  // decrease are the segments, and the others go where they fall.
  std::vector<char> computed = computedPositions(trace);
  const size_t size = trace.nodes.size();
  std::vector<int64_t> block(size, -1);
  std::vector<int32_t> previous(size, -1);
  // Patience sorting: ends[k] is the position ending the best run of
  // length k + 1 found so far (its block the smallest such).
  std::vector<int32_t> ends;
  for (size_t i = 0; i < size; ++i) {
    if (!computed[i] || (block[i] = blockOf(*trace.nodes[i])) < 0)
      continue;
    auto at = std::upper_bound(
        ends.begin(), ends.end(), block[i],
        [&](int64_t b, int32_t end) { return b < block[end]; });
    previous[i] = at == ends.begin() ? -1 : *(at - 1);
    if (at == ends.end())
      ends.push_back(static_cast<int32_t>(i));
    else
      *at = static_cast<int32_t>(i);
  }
  std::vector<int32_t> run;
  for (int32_t i = ends.empty() ? -1 : ends.back(); i >= 0; i = previous[i])
    run.push_back(i);
  std::reverse(run.begin(), run.end());
  // A segment starts where the run's block rises: at the first position
  // after the run's last of the lower block that is in a later block.
  BlockCut cut;
  for (size_t k = 1; k < run.size(); ++k) {
    int64_t lower = block[run[k - 1]];
    if (block[run[k]] == lower)
      continue;
    int32_t start = run[k - 1] + 1;
    while (block[start] <= lower)
      ++start;
    cut.segmentStarts.push_back(start);
  }
  if (!cut.segmentStarts.empty()) {
    cut.segmentStarts.insert(cut.segmentStarts.begin(), 0);
    cut.atBlockBounds = true;
  }
  return cut;
}

BlockCut trace::mergeCuts(const BlockCut &a, const BlockCut &b) {
  BlockCut merged;
  std::set_union(a.segmentStarts.begin(), a.segmentStarts.end(),
                 b.segmentStarts.begin(), b.segmentStarts.end(),
                 std::back_inserter(merged.segmentStarts));
  std::merge(a.blocks.begin(), a.blocks.end(), b.blocks.begin(), b.blocks.end(),
             std::back_inserter(merged.blocks),
             [](const RepeatedBlock &x, const RepeatedBlock &y) {
               return x.start < y.start;
             });
  merged.atBlockBounds = a.atBlockBounds || b.atBlockBounds;
  return merged;
}

size_t trace::nodesOfDistinctSegments(const Trace &trace, const BlockCut &cut) {
  const size_t size = trace.nodes.size();
  if (cut.segmentStarts.empty())
    return size;
  // A segment's structure: its positions' contents, in order, and where
  // each operand is: how far back within the segment, or before it (what
  // any segment reads is an argument of its trace).
  std::vector<uint64_t> own = contentsOf(trace);
  std::unordered_set<uint64_t> seen;
  size_t nodes = 0;
  for (size_t s = 0; s < cut.segmentStarts.size(); ++s) {
    const int32_t begin = cut.segmentStarts[s];
    const int32_t end = s + 1 < cut.segmentStarts.size()
                            ? cut.segmentStarts[s + 1]
                            : static_cast<int32_t>(size);
    uint64_t hash = static_cast<uint64_t>(end - begin);
    for (int32_t i = begin; i < end; ++i) {
      mixHash(hash, own[i]);
      for (int32_t operand : trace.operands(i)) {
        mixHash(hash, own[operand]);
        mixHash(hash, operand >= begin ? static_cast<uint64_t>(i - operand)
                                       : ~uint64_t(0));
      }
    }
    if (seen.insert(hash).second)
      nodes += static_cast<size_t>(end - begin);
  }
  return nodes;
}

std::vector<CutValue> trace::valuesAcrossCuts(const Trace &trace,
                                              const BlockCut &cut) {
  const size_t size = trace.nodes.size();
  std::vector<char> computed = computedPositions(trace);
  std::vector<int32_t> segment(size);
  for (size_t i = 0, s = 0; i < size; ++i) {
    while (s + 1 < cut.segmentStarts.size() &&
           cut.segmentStarts[s + 1] <= static_cast<int32_t>(i))
      ++s;
    segment[i] = static_cast<int32_t>(s);
  }
  // Values by position (-1: not computed for others).
  std::vector<int32_t> slotOf(size, -1);
  std::vector<CutValue> values;
  auto add = [&](int32_t position) -> CutValue & {
    if (slotOf[position] < 0) {
      slotOf[position] = static_cast<int32_t>(values.size());
      values.push_back({position, segment[position], segment[position]});
    }
    return values[slotOf[position]];
  };
  for (size_t i = 0; i < size; ++i) {
    if (!computed[i])
      continue;
    // What node i reads, looking through views (recomputed here).
    std::span<const int32_t> operands = trace.operands(i);
    for (size_t k = 0; k < operands.size(); ++k) {
      int32_t reader = static_cast<int32_t>(i), slot = static_cast<int32_t>(k);
      int32_t operand = operands[k];
      while (computed[operand] && isViewOp(trace.nodes[operand]->kind) &&
             segment[operand] != segment[i] &&
             !trace.operands(operand).empty()) {
        reader = operand;
        slot = 0;
        operand = trace.operands(operand)[0];
      }
      if (!computed[operand] || segment[operand] == segment[i])
        continue;
      CutValue &value = add(operand);
      value.lastReader = std::max(value.lastReader, segment[i]);
      if (value.reader < 0) {
        value.reader = reader;
        value.slot = slot;
      }
    }
  }
  for (int32_t output : trace.outputs)
    add(output);
  std::sort(values.begin(), values.end(),
            [](const CutValue &a, const CutValue &b) {
              return a.position < b.position;
            });
  return values;
}

//===- ViewsTest.cpp - The recorded graph as a picture --------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Occurrences.h"

#include "lazyc/lazyc.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

using namespace lazyc;
using lazyc::test::occurrences;

namespace {

TEST(ViewsTest, ToDotShowsThePendingTraceWithoutRunningIt) {
  Tensor x = Tensor::fromVector<float>({1, 2, 3, 4}, {2, 2});
  unsigned line = __LINE__ + 1;
  Tensor h = relu(matmul(x, x) * 0.5f);
  Tensor y = sum(h, {1});
  uint64_t materialized = metrics().materializations;
  std::string dot = toDot({y});
  EXPECT_EQ(metrics().materializations, materialized); // Nothing ran.

  EXPECT_EQ(dot.rfind("digraph trace {", 0), 0u) << dot;
  // The argument, the literal, and each op with its type and line.
  EXPECT_NE(dot.find("shape=ellipse, label=\"argument\\nFloat32 [2, 2]\""),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("shape=note, label=\"literal 0.5\\nFloat32 [2, 2]"),
            std::string::npos)
      << dot;
  std::string at = "ViewsTest.cpp:" + std::to_string(line);
  EXPECT_NE(dot.find("label=\"matmul\\nFloat32 [2, 2]\\n" + at + "\""),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("label=\"relu\\nFloat32 [2, 2]\\n" + at + "\""),
            std::string::npos)
      << dot;
  // h and y are held: both are written out (double border).
  EXPECT_EQ(occurrences(dot, "peripheries=2"), 2u) << dot;
  EXPECT_NE(dot.find("label=\"sum\\nFloat32 [2]"), std::string::npos) << dot;
  // Five nodes (argument, matmul, literal, mul, relu) and the sum: the
  // matmul reads the argument twice.
  EXPECT_EQ(occurrences(dot, "[shape="), 6u) << dot;
  EXPECT_EQ(occurrences(dot, " -> "), 6u) << dot;
}

TEST(ViewsTest, ControlFlowIsOneNode) {
  Tensor x = Tensor::fromVector<float>({1, -2}, {2});
  Tensor y =
      cond(sum(x) > 0.0f, [&] { return exp(x) * 2.0f; }, [&] { return -x; });
  std::string dot = toDot({y});
  EXPECT_NE(dot.find("shape=diamond, label=\"cond (2 then, 1 else nodes)"),
            std::string::npos)
      << dot;
}

TEST(ViewsTest, GraphvizRendersIt) {
  // scripts/setup installs Graphviz: without it the test fails.
  ASSERT_EQ(std::system("command -v dot >/dev/null 2>&1"), 0)
      << "needs Graphviz's `dot` (scripts/setup installs it)";
  Tensor x = Tensor::fromVector<float>({1, 2, 3}, {3});
  std::string dot = toDot({tanh(x * 2.0f) + 1.0f});
  std::string base = testing::TempDir() + "lazyc-view";
  {
    std::ofstream out(base + ".dot");
    out << dot;
  }
  std::string command = "dot -Tsvg " + base + ".dot -o " + base + ".svg";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(base + ".svg");
  std::string svg((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find(">tanh<"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">literal 2</text>"), std::string::npos) << svg;
  std::remove((base + ".dot").c_str());
  std::remove((base + ".svg").c_str());
}

TEST(ViewsTest, DumpDotWritesEachCompiledTraceWithItsPromotedLiterals) {
  std::string dir = testing::TempDir() + "lazyc-dump-dot-" +
                    std::to_string(std::random_device()());
  setenv("LAZYC_DUMP_DOT", dir.c_str(), 1);
  clearCache();
  // A literal that changes between runs: the second compile passes it as
  // an argument (promoted); the 3.0f stays a literal.
  for (float scale : {0.5f, 0.25f, 0.125f}) {
    Tensor x = Tensor::fromVector<float>({1, 2, 3}, {3});
    (void)(exp(x * scale) + 3.0f).toVector<float>();
  }
  unsetenv("LAZYC_DUMP_DOT");

  std::vector<std::string> files;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator entry(dir, error), end;
       !error && entry != end; entry.increment(error))
    files.push_back(llvm::sys::path::filename(entry->path()).str());
  // trace-<key>-promoted.dot and trace-<key>.dot (same key), in that
  // order ('-' < '.').
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 2u) << "in " << dir;
  EXPECT_EQ(files[1].rfind("trace-", 0), 0u);
  EXPECT_EQ(files[0],
            files[1].substr(0, files[1].size() - 4) + "-promoted.dot");
  std::swap(files[0], files[1]);
  auto read = [&](const std::string &name) {
    std::ifstream in(dir + "/" + name);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  std::string first = read(files[0]), promoted = read(files[1]);
  EXPECT_EQ(first.rfind("digraph trace {", 0), 0u) << first;
  EXPECT_NE(first.find("literal 0.5\\n"), std::string::npos) << first;
  EXPECT_EQ(occurrences(first, "(promoted)"), 0u) << first;
  EXPECT_EQ(occurrences(promoted, "(promoted)"), 1u) << promoted;
  EXPECT_NE(promoted.find("literal 3\\n"), std::string::npos) << promoted;
  EXPECT_NE(promoted.find("label=\"exp\\n"), std::string::npos) << promoted;
  llvm::sys::fs::remove_directories(dir);
}

TEST(ViewsTest, EmptyTensorsAreErrors) {
  try {
    (void)toDot({Tensor()});
    ADD_FAILURE() << "no error";
  } catch (const Error &error) {
    EXPECT_EQ(error.op(), "toDot");
  }
}

} // namespace

//===- ViewsTest.cpp - The recorded graph as a picture --------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Occurrences.h"

#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

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

TEST(ViewsTest, EmptyTensorsAreErrors) {
  try {
    (void)toDot({Tensor()});
    ADD_FAILURE() << "no error";
  } catch (const Error &error) {
    EXPECT_EQ(error.op(), "toDot");
  }
}

} // namespace

//===- ProfileTest.cpp - A timeline of what lazyc did ---------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/lazyc.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <map>
#include <set>
#include <thread>

using namespace lazyc;

namespace {

TEST(ProfileTest, TheTimelineHasEachStepOfAMissAndAHit) {
  clearCache();
  std::string path = testing::TempDir() + "lazyc-profile.json";
  startProfile();
  auto step = [](float offset) {
    Tensor x = Tensor::fromVector<float>({1, 2, 3, 4}, {4});
    return sum(exp(x) + offset).item<float>();
  };
  step(1.0f); // A miss: compiles.
  step(1.0f); // A hit.
  std::thread other([&] { step(1.0f); });
  other.join();
  stopProfile(path);
  step(1.0f); // Not profiled.

  auto buffer = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(buffer) << path;
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Array *events =
      parsed->getAsObject()->getArray("traceEvents");
  ASSERT_NE(events, nullptr);

  std::map<std::string, int> count;
  std::map<std::string, double> duration;
  std::set<int64_t> threads;
  std::set<std::string> traces;
  for (const llvm::json::Value &value : *events) {
    const llvm::json::Object &event = *value.getAsObject();
    std::string name = event.getString("name")->str();
    ++count[name];
    threads.insert(*event.getInteger("tid"));
    if (std::optional<double> dur = event.getNumber("dur")) {
      EXPECT_GE(*dur, 0) << name;
      duration[name] += *dur;
    }
    if (const llvm::json::Object *args = event.getObject("args"))
      if (std::optional<llvm::StringRef> trace = args->getString("trace"))
        traces.insert(trace->str());
  }
  // Three materializations of one structure: extracted three times,
  // compiled once (import, MLIR pipeline, code generation), run three times.
  EXPECT_EQ(count["materialize"], 3);
  EXPECT_EQ(count["extract trace"], 3);
  EXPECT_EQ(count["cache miss (compiled)"], 1);
  EXPECT_EQ(count["cache hit"], 2);
  EXPECT_EQ(count["compile"], 1);
  EXPECT_EQ(count["MLIR pipeline"], 1);
  EXPECT_EQ(count["code generation"], 1);
  EXPECT_EQ(count["run"], 3);
  // Each step records three ops: exp, the add of the literal, and sum.
  EXPECT_EQ(count["record"], 9);
  EXPECT_EQ(threads.size(), 2u);
  EXPECT_EQ(traces.size(), 1u);
  // The compile's parts fit in it.
  EXPECT_LE(duration["MLIR pipeline"] + duration["code generation"],
            duration["compile"] * 1.01 + 1);
  std::remove(path.c_str());
}

TEST(ProfileTest, AnUnwritablePathIsAnError) {
  startProfile();
  try {
    stopProfile("/nonexistent-directory/profile.json");
    ADD_FAILURE() << "no error";
  } catch (const Error &error) {
    EXPECT_EQ(error.op(), "stopProfile");
  }
}

} // namespace

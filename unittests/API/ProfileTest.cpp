//===- ProfileTest.cpp - A timeline of what lazyc did ---------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/Pipelines/Pipelines.h"
#include "lazyc/lazyc.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <thread>

using namespace lazyc;

namespace {

TEST(ProfileTest, TheTimelineHasEachStepOfAMissAndAHit) {
  clearCache();
  std::string path = testing::TempDir() + "lazyc-profile.json";
  startProfile();
  // A length new to the persistent cache, so that the miss compiles.
  int64_t length = 5 + std::random_device()() % 1000000;
  auto step = [&](float offset) {
    Tensor x = Tensor::fromVector<float>(
        std::vector<float>(static_cast<size_t>(length), 0.5f), {length});
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
  std::map<std::string, std::pair<double, double>> span; // start, end
  std::vector<std::string> stages;
  std::string transferBytes;
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
      double start = *event.getNumber("ts");
      span[name] = {start, start + *dur};
    }
    if (event.getString("cat") == "compile stage")
      stages.push_back(name);
    if (name == "copy from host")
      if (std::optional<llvm::StringRef> bytes =
              event.getObject("args")->getString("bytes"))
        transferBytes = bytes->str();
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
  // and copies its input in.
  EXPECT_EQ(count["copy from host"], 3);
  EXPECT_EQ(transferBytes, std::to_string(4 * length));
  // Each stage of the CPU pipeline, then code generation's, in order,
  // inside the compile.
  std::vector<std::string> expected = {"verify the input"};
  for (const auto &stage : cpuPipelineStages())
    expected.push_back(stage.title);
  expected.push_back("translate to LLVM IR");
  ASSERT_EQ(stages.size(), expected.size() + 2);
  EXPECT_EQ(std::vector<std::string>(stages.begin(), stages.end() - 2),
            expected);
  EXPECT_EQ(stages[stages.size() - 2].rfind("LLVM: optimize and emit code", 0),
            0u)
      << stages[stages.size() - 2];
  EXPECT_TRUE(stages.back() == "store in the persistent cache and link" ||
              stages.back() == "link")
      << stages.back();
  for (const std::string &stage : stages) {
    EXPECT_GE(span[stage].first, span["compile"].first - 1) << stage;
    EXPECT_LE(span[stage].second, span["compile"].second + 1) << stage;
  }
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

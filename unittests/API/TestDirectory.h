//===- TestDirectory.h - A scratch directory and numpy scripts --*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the tests that read and write files share: whole-file reads and
// writes, and a fixture with a directory of its own in which numpy scripts
// (/usr/bin/python3, as scripts/setup installs it) write or check files.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_UNITTESTS_API_TESTDIRECTORY_H
#define LAZYC_UNITTESTS_API_TESTDIRECTORY_H

#include "gtest/gtest.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace lazyc::test {

inline std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// A test with a directory of its own under /tmp, removed afterwards.
class TestDirectory : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/lazyc-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string file(const std::string &name) const { return dir + "/" + name; }

  /// Runs `script` with /usr/bin/python3 (numpy required: without it the
  /// test fails) with the test's directory as its argument.
  void runNumpy(const std::string &script) {
    ASSERT_EQ(std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1"),
              0)
        << "needs /usr/bin/python3 with numpy (scripts/setup installs it)";
    std::string path = file("script.py");
    writeBytes(path, script);
    ASSERT_EQ(std::system(("/usr/bin/python3 " + path + " " + dir).c_str()), 0)
        << "the numpy script failed (see its assertion above)";
  }

  std::string dir;
};

} // namespace lazyc::test

#endif // LAZYC_UNITTESTS_API_TESTDIRECTORY_H

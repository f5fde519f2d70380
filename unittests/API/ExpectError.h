//===- ExpectError.h - Checking the lazyc::Errors of bad input --*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The check every bad-input test makes: the call throws a lazyc::Error that
// names the op, says what is wrong and points at the user's line.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_UNITTESTS_API_EXPECTERROR_H
#define LAZYC_UNITTESTS_API_EXPECTERROR_H

#include "lazyc/API/Error.h"
#include "lazyc/API/SourceLocation.h"

#include "gtest/gtest.h"

#include <cstring>
#include <functional>
#include <string>

namespace lazyc::test {

/// Runs `bad` (which records its line in `line` before the failing call)
/// and checks the error: its op, that the message contains `mentions`, and
/// that it points at `line` of the calling test's file.
inline void expectError(const std::function<void(unsigned &)> &bad,
                        const char *op, const std::string &mentions,
                        SourceLocation caller = SourceLocation::current()) {
  const char *slash = std::strrchr(caller.file_name(), '/');
  std::string file = slash ? slash + 1 : caller.file_name();
  unsigned line = 0;
  try {
    bad(line);
  } catch (const Error &error) {
    std::string what = error.what();
    EXPECT_EQ(error.op(), op) << what;
    EXPECT_NE(what.find(mentions), std::string::npos)
        << "'" << what << "' does not mention '" << mentions << "'";
    EXPECT_EQ(error.line(), line) << what;
    EXPECT_NE(what.find(file + ":" + std::to_string(line)), std::string::npos)
        << what;
    return;
  }
  ADD_FAILURE_AT(caller.file_name(), caller.line())
      << "no lazyc::Error for " << op << " (" << mentions << ")";
}

} // namespace lazyc::test

#endif // LAZYC_UNITTESTS_API_EXPECTERROR_H

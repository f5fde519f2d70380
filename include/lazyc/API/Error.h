//===- Error.h - The errors lazyc reports to users --------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_ERROR_H
#define LAZYC_API_ERROR_H

#include "lazyc/API/SourceLocation.h"
#include <stdexcept>
#include <string>

namespace lazyc {

/// Every error lazyc reports: bad shapes or dtypes (thrown where the op is
/// recorded), failures while running a trace (naming the op and the user's
/// line that created it). The message reads
/// `[lazyc::matmul] inner dimensions differ: [2, 3] and [4, 5] (main.cpp:12)`.
class Error : public std::runtime_error {
public:
  Error(std::string op, const std::string &message,
        SourceLocation where = SourceLocation::current());
  Error(std::string op, const std::string &message, std::string file,
        unsigned line);

  /// The op the error is about ("matmul"), or "" for errors of no op.
  const std::string &op() const { return opName; }
  /// What went wrong, without the op and the location what() adds.
  const std::string &message() const { return messageText; }
  /// The user's source file and line the error points at.
  const std::string &file() const { return fileName; }
  unsigned line() const { return lineNumber; }

private:
  std::string opName;
  std::string messageText;
  std::string fileName;
  unsigned lineNumber;
};

} // namespace lazyc

#endif // LAZYC_API_ERROR_H

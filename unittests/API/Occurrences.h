//===- Occurrences.h - Counting text in test output -------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_UNITTESTS_API_OCCURRENCES_H
#define LAZYC_UNITTESTS_API_OCCURRENCES_H

#include <string>

namespace lazyc::test {

/// How many times `needle` occurs in `text` (overlaps counted).
inline size_t occurrences(const std::string &text, const std::string &needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1))
    ++count;
  return count;
}

} // namespace lazyc::test

#endif // LAZYC_UNITTESTS_API_OCCURRENCES_H

//===- SourceLocation.h - Where the user wrote an op ------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// std::source_location's role, built on the __builtin_FILE/LINE/FUNCTION
// default arguments that GCC and Clang have long supported (libstdc++'s
// <source_location> needs Clang 15 or later).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_SOURCELOCATION_H
#define LAZYC_API_SOURCELOCATION_H

namespace lazyc {

class SourceLocation {
public:
  /// The location of the call (when used as a default argument).
  static constexpr SourceLocation
  current(const char *file = __builtin_FILE(), unsigned line = __builtin_LINE(),
          const char *function = __builtin_FUNCTION()) noexcept {
    return SourceLocation(file, line, function);
  }

  constexpr SourceLocation() noexcept = default;
  constexpr const char *file_name() const noexcept { return file; }
  constexpr unsigned line() const noexcept { return lineNumber; }
  constexpr const char *function_name() const noexcept { return function; }

private:
  constexpr SourceLocation(const char *file, unsigned line,
                           const char *function) noexcept
      : file(file), lineNumber(line), function(function) {}

  const char *file = "";
  unsigned lineNumber = 0;
  const char *function = "";
};

} // namespace lazyc

#endif // LAZYC_API_SOURCELOCATION_H

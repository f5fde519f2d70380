//===- Profiler.h - Timeline events -----------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to lazyc (lib/Engine): the events of lazyc::startProfile /
// LAZYC_PROFILE. Off, each hook costs one relaxed atomic load.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_ENGINE_PROFILER_H
#define LAZYC_LIB_ENGINE_PROFILER_H

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace lazyc::profile {

extern std::atomic<bool> active;

inline bool enabled() { return active.load(std::memory_order_relaxed); }

/// Microseconds on the profile's clock.
double now();

/// `time` in microseconds on the profile's clock.
double at(std::chrono::steady_clock::time_point time);

/// A complete event ("X") from `start` to `end` on this thread; `args` is
/// the inside of a JSON object (`"key": "value", ...`) or empty.
void complete(const char *name, const char *category, double start, double end,
              const std::string &args = "");

/// An instant event ("i") on this thread.
void instant(const char *name, const char *category,
             const std::string &args = "");

/// A complete event spanning its scope (nothing when profiling is off).
class Scope {
public:
  Scope(const char *name, const char *category, std::string args = "")
      : name(name), category(category), args(std::move(args)),
        start(enabled() ? now() : -1) {}
  ~Scope() {
    if (start >= 0)
      complete(name, category, start, now(), args);
  }
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;
  /// Replaces the arguments (known only inside the scope).
  void setArgs(std::string text) { args = std::move(text); }

private:
  const char *name;
  const char *category;
  std::string args;
  double start;
};

/// `"key": "value"` with the value's quotes and backslashes escaped.
std::string arg(const char *key, const std::string &value);

} // namespace lazyc::profile

#endif // LAZYC_LIB_ENGINE_PROFILER_H

//===- Profile.cpp - A timeline of what lazyc did -------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Profile.h"
#include "Profiler.h"

#include "lazyc/API/Error.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <vector>

using namespace lazyc;

std::atomic<bool> profile::active{false};

namespace {

struct Event {
  std::string name; // Owned: a compile's phase names die with it.
  const char *category;
  char phase;
  double start, duration;
  int thread;
  std::string args;
};

struct Timeline {
  std::mutex mutex;
  std::vector<Event> events;
  std::chrono::steady_clock::time_point origin =
      std::chrono::steady_clock::now();
};

Timeline &timeline() {
  static Timeline *shared = new Timeline; // Outlives the atexit writer.
  return *shared;
}

int threadNumber() {
  static std::atomic<int> next{1};
  thread_local int number = next++;
  return number;
}

void add(Event event) {
  Timeline &t = timeline();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.events.push_back(std::move(event));
}

std::string escaped(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20)
      out += c;
  }
  return out;
}

/// LAZYC_PROFILE=path: profile from the start, write at exit.
[[maybe_unused]] const bool startedFromEnvironment = [] {
  const char *path = std::getenv("LAZYC_PROFILE");
  if (!path || !*path)
    return false;
  startProfile();
  std::atexit([] {
    try {
      stopProfile(std::getenv("LAZYC_PROFILE"));
    } catch (const Error &error) {
      std::fprintf(stderr, "lazyc: %s\n", error.what());
    }
  });
  return true;
}();

} // namespace

double profile::now() { return at(std::chrono::steady_clock::now()); }

double profile::at(std::chrono::steady_clock::time_point time) {
  return std::chrono::duration<double, std::micro>(time - timeline().origin)
      .count();
}

void profile::complete(const char *name, const char *category, double start,
                       double end, const std::string &args) {
  if (enabled())
    add({name, category, 'X', start, end - start, threadNumber(), args});
}

void profile::instant(const char *name, const char *category,
                      const std::string &args) {
  if (enabled())
    add({name, category, 'i', now(), 0, threadNumber(), args});
}

std::string profile::arg(const char *key, const std::string &value) {
  return std::string("\"") + key + "\": \"" + escaped(value) + "\"";
}

void lazyc::startProfile() {
  Timeline &t = timeline();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.events.clear();
  profile::active.store(true);
}

void lazyc::stopProfile(const std::string &path) {
  profile::active.store(false);
  Timeline &t = timeline();
  std::vector<Event> events;
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    events.swap(t.events);
  }
  std::ofstream out(path, std::ios::trunc);
  if (!out)
    throw Error("stopProfile", "cannot write the profile to " + path);
  out << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  char number[64];
  for (size_t i = 0; i < events.size(); ++i) {
    const Event &e = events[i];
    out << "  {\"name\": \"" << escaped(e.name) << "\", \"cat\": \""
        << e.category << "\", \"ph\": \"" << e.phase << "\", \"pid\": 1, "
        << "\"tid\": " << e.thread;
    std::snprintf(number, sizeof(number), "%.3f", e.start);
    out << ", \"ts\": " << number;
    if (e.phase == 'X') {
      std::snprintf(number, sizeof(number), "%.3f", e.duration);
      out << ", \"dur\": " << number;
    } else {
      out << ", \"s\": \"t\"";
    }
    out << ", \"args\": {" << e.args << "}}"
        << (i + 1 < events.size() ? "," : "") << "\n";
  }
  out << "]}\n";
  if (!out)
    throw Error("stopProfile", "cannot write the profile to " + path);
}

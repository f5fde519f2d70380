//===- ExampleSupport.h - What the training examples share ------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The progress bar and the flag-value parsing of the training examples
// (mnist_mlp.cpp, cnn_mnist.cpp, char_transformer.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_EXAMPLES_EXAMPLESUPPORT_H
#define LAZYC_EXAMPLES_EXAMPLESUPPORT_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <unistd.h> // isatty: so sync() is written lazyc::sync() in examples

namespace lazyc::examples {

/// `value` as a number of at least `low`, or nothing if it is not one.
inline std::optional<double> parseNumber(const std::string &value, double low) {
  char *end = nullptr;
  double parsed = std::strtod(value.c_str(), &end);
  if (end == value.c_str() || *end != '\0' || !(parsed >= low))
    return std::nullopt;
  return parsed;
}

/// `[=====>    ] 45/100 suffix` on stderr, redrawn in place on a terminal;
/// note() prints a line above it. Off a terminal the bar is printed when
/// it is full, and before each note.
class ProgressBar {
public:
  explicit ProgressBar(int64_t total)
      : total(total), interactive(isatty(STDERR_FILENO)) {}

  void update(int64_t done, const std::string &suffix) {
    state = bar(done) + " " + suffix;
    if (interactive)
      std::fprintf(stderr, "\r  %s\033[K", state.c_str());
    else if (done == total)
      std::fprintf(stderr, "  %s\n", state.c_str());
    std::fflush(stderr);
  }

  void note(const std::string &line) {
    if (interactive)
      std::fprintf(stderr, "\r\033[K");
    else
      std::fprintf(stderr, "  %s\n", state.c_str());
    std::fflush(stderr);
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    if (interactive) {
      std::fprintf(stderr, "  %s", state.c_str());
      std::fflush(stderr);
    }
  }

  void finish() {
    if (interactive)
      std::fprintf(stderr, "\n");
  }

private:
  std::string bar(int64_t done) const {
    const int width = 30;
    int filled = total ? static_cast<int>(width * done / total) : width;
    std::string text(filled, '=');
    if (filled < width)
      text += '>' + std::string(width - filled - 1, ' ');
    return "[" + text + "] " + std::to_string(done) + "/" +
           std::to_string(total);
  }

  int64_t total;
  bool interactive;
  std::string state;
};

} // namespace lazyc::examples

#endif // LAZYC_EXAMPLES_EXAMPLESUPPORT_H

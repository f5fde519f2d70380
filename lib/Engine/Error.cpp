//===- Error.cpp - lazyc::Error and dtype names ---------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the public error type and dtypeName, here at the
// bottom of the layers that throw and name them (the engine and the API).
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Error.h"
#include "lazyc/API/Tensor.h"

using namespace lazyc;

static std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

static std::string format(const std::string &op, const std::string &message,
                          const std::string &file, unsigned line) {
  std::string text = op.empty() ? "[lazyc] " : "[lazyc::" + op + "] ";
  text += message;
  if (line)
    text += " (" + baseName(file) + ":" + std::to_string(line) + ")";
  return text;
}

Error::Error(std::string op, const std::string &message, SourceLocation where)
    : Error(std::move(op), message, where.file_name(), where.line()) {}

Error::Error(std::string op, const std::string &message, std::string file,
             unsigned line)
    : std::runtime_error(format(op, message, file, line)),
      opName(std::move(op)), messageText(message), fileName(std::move(file)),
      lineNumber(line) {}

const char *lazyc::dtypeName(DType dtype) { return dtypeInfo(dtype).name; }

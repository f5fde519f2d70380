//===- Files.cpp - Whole files in, whole files out ------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the file reading and atomic writing every format
// shares (lazyc/Formats/Files.h).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Formats/Files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace lazyc;

std::optional<std::string> formats::readFile(const std::string &path,
                                             std::string &why) {
  // An ifstream opens a directory and then reads nothing from it.
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    why = "cannot be read: it is a directory";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = std::string("cannot be opened: ") + std::strerror(errno);
    return std::nullopt;
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) {
    why = "cannot be read";
    return std::nullopt;
  }
  return std::move(bytes).str();
}

bool formats::writeFileAtomically(const std::string &path,
                                  const std::string &bytes, std::string &why) {
  std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  std::FILE *file = std::fopen(temporary.c_str(), "wb");
  if (!file) {
    why = "cannot be written: cannot create '" + temporary +
          "': " + std::strerror(errno);
    return false;
  }
  bool written =
      std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size() &&
      std::fflush(file) == 0 && ::fsync(::fileno(file)) == 0;
  int error = errno;
  if (std::fclose(file) != 0 && written) {
    written = false;
    error = errno;
  }
  if (!written || std::rename(temporary.c_str(), path.c_str()) != 0) {
    if (written)
      error = errno;
    std::remove(temporary.c_str());
    why = std::string("cannot be written: ") + std::strerror(error);
    return false;
  }
  return true;
}

uint64_t formats::fnv1a(const char *data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    hash ^= static_cast<uint8_t>(data[i]);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

//===- Files.h - Whole files in, whole files out ----------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// How every format reads and writes its files: read whole (each reader then
// checks every length against what is left before use), written aside and
// renamed. Errors are phrases to follow the file's name, as every format's
// are: "'x.npy' cannot be opened: No such file or directory".
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_FORMATS_FILES_H
#define LAZYC_FORMATS_FILES_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace lazyc::formats {

/// The bytes of the file at `path`; none if it cannot be read (a missing
/// file, a directory), `why` then saying so.
std::optional<std::string> readFile(const std::string &path, std::string &why);

/// Writes `bytes` to a temporary file next to `path` and renames it over
/// `path`: a crash or a full disk leaves the old file (or none), never a
/// half-written one that a later load would have to reject. False, with
/// `why`, if it cannot.
bool writeFileAtomically(const std::string &path, const std::string &bytes,
                         std::string &why);

/// FNV-1a, 64 bits: a few lines, no dependency, and any flipped byte
/// changes it.
uint64_t fnv1a(const char *data, size_t size);

} // namespace lazyc::formats

#endif // LAZYC_FORMATS_FILES_H

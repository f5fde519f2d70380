//===- Zip.h - Zip archives (.npz) ------------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Zip archives as Python's zipfile writes them for numpy.savez (stored)
// and numpy.savez_compressed (deflated), with the zip64 extensions past 32
// bits. Read from a whole-file buffer with every length, offset and size
// checked before use: a truncated, corrupted or hostile archive is an
// error, never a read past the end or a huge allocation.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_FORMATS_ZIP_H
#define LAZYC_FORMATS_ZIP_H

#include <optional>
#include <string>
#include <vector>

namespace lazyc::formats {

struct ZipMember {
  std::string name;
  std::string data; ///< Uncompressed.
};

/// The bytes of a zip archive of `members`, deflated with `deflate`, else
/// stored; reproducible (every member dated 1980-01-01).
std::string zipArchive(const std::vector<ZipMember> &members, bool deflate);

/// The members of the zip archive `bytes`, in directory order, each checked
/// against its CRC-32; none if it is not one or is damaged: `why` then says
/// what is wrong as a phrase to follow the file's name ("is truncated:
/// ..."), calling the file `kind` where it is no zip archive at all ("is
/// not an .npz file (not a zip archive: ...)").
std::optional<std::vector<ZipMember>>
readZip(const std::string &bytes, const std::string &kind, std::string &why);

} // namespace lazyc::formats

#endif // LAZYC_FORMATS_ZIP_H

//===- Npy.cpp - Read and write numpy .npy files --------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyc-run's .npy files through the library's reader and writer
// (lazyc/Formats/Npy.h), so both word their errors alike.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "lazyc/Formats/Npy.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace lazyc;

llvm::Expected<npy::Array> npy::read(llvm::StringRef path, bool wantBFloat16) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("'" + path + "' " + why);
  };
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!file)
    return fail("cannot be opened: " + file.getError().message());
  std::string why;
  std::optional<formats::NpyArray> array =
      formats::parseNpy((*file)->getBuffer().str(), why);
  if (!array)
    return fail(why);
  if (wantBFloat16) {
    if (array->dtype != DType::Float32)
      return fail("holds '" + llvm::Twine(dtypeInfo(array->dtype).numpyName) +
                  "' data; a bf16 argument is read from float32 ('<f4')");
    array = formats::toBFloat16(*array);
  }
  return Array{array->dtype, std::move(array->shape),
               std::vector<uint8_t>(array->data.begin(), array->data.end())};
}

llvm::Error npy::write(llvm::StringRef path, const Array &array) {
  std::string bytes =
      formats::npyFile({array.dtype, array.shape,
                        std::string(array.bytes.begin(), array.bytes.end())});
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
  if (error)
    return llvm::createStringError("'" + path +
                                   "' cannot be written: " + error.message());
  os << bytes;
  return llvm::Error::success();
}

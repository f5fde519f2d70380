//===- ReplayMain.cpp - Run the lazyc-opt fuzz target on saved inputs -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyc-opt-fuzz-replay FILE|DIR... runs the fuzz target of
// lazyc-opt-fuzz.cpp once per file (every regular file of a folder, in name
// order) without libFuzzer, so any build can replay a corpus: a crash aborts
// with the file's name printed just before it. The crash regression corpus
// (test/Fuzz/lazyc-opt/crashes) runs this way in the lit suite.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  if (argc < 2) {
    llvm::errs() << "usage: lazyc-opt-fuzz-replay FILE|DIR...\n";
    return 2;
  }
  llvm::SmallVector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (!llvm::sys::fs::is_directory(argv[i])) {
      files.push_back(argv[i]);
      continue;
    }
    std::error_code error;
    llvm::SmallVector<std::string> inFolder;
    for (llvm::sys::fs::directory_iterator it(argv[i], error), end;
         it != end && !error; it.increment(error))
      if (llvm::sys::fs::is_regular_file(it->path()))
        inFolder.push_back(it->path());
    if (error) {
      llvm::errs() << "lazyc-opt-fuzz-replay: " << argv[i] << ": "
                   << error.message() << "\n";
      return 2;
    }
    llvm::sort(inFolder);
    files.append(inFolder.begin(), inFolder.end());
  }
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false);
    if (!buffer) {
      llvm::errs() << "lazyc-opt-fuzz-replay: " << file << ": "
                   << buffer.getError().message() << "\n";
      return 2;
    }
    llvm::outs() << "running " << file << "\n";
    llvm::outs().flush();
    LLVMFuzzerTestOneInput(
        reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()),
        (*buffer)->getBufferSize());
  }
  llvm::outs() << "ran " << files.size() << " inputs\n";
  return 0;
}

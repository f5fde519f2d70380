//===- Profile.h - A timeline of what lazyc did -----------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A Chrome/Perfetto trace-event timeline (open it in ui.perfetto.dev or
// chrome://tracing): each materialization with its cause, the trace
// extraction, the cache lookup (hit or miss), each compile (import, the MLIR
// pipeline, code generation) and each kernel run, per thread, named by the
// trace's key; recorded ops are instant events. LAZYC_PROFILE=out.json
// profiles the whole program and writes the file at exit.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_PROFILE_H
#define LAZYC_API_PROFILE_H

#include <string>

namespace lazyc {

/// Starts collecting events (a running profile is discarded).
void startProfile();

/// Stops collecting and writes the events to `path` as trace-event JSON;
/// throws a lazyc::Error if the file cannot be written.
void stopProfile(const std::string &path);

} // namespace lazyc

#endif // LAZYC_API_PROFILE_H

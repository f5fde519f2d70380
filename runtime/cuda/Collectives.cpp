//===- Collectives.cpp - Collectives of device buffers over NCCL ----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazyrt_cuda_collective_start / _wait (Cuda.h): the
// collectives of generated GPU code, moved by NCCL.
//
// NCCL is loaded with dlopen on the first collective (as the driver and
// cuBLASLt are), so the runtime loads where it is missing. Each device gets
// a communicator on its first collective: rank 0 makes NCCL's unique id and
// the world (distributed/Collectives.cpp) broadcasts it over its transport.
//
// A collective runs on a communication stream of its own device, behind an
// event recorded on the device's stream, so kernels queued between the
// start and the wait run while it is in flight; the wait makes the device's
// stream wait for it (the host never waits). Before queuing it, the ranks
// agree on it through the world (distributed/Agreement.h): a mismatch or a
// rank that never arrives fails it there, before NCCL is handed buffers.
//
// A watchdog thread polls the collectives in flight: one that NCCL reports
// failed, or that is not done on the device within the world's timeout
// (a rank died mid-way), aborts its communicator, which ends its kernels.
// The world is then broken, and the device's next synchronize says why.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "distributed/Agreement.h"

#include "lazyc/Runtime/Collectives.h"
#include "lazyc/Runtime/Cuda.h"
#include "lazyc/Runtime/DType.h"

#include <dlfcn.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <list>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#if __has_include(<nccl.h>)
#include <nccl.h>
#define LAZYC_HAVE_NCCL_H 1
#else
#define LAZYC_HAVE_NCCL_H 0
#endif

using namespace lazyc::runtime;
using namespace lazyc::runtime::cuda;
using Clock = std::chrono::steady_clock;

#if LAZYC_HAVE_NCCL_H

namespace {

#define LAZYC_NCCL_ENTRY_POINTS(X)                                             \
  X(ncclGetVersion)                                                            \
  X(ncclGetErrorString)                                                        \
  X(ncclGetUniqueId)                                                           \
  X(ncclCommInitRank)                                                          \
  X(ncclCommAbort)                                                             \
  X(ncclCommGetAsyncError)                                                     \
  X(ncclAllReduce)                                                             \
  X(ncclBroadcast)                                                             \
  X(ncclAllGather)                                                             \
  X(ncclReduceScatter)

struct Nccl {
#define LAZYC_NCCL_DECLARE(name) decltype(&::name) name = nullptr;
  LAZYC_NCCL_ENTRY_POINTS(LAZYC_NCCL_DECLARE)
#undef LAZYC_NCCL_DECLARE
  /// NCCL 2.13 and later say more than the result's name.
  decltype(&::ncclGetLastError) ncclGetLastError = nullptr;

  /// "ncclCommInitRank failed: invalid usage (Duplicate GPU detected ...)".
  std::string failure(const char *call, ncclResult_t result,
                      ncclComm_t comm = nullptr) const {
    std::string message =
        std::string(call) + " failed: " + ncclGetErrorString(result);
    if (ncclGetLastError)
      if (const char *detail = ncclGetLastError(comm); detail && *detail)
        message += std::string(" (") + detail + ")";
    return message;
  }
};

/// NCCL, loaded once; `error` says why it could not be.
struct LoadedNccl {
  LoadedNccl() {
    void *library = openToolkitLibrary("NCCL", "LAZYC_NCCL_LIBRARY",
                                       {"libnccl.so.2", "libnccl.so"},
                                       {"lib64", "lib"}, error);
    if (!library)
      return;
#define LAZYC_NCCL_RESOLVE(name)                                               \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name));      \
  if (!api.name) {                                                             \
    error = "the NCCL library lacks " #name;                                   \
    return;                                                                    \
  }
    LAZYC_NCCL_ENTRY_POINTS(LAZYC_NCCL_RESOLVE)
#undef LAZYC_NCCL_RESOLVE
    api.ncclGetLastError = reinterpret_cast<decltype(api.ncclGetLastError)>(
        dlsym(library, "ncclGetLastError"));
  }

  Nccl api;
  std::string error;
};

const Nccl *loadNccl(std::string &whyNot) {
  static LoadedNccl *loaded = new LoadedNccl();
  if (!loaded->error.empty()) {
    whyNot = loaded->error;
    return nullptr;
  }
  return &loaded->api;
}

/// NCCL's element type for a lazyc::DType value, or false.
bool ncclTypeOf(int32_t dtype, ncclDataType_t &type) {
  switch (static_cast<lazyc::DType>(dtype)) {
  case lazyc::DType::Float32:
    type = ncclFloat32;
    return true;
  case lazyc::DType::Float64:
    type = ncclFloat64;
    return true;
  case lazyc::DType::Float16:
    type = ncclFloat16;
    return true;
  case lazyc::DType::BFloat16:
    type = ncclBfloat16;
    return true;
  case lazyc::DType::Int32:
    type = ncclInt32;
    return true;
  case lazyc::DType::Int64:
    type = ncclInt64;
    return true;
  case lazyc::DType::Int8:
    type = ncclInt8;
    return true;
  case lazyc::DType::UInt8:
  case lazyc::DType::Bool:
    type = ncclUint8;
    return true;
  case lazyc::DType::UInt32:
    type = ncclUint32;
    return true;
  case lazyc::DType::UInt64:
    type = ncclUint64;
    return true;
  case lazyc::DType::Int16: // NCCL has no 16-bit integers.
  case lazyc::DType::UInt16:
    return false;
  }
  return false;
}

/// NCCL's reduction. On Bool (bytes 0 and 1) a sum is a logical or: max.
ncclRedOp_t ncclReductionOf(int32_t reduction, int32_t dtype) {
  bool isBool = dtype == static_cast<int32_t>(lazyc::DType::Bool);
  switch (reduction) {
  case LAZYRT_REDUCE_MAX:
    return ncclMax;
  case LAZYRT_REDUCE_MIN:
    return ncclMin;
  default:
    return isBool ? ncclMax : ncclSum;
  }
}

/// "all_reduce of 1024 Float32 on cuda:0".
std::string describe(int32_t kind, int32_t dtype, int64_t count, int device) {
  const char *names[] = {"all_reduce", "broadcast", "all_gather",
                         "reduce_scatter"};
  return std::string(names[kind]) + " of " + std::to_string(count) + " " +
         lazyc::dtypeInfo(static_cast<lazyc::DType>(dtype)).name + " on " +
         deviceName(device);
}

/// A device's side of the collectives.
struct DeviceCollectives {
  ncclComm_t comm = nullptr;
  /// Why the communicator could not be made; every later collective of the
  /// device fails with it.
  std::string commError;
  /// The communication stream.
  CUstream stream = nullptr;
  /// Events neither in flight nor waited for, for reuse.
  std::vector<CUevent> freeEvents;
  /// A failure the device's next synchronize reports.
  std::string failure;
};

/// A started collective, until its wait.
struct Started {
  const void *in = nullptr;
  void *out = nullptr;
  /// Why it was not queued; empty when it was (or had nothing to move).
  std::string error;
  int device = -1;
  /// Recorded on the communication stream after the collective; null when
  /// nothing was queued.
  CUevent done = nullptr;
};

/// A queued collective, until the watchdog sees it done.
struct InFlight {
  int device = -1;
  CUevent done = nullptr;
  ncclComm_t comm = nullptr;
  Clock::time_point deadline;
  std::string what;
  /// Its wait was queued: once done too, the event can be reused.
  bool waited = false;
};

class GpuCollectives {
public:
  int64_t start(int32_t kind, int32_t reduction, int32_t dtype, int64_t root,
                const void *in, void *out, int64_t count);
  int32_t wait(int64_t handle, const void *in, void *out);
  std::string takeFailure(int device);

private:
  /// Queues the collective; returns why not.
  std::string queue(int32_t kind, int32_t reduction, int32_t dtype,
                    int64_t root, const void *in, void *out, int64_t count,
                    Started &started);
  /// The device's communicator, made on first use; null with `error`.
  ncclComm_t communicator(const Nccl &nccl, DeviceState &device,
                          std::string &error);
  CUevent takeEvent(const Driver &driver, DeviceCollectives &state,
                    std::string &error);
  void watch();
  /// Aborts `entry`'s communicator after `why`; called without the lock.
  void abort(const InFlight &entry, const std::string &why);

  std::mutex mutex;
  std::unordered_map<int, DeviceCollectives> devices;
  std::unordered_map<int64_t, Started> started;
  int64_t nextHandle = 1;
  std::list<InFlight> inFlight;
  std::condition_variable queued;
  bool watching = false;
  /// Serializes making communicators (collective across the ranks).
  std::mutex commMutex;
};

GpuCollectives &collectives() {
  // Never destroyed: the watchdog thread outlives static destruction.
  static GpuCollectives *instance = new GpuCollectives();
  return *instance;
}

int64_t GpuCollectives::start(int32_t kind, int32_t reduction, int32_t dtype,
                              int64_t root, const void *in, void *out,
                              int64_t count) {
  Started entry;
  entry.in = in;
  entry.out = out;
  entry.device = currentDevice();
  // The ranks agree first (this also checks the arguments), so NCCL is
  // never handed a mismatched collective.
  entry.error = distributed::agreeOnCollective(kind, reduction, dtype, root, in,
                                               out, count);
  if (entry.error.empty() && count > 0)
    entry.error = queue(kind, reduction, dtype, root, in, out, count, entry);
  std::lock_guard<std::mutex> lock(mutex);
  int64_t handle = nextHandle++;
  started.emplace(handle, std::move(entry));
  return handle;
}

std::string GpuCollectives::queue(int32_t kind, int32_t reduction,
                                  int32_t dtype, int64_t root, const void *in,
                                  void *out, int64_t count, Started &entry) {
  std::string what = describe(kind, dtype, count, entry.device);
  std::string error;
  const Nccl *nccl = loadNccl(error);
  if (!nccl)
    return what + ": " + error;
  DeviceState *device = useDevice(entry.device, error);
  if (!device)
    return what + ": " + error;
  ncclDataType_t type;
  if (!ncclTypeOf(dtype, type))
    return what + ": NCCL has no element type for it";
  ncclComm_t comm = communicator(*nccl, *device, error);
  if (!comm)
    return what + ": " + error;

  const Driver &driver = *device->driver;
  std::lock_guard<std::mutex> lock(mutex);
  DeviceCollectives &state = devices[entry.device];
  if (!state.stream)
    if (CUresult result =
            driver.cuStreamCreate(&state.stream, CU_STREAM_NON_BLOCKING))
      return what + ": " + driver.failure("cuStreamCreate", result);
  CUevent ready = takeEvent(driver, state, error);
  CUevent done = ready ? takeEvent(driver, state, error) : nullptr;
  if (!done) {
    if (ready)
      state.freeEvents.push_back(ready);
    return what + ": " + error;
  }
  // The communication stream waits for what the device's stream has queued
  // so far: the input is written, and the output's earlier users are done.
  CUstream compute = device->stream;
  CUresult recorded = driver.cuEventRecord(ready, compute);
  if (!recorded)
    recorded = driver.cuStreamWaitEvent(state.stream, ready, 0);
  // A waiting stream keeps the record it waits for: `ready` can be reused.
  state.freeEvents.push_back(ready);
  if (recorded) {
    state.freeEvents.push_back(done);
    return what + ": " + driver.failure("cuEventRecord", recorded);
  }

  size_t elements = static_cast<size_t>(count);
  ncclRedOp_t op = ncclReductionOf(reduction, dtype);
  ncclResult_t result = ncclSuccess;
  const char *call = "";
  switch (kind) {
  case LAZYRT_ALL_REDUCE:
    call = "ncclAllReduce";
    result =
        nccl->ncclAllReduce(in, out, elements, type, op, comm, state.stream);
    break;
  case LAZYRT_BROADCAST:
    call = "ncclBroadcast";
    result = nccl->ncclBroadcast(in, out, elements, type,
                                 static_cast<int>(root), comm, state.stream);
    break;
  case LAZYRT_ALL_GATHER:
    call = "ncclAllGather";
    result = nccl->ncclAllGather(in, out, elements, type, comm, state.stream);
    break;
  case LAZYRT_REDUCE_SCATTER:
    call = "ncclReduceScatter";
    result = nccl->ncclReduceScatter(in, out, elements / lazyrt_dist_size(),
                                     type, op, comm, state.stream);
    break;
  }
  if (result != ncclSuccess) {
    state.freeEvents.push_back(done);
    return what + ": " + nccl->failure(call, result, comm);
  }
  if (CUresult failed = driver.cuEventRecord(done, state.stream)) {
    state.freeEvents.push_back(done);
    return what + ": " + driver.failure("cuEventRecord", failed);
  }
  entry.done = done;
  auto timeout = std::chrono::duration<double>(lazyrt_dist_get_timeout());
  inFlight.push_back(
      {entry.device, done, comm,
       Clock::now() + std::chrono::duration_cast<Clock::duration>(timeout),
       what, false});
  if (!watching) {
    watching = true;
    std::thread([this] { watch(); }).detach();
  }
  queued.notify_one();
  return "";
}

ncclComm_t GpuCollectives::communicator(const Nccl &nccl, DeviceState &device,
                                        std::string &error) {
  std::lock_guard<std::mutex> making(commMutex);
  {
    std::lock_guard<std::mutex> lock(mutex);
    DeviceCollectives &state = devices[device.index];
    if (state.comm)
      return state.comm;
    if (!state.commError.empty()) {
      error = state.commError;
      return nullptr;
    }
  }
  // Rank 0's unique id, and whether it could make one, go to every rank.
  struct {
    int32_t result;
    int32_t padding;
    ncclUniqueId id;
  } shared = {};
  int32_t rank = lazyrt_dist_rank(), size = lazyrt_dist_size();
  if (rank == 0)
    shared.result = nccl.ncclGetUniqueId(&shared.id);
  std::string failure;
  if (size > 1 &&
      lazyrt_collective_run(LAZYRT_BROADCAST, 0,
                            static_cast<int32_t>(lazyc::DType::UInt8), 0,
                            &shared, &shared, sizeof(shared)) != 0) {
    const char *why = lazyrt_take_collective_error();
    failure = std::string("sending NCCL's unique id from rank 0: ") +
              (why ? why : "failed");
  } else if (shared.result != ncclSuccess) {
    failure =
        "rank 0: " + nccl.failure("ncclGetUniqueId",
                                  static_cast<ncclResult_t>(shared.result));
  }
  ncclComm_t comm = nullptr;
  if (failure.empty()) {
    // NCCL takes the device from the CUDA runtime, which follows the
    // context useDevice made current on this thread.
    if (ncclResult_t result =
            nccl.ncclCommInitRank(&comm, size, shared.id, rank)) {
      failure = nccl.failure("ncclCommInitRank", result) + " (rank " +
                std::to_string(rank) + " of " + std::to_string(size) +
                "; each rank needs a GPU of its own)";
      comm = nullptr;
    }
  }
  std::lock_guard<std::mutex> lock(mutex);
  DeviceCollectives &state = devices[device.index];
  state.comm = comm;
  state.commError = failure.empty() ? "" : "NCCL's communicator: " + failure;
  error = state.commError;
  return comm;
}

CUevent GpuCollectives::takeEvent(const Driver &driver,
                                  DeviceCollectives &state,
                                  std::string &error) {
  if (!state.freeEvents.empty()) {
    CUevent event = state.freeEvents.back();
    state.freeEvents.pop_back();
    return event;
  }
  CUevent event = nullptr;
  if (CUresult result = driver.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING)) {
    error = driver.failure("cuEventCreate", result);
    return nullptr;
  }
  return event;
}

int32_t GpuCollectives::wait(int64_t handle, const void *in, void *out) {
  Started entry;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = started.find(handle);
    if (it == started.end()) {
      distributed::recordFailedCollective(
          "lazyrt_cuda_collective_wait: unknown collective handle " +
          std::to_string(handle) + " (never started, or already waited for)");
      return -1;
    }
    entry = std::move(it->second);
    started.erase(it);
  }
  if (entry.in != in || entry.out != out) {
    distributed::recordFailedCollective(
        "lazyrt_cuda_collective_wait: the collective was started on other "
        "buffers");
    return -1;
  }
  if (!entry.error.empty()) {
    distributed::recordFailedCollective(entry.error);
    return -1;
  }
  if (!entry.done)
    return 0;
  std::string error;
  DeviceState *device = useDevice(entry.device, error);
  CUresult result = CUDA_SUCCESS;
  if (device)
    result = device->driver->cuStreamWaitEvent(device->stream, entry.done, 0);
  std::lock_guard<std::mutex> lock(mutex);
  for (auto it = inFlight.begin(); it != inFlight.end(); ++it)
    if (it->done == entry.done) {
      it->waited = true;
      entry.done = nullptr;
      break;
    }
  // Done already: the event is free again.
  if (entry.done)
    devices[entry.device].freeEvents.push_back(entry.done);
  if (!device || result) {
    distributed::recordFailedCollective(
        "lazyrt_cuda_collective_wait: " +
        (device ? device->driver->failure("cuStreamWaitEvent", result)
                : error));
    return -1;
  }
  return 0;
}

void GpuCollectives::watch() {
  std::string ignored;
  for (;;) {
    std::vector<std::pair<InFlight, std::string>> failed;
    {
      std::unique_lock<std::mutex> lock(mutex);
      queued.wait(lock, [&] { return !inFlight.empty(); });
      for (auto it = inFlight.begin(); it != inFlight.end();) {
        DeviceState *device = useDevice(it->device, ignored);
        CUresult status = device ? device->driver->cuEventQuery(it->done)
                                 : CUDA_ERROR_INVALID_CONTEXT;
        std::string why;
        if (status == CUDA_ERROR_NOT_READY) {
          ncclResult_t async = ncclSuccess;
          const Nccl *nccl = loadNccl(ignored);
          if (nccl &&
              nccl->ncclCommGetAsyncError(it->comm, &async) == ncclSuccess &&
              async != ncclSuccess && async != ncclInProgress)
            why = "NCCL reported " +
                  nccl->failure("the collective", async, it->comm);
          else if (Clock::now() >= it->deadline)
            why = "did not complete within " +
                  std::to_string(lazyrt_dist_get_timeout()) +
                  " s: a rank died or stopped (this is rank " +
                  std::to_string(lazyrt_dist_rank()) + " of " +
                  std::to_string(lazyrt_dist_size()) + ")";
          if (why.empty()) {
            ++it;
            continue;
          }
        } else if (status != CUDA_SUCCESS) {
          why = device ? device->driver->failure("cuEventQuery", status)
                       : "its device cannot be used";
        }
        if (!why.empty())
          failed.push_back({*it, why});
        else if (it->waited)
          devices[it->device].freeEvents.push_back(it->done);
        it = inFlight.erase(it);
      }
    }
    for (const auto &[entry, why] : failed)
      abort(entry, why);
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

void GpuCollectives::abort(const InFlight &entry, const std::string &why) {
  std::string message = "the collective (" + entry.what + ") " + why +
                        "; its communicator was aborted";
  std::string ignored;
  if (const Nccl *nccl = loadNccl(ignored))
    nccl->ncclCommAbort(entry.comm);
  distributed::breakWorld(message);
  std::lock_guard<std::mutex> lock(mutex);
  DeviceCollectives &state = devices[entry.device];
  if (state.failure.empty())
    state.failure = message;
  // Later collectives of the device fail at once.
  if (state.comm == entry.comm) {
    state.comm = nullptr;
    state.commError = message;
  }
}

std::string GpuCollectives::takeFailure(int device) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = devices.find(device);
  if (it == devices.end())
    return "";
  return std::exchange(it->second.failure, "");
}

} // namespace

std::string lazyc::runtime::cuda::takeCollectiveFailure(int index) {
  return collectives().takeFailure(index);
}

extern "C" {

int64_t lazyrt_cuda_collective_start(int32_t kind, int32_t reduction,
                                     int32_t dtype, int64_t root,
                                     const void *in, void *out, int64_t count) {
  return collectives().start(kind, reduction, dtype, root, in, out, count);
}

int32_t lazyrt_cuda_collective_wait(int64_t handle, const void *in, void *out) {
  return collectives().wait(handle, in, out);
}

int32_t lazyrt_nccl_version(int32_t *version) {
  std::string whyNot;
  const Nccl *nccl = loadNccl(whyNot);
  if (!nccl) {
    setLastError("lazyrt_nccl_version: " + whyNot);
    return -1;
  }
  int value = 0;
  if (ncclResult_t result = nccl->ncclGetVersion(&value)) {
    setLastError("lazyrt_nccl_version: " +
                 nccl->failure("ncclGetVersion", result));
    return -1;
  }
  *version = value;
  return 0;
}

} // extern "C"

#else // !LAZYC_HAVE_NCCL_H

namespace {
constexpr const char *kNotBuilt =
    ": lazyc was built without nccl.h (NCCL's headers, which CUDA "
    "toolkits on Debian ship in /usr/local/cuda/include), so collectives "
    "of GPU tensors are unavailable";
} // namespace

std::string lazyc::runtime::cuda::takeCollectiveFailure(int) { return ""; }

extern "C" {

int64_t lazyrt_cuda_collective_start(int32_t, int32_t, int32_t, int64_t,
                                     const void *, void *, int64_t) {
  return 1;
}

int32_t lazyrt_cuda_collective_wait(int64_t, const void *, void *) {
  distributed::recordFailedCollective(
      std::string("lazyrt_cuda_collective_wait") + kNotBuilt);
  return -1;
}

int32_t lazyrt_nccl_version(int32_t *) {
  setLastError(std::string("lazyrt_nccl_version") + kNotBuilt);
  return -1;
}

} // extern "C"

#endif // LAZYC_HAVE_NCCL_H

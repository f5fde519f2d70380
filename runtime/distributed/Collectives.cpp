//===- Collectives.cpp - Collectives across processes ---------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the collectives of Collectives.h: the world, the
// queue of started collectives and the communication thread that runs them
// through a transport plugin (Transport.h; MPI in MpiTransport.cpp).
//
// Without a launcher the world is this process alone: collectives are
// copies done by lazyrt_collective_start, and no thread or MPI exists.
//
// With one, lazyrt_dist_init loads the plugin and starts the communication
// thread, which initializes the transport (MPI_THREAD_SERIALIZED) and then
// runs the queue in order. One thread at a time runs requests: usually the
// communication thread, so compute goes on meanwhile; but a caller that
// waits while no request runs takes the queue's head itself, up to its own
// request (a synchronous collective then costs no thread hand-off). For
// each request
// it first gathers every rank's header and compares them, then starts the
// collective and polls it until it completes or its deadline passes.
// Polling spins for a while (MPI progresses only inside its calls), then
// sleeps with a growing back-off so a long wait leaves the cores to compute.
// The first failure breaks the world: every later request fails with its
// message, and lazyrt_dist_finalize aborts the job instead of finalizing.
//
// Bool reductions: sum and max are a logical or, min a logical and.
// Float16 and BFloat16 reduce in float, rounding after each step.
//
//===----------------------------------------------------------------------===//

#include "Agreement.h"
#include "Transport.h"

#include "lazyc/Runtime/Collectives.h"
#include "lazyc/Runtime/DType.h"
#include "lazyc/Runtime/Runtime.h"

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace lazyc::runtime {
// Allocator.cpp: the thread's last error (lazyrt_get_last_error).
void setLastError(std::string message);
} // namespace lazyc::runtime

#ifndef LAZYC_HAVE_MPI_PLUGIN
#define LAZYC_HAVE_MPI_PLUGIN 0
#endif

using lazyc::runtime::setLastError;
using Clock = std::chrono::steady_clock;

extern "C" void omp_set_num_threads(int threads);

namespace {

constexpr int kNumDTypes = sizeof(lazyc::kAllDTypes) / sizeof(lazyc::DType);

/// The communication thread's own request kind (after the collectives).
constexpr int32_t kBarrier = 4;

/// How long a poll spins on the transport before sleeping, and the longest
/// sleep between polls (LAZYC_DIST_SPIN_US and LAZYC_DIST_MAX_SLEEP_US
/// override them). MPI progresses only while it is polled, and a
/// collective of a few megabytes completes within the spin.
std::chrono::microseconds spinTime(2000);
std::chrono::microseconds longestSleep(50);

/// How long the communication thread spins for the next request before
/// sleeping on the queue.
constexpr auto kIdleSpin = std::chrono::microseconds(200);

/// How long a waiting caller spins on its request before blocking.
constexpr auto kWaitSpin = std::chrono::microseconds(20);

/// What every rank sends before a collective; all ranks' must be equal.
struct Header {
  int64_t sequence;
  int64_t count;
  int64_t root;
  int32_t kind;
  int32_t reduction;
  int32_t dtype;
  int32_t padding;

  bool operator==(const Header &other) const {
    return sequence == other.sequence && count == other.count &&
           root == other.root && kind == other.kind &&
           reduction == other.reduction && dtype == other.dtype;
  }
};

const char *reductionName(int32_t reduction) {
  switch (reduction) {
  case LAZYRT_REDUCE_SUM:
    return "sum";
  case LAZYRT_REDUCE_MAX:
    return "max";
  case LAZYRT_REDUCE_MIN:
    return "min";
  }
  return "?";
}

const char *dtypeName(int32_t dtype) {
  if (dtype < 0 || dtype >= kNumDTypes)
    return "unknown dtype";
  return lazyc::dtypeInfo(static_cast<lazyc::DType>(dtype)).name;
}

/// "all_reduce(sum) of 1024 Float32", "broadcast from rank 1 of 8 Int32".
std::string describe(const Header &header) {
  std::string of =
      " of " + std::to_string(header.count) + " " + dtypeName(header.dtype);
  switch (header.kind) {
  case LAZYRT_ALL_REDUCE:
    return std::string("all_reduce(") + reductionName(header.reduction) + ")" +
           of;
  case LAZYRT_BROADCAST:
    return "broadcast from rank " + std::to_string(header.root) + of;
  case LAZYRT_ALL_GATHER:
    return "all_gather" + of;
  case LAZYRT_REDUCE_SCATTER:
    return std::string("reduce_scatter(") + reductionName(header.reduction) +
           ")" + of;
  case kBarrier:
    return "barrier";
  }
  return "unknown collective";
}

/// A started collective (or barrier).
struct Request {
  Header header = {};
  const void *in = nullptr;
  void *out = nullptr;
  std::atomic<bool> done = false;
  std::string error; ///< Set before `done`.
  /// Its caller waits at once (lazyrt_collective_run, barriers): the
  /// caller runs it, with no hand-off to the communication thread.
  bool callerRuns = false;
  /// Only the headers are exchanged: another engine (NCCL) moves the data
  /// (agreeOnCollective).
  bool headerOnly = false;
};

/// This thread's collective failure, for lazyrt_take_collective_error: the
/// pending one, and the one last taken (whose text the caller reads).
thread_local std::string pendingCollectiveError;
thread_local bool hasPendingCollectiveError = false;
thread_local std::string takenCollectiveError;

/// Records a failure for lazyrt_get_last_error and, as a collective
/// failure, for lazyrt_take_collective_error (keeping the first).
void recordCollectiveError(const std::string &message) {
  setLastError(message);
  if (!hasPendingCollectiveError) {
    pendingCollectiveError = message;
    hasPendingCollectiveError = true;
  }
}

/// An integer from the first of `names` set in the environment, or -1.
int64_t environmentInteger(std::initializer_list<const char *> names) {
  for (const char *name : names)
    if (const char *value = std::getenv(name); value && *value)
      return std::atoll(value);
  return -1;
}

class World {
public:
  World() {
    if (const char *value = std::getenv("LAZYC_DIST_TIMEOUT");
        value && *value && std::atof(value) > 0)
      timeoutSeconds = std::atof(value);
    if (int64_t spin = environmentInteger({"LAZYC_DIST_SPIN_US"}); spin >= 0)
      spinTime = std::chrono::microseconds(spin);
    if (int64_t sleep = environmentInteger({"LAZYC_DIST_MAX_SLEEP_US"});
        sleep > 0)
      longestSleep = std::chrono::microseconds(sleep);
  }

  int32_t init();
  int64_t start(int32_t kind, int32_t reduction, int32_t dtype, int64_t root,
                const void *in, void *out, int64_t count,
                bool callerRuns = false, bool headerOnly = false);
  int64_t startBarrier();
  int32_t wait(int64_t handle, const void *in, void *out, const char *caller);
  /// As wait, but returns the failure ("" when none) instead of recording it.
  std::string finish(int64_t handle, const void *in, void *out,
                     const char *caller);
  /// Fails every later collective with `message`, unless already broken.
  void breakWith(const std::string &message);
  void finalize();
  lazyrt_dist_stats stats();

  std::atomic<int32_t> rank = 0;
  std::atomic<int32_t> size = 1;
  std::atomic<int32_t> localRank = 0;
  std::atomic<const char *> transportName = "local";
  std::atomic<double> timeoutSeconds = 300;

private:
  int32_t initLocked();
  int64_t enqueue(std::shared_ptr<Request> request, std::string error);
  std::string validate(int32_t kind, int32_t reduction, int32_t dtype,
                       int64_t root, const void *in, void *out,
                       int64_t count) const;
  void runLocal(Request &request);
  void serve(std::promise<std::string> initialized);
  std::string run(Request &request);
  std::string poll(void *transportRequest, const Request &request,
                   Clock::time_point started, Clock::time_point deadline);
  std::string timeoutMessage(const Request &request) const;
  void complete(Request &request, std::string error, double seconds);
  /// Runs the queue's first request on this thread; `lock` holds `mutex`
  /// and is released meanwhile.
  void runNext(std::unique_lock<std::mutex> &lock);

  std::mutex initMutex;
  bool initialized = false;
  std::atomic<bool> joined = false; ///< init succeeded.
  std::string initError;
  bool finalized = false;

  const lazyc_transport *transport = nullptr;
  std::thread thread;

  std::mutex mutex;
  std::condition_variable queued;
  /// A thread (the communication thread or a waiting caller) is running a
  /// request: the transport is used by one thread at a time
  /// (MPI_THREAD_SERIALIZED), in queue order.
  bool running = false;
  std::condition_variable finished;
  std::deque<std::shared_ptr<Request>> queue;
  std::atomic<size_t> queueLength = 0;
  std::unordered_map<int64_t, std::shared_ptr<Request>> requests;
  int64_t nextHandle = 1;
  int64_t nextSequence = 1;
  bool stopping = false;
  /// The first failure's message; set once, then every request fails.
  std::string brokenMessage;
  std::atomic<bool> broken = false;
  lazyrt_dist_stats counters = {};
};

World &world() {
  // Never destroyed: lazyrt_dist_finalize runs from atexit, and the thread
  // must outlive static destruction.
  static World *instance = new World();
  return *instance;
}

int32_t World::init() {
  if (joined.load(std::memory_order_acquire))
    return 0;
  std::lock_guard<std::mutex> lock(initMutex);
  if (!initialized) {
    initialized = true;
    if (initLocked() != 0)
      initError = initError.empty() ? "lazyrt_dist_init failed" : initError;
    else
      joined.store(true, std::memory_order_release);
  }
  if (!initError.empty()) {
    setLastError(initError);
    return -1;
  }
  return 0;
}

int32_t World::initLocked() {
  int64_t launchedSize =
      environmentInteger({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"});
  int64_t launchedRank =
      environmentInteger({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"});
  int64_t launchedLocalRank =
      environmentInteger({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                          "PMI_LOCAL_RANK", "PMIX_LOCAL_RANK"});
  // No launcher, or a world of one: this process alone, no transport.
  if ((launchedSize < 0 && launchedRank < 0) || launchedSize == 1)
    return 0;

  std::string path;
  if (const char *override = std::getenv("LAZYC_MPI_LIBRARY");
      override && *override) {
    path = override;
  } else {
    Dl_info info = {};
    if (dladdr(reinterpret_cast<void *>(&lazyrt_dist_init), &info) &&
        info.dli_fname) {
      path = info.dli_fname;
      size_t slash = path.rfind('/');
      path = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    }
    path += "liblazyc_mpi.so";
  }
  std::string launched =
      "lazyrt_dist_init: a launcher started this process as rank " +
      std::to_string(launchedRank) + " of " + std::to_string(launchedSize);
  if (!LAZYC_HAVE_MPI_PLUGIN && !std::getenv("LAZYC_MPI_LIBRARY")) {
    initError = launched +
                ", but lazyc was built without its MPI plugin "
                "(liblazyc_mpi.so): CMake found no MPI when lazyc was "
                "configured. Install MPI (Debian: libopenmpi-dev) and "
                "reconfigure, or set LAZYC_MPI_LIBRARY to a built plugin";
    return -1;
  }
  // Global: Open MPI's components resolve symbols of libmpi when loaded.
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!library) {
    const char *why = dlerror();
    initError = launched + ", but its MPI plugin could not be loaded: " +
                (why ? why : path) +
                " (LAZYC_MPI_LIBRARY names another plugin)";
    return -1;
  }
  auto entry = reinterpret_cast<lazyc_transport_entry>(
      dlsym(library, LAZYC_TRANSPORT_ENTRY_NAME));
  const lazyc_transport *table = entry ? entry() : nullptr;
  if (!table || table->abi_version != LAZYC_TRANSPORT_ABI_VERSION) {
    initError = launched + ", but " + path +
                " is not a lazyc MPI plugin of this version (entry point " +
                LAZYC_TRANSPORT_ENTRY_NAME + ", ABI version " +
                std::to_string(LAZYC_TRANSPORT_ABI_VERSION) + ")";
    return -1;
  }
  transport = table;

  std::promise<std::string> initialized;
  std::future<std::string> result = initialized.get_future();
  thread = std::thread([this, promise = std::move(initialized)]() mutable {
    serve(std::move(promise));
  });
  std::string error = result.get();
  if (!error.empty()) {
    thread.join();
    initError = "lazyrt_dist_init: " + error;
    return -1;
  }
  localRank =
      launchedLocalRank < 0 ? 0 : static_cast<int32_t>(launchedLocalRank);
  transportName = transport->name;
  // Ranks sharing a machine share its cores: unless OMP_NUM_THREADS says
  // otherwise, each rank's compiled loops use its share.
  int64_t localSize =
      environmentInteger({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                          "PMI_LOCAL_SIZE", "PMIX_LOCAL_SIZE"});
  if (localSize > 1 && !std::getenv("OMP_NUM_THREADS"))
    omp_set_num_threads(std::max<int>(
        1, static_cast<int>(std::thread::hardware_concurrency() / localSize)));
  std::atexit(lazyrt_dist_finalize);
  return 0;
}

std::string World::validate(int32_t kind, int32_t reduction, int32_t dtype,
                            int64_t root, const void *in, void *out,
                            int64_t count) const {
  if (kind < LAZYRT_ALL_REDUCE || kind > LAZYRT_REDUCE_SCATTER)
    return "unknown collective kind " + std::to_string(kind);
  bool reduces = kind == LAZYRT_ALL_REDUCE || kind == LAZYRT_REDUCE_SCATTER;
  if (reduces &&
      (reduction < LAZYRT_REDUCE_SUM || reduction > LAZYRT_REDUCE_MIN))
    return "unknown reduction " + std::to_string(reduction);
  if (dtype < 0 || dtype >= kNumDTypes)
    return "unknown dtype " + std::to_string(dtype);
  if (count < 0)
    return "negative element count " + std::to_string(count);
  int32_t worldSize = size;
  if (kind == LAZYRT_BROADCAST && (root < 0 || root >= worldSize))
    return "root " + std::to_string(root) + " is not a rank of a world of " +
           std::to_string(worldSize);
  if (kind == LAZYRT_REDUCE_SCATTER && count % worldSize != 0)
    return "reduce_scatter of " + std::to_string(count) +
           " elements: the count does not divide by the world's size " +
           std::to_string(worldSize);
  if (count > 0 && (!in || !out))
    return "null buffer";
  if (count > 0 && in == out &&
      (kind == LAZYRT_ALL_GATHER || kind == LAZYRT_REDUCE_SCATTER))
    return "in and out are the same buffer, which only all_reduce and "
           "broadcast allow";
  return "";
}

void World::runLocal(Request &request) {
  const Header &header = request.header;
  size_t bytes =
      header.count * lazyc::sizeOf(static_cast<lazyc::DType>(header.dtype));
  if (bytes && request.in != request.out)
    std::memmove(request.out, request.in, bytes);
}

int64_t World::start(int32_t kind, int32_t reduction, int32_t dtype,
                     int64_t root, const void *in, void *out, int64_t count,
                     bool callerRuns, bool headerOnly) {
  auto request = std::make_shared<Request>();
  request->in = in;
  request->out = out;
  request->callerRuns = callerRuns;
  request->headerOnly = headerOnly;
  bool reduces = kind == LAZYRT_ALL_REDUCE || kind == LAZYRT_REDUCE_SCATTER;
  request->header = {0,
                     count,
                     kind == LAZYRT_BROADCAST ? root : 0,
                     kind,
                     reduces ? reduction : 0,
                     dtype,
                     0};

  // An invalid request fails alone, without a sequence number: every rank
  // runs the same code, so every rank skips it.
  std::string error;
  if (init() != 0)
    error = lazyrt_get_last_error();
  else if (std::string invalid =
               validate(kind, reduction, dtype, root, in, out, count);
           !invalid.empty())
    error = "lazyrt_collective_start: " + invalid;
  return enqueue(std::move(request), std::move(error));
}

int64_t World::startBarrier() {
  auto request = std::make_shared<Request>();
  request->header.kind = kBarrier;
  request->callerRuns = true;
  std::string error;
  if (init() != 0)
    error = lazyrt_get_last_error();
  return enqueue(std::move(request), std::move(error));
}

int64_t World::enqueue(std::shared_ptr<Request> request, std::string error) {
  bool local = !transport;
  std::unique_lock<std::mutex> lock(mutex);
  int64_t handle = nextHandle++;
  requests.emplace(handle, request);
  if (error.empty() && stopping)
    error = "lazyrt_collective_start: the world was left "
            "(lazyrt_dist_finalize)";
  if (!error.empty() || local) {
    if (error.empty()) {
      request->header.sequence = nextSequence++;
      if (!request->headerOnly)
        runLocal(*request);
      if (request->header.kind != kBarrier) {
        ++counters.collectives;
        counters.bytes +=
            request->header.count *
            lazyc::sizeOf(static_cast<lazyc::DType>(request->header.dtype));
      }
    }
    request->error = std::move(error);
    request->done = true;
    return handle;
  }
  request->header.sequence = nextSequence++;
  queue.push_back(request);
  ++queueLength;
  lock.unlock();
  if (!request->callerRuns)
    queued.notify_one();
  return handle;
}

int32_t World::wait(int64_t handle, const void *in, void *out,
                    const char *caller) {
  std::string failure = finish(handle, in, out, caller);
  if (failure.empty())
    return 0;
  recordCollectiveError(failure);
  return -1;
}

std::string World::finish(int64_t handle, const void *in, void *out,
                          const char *caller) {
  std::shared_ptr<Request> request;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = requests.find(handle);
    if (it == requests.end())
      return std::string(caller) + ": unknown collective handle " +
             std::to_string(handle) + " (never started, or already waited for)";
    if (it->second->in != in || it->second->out != out) {
      char message[256];
      std::snprintf(message, sizeof(message),
                    "%s: collective handle %lld was started with in=%p "
                    "out=%p, but waited for with in=%p out=%p",
                    caller, static_cast<long long>(handle), it->second->in,
                    it->second->out, in, out);
      return message;
    }
    request = it->second;
    requests.erase(it);
  }
  if (!request->done.load(std::memory_order_acquire)) {
    auto began = Clock::now();
    // Whenever no one runs a request, run the queue up to this one here: a
    // caller that waits at once pays no hand-off to the thread, and the
    // thread leaves requests whose callers wait to them. While another
    // thread runs one, spin briefly before sleeping.
    {
      std::unique_lock<std::mutex> lock(mutex);
      for (;;) {
        while (!request->done.load() && !running && !queue.empty())
          runNext(lock);
        if (request->done.load())
          break;
        lock.unlock();
        auto spinning = Clock::now();
        while (!request->done.load(std::memory_order_acquire) &&
               Clock::now() - spinning < kWaitSpin) {
        }
        lock.lock();
        finished.wait(lock, [&] { return request->done.load() || !running; });
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    counters.wait_seconds +=
        std::chrono::duration<double>(Clock::now() - began).count();
  }
  return request->error;
}

void World::breakWith(const std::string &message) {
  std::lock_guard<std::mutex> lock(mutex);
  if (broken.load())
    return;
  brokenMessage = message;
  broken = true;
}

void World::serve(std::promise<std::string> initialized) {
  char error[1024] = {};
  int32_t worldRank = 0, worldSize = 1;
  if (transport->init(&worldRank, &worldSize, error, sizeof(error)) != 0) {
    initialized.set_value(error[0] ? error : "the transport failed to start");
    return;
  }
  rank = worldRank;
  size = worldSize;
  initialized.set_value("");

  for (;;) {
    std::shared_ptr<Request> request;
    {
      // Spin briefly for the next request before sleeping on the queue: a
      // caller that starts collectives back to back should not pay for a
      // wake-up each time.
      auto idle = Clock::now();
      while (queueLength.load(std::memory_order_acquire) == 0 &&
             Clock::now() - idle < kIdleSpin) {
      }
      std::unique_lock<std::mutex> lock(mutex);
      queued.wait(lock, [&] {
        return !running &&
               ((!queue.empty() && !queue.front()->callerRuns) || stopping);
      });
      if (queue.empty())
        break;
      runNext(lock);
    }
  }

  if (broken.load()) {
    // Ranks may be stuck in a collective this one gave up on: they would
    // never finalize. End the whole job.
    std::fprintf(stderr,
                 "lazyc: rank %d of %d aborts the job after a failed "
                 "collective: %s\n",
                 worldRank, worldSize, brokenMessage.c_str());
    std::fflush(stderr);
    transport->abort(1);
  }
  if (transport->finalize(error, sizeof(error)) != 0)
    std::fprintf(stderr, "lazyc: rank %d of %d: %s\n", worldRank, worldSize,
                 error);
}

std::string World::timeoutMessage(const Request &request) const {
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%g", timeoutSeconds.load());
  return "collective #" + std::to_string(request.header.sequence) + " (" +
         describe(request.header) + ") did not complete within " + seconds +
         " s: a rank died or never reached it (this is rank " +
         std::to_string(rank) + " of " + std::to_string(size) + ")";
}

std::string World::poll(void *transportRequest, const Request &request,
                        Clock::time_point started, Clock::time_point deadline) {
  char error[1024] = {};
  auto sleep = std::chrono::microseconds(1);
  for (;;) {
    int32_t status = transport->test(transportRequest, error, sizeof(error));
    if (status == 1)
      return "";
    if (status < 0)
      return "collective #" + std::to_string(request.header.sequence) + " (" +
             describe(request.header) + "): " + error;
    auto now = Clock::now();
    // The request stays in flight; the world is broken, so no one polls it
    // again, and the job aborts at exit.
    if (now >= deadline)
      return timeoutMessage(request);
    if (now - started < spinTime)
      continue;
    std::this_thread::sleep_for(sleep);
    sleep = std::min(sleep * 2, longestSleep);
  }
}

std::string World::run(Request &request) {
  auto started = Clock::now();
  auto deadline =
      started + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(timeoutSeconds.load()));
  char error[1024] = {};
  auto failed = [&](const char *what) {
    return "collective #" + std::to_string(request.header.sequence) + " (" +
           describe(request.header) + "): " + what;
  };

  // The header exchange: also the barrier, since no rank finishes it before
  // every rank reached it.
  int32_t worldSize = size;
  std::vector<Header> headers(worldSize);
  lazyc_transport_op exchange = {LAZYC_TRANSPORT_GATHER_BYTES,
                                 0,
                                 0,
                                 0,
                                 &request.header,
                                 headers.data(),
                                 sizeof(Header)};
  void *pending = nullptr;
  if (transport->start(&exchange, &pending, error, sizeof(error)) != 0)
    return failed(error);
  if (std::string failure = poll(pending, request, started, deadline);
      !failure.empty())
    return failure;
  for (const Header &header : headers) {
    if (header == request.header)
      continue;
    std::string message = "collective #" +
                          std::to_string(request.header.sequence) +
                          " mismatch across ranks:";
    for (int32_t r = 0; r < worldSize; ++r)
      message += std::string(r ? ";" : "") + " rank " + std::to_string(r) +
                 ": " + describe(headers[r]) +
                 (headers[r].sequence != request.header.sequence
                      ? " (its collective #" +
                            std::to_string(headers[r].sequence) + ")"
                      : "");
    return message;
  }
  if (request.header.kind == kBarrier || request.header.count == 0 ||
      request.headerOnly)
    return "";

  const Header &header = request.header;
  lazyc_transport_op op = {header.kind, header.reduction, header.dtype,
                           header.root, request.in,       request.out,
                           header.count};
  if (transport->start(&op, &pending, error, sizeof(error)) != 0)
    return failed(error);
  return poll(pending, request, started, deadline);
}

void World::runNext(std::unique_lock<std::mutex> &lock) {
  std::shared_ptr<Request> request = std::move(queue.front());
  queue.pop_front();
  --queueLength;
  running = true;
  lock.unlock();
  auto began = Clock::now();
  std::string failure;
  if (broken.load())
    failure = brokenMessage; // Written once, before `broken`.
  else
    failure = run(*request);
  complete(*request, std::move(failure),
           std::chrono::duration<double>(Clock::now() - began).count());
  lock.lock();
  running = false;
  // Waiting callers may run what is queued now; so may the thread.
  finished.notify_all();
  if (!queue.empty())
    queued.notify_one();
}

void World::complete(Request &request, std::string error, double seconds) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!error.empty() && !broken.load()) {
      brokenMessage = error;
      broken = true;
    }
    if (error.empty() && request.header.kind != kBarrier) {
      ++counters.collectives;
      counters.bytes +=
          request.header.count *
          lazyc::sizeOf(static_cast<lazyc::DType>(request.header.dtype));
    }
    counters.seconds += seconds;
    request.error = std::move(error);
    request.done.store(true, std::memory_order_release);
  }
  finished.notify_all();
}

void World::finalize() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  {
    std::lock_guard<std::mutex> lock(initMutex);
    if (finalized || !thread.joinable())
      return;
    finalized = true;
  }
  queued.notify_one();
  thread.join();
}

lazyrt_dist_stats World::stats() {
  std::lock_guard<std::mutex> lock(mutex);
  return counters;
}

} // namespace

std::string lazyc::runtime::distributed::agreeOnCollective(
    int32_t kind, int32_t reduction, int32_t dtype, int64_t root,
    const void *in, void *out, int64_t count) {
  World &w = world();
  int64_t handle = w.start(kind, reduction, dtype, root, in, out, count,
                           /*callerRuns=*/true, /*headerOnly=*/true);
  return w.finish(handle, in, out, "lazyrt_cuda_collective_start");
}

void lazyc::runtime::distributed::recordFailedCollective(
    const std::string &message) {
  recordCollectiveError(message);
}

void lazyc::runtime::distributed::breakWorld(const std::string &message) {
  world().breakWith(message);
}

extern "C" {

int32_t lazyrt_dist_init(void) { return world().init(); }

int32_t lazyrt_dist_rank(void) { return world().rank; }

int32_t lazyrt_dist_size(void) { return world().size; }

int32_t lazyrt_dist_local_rank(void) { return world().localRank; }

const char *lazyrt_dist_transport(void) { return world().transportName; }

void lazyrt_dist_set_timeout(double seconds) {
  world().timeoutSeconds = seconds;
}

double lazyrt_dist_get_timeout(void) { return world().timeoutSeconds; }

int64_t lazyrt_collective_start(int32_t kind, int32_t reduction, int32_t dtype,
                                int64_t root, const void *in, void *out,
                                int64_t count) {
  return world().start(kind, reduction, dtype, root, in, out, count);
}

int32_t lazyrt_collective_wait(int64_t handle, const void *in, void *out) {
  return world().wait(handle, in, out, "lazyrt_collective_wait");
}

int32_t lazyrt_collective_run(int32_t kind, int32_t reduction, int32_t dtype,
                              int64_t root, const void *in, void *out,
                              int64_t count) {
  World &w = world();
  int64_t handle = w.start(kind, reduction, dtype, root, in, out, count,
                           /*callerRuns=*/true);
  return w.wait(handle, in, out, "lazyrt_collective_run");
}

int32_t lazyrt_dist_barrier(void) {
  World &w = world();
  // A barrier is a request with no buffers, queued behind the collectives
  // started before it; its header exchange waits for every rank.
  return w.wait(w.startBarrier(), nullptr, nullptr, "lazyrt_dist_barrier");
}

const char *lazyrt_take_collective_error(void) {
  if (!hasPendingCollectiveError)
    return nullptr;
  takenCollectiveError = std::move(pendingCollectiveError);
  pendingCollectiveError.clear();
  hasPendingCollectiveError = false;
  return takenCollectiveError.c_str();
}

lazyrt_dist_stats lazyrt_get_dist_stats(void) { return world().stats(); }

void lazyrt_dist_finalize(void) { world().finalize(); }

} // extern "C"

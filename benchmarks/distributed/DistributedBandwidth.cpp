//===- DistributedBandwidth.cpp - lazyc's all_reduce against MPI's --------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the runtime's collectives cost over calling MPI directly: a sum
// all_reduce of 1, 4, 16, 64 and 256 MB of f32, timed as
//   mpi    MPI_Allreduce called on the main thread (MPI_Init, no runtime);
//   nbc    MPI_Iallreduce + MPI_Test in a loop on the main thread: the
//          non-blocking algorithm the runtime uses, without the runtime;
//   lazyc  lazyrt_collective_run (the runtime's communication thread,
//          header exchange and polling included).
// The two cannot share a process (the runtime's thread owns MPI), so each
// mode is its own job. Each size: 2 warm-up runs, then --runs timed runs
// (default 15), each after a barrier; rank 0 prints the median.
//
// Usage:
//   lazyc-bench-allreduce [--np N] [--runs N] [--rounds N]
//       runs the jobs itself (mpirun -np N <this> --mode=...; rounds of both
//       modes, alternating) and prints the comparison;
//   mpirun -np 2 lazyc-bench-allreduce --mode=mpi|nbc|lazyc [--runs N]
//       one mode, one job.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Collectives.h"
#include "lazyc/Runtime/DType.h"
#include "lazyc/Runtime/Runtime.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr int kSizesMB[] = {1, 4, 16, 64, 256};

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// Times every size in one mode; rank 0 prints "<MB> <median seconds>".
int runMode(const std::string &mode, int runs) {
  bool direct = mode == "mpi" || mode == "nbc";
  int rank = 0;
  if (direct) {
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  } else {
    if (lazyrt_dist_init() != 0) {
      std::fprintf(stderr, "lazyc-bench-allreduce: %s\n",
                   lazyrt_get_last_error());
      return 1;
    }
    rank = lazyrt_dist_rank();
  }
  for (int megabytes : kSizesMB) {
    int64_t count = int64_t(megabytes) << 18; // f32s in `megabytes` MB
    std::vector<float> in(count, 1.0f + rank), out(count, 0.0f);
    std::vector<double> seconds;
    for (int run = 0; run < runs + 2; ++run) {
      double start;
      if (direct) {
        MPI_Barrier(MPI_COMM_WORLD);
        start = now();
        if (mode == "mpi") {
          MPI_Allreduce(in.data(), out.data(), static_cast<int>(count),
                        MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        } else {
          MPI_Request request;
          MPI_Iallreduce(in.data(), out.data(), static_cast<int>(count),
                         MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &request);
          for (int done = 0; !done;)
            MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        }
      } else {
        if (lazyrt_dist_barrier() != 0) {
          std::fprintf(stderr, "lazyc-bench-allreduce: %s\n",
                       lazyrt_get_last_error());
          return 1;
        }
        start = now();
        if (lazyrt_collective_run(LAZYRT_ALL_REDUCE, LAZYRT_REDUCE_SUM,
                                  static_cast<int32_t>(lazyc::DType::Float32),
                                  0, in.data(), out.data(), count) != 0) {
          std::fprintf(stderr, "lazyc-bench-allreduce: %s\n",
                       lazyrt_get_last_error());
          return 1;
        }
      }
      if (run >= 2)
        seconds.push_back(now() - start);
    }
    if (rank == 0)
      std::printf("%d %.9f\n", megabytes, median(seconds));
    std::fflush(stdout);
  }
  if (direct)
    MPI_Finalize();
  return 0;
}

/// Runs one mode as its own job and returns rank 0's medians by size.
std::map<int, double> runJob(const char *self, int np, const char *mode,
                             int runs) {
  std::string command = "mpirun --allow-run-as-root --bind-to none "
                        "--oversubscribe --mca btl self,vader -np " +
                        std::to_string(np) + " " + self + " --mode=" + mode +
                        " --runs " + std::to_string(runs);
  std::map<int, double> medians;
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe)
    return medians;
  int megabytes;
  double seconds;
  char line[256];
  while (std::fgets(line, sizeof(line), pipe))
    if (std::sscanf(line, "%d %lf", &megabytes, &seconds) == 2)
      medians[megabytes] = seconds;
  if (pclose(pipe) != 0)
    std::fprintf(stderr, "lazyc-bench-allreduce: '%s' failed\n",
                 command.c_str());
  return medians;
}

} // namespace

int main(int argc, char **argv) {
  std::string mode;
  int runs = 15, np = 2, rounds = 2;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--mode=", 0) == 0)
      mode = arg.substr(7);
    else if (arg == "--runs" && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--np" && i + 1 < argc)
      np = std::max(2, std::atoi(argv[++i]));
    else if (arg == "--rounds" && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: lazyc-bench-allreduce [--np N] [--runs N] "
                           "[--rounds N] [--mode=mpi|nbc|lazyc]\n");
      return 2;
    }
  }
  if (!mode.empty())
    return runMode(mode, runs);

  // The median over rounds of each mode's per-round medians.
  std::map<int, std::vector<double>> direct, nonblocking, lazyc;
  for (int round = 0; round < rounds; ++round) {
    for (auto [megabytes, seconds] : runJob(argv[0], np, "mpi", runs))
      direct[megabytes].push_back(seconds);
    for (auto [megabytes, seconds] : runJob(argv[0], np, "nbc", runs))
      nonblocking[megabytes].push_back(seconds);
    for (auto [megabytes, seconds] : runJob(argv[0], np, "lazyc", runs))
      lazyc[megabytes].push_back(seconds);
  }
  std::printf("all_reduce(sum) of f32, %d processes, median of %d runs x %d "
              "rounds\n",
              np, runs, rounds);
  std::printf("%8s %10s %10s %10s %10s %10s %12s\n", "size", "MPI ms",
              "Iall. ms", "lazyc ms", "MPI GB/s", "lazyc GB/s", "lazyc/MPI");
  for (int megabytes : kSizesMB) {
    if (direct[megabytes].empty() || nonblocking[megabytes].empty() ||
        lazyc[megabytes].empty())
      continue;
    double mpi = median(direct[megabytes]);
    double nbc = median(nonblocking[megabytes]);
    double ours = median(lazyc[megabytes]);
    double bytes = double(megabytes) * (1 << 20);
    // The ratio is of speeds (MPI's time over lazyc's): >= 1 is as fast.
    std::printf("%5d MB %10.3f %10.3f %10.3f %10.2f %10.2f %11.3fx\n",
                megabytes, mpi * 1e3, nbc * 1e3, ours * 1e3, bytes / mpi / 1e9,
                bytes / ours / 1e9, mpi / ours);
  }
  return 0;
}

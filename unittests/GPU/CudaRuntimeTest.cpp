//===- CudaRuntimeTest.cpp - Tests of the runtime's CUDA devices ----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Checks the C ABI of Cuda.h. Without a driver, every entry point must fail
// cleanly and say why; these checks run everywhere, in a child process that
// names a driver file that does not exist (LAZYC_CUDA_DRIVER), since the
// runtime loads the driver once per process. With a device (the other tests
// skip without one, saying why): device memory, copies, the allocator's
// reuse and counters, running out of memory, and PTX modules launched
// through the mgpu* ABI that MLIR's GPU lowering calls.
//
// LAZYC_HAVE_CUDA_H (unittests/CMakeLists.txt) says whether the runtime was
// built with cuda.h; without it every entry point says CUDA support was not
// built.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Cuda.h"
#include "lazyc/Runtime/Device.h"
#include "lazyc/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// A kernel adding 1.0 to each of `count` floats at `data`, one thread per
/// float (checked with ptxas -arch=sm_90).
constexpr const char *kAddOnePtx = R"ptx(
.version 8.0
.target sm_90
.address_size 64

.visible .entry add_one(.param .u64 data, .param .u32 count)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<5>;

  ld.param.u64 %rd1, [data];
  ld.param.u32 %r1, [count];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.f32 %f2, %f1, 0f3F800000;
  st.global.f32 [%rd4], %f2;
DONE:
  ret;
}
)ptx";

/// kAddOnePtx with an operand that names no register.
std::string badPtx() {
  std::string ptx = kAddOnePtx;
  std::string good = "add.f32 %f2, %f1, 0f3F800000;";
  ptx.replace(ptx.find(good), good.size(),
              "add.f32 %f2, %f1, %undefined_register;");
  return ptx;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

std::string lastError() { return lazyrt_get_last_error(); }

/// The driver file the no-driver checks name.
constexpr const char *kMissingDriver = "/nonexistent/libcuda.so.1";

/// Calls every entry point of Cuda.h with no driver to load; returns the
/// number of entry points that did not fail cleanly, after printing each to
/// stderr. Run in a child process whose LAZYC_CUDA_DRIVER is kMissingDriver.
int checkEveryEntryPointFails() {
  int failures = 0;
  auto expect = [&](bool ok, const char *what) {
    if (ok)
      return;
    std::fprintf(stderr, "FAILED: %s (last error: \"%s\")\n", what,
                 lazyrt_get_last_error());
    ++failures;
  };
  std::string reason =
      LAZYC_HAVE_CUDA_H ? kMissingDriver : "built without CUDA support";
  auto failedFor = [&](const char *caller) {
    return contains(lastError(), std::string(caller) + ": ") &&
           contains(lastError(), reason);
  };

  char why[512] = {};
  expect(lazyrt_cuda_available(0, why, sizeof(why)) == 0, "available");
  expect(contains(why, reason), "available gives the reason");
  std::fprintf(stderr, "reason: %s\n", why);

  expect(lazyrt_cuda_device_count() == -1 &&
             failedFor("lazyrt_cuda_device_count"),
         "device_count");
  char name[64] = "unchanged";
  expect(lazyrt_cuda_device_name(0, name, sizeof(name)) == -1 &&
             failedFor("lazyrt_cuda_device_name") &&
             std::string(name) == "unchanged",
         "device_name");
  int32_t major = -7, minor = -7;
  expect(lazyrt_cuda_compute_capability(0, &major, &minor) == -1 &&
             failedFor("lazyrt_cuda_compute_capability") && major == -7 &&
             minor == -7,
         "compute_capability");
  int32_t version = -7;
  expect(lazyrt_cuda_driver_version(&version) == -1 &&
             failedFor("lazyrt_cuda_driver_version") && version == -7,
         "driver_version");
  lazyrt_cuda_set_current_device(2);
  expect(lazyrt_cuda_get_current_device() == 2, "current device is kept");
  lazyrt_cuda_set_current_device(0);
  expect(!lazyrt_cuda_stream(0) && failedFor("lazyrt_cuda_stream"), "stream");
  expect(lazyrt_cuda_synchronize(0) == -1 &&
             failedFor("lazyrt_cuda_synchronize"),
         "synchronize");

  expect(!lazyrt_cuda_alloc(0, 1024) && failedFor("lazyrt_cuda_alloc"),
         "alloc");
  int notABlock = 0;
  expect(lazyrt_cuda_free(0, &notABlock) == -1 &&
             contains(lastError(), "lazyrt_cuda_free: "),
         "free of a block never allocated");
  expect(lazyrt_cuda_free(0, nullptr) == 0, "free of null");
  lazyrt_allocator_stats stats = lazyrt_cuda_get_allocator_stats(0);
  expect(stats.allocations == 0 && stats.bytes_in_use == 0 &&
             stats.bytes_cached == 0 && stats.peak_bytes_in_use == 0,
         "allocator counters stay zero");
  lazyrt_cuda_reset_peak_bytes_in_use(0);
  expect(lazyrt_cuda_empty_cache(0) == -1 &&
             failedFor("lazyrt_cuda_empty_cache"),
         "empty_cache");
  expect(!lazyc::cudaAllocator(0).allocate(64) && contains(lastError(), reason),
         "cudaAllocator");

  std::vector<float> host(16, 1.0f);
  expect(lazyrt_cuda_copy_to_device(0, &notABlock, host.data(), 64) == -1 &&
             failedFor("lazyrt_cuda_copy_to_device"),
         "copy_to_device");
  expect(lazyrt_cuda_copy_to_host(0, host.data(), &notABlock, 64) == -1 &&
             failedFor("lazyrt_cuda_copy_to_host") && host[0] == 1.0f,
         "copy_to_host");
  expect(lazyrt_cuda_copy_on_device(0, &notABlock, &notABlock, 64) == -1 &&
             failedFor("lazyrt_cuda_copy_on_device"),
         "copy_on_device");
  expect(!lazyrt_cuda_host_alloc(64) && failedFor("lazyrt_cuda_host_alloc"),
         "host_alloc");
  expect(lazyrt_cuda_host_free(&notABlock) == -1 &&
             failedFor("lazyrt_cuda_host_free"),
         "host_free");
  expect(lazyrt_cuda_host_free(nullptr) == 0, "host_free of null");

  // The mgpu* ABI: the first failure is kept until taken, and later calls
  // that would queue work do nothing.
  expect(lazyrt_take_cuda_error() == nullptr, "no mgpu error before a call");
  expect(!mgpuStreamCreate(), "mgpuStreamCreate");
  expect(!mgpuModuleLoadJIT(const_cast<char *>(kAddOnePtx), 2),
         "mgpuModuleLoadJIT");
  expect(!mgpuModuleLoad(const_cast<char *>(kAddOnePtx), 0), "mgpuModuleLoad");
  expect(!mgpuModuleGetFunction(nullptr, "add_one"), "mgpuModuleGetFunction");
  void *params[] = {nullptr};
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr, 1);
  expect(!mgpuMemAlloc(64, nullptr, false), "mgpuMemAlloc");
  mgpuMemcpy(&notABlock, &notABlock, 4, nullptr);
  mgpuMemset32(&notABlock, 0, 1, nullptr);
  mgpuMemset16(&notABlock, 0, 1, nullptr);
  mgpuStreamSynchronize(nullptr);
  void *event = mgpuEventCreate();
  mgpuEventRecord(event, nullptr);
  mgpuStreamWaitEvent(nullptr, event);
  mgpuEventSynchronize(event);
  mgpuEventDestroy(event);
  mgpuMemFree(nullptr, nullptr);
  mgpuModuleUnload(nullptr);
  mgpuStreamDestroy(nullptr);
  const char *first = lazyrt_take_cuda_error();
  expect(first && contains(first, "mgpuStreamCreate: ") &&
             contains(first, reason),
         "the first mgpu error is the one taken");
  expect(lazyrt_take_cuda_error() == nullptr, "taking clears the error");
  // Calls run again once the error is taken.
  expect(!mgpuMemAlloc(64, nullptr, false), "mgpuMemAlloc after the take");
  first = lazyrt_take_cuda_error();
  expect(first && contains(first, "mgpuMemAlloc: "),
         "an error after the take is recorded");
  mgpuSetDefaultDevice(1);
  expect(lazyrt_cuda_get_current_device() == 1, "mgpuSetDefaultDevice");
  mgpuSetDefaultDevice(0);

  // The GEMMs generated code calls record their failure the same way.
  float storage[4] = {};
  lazyrt_memref3d matrix = {storage, storage, 0, {1, 2, 2}, {4, 2, 1}};
  lazyrt_memref1d bias = {storage, storage, 0, {2}, {1}};
  _mlir_ciface_lazyrt_cuda_matmul_f32(&matrix, &matrix, &matrix,
                                      LAZYRT_GEMM_OVERWRITE);
  first = lazyrt_take_cuda_error();
  expect(first && contains(first, "lazyrt_cuda_matmul_f32: ") &&
             contains(first, reason),
         "lazyrt_cuda_matmul_f32");
  _mlir_ciface_lazyrt_cuda_matmul_bias_bf16(&matrix, &matrix, &bias, &matrix,
                                            0);
  first = lazyrt_take_cuda_error();
  expect(first && contains(first, "lazyrt_cuda_matmul_bias_bf16: ") &&
             contains(first, reason),
         "lazyrt_cuda_matmul_bias_bf16");
  expect(lazyrt_cuda_get_allow_tf32() == 0, "TF32 is off by default");
  lazyrt_cuda_set_allow_tf32(1);
  expect(lazyrt_cuda_get_allow_tf32() == 1, "TF32 can be allowed");
  lazyrt_cuda_set_allow_tf32(0);
  return failures;
}

TEST(CudaRuntimeNoDriverTest, MissingDriverIsExplained) {
  char why[512] = {};
  if (lazyrt_cuda_available(0, why, sizeof(why)))
    GTEST_SKIP() << "a CUDA device is available";
  if (!LAZYC_HAVE_CUDA_H) {
    EXPECT_TRUE(contains(why, "built without CUDA support")) << why;
    return;
  }
  if (std::getenv("LAZYC_CUDA_DRIVER"))
    GTEST_SKIP() << "LAZYC_CUDA_DRIVER names the driver: " << why;
  if (dlopen("libcuda.so.1", RTLD_LAZY))
    GTEST_SKIP() << "libcuda.so.1 is installed, but: " << why;
  EXPECT_EQ(std::string(why).rfind("libcuda.so.1 not found (no NVIDIA driver "
                                   "on this machine): ",
                                   0),
            0u)
      << why;
  // The sentence is cut to the buffer, and terminated.
  char shortWhy[13];
  std::memset(shortWhy, 'x', sizeof(shortWhy));
  EXPECT_EQ(lazyrt_cuda_available(0, shortWhy, sizeof(shortWhy)), 0);
  EXPECT_STREQ(shortWhy, "libcuda.so.1");
  EXPECT_EQ(lazyrt_cuda_available(0, nullptr, 0), 0);
}

TEST(CudaRuntimeNoDriverTest, DriverOverrideIsNamed) {
  if (!LAZYC_HAVE_CUDA_H)
    GTEST_SKIP() << "the runtime was built without cuda.h";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("LAZYC_CUDA_DRIVER", kMissingDriver, 1);
        char why[512] = {};
        int available = lazyrt_cuda_available(0, why, sizeof(why));
        std::fprintf(stderr, "%s\n", why);
        std::exit(available == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "the CUDA driver /nonexistent/libcuda.so.1 \\(named by "
      "LAZYC_CUDA_DRIVER\\) could not be loaded: ");
}

TEST(CudaRuntimeNoDriverTest, EveryEntryPointFailsCleanly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("LAZYC_CUDA_DRIVER", kMissingDriver, 1);
        std::exit(checkEveryEntryPointFails() == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "reason: ");
}

/// Tests that need a device: skipped, with the reason, without one.
class CudaRuntimeDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    char why[512] = {};
    if (!lazyrt_cuda_available(0, why, sizeof(why)))
      GTEST_SKIP() << "no CUDA driver: " << why;
    lazyrt_cuda_set_current_device(0);
    // Each test starts with no pending mgpu error.
    lazyrt_take_cuda_error();
  }

  /// The pending mgpu error, or "" when there is none.
  static std::string takeError() {
    const char *error = lazyrt_take_cuda_error();
    return error ? error : "";
  }
};

TEST_F(CudaRuntimeDeviceTest, QueriesTheDevice) {
  int32_t count = lazyrt_cuda_device_count();
  ASSERT_GE(count, 1) << lastError();
  char name[256] = {};
  ASSERT_EQ(lazyrt_cuda_device_name(0, name, sizeof(name)), 0) << lastError();
  EXPECT_STRNE(name, "");
  int32_t major = 0, minor = -1;
  ASSERT_EQ(lazyrt_cuda_compute_capability(0, &major, &minor), 0)
      << lastError();
  EXPECT_GE(major, 5);
  EXPECT_GE(minor, 0);
  int32_t version = 0;
  ASSERT_EQ(lazyrt_cuda_driver_version(&version), 0) << lastError();
  EXPECT_GE(version, 12000);
  std::printf("cuda:0 is %s, sm_%d%d, driver CUDA %d.%d, %d device(s)\n", name,
              major, minor, version / 1000, version % 1000 / 10, count);

  // One stream per device, which mgpuStreamCreate hands out.
  void *stream = lazyrt_cuda_stream(0);
  ASSERT_NE(stream, nullptr) << lastError();
  EXPECT_EQ(lazyrt_cuda_stream(0), stream);
  EXPECT_EQ(mgpuStreamCreate(), stream);
  mgpuStreamDestroy(stream);
  EXPECT_EQ(lazyrt_cuda_stream(0), stream);
  EXPECT_EQ(lazyrt_cuda_synchronize(0), 0) << lastError();

  char why[256] = {};
  EXPECT_EQ(lazyrt_cuda_available(count, why, sizeof(why)), 0);
  EXPECT_EQ(std::string(why), "no CUDA device " + std::to_string(count) +
                                  " (this machine has " +
                                  std::to_string(count) + ")");
  EXPECT_EQ(lazyrt_cuda_available(-1, nullptr, 0), 0);
  EXPECT_EQ(takeError(), "");
}

TEST_F(CudaRuntimeDeviceTest, CopiesRoundTrip) {
  std::vector<float> input(1000);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = 0.5f * static_cast<float>(i) - 7.0f;
  size_t bytes = input.size() * sizeof(float);
  void *first = lazyrt_cuda_alloc(0, bytes);
  void *second = lazyrt_cuda_alloc(0, bytes);
  ASSERT_NE(first, nullptr) << lastError();
  ASSERT_NE(second, nullptr) << lastError();
  ASSERT_EQ(lazyrt_cuda_copy_to_device(0, first, input.data(), bytes), 0)
      << lastError();
  ASSERT_EQ(lazyrt_cuda_copy_on_device(0, second, first, bytes), 0)
      << lastError();
  std::vector<float> output(input.size(), 0.0f);
  ASSERT_EQ(lazyrt_cuda_copy_to_host(0, output.data(), second, bytes), 0)
      << lastError();
  EXPECT_EQ(output, input);
  EXPECT_EQ(lazyrt_cuda_free(0, first), 0);
  EXPECT_EQ(lazyrt_cuda_free(0, second), 0);

  // Page-locked host memory works the same.
  auto *pinned = static_cast<float *>(lazyrt_cuda_host_alloc(bytes));
  ASSERT_NE(pinned, nullptr) << lastError();
  std::memcpy(pinned, input.data(), bytes);
  void *block = lazyrt_cuda_alloc(0, bytes);
  ASSERT_NE(block, nullptr) << lastError();
  ASSERT_EQ(lazyrt_cuda_copy_to_device(0, block, pinned, bytes), 0)
      << lastError();
  std::memset(pinned, 0, bytes);
  ASSERT_EQ(lazyrt_cuda_copy_to_host(0, pinned, block, bytes), 0)
      << lastError();
  EXPECT_EQ(std::memcmp(pinned, input.data(), bytes), 0);
  EXPECT_EQ(lazyrt_cuda_free(0, block), 0);
  EXPECT_EQ(lazyrt_cuda_host_free(pinned), 0) << lastError();
}

TEST_F(CudaRuntimeDeviceTest, AllocatorReusesFreedBlocks) {
  ASSERT_EQ(lazyrt_cuda_empty_cache(0), 0) << lastError();
  lazyrt_allocator_stats before = lazyrt_cuda_get_allocator_stats(0);
  EXPECT_EQ(before.bytes_cached, 0u);

  // 1000 bytes: the 1024-byte class (512-byte granules).
  void *block = lazyrt_cuda_alloc(0, 1000);
  ASSERT_NE(block, nullptr) << lastError();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % 512, 0u);
  lazyrt_allocator_stats during = lazyrt_cuda_get_allocator_stats(0);
  EXPECT_EQ(during.allocations, before.allocations + 1);
  EXPECT_EQ(during.reuses, before.reuses);
  EXPECT_EQ(during.bytes_in_use, before.bytes_in_use + 1024);
  EXPECT_GE(during.peak_bytes_in_use, during.bytes_in_use);

  ASSERT_EQ(lazyrt_cuda_free(0, block), 0) << lastError();
  lazyrt_allocator_stats freed = lazyrt_cuda_get_allocator_stats(0);
  EXPECT_EQ(freed.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(freed.bytes_cached, 1024u);
  EXPECT_EQ(freed.peak_bytes_in_use, during.peak_bytes_in_use);

  // A request of the same class gets the cached block back.
  void *again = lazyrt_cuda_alloc(0, 900);
  EXPECT_EQ(again, block);
  lazyrt_allocator_stats reused = lazyrt_cuda_get_allocator_stats(0);
  EXPECT_EQ(reused.reuses, before.reuses + 1);
  EXPECT_EQ(reused.bytes_cached, 0u);

  // Zero bytes is a valid block of its own.
  void *empty = lazyrt_cuda_alloc(0, 0);
  ASSERT_NE(empty, nullptr) << lastError();
  EXPECT_NE(empty, again);

  EXPECT_EQ(lazyrt_cuda_free(0, again), 0);
  EXPECT_EQ(lazyrt_cuda_free(0, empty), 0);
  EXPECT_EQ(lazyrt_cuda_free(0, empty), -1);
  EXPECT_TRUE(contains(lastError(), "is not a block of cuda:0 in use"))
      << lastError();
  lazyrt_cuda_reset_peak_bytes_in_use(0);
  EXPECT_EQ(lazyrt_cuda_get_allocator_stats(0).peak_bytes_in_use,
            before.bytes_in_use);
  EXPECT_GT(lazyrt_cuda_get_allocator_stats(0).bytes_cached, 0u);
  ASSERT_EQ(lazyrt_cuda_empty_cache(0), 0) << lastError();
  EXPECT_EQ(lazyrt_cuda_get_allocator_stats(0).bytes_cached, 0u);

  // The DeviceAllocator interface is the same allocator.
  lazyc::DeviceAllocator &allocator = lazyc::cudaAllocator(0);
  void *viaInterface = allocator.allocate(4096);
  ASSERT_NE(viaInterface, nullptr) << lastError();
  EXPECT_EQ(lazyrt_cuda_get_allocator_stats(0).bytes_in_use,
            before.bytes_in_use + 4096);
  allocator.deallocate(viaInterface);
  EXPECT_EQ(lazyrt_cuda_get_allocator_stats(0).bytes_in_use,
            before.bytes_in_use);
}

TEST_F(CudaRuntimeDeviceTest, OutOfMemoryIsReportedAndRecovers) {
  // A cached block, which the failing request releases before giving up.
  void *cached = lazyrt_cuda_alloc(0, 1 << 20);
  ASSERT_NE(cached, nullptr) << lastError();
  ASSERT_EQ(lazyrt_cuda_free(0, cached), 0);
  ASSERT_GT(lazyrt_cuda_get_allocator_stats(0).bytes_cached, 0u);

  size_t pebibyte = size_t(1) << 50;
  EXPECT_EQ(lazyrt_cuda_alloc(0, pebibyte), nullptr);
  std::string error = lastError();
  EXPECT_TRUE(contains(error, "lazyrt_cuda_alloc: out of memory on cuda:0 "
                              "allocating 1125899906842624 bytes: "))
      << error;
  EXPECT_TRUE(contains(error, " bytes free of ")) << error;
  EXPECT_EQ(lazyrt_cuda_get_allocator_stats(0).bytes_cached, 0u);

  void *block = lazyrt_cuda_alloc(0, 1 << 20);
  ASSERT_NE(block, nullptr) << lastError();
  EXPECT_EQ(lazyrt_cuda_free(0, block), 0);

  // Generated code sees the same failure through lazyrt_take_cuda_error.
  EXPECT_EQ(mgpuMemAlloc(pebibyte, nullptr, false), nullptr);
  EXPECT_TRUE(contains(takeError(), "mgpuMemAlloc: out of memory on cuda:0"));
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, /*host_shared=*/true), nullptr);
  EXPECT_TRUE(contains(takeError(), "host-shared memory"));
}

TEST_F(CudaRuntimeDeviceTest, LaunchesPtxThroughMgpu) {
  void *module = mgpuModuleLoadJIT(const_cast<char *>(kAddOnePtx), 2);
  ASSERT_NE(module, nullptr) << takeError();
  void *function = mgpuModuleGetFunction(module, "add_one");
  ASSERT_NE(function, nullptr) << takeError();

  uint32_t count = 3000;
  size_t bytes = count * sizeof(float);
  std::vector<float> values(count);
  for (uint32_t i = 0; i < count; ++i)
    values[i] = static_cast<float>(i);
  void *stream = mgpuStreamCreate();
  void *data = mgpuMemAlloc(bytes, stream, false);
  ASSERT_NE(data, nullptr) << takeError();
  void *params[] = {&data, &count};
  intptr_t blocks = (count + 255) / 256;

  // Upload, add one, download: queued in order on the one stream.
  mgpuMemcpy(data, values.data(), bytes, stream);
  mgpuLaunchKernel(function, blocks, 1, 1, 256, 1, 1, 0, stream, params,
                   nullptr, 2);
  std::vector<float> result(count, -1.0f);
  mgpuMemcpy(result.data(), data, bytes, stream);
  mgpuStreamSynchronize(stream);
  ASSERT_EQ(takeError(), "");
  for (uint32_t i = 0; i < count; ++i)
    ASSERT_EQ(result[i], static_cast<float>(i) + 1.0f) << "at " << i;

  // Fill with 1.0f (0x3f800000), add one through the null stream (the
  // current device's), order through an event.
  mgpuMemset32(data, 0x3f800000u, count, nullptr);
  void *event = mgpuEventCreate();
  ASSERT_NE(event, nullptr) << takeError();
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(stream, event);
  mgpuLaunchKernel(function, blocks, 1, 1, 256, 1, 1, 0, nullptr, params,
                   nullptr, 2);
  mgpuEventRecord(event, nullptr);
  mgpuEventSynchronize(event);
  mgpuEventDestroy(event);
  ASSERT_EQ(lazyrt_cuda_copy_to_host(0, result.data(), data, bytes), 0)
      << lastError();
  for (uint32_t i = 0; i < count; ++i)
    ASSERT_EQ(result[i], 2.0f) << "at " << i;

  // 16-bit fills: 0x3c00 is 1.0 in half precision.
  mgpuMemset16(data, 0x3c00, 2 * count, stream);
  std::vector<uint16_t> halves(2 * count, 0);
  mgpuMemcpy(halves.data(), data, bytes, stream);
  mgpuStreamSynchronize(stream);
  EXPECT_EQ(halves, std::vector<uint16_t>(2 * count, 0x3c00));

  mgpuMemFree(data, stream);
  mgpuModuleUnload(module);
  EXPECT_EQ(takeError(), "");
}

TEST_F(CudaRuntimeDeviceTest, BadPtxReportsTheJitLog) {
  std::string ptx = badPtx();
  EXPECT_EQ(mgpuModuleLoadJIT(ptx.data(), 2), nullptr);
  // Later calls do nothing until the error is taken: no second error, no
  // launch of a null kernel.
  void *function = mgpuModuleGetFunction(nullptr, "add_one");
  EXPECT_EQ(function, nullptr);
  void *params[] = {nullptr};
  mgpuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr, 1);
  std::string error = takeError();
  EXPECT_TRUE(contains(error, "mgpuModuleLoadJIT: cuda:0: cuModuleLoadDataEx "
                              "failed: CUDA_ERROR_INVALID_PTX"))
      << error;
  EXPECT_TRUE(contains(error, "the PTX JIT says: ")) << error;
  EXPECT_TRUE(contains(error, "undefined_register")) << error;
  EXPECT_EQ(takeError(), "");

  // A launch that cannot be made names its shape; a foreign stream is
  // refused.
  mgpuLaunchKernel(nullptr, 0, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr, 1);
  EXPECT_TRUE(contains(takeError(), "grid 0x1x1, block 1x1x1"));
  int notAStream = 0;
  mgpuStreamSynchronize(&notAStream);
  EXPECT_TRUE(contains(takeError(), "is not a lazyc device's stream"));
}

} // namespace

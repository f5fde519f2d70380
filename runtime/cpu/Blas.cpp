//===- Blas.cpp - GEMM through OpenBLAS -----------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the GEMM entry points generated code calls for
// linalg.matmul on f32 and f64, and on bf16 or f16 operands accumulated in
// f32 (bf16 with AVX512-BF16's dot products where they are faster,
// BFloat16Gemm.cpp; otherwise widened to f32 first: Debian's OpenBLAS has no
// bf16 GEMM). OpenBLAS runs
// single-threaded here: the generated code has already split the product over
// OpenMP threads, and two thread pools fighting over the cores is what made
// libtorch 2-5x slower on small machines.
//
// OpenBLAS is loaded at the first product, not linked: its kernels are
// chosen when it loads, and Debian 12's OpenBLAS (0.3.21) takes a Sapphire
// Rapids Xeon in a VM for a Prescott (SSE3): a GPT-2-small training step
// spent 83% of its time in that kernel. Unless the user set
// OPENBLAS_CORETYPE, lazyc names the kernels its CPU can run (SkylakeX with
// AVX-512, Haswell with AVX2 and FMA) while it loads OpenBLAS. A process
// that loaded OpenBLAS before (linking it) keeps the kernels it chose.
//
//===----------------------------------------------------------------------===//

#include "Gemm.h"

#include "lazyc/Runtime/NarrowFloats.h"
#include "lazyc/Runtime/Runtime.h"

#include <cblas.h>
#include <cpuid.h>
#include <dlfcn.h>
#include <immintrin.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>

namespace {

/// The OpenBLAS functions lazyc calls, or null where it could not be loaded.
struct OpenBlas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  char *(*kernels)() = nullptr;
};

/// The OpenBLAS kernel set for this CPU, or null to leave the choice to
/// OpenBLAS's own detection.
const char *kernelsForThisCpu() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return "Haswell";
  return nullptr;
}

const OpenBlas &openBlas() {
  static const OpenBlas blas = [] {
    OpenBlas loaded;
    const char *kernels =
        std::getenv("OPENBLAS_CORETYPE") ? nullptr : kernelsForThisCpu();
    // Read by OpenBLAS's initializer, which dlopen runs; not left behind
    // for the program's child processes. (Once per process, at the first
    // product: before it, generated code has called no BLAS.)
    if (kernels)
      setenv("OPENBLAS_CORETYPE", kernels, /*overwrite=*/0);
    void *library = dlopen(LAZYC_OPENBLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (kernels)
      unsetenv("OPENBLAS_CORETYPE");
    if (!library) {
      std::fprintf(stderr,
                   "lazyc: cannot load OpenBLAS (%s): matrix products run "
                   "as plain loops\n",
                   dlerror());
      return loaded;
    }
    loaded.sgemm =
        reinterpret_cast<decltype(&cblas_sgemm)>(dlsym(library, "cblas_sgemm"));
    loaded.dgemm =
        reinterpret_cast<decltype(&cblas_dgemm)>(dlsym(library, "cblas_dgemm"));
    loaded.kernels =
        reinterpret_cast<char *(*)()>(dlsym(library, "openblas_get_corename"));
    if (auto setThreads = reinterpret_cast<void (*)(int)>(
            dlsym(library, "openblas_set_num_threads")))
      setThreads(1);
    return loaded;
  }();
  return blas;
}

/// Products of up to this many rows (a thread's chunk) run smallGemm when
/// B is not transposed: from 256 rows on, OpenBLAS's packed kernels are as
/// fast (measured on a Sapphire Rapids Xeon, f32, single-threaded).
constexpr int64_t kSmallGemmRows = 256;

/// C += A * B, with a plain loop for layouts BLAS cannot take (non-unit
/// inner strides, overlapping rows such as broadcasts).
template <typename T, typename Memref, typename Gemm>
void matmul(Memref *a, Memref *b, Memref *c, int32_t flags, Gemm gemm) {
  bool transposeA = flags & LAZYRT_GEMM_TRANSPOSE_A;
  bool transposeB = flags & LAZYRT_GEMM_TRANSPOSE_B;
  bool overwrite = flags & LAZYRT_GEMM_OVERWRITE;
  int64_t m = c->sizes[0], n = c->sizes[1];
  int64_t k = transposeA ? a->sizes[0] : a->sizes[1];
  T *pa = a->aligned + a->offset, *pb = b->aligned + b->offset,
    *pc = c->aligned + c->offset;
  if (m == 0 || n == 0)
    return;
  // BLAS needs unit inner strides and leading dimensions of at least the
  // row length (a single row may have any row stride: it is never used).
  auto blasCompatible = [](int64_t rows, int64_t columns,
                           const int64_t *strides) {
    return strides[1] == 1 && (rows == 1 || strides[0] >= columns);
  };
  // Sizes as stored.
  int64_t aRows = transposeA ? k : m, aColumns = transposeA ? m : k;
  int64_t bRows = transposeB ? n : k, bColumns = transposeB ? k : n;
  // Few rows: B read in place (SmallGemm.cpp), any layout of A.
  if constexpr (std::is_same_v<T, float>) {
    if (m <= kSmallGemmRows && !transposeB && b->strides[1] == 1 &&
        blasCompatible(m, n, c->strides) && lazyrt::smallGemmAvailable()) {
      int64_t aRowStride = transposeA ? a->strides[1] : a->strides[0];
      int64_t aColumnStride = transposeA ? a->strides[0] : a->strides[1];
      lazyrt::smallGemm(m, n, k, pa, aRowStride, aColumnStride, pb,
                        b->strides[0], pc, c->strides[0], !overwrite);
      return;
    }
  }
  if (gemm && k > 0 && blasCompatible(aRows, aColumns, a->strides) &&
      blasCompatible(bRows, bColumns, b->strides) &&
      blasCompatible(m, n, c->strides)) {
    auto leading = [](int64_t stride, int64_t columns) {
      return stride < columns ? columns : stride;
    };
    gemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans,
         transposeB ? CblasTrans : CblasNoTrans, m, n, k, T(1), pa,
         leading(a->strides[0], aColumns), pb, leading(b->strides[0], bColumns),
         overwrite ? T(0) : T(1), pc, leading(c->strides[0], n));
    return;
  }
  if (overwrite)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        pc[i * c->strides[0] + j * c->strides[1]] = T(0);
  auto elementA = [&](int64_t i, int64_t p) {
    return transposeA ? pa[p * a->strides[0] + i * a->strides[1]]
                      : pa[i * a->strides[0] + p * a->strides[1]];
  };
  auto elementB = [&](int64_t p, int64_t j) {
    return transposeB ? pb[j * b->strides[0] + p * b->strides[1]]
                      : pb[p * b->strides[0] + j * b->strides[1]];
  };
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        pc[i * c->strides[0] + j * c->strides[1]] +=
            elementA(i, p) * elementB(p, j);
}

/// lazyrt::gemm: OpenBLAS's `gemm`, or plain loops without it.
template <typename T, typename Gemm>
void rowMajorGemm(Gemm gemm, bool transposeA, bool transposeB, int64_t m,
                  int64_t n, int64_t k, T alpha, const T *a, int64_t lda,
                  const T *b, int64_t ldb, T beta, T *c, int64_t ldc) {
  if (m == 0 || n == 0)
    return;
  // (An empty product is beta * C, left to the loops: BLAS rejects the
  // leading dimension 0 a k = 0 operand may come with.)
  if (gemm && k > 0) {
    gemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans,
         transposeB ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b, ldb,
         beta, c, ldc);
    return;
  }
  for (int64_t i = 0; i < m; ++i) {
    T *row = c + i * ldc;
    for (int64_t j = 0; j < n; ++j)
      row[j] = beta == T(0) ? T(0) : beta * row[j];
    for (int64_t p = 0; p < k; ++p) {
      T factor = alpha * (transposeA ? a[p * lda + i] : a[i * lda + p]);
      for (int64_t j = 0; j < n; ++j)
        row[j] += factor * (transposeB ? b[j * ldb + p] : b[p * ldb + j]);
    }
  }
}

/// The value of bf16 or f16 `bits` (exact).
float narrowBitsToFloat(uint16_t bits, bool isBFloat16) {
  return isBFloat16 ? lazyc::bfloat16BitsToFloat(bits)
                    : lazyc::float16BitsToFloat(bits);
}

/// Widens `count` f16 values with F16C, 8 at a time.
__attribute__((target("avx,f16c"))) void
widenFloat16WithF16c(const uint16_t *from, float *to, int64_t count) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8)
    _mm256_storeu_ps(to + i, _mm256_cvtph_ps(_mm_loadu_si128(
                                 reinterpret_cast<const __m128i *>(from + i))));
  for (; i < count; ++i)
    to[i] = lazyc::float16BitsToFloat(from[i]);
}

/// `count` bf16 (or f16) values as f32 (exact).
void widen(const uint16_t *from, float *to, int64_t count, bool isBFloat16) {
  if (isBFloat16) {
    // A shift: vectorized by the compiler.
    for (int64_t i = 0; i < count; ++i)
      to[i] = lazyc::bfloat16BitsToFloat(from[i]);
    return;
  }
  static const bool hasF16c = [] {
    // (clang 14's __builtin_cpu_supports does not know "f16c".)
    unsigned eax, ebx, ecx, edx;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") &&
           __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C);
  }();
  if (hasF16c) {
    widenFloat16WithF16c(from, to, count);
    return;
  }
  for (int64_t i = 0; i < count; ++i)
    to[i] = narrowBitsToFloat(from[i], /*isBFloat16=*/false);
}

/// A growing scratch buffer whose elements are not initialized (a vector's
/// resize would fill every new element first: a memset per product).
struct Scratch {
  std::unique_ptr<float[]> data;
  int64_t capacity = 0;
  float *reserve(int64_t count) {
    if (count > capacity) {
      data.reset(new float[static_cast<size_t>(count)]);
      capacity = count;
    }
    return data.get();
  }
};

/// `matrix` (as stored, any strides) widened into `buffer` as a row-major
/// f32 matrix of the same sizes.
lazyrt_memref2d_f32 widenMatrix(const lazyrt_memref2d_u16 &matrix,
                                Scratch &buffer, bool isBFloat16) {
  int64_t rows = matrix.sizes[0], columns = matrix.sizes[1];
  float *wide = buffer.reserve(rows * columns);
  const uint16_t *base = matrix.aligned + matrix.offset;
  for (int64_t i = 0; i < rows; ++i) {
    const uint16_t *row = base + i * matrix.strides[0];
    float *out = wide + i * columns;
    if (matrix.strides[1] == 1) {
      widen(row, out, columns, isBFloat16);
      continue;
    }
    for (int64_t j = 0; j < columns; ++j)
      out[j] = narrowBitsToFloat(row[j * matrix.strides[1]], isBFloat16);
  }
  return {wide, wide, 0, {rows, columns}, {columns, 1}};
}

/// The kernel bf16 products run.
enum class BFloat16Kernel { DotProducts, Widened };

const char *kernelName(BFloat16Kernel kernel) {
  return kernel == BFloat16Kernel::DotProducts ? "avx512-bf16" : "widened";
}

std::optional<BFloat16Kernel> kernelNamed(std::string_view name) {
  for (BFloat16Kernel kernel :
       {BFloat16Kernel::DotProducts, BFloat16Kernel::Widened})
    if (name == kernelName(kernel))
      return kernel;
  return std::nullopt;
}

/// The bf16 kernel: LAZYC_BF16_GEMM's if it names one this CPU runs, else
/// the dot products where they measured faster than the f32 FMA.
std::atomic<BFloat16Kernel> &bfloat16Kernel() {
  static std::atomic<BFloat16Kernel> kernel = [] {
    if (const char *name = std::getenv("LAZYC_BF16_GEMM")) {
      std::optional<BFloat16Kernel> chosen = kernelNamed(name);
      if (chosen && (*chosen == BFloat16Kernel::Widened ||
                     lazyrt::bfloat16DotProductsAvailable()))
        return *chosen;
      std::fprintf(stderr,
                   "lazyc: LAZYC_BF16_GEMM=%s: %s; bf16 products choose "
                   "their kernel as without it\n",
                   name,
                   chosen ? "this CPU has no AVX512-BF16"
                          : "not a kernel (avx512-bf16 or widened)");
    }
    return lazyrt::bfloat16DotProductsFaster() ? BFloat16Kernel::DotProducts
                                               : BFloat16Kernel::Widened;
  }();
  return kernel;
}

/// C += A * B for narrow A and B and an f32 C: with AVX512-BF16's dot
/// products (bf16, where chosen), or both widened, then the f32 GEMM. The
/// buffers are per thread (generated code calls this on every thread of a
/// split product) and kept for the thread's next product.
void narrowMatmul(lazyrt_memref2d_u16 *a, lazyrt_memref2d_u16 *b,
                  lazyrt_memref2d_f32 *c, int32_t flags, bool isBFloat16) {
  if (c->sizes[0] == 0 || c->sizes[1] == 0)
    return;
  if (isBFloat16 && (c->strides[1] == 1 || c->sizes[1] == 1) &&
      lazyrt::bfloat16DotProductsChosen()) {
    bool transposeA = flags & LAZYRT_GEMM_TRANSPOSE_A;
    bool transposeB = flags & LAZYRT_GEMM_TRANSPOSE_B;
    int64_t k = transposeA ? a->sizes[0] : a->sizes[1];
    lazyrt::bfloat16Gemm(c->sizes[0], c->sizes[1], k, a->aligned + a->offset,
                         a->strides[transposeA ? 1 : 0],
                         a->strides[transposeA ? 0 : 1], b->aligned + b->offset,
                         b->strides[transposeB ? 1 : 0],
                         b->strides[transposeB ? 0 : 1], c->aligned + c->offset,
                         c->strides[0], !(flags & LAZYRT_GEMM_OVERWRITE));
    return;
  }
  thread_local Scratch wideA, wideB;
  lazyrt_memref2d_f32 widenedA = widenMatrix(*a, wideA, isBFloat16);
  lazyrt_memref2d_f32 widenedB = widenMatrix(*b, wideB, isBFloat16);
  matmul<float>(&widenedA, &widenedB, c, flags, openBlas().sgemm);
}

} // namespace

void lazyrt::gemm(bool transposeA, bool transposeB, int64_t m, int64_t n,
                  int64_t k, float alpha, const float *a, int64_t lda,
                  const float *b, int64_t ldb, float beta, float *c,
                  int64_t ldc) {
  rowMajorGemm(openBlas().sgemm, transposeA, transposeB, m, n, k, alpha, a, lda,
               b, ldb, beta, c, ldc);
}

void lazyrt::gemm(bool transposeA, bool transposeB, int64_t m, int64_t n,
                  int64_t k, double alpha, const double *a, int64_t lda,
                  const double *b, int64_t ldb, double beta, double *c,
                  int64_t ldc) {
  rowMajorGemm(openBlas().dgemm, transposeA, transposeB, m, n, k, alpha, a, lda,
               b, ldb, beta, c, ldc);
}

extern "C" void _mlir_ciface_lazyrt_matmul_bf16_f32(lazyrt_memref2d_u16 *a,
                                                    lazyrt_memref2d_u16 *b,
                                                    lazyrt_memref2d_f32 *c,
                                                    int32_t flags) {
  narrowMatmul(a, b, c, flags, /*isBFloat16=*/true);
}

extern "C" void _mlir_ciface_lazyrt_matmul_f16_f32(lazyrt_memref2d_u16 *a,
                                                   lazyrt_memref2d_u16 *b,
                                                   lazyrt_memref2d_f32 *c,
                                                   int32_t flags) {
  narrowMatmul(a, b, c, flags, /*isBFloat16=*/false);
}

extern "C" void _mlir_ciface_lazyrt_matmul_f32(lazyrt_memref2d_f32 *a,
                                               lazyrt_memref2d_f32 *b,
                                               lazyrt_memref2d_f32 *c,
                                               int32_t flags) {
  matmul<float>(a, b, c, flags, openBlas().sgemm);
}

extern "C" void _mlir_ciface_lazyrt_matmul_f64(lazyrt_memref2d_f64 *a,
                                               lazyrt_memref2d_f64 *b,
                                               lazyrt_memref2d_f64 *c,
                                               int32_t flags) {
  matmul<double>(a, b, c, flags, openBlas().dgemm);
}

bool lazyrt::bfloat16DotProductsChosen() {
  return bfloat16Kernel().load(std::memory_order_relaxed) ==
         BFloat16Kernel::DotProducts;
}

extern "C" const char *lazyrt_bf16_gemm_kernel(void) {
  return kernelName(bfloat16Kernel().load());
}

extern "C" int lazyrt_set_bf16_gemm_kernel(const char *name) {
  std::optional<BFloat16Kernel> kernel =
      name ? kernelNamed(name) : std::nullopt;
  if (!kernel || (*kernel == BFloat16Kernel::DotProducts &&
                  !lazyrt::bfloat16DotProductsAvailable()))
    return 0;
  bfloat16Kernel().store(*kernel);
  return 1;
}

extern "C" const char *lazyrt_blas_kernels(void) {
  const OpenBlas &blas = openBlas();
  if (!blas.sgemm)
    return "none";
  return blas.kernels ? blas.kernels() : "unknown";
}

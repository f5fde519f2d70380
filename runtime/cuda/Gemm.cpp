//===- Gemm.cpp - GEMM through cuBLASLt -----------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the GEMM entry points generated code calls for
// linalg.matmul and linalg.batch_matmul on a GPU: one cuBLASLt matmul per
// call, queued on the device's stream, with a bias epilogue when the
// compiler found one.
//
// cuBLASLt is column-major and lazyc's matrices are row-major (or any
// layout with one unit stride). A matrix stored with unit column stride is,
// read column-major, its own transpose; so each operand becomes a stored
// column-major matrix plus "transposed or not", and when D's rows are the
// unit-stride dimension the product is computed transposed, D^T = B^T A^T,
// which swaps the operands. A bias added to each row of D is then
// cuBLASLt's bias over the rows of D^T.
//
// cuBLASLt is loaded with dlopen on first use, like the driver. Each device
// keeps a handle, a workspace from its caching allocator, and the plans
// (descriptors and the heuristic's algorithm) of the shapes it has run.
//
//===----------------------------------------------------------------------===//

#include "Allocator.h"
#include "Driver.h"

#include "lazyc/Runtime/Cuda.h"

#include <cublasLt.h>
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace lazyc::runtime;
using namespace lazyc::runtime::cuda;

namespace {

#define LAZYC_CUBLASLT_ENTRY_POINTS(X)                                         \
  X(cublasLtCreate)                                                            \
  X(cublasLtGetStatusName)                                                     \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutSetAttribute)                                          \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)

struct CublasLt {
#define LAZYC_CUBLASLT_DECLARE(name) decltype(&::name) name = nullptr;
  LAZYC_CUBLASLT_ENTRY_POINTS(LAZYC_CUBLASLT_DECLARE)
#undef LAZYC_CUBLASLT_DECLARE

  /// "cublasLtMatmul failed: CUBLAS_STATUS_NOT_SUPPORTED".
  std::string failure(const char *call, cublasStatus_t status) const {
    return std::string(call) + " failed: " + cublasLtGetStatusName(status);
  }
};

/// Loads cuBLASLt once; `error` says why it could not be.
struct LoadedCublasLt {
  LoadedCublasLt() {
    void *library = openToolkitLibrary(
        "cuBLASLt", "LAZYC_CUBLASLT",
        {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"}, {"lib64"},
        error);
    if (!library)
      return;
#define LAZYC_CUBLASLT_RESOLVE(name)                                           \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name));      \
  if (!api.name) {                                                             \
    error = "the cuBLASLt library lacks " #name;                               \
    return;                                                                    \
  }
    LAZYC_CUBLASLT_ENTRY_POINTS(LAZYC_CUBLASLT_RESOLVE)
#undef LAZYC_CUBLASLT_RESOLVE
  }

  CublasLt api;
  std::string error;
};

const CublasLt *loadCublasLt(std::string &whyNot) {
  static LoadedCublasLt *loaded = new LoadedCublasLt();
  if (!loaded->error.empty()) {
    whyNot = loaded->error;
    return nullptr;
  }
  return &loaded->api;
}

std::atomic<bool> allowTf32{false};

/// Element types of the entry points.
enum class Element { F32, F64, F16, BF16 };

size_t elementBytes(Element element) {
  switch (element) {
  case Element::F32:
    return 4;
  case Element::F64:
    return 8;
  case Element::F16:
  case Element::BF16:
    return 2;
  }
  return 0;
}

cudaDataType_t dataType(Element element) {
  switch (element) {
  case Element::F32:
    return CUDA_R_32F;
  case Element::F64:
    return CUDA_R_64F;
  case Element::F16:
    return CUDA_R_16F;
  case Element::BF16:
    return CUDA_R_16BF;
  }
  return CUDA_R_32F;
}

/// A matrix as cuBLASLt reads it: `rows` x `columns` stored column-major
/// with leading dimension `ld`, used transposed or not.
struct Stored {
  int64_t rows = 0, columns = 0, ld = 0;
  bool transposed = false;
  int64_t batchStride = 0;
  char *data = nullptr;

  Stored flipped() const {
    Stored copy = *this;
    copy.transposed = !copy.transposed;
    return copy;
  }
};

/// `matrix` (its last two dimensions; read transposed when `transpose`) as
/// cuBLASLt stores it, or false when neither dimension has a unit stride.
bool storedAs(const lazyrt_memref3d &matrix, Element element, bool transpose,
              Stored &stored) {
  int64_t rows = matrix.sizes[1], columns = matrix.sizes[2];
  int64_t rowStride = matrix.strides[1], columnStride = matrix.strides[2];
  stored.batchStride = matrix.strides[0];
  stored.data = static_cast<char *>(matrix.aligned) +
                matrix.offset * static_cast<int64_t>(elementBytes(element));
  // Unit column stride (row-major): read column-major, the transpose.
  if (columnStride == 1 && (rows == 1 || rowStride >= columns)) {
    stored.rows = columns;
    stored.columns = rows;
    stored.ld = std::max<int64_t>({rowStride, columns, 1});
    stored.transposed = !transpose;
    return true;
  }
  if (rowStride == 1 && (columns == 1 || columnStride >= rows)) {
    stored.rows = rows;
    stored.columns = columns;
    stored.ld = std::max<int64_t>({columnStride, rows, 1});
    stored.transposed = transpose;
    return true;
  }
  return false;
}

/// The largest power of two (up to 256) that divides `pointer`'s address.
uint32_t alignmentOf(const void *pointer) {
  uintptr_t address = reinterpret_cast<uintptr_t>(pointer);
  uint32_t alignment = 1;
  while (alignment < 256 && address % (alignment * 2) == 0)
    alignment *= 2;
  return alignment;
}

/// What decides a plan: shapes, layouts, types, epilogue, alignments.
using PlanKey = std::array<int64_t, 24>;

/// The descriptors of one product and the algorithm the heuristic chose.
struct Plan {
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algorithm = {};
};

constexpr size_t kWorkspaceBytes = 32u << 20;

/// A device's cuBLASLt state.
struct DeviceGemm {
  std::mutex mutex;
  cublasLtHandle_t handle = nullptr;
  void *workspace = nullptr;
  std::map<PlanKey, Plan> plans;
};

DeviceGemm &gemmStateOf(int device) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<DeviceGemm>> *states =
      new std::map<int, std::unique_ptr<DeviceGemm>>();
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<DeviceGemm> &state = (*states)[device];
  if (!state)
    state = std::make_unique<DeviceGemm>();
  return *state;
}

/// A product to run: D = epilogue(op(A) op(B) + beta C), column-major.
struct Product {
  Element element;
  Stored a, b, c, d;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bool overwrite = false;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void *bias = nullptr;
};

/// Sets `message` and returns false on a failed cuBLASLt call.
#define LAZYC_CUBLASLT_CHECK(call, ...)                                        \
  if (cublasStatus_t status = api.call(__VA_ARGS__);                           \
      status != CUBLAS_STATUS_SUCCESS) {                                       \
    message = api.failure(#call, status);                                      \
    return false;                                                              \
  }

bool makeLayout(const CublasLt &api, cublasLtMatrixLayout_t &layout,
                Element element, const Stored &stored, int64_t batch,
                std::string &message) {
  LAZYC_CUBLASLT_CHECK(cublasLtMatrixLayoutCreate, &layout, dataType(element),
                       stored.rows, stored.columns, stored.ld);
  if (batch > 1) {
    int32_t count = static_cast<int32_t>(batch);
    LAZYC_CUBLASLT_CHECK(cublasLtMatrixLayoutSetAttribute, layout,
                         CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                         sizeof(count));
    int64_t offset = stored.batchStride;
    LAZYC_CUBLASLT_CHECK(cublasLtMatrixLayoutSetAttribute, layout,
                         CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset,
                         sizeof(offset));
  }
  return true;
}

/// Builds the plan of `product` (descriptors and algorithm).
bool makePlan(const CublasLt &api, DeviceGemm &gemm, const Product &product,
              bool tf32, Plan &plan, std::string &message) {
  cublasComputeType_t compute =
      product.element == Element::F64           ? CUBLAS_COMPUTE_64F
      : product.element == Element::F32 && tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                : CUBLAS_COMPUTE_32F;
  cudaDataType_t scale =
      product.element == Element::F64 ? CUDA_R_64F : CUDA_R_32F;
  LAZYC_CUBLASLT_CHECK(cublasLtMatmulDescCreate, &plan.operation, compute,
                       scale);
  cublasOperation_t transposeA =
      product.a.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t transposeB =
      product.b.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  LAZYC_CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute, plan.operation,
                       CUBLASLT_MATMUL_DESC_TRANSA, &transposeA,
                       sizeof(transposeA));
  LAZYC_CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute, plan.operation,
                       CUBLASLT_MATMUL_DESC_TRANSB, &transposeB,
                       sizeof(transposeB));
  if (product.epilogue != CUBLASLT_EPILOGUE_DEFAULT) {
    cublasLtEpilogue_t epilogue = product.epilogue;
    LAZYC_CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute, plan.operation,
                         CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                         sizeof(epilogue));
  }
  if (!makeLayout(api, plan.a, product.element, product.a, product.batch,
                  message) ||
      !makeLayout(api, plan.b, product.element, product.b, product.batch,
                  message) ||
      !makeLayout(api, plan.c, product.element, product.d, product.batch,
                  message))
    return false;

  cublasLtMatmulPreference_t preference = nullptr;
  LAZYC_CUBLASLT_CHECK(cublasLtMatmulPreferenceCreate, &preference);
  struct Destroy {
    const CublasLt &api;
    cublasLtMatmulPreference_t preference;
    ~Destroy() { api.cublasLtMatmulPreferenceDestroy(preference); }
  } destroy{api, preference};
  uint64_t workspace = kWorkspaceBytes;
  LAZYC_CUBLASLT_CHECK(cublasLtMatmulPreferenceSetAttribute, preference,
                       CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                       sizeof(workspace));
  std::pair<cublasLtMatmulPreferenceAttributes_t, const void *> alignments[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, product.a.data},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, product.b.data},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, product.c.data},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, product.d.data}};
  for (auto [attribute, pointer] : alignments) {
    uint32_t alignment = alignmentOf(pointer);
    LAZYC_CUBLASLT_CHECK(cublasLtMatmulPreferenceSetAttribute, preference,
                         attribute, &alignment, sizeof(alignment));
  }
  cublasLtMatmulHeuristicResult_t result = {};
  int found = 0;
  LAZYC_CUBLASLT_CHECK(cublasLtMatmulAlgoGetHeuristic, gemm.handle,
                       plan.operation, plan.a, plan.b, plan.c, plan.c,
                       preference, 1, &result, &found);
  if (found == 0) {
    message = "cuBLASLt has no algorithm for this product";
    return false;
  }
  plan.algorithm = result.algo;
  return true;
}

/// Zeroes D (a product with k == 0 that overwrites).
bool zero(const Driver &driver, CUstream stream, const Product &product,
          std::string &message) {
  size_t bytes = elementBytes(product.element);
  for (int64_t index = 0; index < product.batch; ++index) {
    CUdeviceptr base = reinterpret_cast<CUdeviceptr>(
        product.d.data + index * product.d.batchStride * bytes);
    size_t pitch = product.d.ld * bytes;
    size_t height = product.d.columns;
    if (bytes == 2) {
      if (CUresult result = driver.cuMemsetD2D16Async(
              base, pitch, 0, product.d.rows, height, stream)) {
        message = driver.failure("cuMemsetD2D16Async", result);
        return false;
      }
    } else if (CUresult result = driver.cuMemsetD2D32Async(
                   base, pitch, 0, product.d.rows * bytes / 4, height,
                   stream)) {
      message = driver.failure("cuMemsetD2D32Async", result);
      return false;
    }
  }
  return true;
}

/// Queues `product` on the current device's stream.
bool run(const Product &product, std::string &message) {
  std::string whyNot;
  DeviceState *device = useDevice(currentDevice(), whyNot);
  if (!device) {
    message = whyNot;
    return false;
  }
  std::string prefix = deviceName(device->index) + ": ";
  if (product.m == 0 || product.n == 0 || product.batch == 0)
    return true;
  if (product.k == 0) {
    if (product.epilogue != CUBLASLT_EPILOGUE_DEFAULT) {
      message = prefix + "a product with an epilogue needs k > 0";
      return false;
    }
    if (!product.overwrite ||
        zero(*device->driver, device->stream, product, message))
      return true;
    message = prefix + message;
    return false;
  }
  const CublasLt *loaded = loadCublasLt(whyNot);
  if (!loaded) {
    message = whyNot;
    return false;
  }
  const CublasLt &api = *loaded;
  DeviceGemm &gemm = gemmStateOf(device->index);
  std::lock_guard<std::mutex> lock(gemm.mutex);
  if (!gemm.handle) {
    if (cublasStatus_t status = api.cublasLtCreate(&gemm.handle);
        status != CUBLAS_STATUS_SUCCESS) {
      message = prefix + api.failure("cublasLtCreate", status);
      return false;
    }
  }
  if (!gemm.workspace) {
    std::string error;
    gemm.workspace =
        allocatorFor(device->index).allocate(kWorkspaceBytes, error);
    if (!gemm.workspace) {
      message = "cuBLASLt's workspace: " + error;
      return false;
    }
  }
  bool tf32 = allowTf32.load(std::memory_order_relaxed);
  PlanKey key = {static_cast<int64_t>(product.element),
                 product.m,
                 product.n,
                 product.k,
                 product.batch,
                 product.a.ld,
                 product.a.transposed,
                 product.a.batchStride,
                 product.b.ld,
                 product.b.transposed,
                 product.b.batchStride,
                 product.d.ld,
                 product.d.batchStride,
                 product.epilogue,
                 tf32,
                 alignmentOf(product.a.data),
                 alignmentOf(product.b.data),
                 alignmentOf(product.c.data),
                 alignmentOf(product.d.data),
                 product.a.rows,
                 product.b.rows,
                 product.d.rows,
                 product.c.ld,
                 product.c.batchStride};
  auto [entry, inserted] = gemm.plans.try_emplace(key);
  Plan &plan = entry->second;
  if (inserted && !makePlan(api, gemm, product, tf32, plan, message)) {
    gemm.plans.erase(entry);
    message = prefix + message;
    return false;
  }
  if (product.bias) {
    const void *bias = product.bias;
    if (cublasStatus_t status = api.cublasLtMatmulDescSetAttribute(
            plan.operation, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
            sizeof(bias));
        status != CUBLAS_STATUS_SUCCESS) {
      message = prefix + api.failure("cublasLtMatmulDescSetAttribute", status);
      return false;
    }
  }
  float alpha32 = 1, beta32 = product.overwrite ? 0 : 1;
  double alpha64 = 1, beta64 = product.overwrite ? 0 : 1;
  bool f64 = product.element == Element::F64;
  if (cublasStatus_t status = api.cublasLtMatmul(
          gemm.handle, plan.operation,
          f64 ? static_cast<const void *>(&alpha64) : &alpha32, product.a.data,
          plan.a, product.b.data, plan.b,
          f64 ? static_cast<const void *>(&beta64) : &beta32, product.c.data,
          plan.c, product.d.data, plan.c, &plan.algorithm, gemm.workspace,
          kWorkspaceBytes, device->stream);
      status != CUBLAS_STATUS_SUCCESS) {
    message = prefix + api.failure("cublasLtMatmul", status);
    return false;
  }
  return true;
}

/// The product D = op(A) op(B) (+ C, + bias) of the entry points' operands,
/// in cuBLASLt's terms; false with `message` set when a layout cannot be
/// read.
bool describe(Element element, const lazyrt_memref3d &a,
              const lazyrt_memref3d &b, const lazyrt_memref3d &d, int32_t flags,
              Product &product, std::string &message) {
  product.element = element;
  bool transposeA = flags & LAZYRT_GEMM_TRANSPOSE_A;
  bool transposeB = flags & LAZYRT_GEMM_TRANSPOSE_B;
  product.overwrite = flags & LAZYRT_GEMM_OVERWRITE;
  product.batch = d.sizes[0];
  int64_t m = d.sizes[1], n = d.sizes[2];
  product.k = transposeA ? a.sizes[1] : a.sizes[2];
  Stored storedA, storedB, storedD;
  auto unreadable = [&](const char *name, const lazyrt_memref3d &matrix) {
    message = std::string("matrix ") + name + " has no unit stride (strides " +
              std::to_string(matrix.strides[1]) + ", " +
              std::to_string(matrix.strides[2]) + "): cuBLASLt cannot read it";
    return false;
  };
  if (!storedAs(a, element, transposeA, storedA))
    return unreadable("A", a);
  if (!storedAs(b, element, transposeB, storedB))
    return unreadable("B", b);
  if (!storedAs(d, element, false, storedD))
    return unreadable("C", d);
  // D stored column-major as itself: D = op(A) op(B). Stored as its
  // transpose (row-major): D^T = op(B)^T op(A)^T.
  if (!storedD.transposed) {
    product.a = storedA;
    product.b = storedB;
    product.m = m;
    product.n = n;
  } else {
    product.a = storedB.flipped();
    product.b = storedA.flipped();
    product.m = n;
    product.n = m;
    storedD.transposed = false;
  }
  product.d = storedD;
  product.c = storedD;
  return true;
}

void matmul(const char *caller, Element element, lazyrt_memref3d *a,
            lazyrt_memref3d *b, lazyrt_memref3d *c, int32_t flags) {
  if (generatedCodeErrorPending())
    return;
  Product product;
  std::string message;
  if (!describe(element, *a, *b, *c, flags, product, message) ||
      !run(product, message))
    recordGeneratedCodeError(std::string(caller) + ": " + message);
}

void matmulBias(const char *caller, Element element, lazyrt_memref3d *a,
                lazyrt_memref3d *b, lazyrt_memref1d *bias, lazyrt_memref3d *d,
                int32_t flags) {
  if (generatedCodeErrorPending())
    return;
  Product product;
  std::string message;
  flags |= LAZYRT_GEMM_OVERWRITE;
  if (!describe(element, *a, *b, *d, flags, product, message)) {
    recordGeneratedCodeError(std::string(caller) + ": " + message);
    return;
  }
  // cuBLASLt adds its bias to each row of the column-major result: one
  // element per column of a row-major D.
  if (product.m != d->sizes[2] || (d->sizes[1] > 1 && d->strides[2] != 1) ||
      bias->sizes[0] != d->sizes[2] ||
      (bias->sizes[0] > 1 && bias->strides[0] != 1)) {
    recordGeneratedCodeError(
        std::string(caller) +
        ": the bias epilogue needs D's rows and the bias to have unit "
        "strides");
    return;
  }
  product.bias = static_cast<char *>(bias->aligned) +
                 bias->offset * static_cast<int64_t>(elementBytes(element));
  product.epilogue = CUBLASLT_EPILOGUE_BIAS;
  if (!run(product, message))
    recordGeneratedCodeError(std::string(caller) + ": " + message);
}

} // namespace

extern "C" {

void lazyrt_cuda_set_allow_tf32(int32_t allow) { allowTf32 = allow != 0; }

int32_t lazyrt_cuda_get_allow_tf32(void) { return allowTf32 ? 1 : 0; }

#define LAZYC_CUDA_GEMM_ENTRY_POINTS(suffix, element)                          \
  void _mlir_ciface_lazyrt_cuda_matmul_##suffix(                               \
      lazyrt_memref3d *a, lazyrt_memref3d *b, lazyrt_memref3d *c,              \
      int32_t flags) {                                                         \
    matmul("lazyrt_cuda_matmul_" #suffix, element, a, b, c, flags);            \
  }                                                                            \
  void _mlir_ciface_lazyrt_cuda_matmul_bias_##suffix(                          \
      lazyrt_memref3d *a, lazyrt_memref3d *b, lazyrt_memref1d *bias,           \
      lazyrt_memref3d *d, int32_t flags) {                                     \
    matmulBias("lazyrt_cuda_matmul_bias_" #suffix, element, a, b, bias, d,     \
               flags);                                                         \
  }
LAZYC_CUDA_GEMM_ENTRY_POINTS(f32, Element::F32)
LAZYC_CUDA_GEMM_ENTRY_POINTS(f64, Element::F64)
LAZYC_CUDA_GEMM_ENTRY_POINTS(f16, Element::F16)
LAZYC_CUDA_GEMM_ENTRY_POINTS(bf16, Element::BF16)
#undef LAZYC_CUDA_GEMM_ENTRY_POINTS

} // extern "C"

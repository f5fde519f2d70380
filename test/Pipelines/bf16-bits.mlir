// RUN: lazyc-opt %s --lazy-lower-to-llvm | FileCheck %s

// bf16 code reaches LLVM without bf16 values: loads, selects and stores
// move i16 bits (lazy-bf16-bits-in-llvm), the arithmetic is f32 between
// integer roundings (lazy-expand-bf16). LLVM's x86 backend without bf16
// instructions would otherwise take each bf16 vector select (every
// rounding's NaN select, once InstCombine moves the bitcast above it)
// apart element by element: 64-lane roundings of hundreds of scalar
// instructions, and a bf16 step that compiled 2.2x slower than in f32.
// Only address arithmetic (getelementptr's element type) names bf16.

// where(x * y + x > y, x * y + x, y) on 4096 bf16 values: the loads yield
// i16 vectors, the selects (the two roundings' NaN selects and the where)
// choose i16 vectors, and the store writes one.
// CHECK-LABEL: llvm.func @where_chain
// CHECK-DAG:     llvm.load %{{.*}} : !llvm.ptr -> vector<64xi16>
// CHECK-DAG:     llvm.select %{{.*}} : vector<64xi1>, vector<64xi16>
// CHECK-DAG:     llvm.store %{{.*}} : vector<64xi16>, !llvm.ptr
// CHECK-NOT:     llvm.load %{{.*}} -> {{.*}}bf16
// CHECK-NOT:     llvm.select %{{.*}}bf16
// CHECK-NOT:     llvm.store %{{.*}}bf16{{.*}}, !llvm.ptr
// CHECK-NOT:     llvm.bitcast %{{.*}}bf16
// CHECK:         llvm.return
func.func @where_chain(%x: tensor<4096xbf16>, %y: tensor<4096xbf16>) -> tensor<4096xbf16> {
  %0 = lazy.mul %x, %y : tensor<4096xbf16>
  %1 = lazy.add %0, %x : tensor<4096xbf16>
  %2 = lazy.compare gt, %1, %y : tensor<4096xbf16>
  %3 = lazy.select %2, %1, %y : tensor<4096xi1>, tensor<4096xbf16>
  return %3 : tensor<4096xbf16>
}

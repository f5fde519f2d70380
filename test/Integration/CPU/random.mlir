// RUN: %numpy-check %s

// lazy.random_uniform and lazy.random_normal against an independent numpy
// implementation of the generator documented in
// lib/Conversion/LazyToLinalg/Random.cpp: the 64 bits of counter c are
// SplitMix64's output for the state seed + (c + 1) * 0x9E3779B97F4A7C15
// (uint64 arithmetic wraps; numpy uint64 arrays wrap silently), and element
// i in row-major order uses counter i. uniform: u = (bits >> (64 - p)) * 2^-p
// with p = 24 (f32) or 53 (f64) (11 for f16 and 8 for bf16, computed in f32
// and rounded once), then low + (high - low) * u in the compute type, clamped
// below high. normal (Box-Muller): sqrt(-2 ln(1 - u(2i))) * cos(2 pi
// u(2i + 1)) * stddev + mean. numpy_check takes expressions only, so each
// reference is a chain of lambdas on its OUT line; the SplitMix64 lambda
// gives 0xE220A8397B1DCDAF for seed 0, counter 0 (SplitMix64's first output
// from state 0).
//
// Tolerances: uniform samples are bit-exact (rtol=0, atol=0): the reference
// does the same IEEE operations (an exact product by 2^-p, then one rounding
// each for the multiply and the add). Normal samples depend on f32 log and
// cos (a few ulp) and on the f32 rounding of the angle 2 pi u (2^-24 * 2 pi
// absolute, times a radius up to ~5.8): rtol=1e-5, atol=1e-5 for f32;
// rtol=1e-12, atol=1e-12 for f64; one ulp for f16 (rtol=atol=1e-3) and bf16
// (rtol=atol=8e-3).

// -----

// random_uniform f32 on [-1, 1), seed 42: bit-exact against the reference generator.
// OUT: (lambda B: (lambda v: np.where(v >= np.float32(1.0), np.nextafter(np.float32(1.0), np.float32(-np.inf)), v))((B(42, np.arange(12, dtype=np.uint64)) >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24) * np.float32(2.0) + np.float32(-1.0)))(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))))).reshape(4, 3) ; rtol=0, atol=0
func.func @uniform_f32() -> tensor<4x3xf32> {
  %seed0 = lazy.constant dense<42> : tensor<i64>
  %0 = lazy.random_uniform %seed0, low = -1.0, high = 1.0 : tensor<i64> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// random_uniform f32 on [0, 1) with a rank-3 shape: element i in row-major order uses counter i; the same op twice gives the same values.
// OUT: (lambda B: (lambda v: np.where(v >= np.float32(1.0), np.nextafter(np.float32(1.0), np.float32(-np.inf)), v))((B(7, np.arange(30, dtype=np.uint64)) >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24) * np.float32(1.0) + np.float32(0.0)))(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))))).reshape(2, 3, 5) ; rtol=0, atol=0
// OUT: (lambda B: (lambda v: np.where(v >= np.float32(1.0), np.nextafter(np.float32(1.0), np.float32(-np.inf)), v))((B(7, np.arange(30, dtype=np.uint64)) >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24) * np.float32(1.0) + np.float32(0.0)))(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))))).reshape(2, 3, 5) ; rtol=0, atol=0
func.func @uniform_f32_rank3() -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>) {
  %seed0 = lazy.constant dense<7> : tensor<i64>
  %0 = lazy.random_uniform %seed0, low = 0.0, high = 1.0 : tensor<i64> -> tensor<2x3x5xf32>
  %seed1 = lazy.constant dense<7> : tensor<i64>
  %1 = lazy.random_uniform %seed1, low = 0.0, high = 1.0 : tensor<i64> -> tensor<2x3x5xf32>
  return %0, %1 : tensor<2x3x5xf32>, tensor<2x3x5xf32>
}

// -----

// random_uniform f32 seeds 0, -1 (2^64 - 1 as a state), INT64_MAX and 1 (a neighbour seed differs), over an odd length (67).
// OUT: (lambda B: (lambda v: np.where(v >= np.float32(3.0), np.nextafter(np.float32(3.0), np.float32(-np.inf)), v))((B(0, np.arange(67, dtype=np.uint64)) >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24) * np.float32(8.0) + np.float32(-5.0)))(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))))).reshape(67) ; rtol=0, atol=0
// OUT: (lambda B: (lambda v: np.where(v >= np.float32(3.0), np.nextafter(np.float32(3.0), np.float32(-np.inf)), v))((B(-1, np.arange(67, dtype=np.uint64)) >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24) * np.float32(8.0) + np.float32(-5.0)))(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))))).reshape(67) ; rtol=0, atol=0
// OUT: (lambda B: (lambda v: np.where(v >= np.float32(3.0), np.nextafter(np.float32(3.0), np.float32(-np.inf)), v))((B(9223372036854775807, np.arange(67, dtype=np.uint64)) >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24) * np.float32(8.0) + np.float32(-5.0)))(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))))).reshape(67) ; rtol=0, atol=0
// OUT: (lambda B: (lambda v: np.where(v >= np.float32(3.0), np.nextafter(np.float32(3.0), np.float32(-np.inf)), v))((B(1, np.arange(67, dtype=np.uint64)) >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24) * np.float32(8.0) + np.float32(-5.0)))(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))))).reshape(67) ; rtol=0, atol=0
func.func @uniform_f32_seeds() -> (tensor<67xf32>, tensor<67xf32>, tensor<67xf32>, tensor<67xf32>) {
  %seed0 = lazy.constant dense<0> : tensor<i64>
  %0 = lazy.random_uniform %seed0, low = -5.0, high = 3.0 : tensor<i64> -> tensor<67xf32>
  %seed1 = lazy.constant dense<-1> : tensor<i64>
  %1 = lazy.random_uniform %seed1, low = -5.0, high = 3.0 : tensor<i64> -> tensor<67xf32>
  %seed2 = lazy.constant dense<9223372036854775807> : tensor<i64>
  %2 = lazy.random_uniform %seed2, low = -5.0, high = 3.0 : tensor<i64> -> tensor<67xf32>
  %seed3 = lazy.constant dense<1> : tensor<i64>
  %3 = lazy.random_uniform %seed3, low = -5.0, high = 3.0 : tensor<i64> -> tensor<67xf32>
  return %0, %1, %2, %3 : tensor<67xf32>, tensor<67xf32>, tensor<67xf32>, tensor<67xf32>
}

// -----

// random_uniform f32 on [1e6, 1e6 + 1): f32 spacing there is 1/16, so ~3% of low + (high - low) * u (37 of these 1000) round up to high and must be clamped to the largest f32 below it.
// OUT: (lambda B: (lambda v: np.where(v >= np.float32(1000001.0), np.nextafter(np.float32(1000001.0), np.float32(-np.inf)), v))((B(5, np.arange(1000, dtype=np.uint64)) >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24) * np.float32(1.0) + np.float32(1000000.0)))(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))))).reshape(1000) ; rtol=0, atol=0
func.func @uniform_f32_clamp() -> tensor<1000xf32> {
  %seed0 = lazy.constant dense<5> : tensor<i64>
  %0 = lazy.random_uniform %seed0, low = 1000000.0, high = 1000001.0 : tensor<i64> -> tensor<1000xf32>
  return %0 : tensor<1000xf32>
}

// -----

// random_uniform f64 uses 53 bits and f64 arithmetic: bit-exact.
// OUT: (lambda B: (lambda v: np.where(v >= 5.0, np.nextafter(5.0, -np.inf), v))((B(123456789, np.arange(35, dtype=np.uint64)) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53 * 8.0 + -3.0))(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))))).reshape(5, 7) ; rtol=0, atol=0
func.func @uniform_f64() -> tensor<5x7xf64> {
  %seed0 = lazy.constant dense<123456789> : tensor<i64>
  %0 = lazy.random_uniform %seed0, low = -3.0, high = 5.0 : tensor<i64> -> tensor<5x7xf64>
  return %0 : tensor<5x7xf64>
}

// -----

// random_uniform f16 and bf16 (Random.cpp: p = 11 and 8 bits, computed in f32, rounded once, clamped below high): bit-exact.
// OUT: (lambda B: (lambda v: np.where(v >= np.float16(2.0), np.nextafter(np.float16(2.0), np.float16(-np.inf)), v))(((B(9, np.arange(40, dtype=np.uint64)) >> np.uint64(53)).astype(np.float32) * np.float32(2.0 ** -11) * np.float32(4.0) + np.float32(-2.0)).astype(np.float16)))(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))))).reshape(40) ; rtol=0, atol=0
// OUT: (lambda B: (lambda v: np.where(v >= np.float16(1.0), np.nextafter(np.float16(1.0), np.float16(-np.inf)), v))(((B(9, np.arange(40, dtype=np.uint64)) >> np.uint64(53)).astype(np.float32) * np.float32(2.0 ** -11) * np.float32(1.0) + np.float32(0.0)).astype(np.float16)))(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))))).reshape(40) ; rtol=0, atol=0
// OUT: (lambda v: ((v.view(np.uint32).astype(np.uint64) + 0x7FFF + ((v.view(np.uint32).astype(np.uint64) >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32))((lambda B: (lambda v: np.where(v >= np.float32(2.0), np.nextafter(np.float32(2.0), np.float32(-np.inf)), v))((B(9, np.arange(40, dtype=np.uint64)) >> np.uint64(56)).astype(np.float32) * np.float32(2.0 ** -8) * np.float32(4.0) + np.float32(-2.0)))(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))))).reshape(40)) ; rtol=0, atol=0
func.func @uniform_half() -> (tensor<40xf16>, tensor<40xf16>, tensor<40xbf16>) {
  %seed0 = lazy.constant dense<9> : tensor<i64>
  %0 = lazy.random_uniform %seed0, low = -2.0, high = 2.0 : tensor<i64> -> tensor<40xf16>
  %seed1 = lazy.constant dense<9> : tensor<i64>
  %1 = lazy.random_uniform %seed1, low = 0.0, high = 1.0 : tensor<i64> -> tensor<40xf16>
  %seed2 = lazy.constant dense<9> : tensor<i64>
  %2 = lazy.random_uniform %seed2, low = -2.0, high = 2.0 : tensor<i64> -> tensor<40xbf16>
  return %0, %1, %2 : tensor<40xf16>, tensor<40xf16>, tensor<40xbf16>
}

// -----

// random_normal f32 N(0, 1) and N(2.5, 0.5^2): Box-Muller of counters 2i and 2i + 1.
// OUT: (lambda B, c: np.sqrt(-2 * np.log(1 - (B(3, 2 * c) >> np.uint64(40)).astype(np.float64) * 2.0 ** -24)) * np.cos(2 * np.pi * (B(3, 2 * c + np.uint64(1)) >> np.uint64(40)).astype(np.float64) * 2.0 ** -24) * 1.0 + 0.0)(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)))), np.arange(64, dtype=np.uint64)).reshape(64) ; rtol=1e-5, atol=1e-5
// OUT: (lambda B, c: np.sqrt(-2 * np.log(1 - (B(11, 2 * c) >> np.uint64(40)).astype(np.float64) * 2.0 ** -24)) * np.cos(2 * np.pi * (B(11, 2 * c + np.uint64(1)) >> np.uint64(40)).astype(np.float64) * 2.0 ** -24) * 0.5 + 2.5)(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)))), np.arange(105, dtype=np.uint64)).reshape(3, 5, 7) ; rtol=1e-5, atol=1e-5
func.func @normal_f32() -> (tensor<64xf32>, tensor<3x5x7xf32>) {
  %seed0 = lazy.constant dense<3> : tensor<i64>
  %0 = lazy.random_normal %seed0, mean = 0.0, stddev = 1.0 : tensor<i64> -> tensor<64xf32>
  %seed1 = lazy.constant dense<11> : tensor<i64>
  %1 = lazy.random_normal %seed1, mean = 2.5, stddev = 0.5 : tensor<i64> -> tensor<3x5x7xf32>
  return %0, %1 : tensor<64xf32>, tensor<3x5x7xf32>
}

// -----

// random_normal f64 with 53-bit uniforms and f64 math: N(-1, 3^2).
// OUT: (lambda B, c: np.sqrt(-2 * np.log(1 - (B(77, 2 * c) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53)) * np.cos(2 * np.pi * (B(77, 2 * c + np.uint64(1)) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53) * 3.0 + -1.0)(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)))), np.arange(100, dtype=np.uint64)).reshape(10, 10) ; rtol=1e-12, atol=1e-12
func.func @normal_f64() -> tensor<10x10xf64> {
  %seed0 = lazy.constant dense<77> : tensor<i64>
  %0 = lazy.random_normal %seed0, mean = -1.0, stddev = 3.0 : tensor<i64> -> tensor<10x10xf64>
  return %0 : tensor<10x10xf64>
}

// -----

// random_normal f16 and bf16 (p = 11 and 8 bits, computed in f32, rounded once): within one ulp.
// OUT: (lambda B, c: np.sqrt(-2 * np.log(1 - (B(21, 2 * c) >> np.uint64(53)).astype(np.float64) * 2.0 ** -11)) * np.cos(2 * np.pi * (B(21, 2 * c + np.uint64(1)) >> np.uint64(53)).astype(np.float64) * 2.0 ** -11) * 2.0 + 1.0)(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)))), np.arange(50, dtype=np.uint64)).reshape(50) ; rtol=1e-3, atol=1e-3
// OUT: (lambda B, c: np.sqrt(-2 * np.log(1 - (B(21, 2 * c) >> np.uint64(56)).astype(np.float64) * 2.0 ** -8)) * np.cos(2 * np.pi * (B(21, 2 * c + np.uint64(1)) >> np.uint64(56)).astype(np.float64) * 2.0 ** -8) * 2.0 + 1.0)(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)))), np.arange(50, dtype=np.uint64)).reshape(50) ; rtol=8e-3, atol=8e-3
func.func @normal_half() -> (tensor<50xf16>, tensor<50xbf16>) {
  %seed0 = lazy.constant dense<21> : tensor<i64>
  %0 = lazy.random_normal %seed0, mean = 1.0, stddev = 2.0 : tensor<i64> -> tensor<50xf16>
  %seed1 = lazy.constant dense<21> : tensor<i64>
  %1 = lazy.random_normal %seed1, mean = 1.0, stddev = 2.0 : tensor<i64> -> tensor<50xbf16>
  return %0, %1 : tensor<50xf16>, tensor<50xbf16>
}

// -----

// 65536 samples: normal mean 0 and std 1, uniform mean 1/2 and std sqrt(1/12), each within 0.01 (2.5 and 3.5 standard errors); the samples match the reference.
// OUT: (lambda B, c: np.sqrt(-2 * np.log(1 - (B(2024, 2 * c) >> np.uint64(40)).astype(np.float64) * 2.0 ** -24)) * np.cos(2 * np.pi * (B(2024, 2 * c + np.uint64(1)) >> np.uint64(40)).astype(np.float64) * 2.0 ** -24) * 1.0 + 0.0)(lambda s, c: (lambda z: z ^ (z >> np.uint64(31)))((lambda z: (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))((lambda z: (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))(np.uint64(s % 2**64) + (c + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)))), np.arange(65536, dtype=np.uint64)).reshape(65536) ; rtol=1e-5, atol=1e-5
// OUT: np.float64(0) ; rtol=0, atol=0.01
// OUT: np.float64(1) ; rtol=0, atol=0.01
// OUT: np.float64(0.5) ; rtol=0, atol=0.01
// OUT: np.sqrt(1 / 12) ; rtol=0, atol=0.01
func.func @statistics() -> (tensor<65536xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %seedn = lazy.constant dense<2024> : tensor<i64>
  %n = lazy.random_normal %seedn, mean = 0.0, stddev = 1.0 : tensor<i64> -> tensor<65536xf32>
  %nmean = lazy.reduce_mean %n [0] : tensor<65536xf32>
  %nm1 = lazy.reshape %nmean to [1] : tensor<f32>
  %nmb = lazy.broadcast %nm1 to [65536] : tensor<1xf32>
  %nd = lazy.sub %n, %nmb : tensor<65536xf32>
  %nd2 = lazy.mul %nd, %nd : tensor<65536xf32>
  %nvar = lazy.reduce_mean %nd2 [0] : tensor<65536xf32>
  %nstd = lazy.sqrt %nvar : tensor<f32>
  %seedu = lazy.constant dense<2025> : tensor<i64>
  %u = lazy.random_uniform %seedu, low = 0.0, high = 1.0 : tensor<i64> -> tensor<65536xf32>
  %umean = lazy.reduce_mean %u [0] : tensor<65536xf32>
  %um1 = lazy.reshape %umean to [1] : tensor<f32>
  %umb = lazy.broadcast %um1 to [65536] : tensor<1xf32>
  %ud = lazy.sub %u, %umb : tensor<65536xf32>
  %ud2 = lazy.mul %ud, %ud : tensor<65536xf32>
  %uvar = lazy.reduce_mean %ud2 [0] : tensor<65536xf32>
  %ustd = lazy.sqrt %uvar : tensor<f32>
  return %n, %nmean, %nstd, %umean, %ustd : tensor<65536xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

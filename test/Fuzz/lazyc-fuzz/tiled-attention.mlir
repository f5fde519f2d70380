// lazyc-fuzz programs draw nn::scaledDotProductAttention with its tiles
// Auto, Always or Never, causal or not, with or without dropout: the
// reference evaluator checks lazy.attention's CPU kernel against its own
// plain attention in lazy, eager and asynchronous runs. Seed 20493 (at most
// 4 ops) attends in tiles, causally, over f64 [4, 3]. The seed stands for
// its program as long as the generator draws programs the same way.

// RUN: lazyc-fuzz --replay 20493 --max-ops 4 --print | FileCheck %s --check-prefix=TILED
// TILED: nn::scaledDotProductAttention(t0, t0, t0, nn::AttentionOptions{true, std::nullopt, Tensor(), 0.0, 449, nn::AttentionTiles::Always})
// RUN: env LAZYC_CACHE_DIR= lazyc-fuzz --replay 20493 --max-ops 4 --mode all | FileCheck %s --check-prefix=CHECKED
// CHECKED: lazyc-fuzz: 1 programs {{.*}} checked {{.*}}, 0 failed,

;; The sums and NaN counts of runs of float32 pixels in every plane of a chunk, four planes an instruction
;; (WebAssembly SIMD), for zonal means and sums (core/processing/zonal/weighted.ts). Generated into run-sums.wasm.ts
;; by scripts/generate-wasm.ts (make wasm).
;;
;; The chunk is read where it lies, in the shared memory it was allocated in (imported as $chunk); the plane
;; offsets, the runs and the results are in a second memory of the caller's ($own), which it keeps from call to
;; call: a fresh memory's pages would cost the system a fault each on their first write. A run of `n` pixels from offset `base` is read
;; in four planes at once, a lane each: each pixel's four values are gathered into one vector, a NaN is zeroed
;; (adding +0 leaves a sum's bits as they were, as the JavaScript loop adds 0) and counted, and each lane adds its
;; plane's values in pixel order into a float64 sum, so that the sums are the bits of the one-plane-at-a-time
;; loop. A last group of fewer than four planes reads its last plane again in the missing lanes, and writes their
;; results to places past the last plane's, which the caller provides and ignores.
(module
  (memory $chunk (import "env" "chunk") 0 65536 shared)
  (memory $own (import "env" "own") 1)

  ;; $chunkAt: the chunk's byte offset in $chunk. $offsets: `planes` int32 plane offsets (in values).
  ;; $base, $length: `runs` int32 each. $sums, $nans: float64 results by groups of four planes, plane `b` and
  ;; run `r` at `((b >> 2) * runs + r) * 4 + (b & 3)`, for `planes` rounded up to a multiple of four.
  (func (export "sums") (param $chunkAt i32) (param $planes i32) (param $offsets i32) (param $runs i32)
        (param $base i32) (param $length i32) (param $sums i32) (param $nans i32)
    (local $b i32) (local $r i32) (local $last i32)
    (local $p0 i32) (local $p1 i32) (local $p2 i32) (local $p3 i32) (local $k i32) (local $end i32) (local $n i32)
    (local $v v128) (local $valid v128) (local $lo v128) (local $hi v128) (local $count v128)
    (local.set $last (i32.sub (local.get $planes) (i32.const 1)))
    (block $planesDone
      (loop $group
        (br_if $planesDone (i32.ge_u (local.get $b) (local.get $planes)))
        (local.set $p0 (call $plane (local.get $chunkAt) (local.get $offsets) (local.get $b) (local.get $last)))
        (local.set $p1 (call $plane (local.get $chunkAt) (local.get $offsets)
          (i32.add (local.get $b) (i32.const 1)) (local.get $last)))
        (local.set $p2 (call $plane (local.get $chunkAt) (local.get $offsets)
          (i32.add (local.get $b) (i32.const 2)) (local.get $last)))
        (local.set $p3 (call $plane (local.get $chunkAt) (local.get $offsets)
          (i32.add (local.get $b) (i32.const 3)) (local.get $last)))
        (local.set $r (i32.const 0))
        (block $runsDone
          (loop $run
            (br_if $runsDone (i32.ge_u (local.get $r) (local.get $runs)))
            (local.set $n (i32.load $own (i32.add (local.get $length) (i32.shl (local.get $r) (i32.const 2)))))
            (local.set $k (i32.shl (i32.load $own (i32.add (local.get $base) (i32.shl (local.get $r) (i32.const 2))))
              (i32.const 2)))
            (local.set $end (i32.add (local.get $k) (i32.shl (local.get $n) (i32.const 2))))
            (local.set $lo (v128.const f64x2 0 0))
            (local.set $hi (v128.const f64x2 0 0))
            (local.set $count (v128.const i32x4 0 0 0 0))
            (block $pixelsDone
              (loop $pixel
                (br_if $pixelsDone (i32.ge_u (local.get $k) (local.get $end)))
                (local.set $v (v128.load32_lane $chunk 0 (i32.add (local.get $p0) (local.get $k)) (local.get $v)))
                (local.set $v (v128.load32_lane $chunk 1 (i32.add (local.get $p1) (local.get $k)) (local.get $v)))
                (local.set $v (v128.load32_lane $chunk 2 (i32.add (local.get $p2) (local.get $k)) (local.get $v)))
                (local.set $v (v128.load32_lane $chunk 3 (i32.add (local.get $p3) (local.get $k)) (local.get $v)))
                (local.set $valid (f32x4.eq (local.get $v) (local.get $v)))
                (local.set $v (v128.and (local.get $v) (local.get $valid)))
                (local.set $lo (f64x2.add (local.get $lo) (f64x2.promote_low_f32x4 (local.get $v))))
                (local.set $hi (f64x2.add (local.get $hi) (f64x2.promote_low_f32x4
                  (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $v) (local.get $v)))))
                ;; A valid lane's mask is -1: subtracting it counts the valid values.
                (local.set $count (i32x4.sub (local.get $count) (local.get $valid)))
                (local.set $k (i32.add (local.get $k) (i32.const 4)))
                (br $pixel)))
            ;; NaNs: the run's length less its valid values, as float64 (the caller's counts are weights).
            (local.set $count (i32x4.sub (i32x4.splat (local.get $n)) (local.get $count)))
            (v128.store $own (local.get $sums) (local.get $lo))
            (v128.store $own offset=16 (local.get $sums) (local.get $hi))
            (v128.store $own (local.get $nans) (f64x2.convert_low_i32x4_s (local.get $count)))
            (v128.store $own offset=16 (local.get $nans) (f64x2.convert_low_i32x4_s
              (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $count) (local.get $count))))
            (local.set $sums (i32.add (local.get $sums) (i32.const 32)))
            (local.set $nans (i32.add (local.get $nans) (i32.const 32)))
            (local.set $r (i32.add (local.get $r) (i32.const 1)))
            (br $run)))
        (local.set $b (i32.add (local.get $b) (i32.const 4)))
        (br $group))))

  ;; The byte address in $chunk of plane `b`, or of the last plane past it.
  (func $plane (param $chunkAt i32) (param $offsets i32) (param $b i32) (param $last i32) (result i32)
    (i32.add (local.get $chunkAt)
      (i32.shl
        (i32.load $own (i32.add (local.get $offsets)
          (i32.shl (select (local.get $b) (local.get $last) (i32.le_u (local.get $b) (local.get $last)))
            (i32.const 2))))
        (i32.const 2)))))

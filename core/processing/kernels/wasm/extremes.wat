;; The largest and smallest value of each cell over days, four cells an instruction (WebAssembly SIMD), for the
;; ETCCDI extremes (core/processing/indices/etccdi/reductions.ts, `Extreme`). Generated into extremes.wasm.ts by
;; scripts/generate-wasm.ts (make wasm).
;;
;; Each function folds one day's row of `cells` float32 values at byte offset `$row` into the accumulators at
;; `$acc`, one per cell: a NaN leaves its accumulator as it was (pmax and pmin keep their first operand unless
;; the second compares greater, or smaller), and the result is 1 when the row held a NaN, which the caller then
;; looks for cell by cell. Cells past the last multiple of four are folded one at a time.
(module
  (memory (export "memory") 1)

  (func (export "max") (param $acc i32) (param $row i32) (param $cells i32) (result i32)
    (local $end i32) (local $v v128) (local $nan v128) (local $s f32)
    (local.set $end (i32.add (local.get $row) (i32.shl (i32.and (local.get $cells) (i32.const -4)) (i32.const 2))))
    (block $done
      (loop $four
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $v (v128.load (local.get $row)))
        (v128.store (local.get $acc) (f32x4.pmax (v128.load (local.get $acc)) (local.get $v)))
        (local.set $nan (v128.or (local.get $nan) (f32x4.ne (local.get $v) (local.get $v))))
        (local.set $row (i32.add (local.get $row) (i32.const 16)))
        (local.set $acc (i32.add (local.get $acc) (i32.const 16)))
        (br $four)))
    (local.set $end (i32.add (local.get $end) (i32.shl (i32.and (local.get $cells) (i32.const 3)) (i32.const 2))))
    (block $done
      (loop $one
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $s (f32.load (local.get $row)))
        (if (f32.gt (local.get $s) (f32.load (local.get $acc)))
          (then (f32.store (local.get $acc) (local.get $s))))
        (if (f32.ne (local.get $s) (local.get $s))
          (then (local.set $nan (v128.const i32x4 -1 -1 -1 -1))))
        (local.set $row (i32.add (local.get $row) (i32.const 4)))
        (local.set $acc (i32.add (local.get $acc) (i32.const 4)))
        (br $one)))
    (v128.any_true (local.get $nan)))

  (func (export "min") (param $acc i32) (param $row i32) (param $cells i32) (result i32)
    (local $end i32) (local $v v128) (local $nan v128) (local $s f32)
    (local.set $end (i32.add (local.get $row) (i32.shl (i32.and (local.get $cells) (i32.const -4)) (i32.const 2))))
    (block $done
      (loop $four
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $v (v128.load (local.get $row)))
        (v128.store (local.get $acc) (f32x4.pmin (v128.load (local.get $acc)) (local.get $v)))
        (local.set $nan (v128.or (local.get $nan) (f32x4.ne (local.get $v) (local.get $v))))
        (local.set $row (i32.add (local.get $row) (i32.const 16)))
        (local.set $acc (i32.add (local.get $acc) (i32.const 16)))
        (br $four)))
    (local.set $end (i32.add (local.get $end) (i32.shl (i32.and (local.get $cells) (i32.const 3)) (i32.const 2))))
    (block $done
      (loop $one
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $s (f32.load (local.get $row)))
        (if (f32.lt (local.get $s) (f32.load (local.get $acc)))
          (then (f32.store (local.get $acc) (local.get $s))))
        (if (f32.ne (local.get $s) (local.get $s))
          (then (local.set $nan (v128.const i32x4 -1 -1 -1 -1))))
        (local.set $row (i32.add (local.get $row) (i32.const 4)))
        (local.set $acc (i32.add (local.get $acc) (i32.const 4)))
        (br $one)))
    (v128.any_true (local.get $nan)))
)

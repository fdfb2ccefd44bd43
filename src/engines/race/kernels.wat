;; The race kernels in WebAssembly: CRC-32, FNV-1a 32 and a float64 dot product (two SIMD lanes).
;; Built into build/wasm/kernels.wasm by scripts/build-wasm.ts; src/engines/race/ts-kernels.ts is the same in TypeScript.
;; Memory layout: bytes [0, 1024) hold the CRC-32 table (filled by crc32_init); the host places data above it.
(module
  (memory (export "memory") 1)

  ;; CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320): table[n] = n shifted out through the polynomial 8 times.
  (func (export "crc32_init")
    (local $n i32) (local $c i32) (local $k i32)
    (loop $entries
      (local.set $c (local.get $n))
      (local.set $k (i32.const 8))
      (loop $bits
        (local.set $c
          (if (result i32) (i32.and (local.get $c) (i32.const 1))
            (then (i32.xor (i32.const 0xEDB88320) (i32.shr_u (local.get $c) (i32.const 1))))
            (else (i32.shr_u (local.get $c) (i32.const 1)))))
        (local.set $k (i32.sub (local.get $k) (i32.const 1)))
        (br_if $bits (local.get $k)))
      (i32.store (i32.shl (local.get $n) (i32.const 2)) (local.get $c))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br_if $entries (i32.lt_u (local.get $n) (i32.const 256)))))

  ;; One table lookup per byte, as the TypeScript version does.
  (func (export "crc32") (param $ptr i32) (param $len i32) (result i32)
    (local $crc i32) (local $end i32)
    (local.set $crc (i32.const -1))
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    (block $done
      (loop $bytes
        (br_if $done (i32.ge_u (local.get $ptr) (local.get $end)))
        (local.set $crc
          (i32.xor
            (i32.load
              (i32.shl
                (i32.and (i32.xor (local.get $crc) (i32.load8_u (local.get $ptr))) (i32.const 255))
                (i32.const 2)))
            (i32.shr_u (local.get $crc) (i32.const 8))))
        (local.set $ptr (i32.add (local.get $ptr) (i32.const 1)))
        (br $bytes)))
    (i32.xor (local.get $crc) (i32.const -1)))

  ;; FNV-1a, 32 bits: offset basis 0x811C9DC5, prime 16777619 (0x01000193).
  (func (export "fnv1a32") (param $ptr i32) (param $len i32) (result i32)
    (local $h i32) (local $end i32)
    (local.set $h (i32.const 0x811C9DC5))
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    (block $done
      (loop $bytes
        (br_if $done (i32.ge_u (local.get $ptr) (local.get $end)))
        (local.set $h (i32.mul (i32.xor (local.get $h) (i32.load8_u (local.get $ptr))) (i32.const 16777619)))
        (local.set $ptr (i32.add (local.get $ptr) (i32.const 1)))
        (br $bytes)))
    (local.get $h))

  ;; Σ x[i]·y[i] over n float64s at $x and $y. Lane 0 sums the even indexes, lane 1 the odd ones; the lanes are added
  ;; at the end, then the odd tail. The TypeScript version keeps the same two sums, so the results agree to the bit.
  (func (export "dot_f64") (param $x i32) (param $y i32) (param $n i32) (result f64)
    (local $acc v128) (local $i i32) (local $pairs i32) (local $sum f64) (local $last i32)
    (local.set $acc (f64x2.splat (f64.const 0)))
    (local.set $pairs (i32.shr_u (local.get $n) (i32.const 1)))
    (block $done
      (loop $lanes
        (br_if $done (i32.ge_u (local.get $i) (local.get $pairs)))
        (local.set $acc
          (f64x2.add
            (local.get $acc)
            (f64x2.mul
              (v128.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 4))))
              (v128.load (i32.add (local.get $y) (i32.shl (local.get $i) (i32.const 4)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $lanes)))
    (local.set $sum (f64.add (f64x2.extract_lane 0 (local.get $acc)) (f64x2.extract_lane 1 (local.get $acc))))
    (if (i32.and (local.get $n) (i32.const 1))
      (then
        (local.set $last (i32.shl (i32.sub (local.get $n) (i32.const 1)) (i32.const 3)))
        (local.set $sum
          (f64.add
            (local.get $sum)
            (f64.mul
              (f64.load (i32.add (local.get $x) (local.get $last)))
              (f64.load (i32.add (local.get $y) (local.get $last))))))))
    (local.get $sum))
)

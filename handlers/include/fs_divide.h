/* Unsigned division by a divisor known when a handler set is installed, without the divide
 * instruction: RI5CY's divider takes 3 cycles plus the divisor's leading zeros (up to 35, docs/ISS.md),
 * a multiply-high 5. The control plane computes an fs_divisor_t once (fs_divisor_make) and stores
 * it with the handler's configuration; the handler divides any 32-bit value with one mulhu, two
 * shifts, a subtraction and an addition (fs_divide), as a compiler does for a constant divisor.
 * The method is Granlund and Montgomery's ("Division by invariant integers using
 * multiplication", PLDI 1994, figure 4.1), exact for every divisor >= 1 and every dividend. */
#ifndef FS_DIVIDE_H
#define FS_DIVIDE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fs_divisor {
  uint32_t d;      /* the divisor (>= 1) */
  uint32_t magic;  /* floor(2^32 (2^l - d) / d) + 1, l = ceil(log2 d) */
  uint32_t shift1; /* min(l, 1) */
  uint32_t shift2; /* max(l - 1, 0) */
} fs_divisor_t;

/* For the control plane: the constants that divide by d (d >= 1; 0 is treated as 1). */
static inline fs_divisor_t fs_divisor_make(uint32_t d) {
  fs_divisor_t v;
  uint32_t l = 0;
  if (d == 0) d = 1;
  while (l < 32 && (1ull << l) < d) ++l;
  v.d = d;
  v.magic = (uint32_t)((((1ull << l) - d) << 32) / d + 1);
  v.shift1 = l < 1 ? l : 1;
  v.shift2 = l > 0 ? l - 1 : 0;
  return v;
}

/* floor(x / v->d). */
static inline uint32_t fs_divide(uint32_t x, const fs_divisor_t* v) {
  const uint32_t t = (uint32_t)(((uint64_t)v->magic * x) >> 32);
  return (t + ((x - t) >> v->shift1)) >> v->shift2;
}

/* x mod v->d, with the quotient q = fs_divide(x, v) already known. */
static inline uint32_t fs_remainder(uint32_t x, uint32_t q, const fs_divisor_t* v) { return x - q * v->d; }

#ifdef __cplusplus
}
#endif
#endif /* FS_DIVIDE_H */

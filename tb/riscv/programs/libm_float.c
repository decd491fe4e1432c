/* picolibc's single-precision libm on the F extension: sqrtf (fsqrt.s), fabsf/copysignf, floorf,
 * ceilf, truncf, roundf, rintf, lrintf, fmodf, remainderf, frexpf/ldexpf, expf, logf, log2f,
 * sinf, cosf, tanf, atanf, atan2f, powf, hypotf, fmaf, nextafterf over a sweep of inputs.
 * Results are printed as bit patterns; any single-bit difference in the ISS's FPU (rounding,
 * subnormals, NaNs, flags used by the library) shows up here. */
#include <math.h>

#include "testlib.h"

static const float inputs[] = {0.0f, -0.0f, 0.1f, -0.1f, 0.5f, 1.0f, -1.0f, 1.5f, 2.5f, -2.5f, 3.14159265f,
                               10.0f, -33.3f, 100.0f, 1234.5678f, 1e-3f, 1e-20f, 1e20f, 88.0f, -87.0f,
                               1e-40f /* subnormal */};
#define NIN (sizeof inputs / sizeof inputs[0])

#define P(fn, expr)                                                              \
  do {                                                                           \
    float r_ = (expr);                                                           \
    printf(" %s=%08lx", fn, (unsigned long)f2u(r_));                             \
    mix(f2u(r_));                                                                \
  } while (0)

int main(void) {
  for (unsigned i = 0; i < NIN; i++) {
    float x = inputs[i];
    printf("x=%08lx", (unsigned long)f2u(x));
    P("sqrt", sqrtf(fabsf(x)));
    P("floor", floorf(x));
    P("ceil", ceilf(x));
    P("trunc", truncf(x));
    P("round", roundf(x));
    P("rint", rintf(x));
    P("exp", expf(x));
    P("log", logf(fabsf(x)));
    P("log2", log2f(fabsf(x)));
    printf("\n    ");
    P("sin", sinf(x));
    P("cos", cosf(x));
    P("tan", tanf(x));
    P("atan", atanf(x));
    P("atan2", atan2f(x, 0.75f));
    P("pow", powf(fabsf(x), 1.7f));
    P("hypot", hypotf(x, 3.0f));
    P("fmod", fmodf(x, 0.7f));
    P("remainder", remainderf(x, 0.7f));
    P("fma", fmaf(x, x, -1.0f));
    P("next", nextafterf(x, 0.0f));
    P("copysign", copysignf(2.0f, x));
    int e = 0;
    float m = frexpf(x, &e);
    printf(" frexp=%08lx,%d ldexp=%08lx lrint=%ld\n", (unsigned long)f2u(m), e,
           (unsigned long)f2u(ldexpf(m, e + 3)), (long)(fabsf(x) < 1e9f ? lrintf(x) : 0));
    mix(f2u(m)); mix((uint32_t)e);
  }
  /* a numerically busy loop: a logistic map and a sum of sin */
  float z = 0.3f, s = 0.0f;
  for (int k = 0; k < 2000; k++) {
    z = 3.9f * z * (1.0f - z);
    s += sinf((float)k * 0.01f);
  }
  show("logistic", f2u(z));
  show("sin sum", f2u(s));
  return finish("libm_float");
}

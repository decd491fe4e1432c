/* Double precision on an F-only core: every double operation is soft-float in libgcc
 * (__adddf3, __muldf3, __divdf3, __extendsfdf2, __truncdfsf2, __fixdfsi, __floatsidf, ...),
 * i.e. long integer code paths; plus picolibc's double printf (%.17g, %e, %a, %f), which
 * exercises 64-bit integer arithmetic heavily. Bit patterns and printed text must match. */
#include <math.h>

#include "testlib.h"

static void showd(const char* name, double d) {
  uint64_t b = d2u(d);
  printf("%s = %016llx  %.17g\n", name, (unsigned long long)b, d);
  mix((uint32_t)b);
  mix((uint32_t)(b >> 32));
}

int main(void) {
  volatile double a = 1.0 / 3.0, b = 2.718281828459045, c = -1e-300, big = 1.7976931348623157e308;
  showd("1/3", a);
  showd("a+b", a + b);
  showd("a-b", a - b);
  showd("a*b", a * b);
  showd("a/b", a / b);
  showd("c*c (underflow)", c * c);
  showd("big*2 (overflow)", big * 2.0);
  showd("-big*2", -big * 2.0);
  showd("big/c", big / c);
  showd("sqrt(2)", sqrt(2.0));
  showd("0.1+0.2", 0.1 + 0.2);
  showd("subnormal", 4.9406564584124654e-324 * 3.0);
  showd("nan", (double)NAN);
  showd("inf-inf", (double)INFINITY - (double)INFINITY);
  volatile float f = 1.1f;
  showd("(double)1.1f", (double)f);
  show("(float)(1/3)", f2u((float)a));
  show("(float)big", f2u((float)big));
  show("(float)tiny", f2u((float)c));
  volatile double m = -123456.789;
  show("(int)m", (uint32_t)(int32_t)m);
  show("(unsigned)3e9", (uint32_t)(volatile double){3e9});
  showd("(double)INT_MIN", (double)(volatile int32_t){INT32_MIN});
  showd("(double)UINT_MAX", (double)(volatile uint32_t){0xffffffffu});
  showd("(double)(1<<62)", (double)(volatile int64_t){1ll << 62});
  showd("floor(-2.5)", floor((volatile double){-2.5}));
  showd("round(2.5)", round((volatile double){2.5}));
  showd("fmod", fmod(10.0, (volatile double){3.3}));
  showd("exp(1)", exp((volatile double){1.0}));
  showd("log(10)", log((volatile double){10.0}));
  showd("sin(1)", sin((volatile double){1.0}));
  showd("atan2", atan2((volatile double){1.0}, -1.0));
  showd("pow", pow((volatile double){2.0}, 0.5));
  /* formatted output of doubles */
  double vals[] = {0.0, -0.0, 1.0, 0.1, 123.456, 1e22, 1e-7, 6.02214076e23, 9.999999999999999e-5, 5e-324,
                   1.7976931348623157e308};
  for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    char buf[400];
    int n = snprintf(buf, sizeof buf, "%g|%e|%.3f|%a|%.17g", vals[i], vals[i], vals[i], vals[i], vals[i]);
    printf("fmt: %s (%d)\n", buf, n);
    for (size_t k = 0; k < strlen(buf); k++) mix((uint8_t)buf[k]);
  }
  printf("special: %f %f %e\n", (double)INFINITY, -(double)INFINITY, (double)NAN);
  /* a series: sum of 1/k^2 */
  double s = 0.0;
  for (int k = 1; k <= 2000; k++) s += 1.0 / ((double)k * (double)k);
  showd("basel(2000)", s);
  return finish("softdouble");
}

/* Variadic functions under ilp32f: int, long long (aligned register pairs / stack slots),
 * double (passed in integer registers as soft-float bits) and pointer arguments through
 * va_arg, more arguments than argument registers (stack-passed varargs), va_copy, forwarding a
 * va_list to vsnprintf, and a mini printf that formats into a buffer. */
#include <stdarg.h>

#include "testlib.h"

static uint32_t sum_ints(int n, ...) {
  va_list ap;
  va_start(ap, n);
  uint32_t s = 0;
  for (int i = 0; i < n; i++) s = s * 3 + (uint32_t)va_arg(ap, int);
  va_end(ap);
  return s;
}

/* format letters: i = int, L = long long, d = double (bits summed), s = string, c = char */
static uint32_t mixed(const char* fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  uint32_t h = 0;
  for (const char* p = fmt; *p; p++) {
    switch (*p) {
      case 'i': h = h * 31 + (uint32_t)va_arg(ap, int); break;
      case 'L': { unsigned long long v = va_arg(ap, unsigned long long); h = h * 31 + (uint32_t)v + (uint32_t)(v >> 32) * 7; } break;
      case 'd': { double v = va_arg(ap, double); uint64_t b = d2u(v); h = h * 31 + (uint32_t)b + (uint32_t)(b >> 32) * 5; } break;
      case 's': { const char* s = va_arg(ap, const char*); while (*s) h = h * 31 + (uint8_t)*s++; } break;
      case 'c': h = h * 31 + (uint32_t)(char)va_arg(ap, int); break;
    }
  }
  /* walk the copy again: the first argument must match */
  uint32_t first = fmt[0] == 'i' ? (uint32_t)va_arg(ap2, int) : 0;
  va_end(ap2);
  va_end(ap);
  return h ^ first;
}

static int fmt_into(char* buf, size_t n, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(buf, n, fmt, ap);
  va_end(ap);
  return r;
}

static void tiny_printf(const char* fmt, ...) {
  char out[200];
  size_t o = 0;
  va_list ap;
  va_start(ap, fmt);
  for (const char* p = fmt; *p && o < sizeof out - 12; p++) {
    if (*p != '%') { out[o++] = *p; continue; }
    p++;
    if (*p == 'u') {
      char tmp[12];
      int k = 0;
      unsigned v = va_arg(ap, unsigned);
      do { tmp[k++] = (char)('0' + v % 10); v /= 10; } while (v);
      while (k) out[o++] = tmp[--k];
    } else if (*p == 'x') {
      unsigned v = va_arg(ap, unsigned);
      for (int sh = 28; sh >= 0; sh -= 4) out[o++] = "0123456789abcdef"[(v >> sh) & 15];
    } else if (*p == 's') {
      for (const char* s = va_arg(ap, const char*); *s && o < sizeof out - 12; s++) out[o++] = *s;
    } else out[o++] = *p;
  }
  va_end(ap);
  out[o] = 0;
  printf("tiny: %s\n", out);
  for (size_t i = 0; i < o; i++) mix((uint8_t)out[i]);
}

int main(void) {
  show("sum 3", sum_ints(3, 1, 2, 3));
  show("sum 12 (stack args)", sum_ints(12, -1, 2, -3, 4, -5, 6, -7, 8, -9, 10, -11, 12));
  show("sum 0", sum_ints(0));
  show("mixed 1", mixed("iLd", 7, 0x123456789abcdefull, 3.14159));
  show("mixed 2", mixed("diLiLsc", -2.5, 1, 0xffffffff00000001ull, 2, 5ull, "hello", 'z'));
  show("mixed 3", mixed("ididididid", 1, 1.0, 2, 2.0, 3, 3.0, 4, 4.0, 5, 5.5));
  show("mixed 4", mixed("LLLLL", 1ull, 2ull, 3ull, 4ull, 0x8000000000000000ull));
  char buf[100];
  int n = fmt_into(buf, sizeof buf, "%d|%u|%lld|%s|%c|%5.2s|%#x|%#o", -17, 3000000000u, -9000000000ll, "va", 'V',
                   "list", 255, 8);
  printf("vsnprintf: %s (%d)\n", buf, n);
  for (int i = 0; i < n; i++) mix((uint8_t)buf[i]);
  n = fmt_into(buf, 8, "%s", "truncated output");
  printf("vsnprintf small: %s (%d)\n", buf, n);
  mix((uint32_t)n);
  tiny_printf("u=%u x=%x s=%s pct=%%", 4294967295u, 0xc0ffeeu, "ok");
  return finish("varargs");
}

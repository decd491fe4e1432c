/* A Mandelbrot set rendered as ASCII art in single precision (fmul/fadd/fsub/flt in a tight
 * loop, with escape counts up to 200), then a zoomed-in region where rounding decides the
 * escape iteration; the picture itself is the output, so any FPU difference is visible. */
#include "testlib.h"

static int escape(float cr, float ci, int limit) {
  float zr = 0.0f, zi = 0.0f;
  int n = 0;
  while (n < limit) {
    float zr2 = zr * zr, zi2 = zi * zi;
    if (zr2 + zi2 > 4.0f) break;
    zi = 2.0f * zr * zi + ci;
    zr = zr2 - zi2 + cr;
    n++;
  }
  return n;
}

int main(void) {
  static const char shades[] = " .:-=+*#%@";
  uint32_t total = 0;
  for (int y = 0; y < 24; y++) {
    char line[72];
    for (int x = 0; x < 70; x++) {
      float cr = -2.2f + (float)x * (3.0f / 70.0f);
      float ci = -1.2f + (float)y * (2.4f / 24.0f);
      int n = escape(cr, ci, 200);
      total += (uint32_t)n;
      line[x] = n >= 200 ? '@' : shades[n % 9];
    }
    line[70] = 0;
    printf("|%s|\n", line);
    for (int x = 0; x < 70; x++) mix((uint8_t)line[x]);
  }
  show("total iterations", total);
  uint32_t h = 0;
  for (int y = 0; y < 40; y++)
    for (int x = 0; x < 40; x++) {
      float cr = -0.7453f + (float)x * 1e-5f, ci = 0.1127f + (float)y * 1e-5f;
      h = h * 31 + (uint32_t)escape(cr, ci, 1000);
    }
  show("zoom hash", h);
  return finish("mandelbrot");
}

/* Held-out ISS speed program (bench/iss-speed --held-out): integer loops, the Collatz
 * trajectory of every start below 120,000 (in 64-bit arithmetic), the longest one and the
 * total number of steps. Not part of the test suite. */
#include <stdint.h>
#include <stdio.h>

int main(void) {
  uint32_t best = 0, best_at = 0;
  uint64_t total = 0;
  for (uint32_t n = 1; n < 120000; n++) {
    uint64_t v = n;
    uint32_t steps = 0;
    while (v != 1) {
      v = v & 1 ? 3 * v + 1 : v >> 1;
      steps++;
    }
    total += steps;
    if (steps > best) best = steps, best_at = n;
  }
  printf("longest: %lu steps from %lu; %llu steps in all\n", (unsigned long)best, (unsigned long)best_at,
         (unsigned long long)total);
  return 0;
}

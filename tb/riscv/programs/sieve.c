/* Sieve of Eratosthenes below 2,000,000 over odd numbers only, in a 1,000,000-byte calloc'd
 * array (just under the runtime's 1 MiB heap): prime counts at powers of ten, the 64-bit sum of
 * the primes, twin primes, and the largest prime gap. */
#include <stdlib.h>

#include "testlib.h"

#define LIMIT 2000000u

int main(void) {
  uint32_t half = LIMIT / 2; /* index i represents 2i+1 */
  uint8_t* comp = calloc(half, 1);
  if (!comp) {
    printf("calloc failed\n");
    return 1;
  }
  for (uint32_t i = 1; (2 * i + 1) * (2 * i + 1) < LIMIT; i++)
    if (!comp[i])
      for (uint32_t j = (2 * i + 1) * (2 * i + 1) / 2; j < half; j += 2 * i + 1) comp[j] = 1;
  uint32_t count = 1, next_report = 10, twins = 0, gap = 0, gap_at = 0, prev = 2;
  uint64_t sum = 2;
  for (uint32_t i = 1; i < half; i++) {
    uint32_t p = 2 * i + 1;
    while (p > next_report) {
      printf("primes below %lu: %lu\n", (unsigned long)next_report, (unsigned long)count);
      mix(count);
      next_report *= 10;
    }
    if (comp[i]) continue;
    count++;
    sum += p;
    if (p - prev == 2) twins++;
    if (p - prev > gap) { gap = p - prev; gap_at = prev; }
    prev = p;
  }
  show("primes below 2e6", count);
  printf("sum of primes = %llu\n", (unsigned long long)sum);
  mix((uint32_t)sum); mix((uint32_t)(sum >> 32));
  show("twin pairs", twins);
  show("largest gap", gap);
  show("gap after", gap_at);
  show("largest prime", prev);
  free(comp);
  return finish("sieve");
}

/* Held-out ISS speed program (bench/iss-speed --held-out): deep recursion, naive Fibonacci
 * numbers 20 to 31 and Ackermann(2, n) for n up to 300. Not part of the test suite. */
#include <stdint.h>
#include <stdio.h>

static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static uint32_t ack(uint32_t m, uint32_t n) {
  if (m == 0) return n + 1;
  if (n == 0) return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}

int main(void) {
  for (uint32_t n = 20; n <= 31; n++) printf("fib(%lu) = %lu\n", (unsigned long)n, (unsigned long)fib(n));
  uint32_t sum = 0;
  for (uint32_t n = 0; n <= 300; n += 10) sum += ack(2, n);
  printf("sum of ack(2, n): %lu\n", (unsigned long)sum);
  return 0;
}

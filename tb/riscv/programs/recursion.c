/* Deep recursion on the stack: Ackermann A(2, n) and A(3, n) (recursion depth in the
 * thousands), naive recursive Fibonacci, a linear recursion 20000 frames deep with a local
 * array per frame (64-byte frames, about 1.3 MB of stack: fits the ISS's 2 MiB and qemu's),
 * mutual recursion 30000 deep, and Towers of Hanoi. Exercises call/return (jal/jalr/ra), sp
 * arithmetic and the compressed stack loads/stores GCC emits for prologues and epilogues. */
#include "testlib.h"

static uint32_t calls;

static uint32_t ack(uint32_t m, uint32_t n) {
  calls++;
  if (m == 0) return n + 1;
  if (n == 0) return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}

static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static uint32_t __attribute__((noinline)) deep(uint32_t n, uint32_t seed) {
  volatile uint32_t local[10];
  for (int i = 0; i < 10; i++) local[i] = seed * (uint32_t)(i + 1) + n;
  if (n == 0) return seed;
  uint32_t below = deep(n - 1, seed * 1103515245u + 12345u);
  uint32_t s = below;
  for (int i = 0; i < 10; i++) s = s * 31 + local[i];
  return s;
}

static int is_odd(uint32_t n);
static int __attribute__((noinline)) is_even(uint32_t n) { return n == 0 ? 1 : is_odd(n - 1); }
static int __attribute__((noinline)) is_odd(uint32_t n) { return n == 0 ? 0 : is_even(n - 1); }

static uint32_t moves, move_hash;
static void hanoi(int n, int from, int to, int via) {
  if (n == 0) return;
  hanoi(n - 1, from, via, to);
  moves++;
  move_hash = move_hash * 7 + (uint32_t)(from * 3 + to);
  hanoi(n - 1, via, to, from);
}

int main(void) {
  for (uint32_t n = 0; n <= 6; n++) {
    calls = 0;
    uint32_t r = ack(2, n);
    printf("ack(2,%lu) = %lu calls %lu\n", (unsigned long)n, (unsigned long)r, (unsigned long)calls);
    mix(r); mix(calls);
  }
  for (uint32_t n = 1; n <= 7; n++) {
    calls = 0;
    uint32_t r = ack(3, n);
    printf("ack(3,%lu) = %lu calls %lu\n", (unsigned long)n, (unsigned long)r, (unsigned long)calls);
    mix(r); mix(calls);
  }
  for (uint32_t n = 0; n <= 24; n += 4) {
    uint32_t r = fib(n);
    printf("fib(%lu) = %lu\n", (unsigned long)n, (unsigned long)r);
    mix(r);
  }
  show("deep(20000)", deep(20000, 1));
  show("is_even(30001)", (uint32_t)is_even(30001));
  show("is_even(30000)", (uint32_t)is_even(30000));
  hanoi(16, 0, 2, 1);
  show("hanoi moves", moves);
  show("hanoi hash", move_hash);
  return finish("recursion");
}

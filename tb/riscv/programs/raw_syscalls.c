/* The system-call interface itself, without stdio: ecall write (a7 = 64) to fd 1 returning the
 * byte count in a0, a zero-length write returning 0, a write of bytes that include NUL and
 * non-ASCII values, a write from a stack buffer, a 3000-byte write, and finally exit_group
 * (a7 = 94) called directly with status 42 instead of returning from main (nothing after it
 * may run). stdout is flushed before each raw write so the output order is deterministic. */
#include "testlib.h"

static long raw_write(int fd, const void* buf, unsigned long len) {
  register long a0 __asm__("a0") = fd;
  register long a1 __asm__("a1") = (long)buf;
  register long a2 __asm__("a2") = (long)len;
  register long a7 __asm__("a7") = 64;
  __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
  return a0;
}

static void __attribute__((noreturn)) raw_exit_group(int code) {
  register long a0 __asm__("a0") = code;
  register long a7 __asm__("a7") = 94;
  __asm__ volatile("ecall" ::"r"(a0), "r"(a7) : "memory");
  for (;;) {
  }
}

int main(void) {
  printf("before raw writes\n");
  fflush(stdout);
  static const char msg[] = "raw write line\n";
  long r = raw_write(1, msg, sizeof msg - 1);
  printf("write returned %ld\n", r);
  fflush(stdout);
  r = raw_write(1, msg, 0);
  printf("zero-length write returned %ld\n", r);
  fflush(stdout);
  static const char bin[] = {'b', 'i', 'n', ':', 0, 1, 2, (char)0x80, (char)0xff, '\n'};
  r = raw_write(1, bin, sizeof bin);
  printf("binary write returned %ld\n", r);
  fflush(stdout);
  /* a write from a buffer on the stack */
  char local[24];
  for (int i = 0; i < 23; i++) local[i] = (char)('A' + i);
  local[23] = '\n';
  r = raw_write(1, local, sizeof local);
  printf("stack write returned %ld\n", r);
  fflush(stdout);
  /* a long write from a static buffer */
  static char big[3000];
  for (int i = 0; i < 2999; i++) big[i] = (char)('a' + i % 26);
  big[2999] = '\n';
  r = raw_write(1, big, sizeof big);
  printf("big write returned %ld\n", r);
  printf("exiting through exit_group(42)\n");
  fflush(stdout);
  raw_exit_group(42);
}

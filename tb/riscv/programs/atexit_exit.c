/* Process exit paths through picolibc: a constructor run by crt0 (__libc_init_array) before
 * main, atexit handlers run in reverse registration order by exit(), exit() called from deep
 * inside nested calls with a specific status (0x3c), and output buffered at exit being
 * flushed (the last line has no newline before exit is called). */
#include <stdlib.h>

#include "testlib.h"

static volatile uint32_t ctor_value;

__attribute__((constructor)) static void early(void) { ctor_value = 0xc0ffee; }

static void bye1(void) { printf("atexit handler 1 (registered first, runs last)\n"); }
static void bye2(void) { printf("atexit handler 2\n"); }
static void bye3(void) { printf("atexit handler 3 (registered last, runs first)\n"); }

static void __attribute__((noinline, noreturn)) nested(int depth) {
  if (depth == 0) {
    printf("calling exit(0x3c) from depth 0; no newline here ->");
    exit(0x3c);
  }
  nested(depth - 1);
  __builtin_unreachable();
}

int main(void) {
  show("constructor ran", ctor_value);
  atexit(bye1);
  atexit(bye2);
  atexit(bye3);
  printf("in main\n");
  nested(50);
}

/* setjmp/longjmp (picolibc's RISC-V implementation saves ra, sp, s0-s11 and, with the F
 * extension, fs0-fs11): returning 0 then the passed value (0 becomes 1), unwinding through
 * several recursive frames, callee-saved integer and float values surviving the jump, nested
 * jump buffers, and a loop of 1000 jumps that must not leak stack. */
#include <setjmp.h>

#include "testlib.h"

static jmp_buf env, env2;
static volatile int depth_reached;

static void __attribute__((noinline)) dive(int depth, int target) {
  volatile char pad[64];
  pad[0] = (char)depth;
  depth_reached = depth + pad[0] - pad[0];
  if (depth == target) longjmp(env, depth);
  if (depth > 100000) return;
  dive(depth + 1, target);
}

static void __attribute__((noinline)) jump_zero(void) { longjmp(env2, 0); }

int main(void) {
  volatile int stage = 0;
  int r = setjmp(env);
  if (r == 0) {
    stage = 1;
    show("first return", (uint32_t)r);
    dive(0, 500);
    show("not reached", 1);
  }
  show("longjmp value", (uint32_t)r);
  show("depth reached", (uint32_t)depth_reached);
  show("stage preserved", (uint32_t)stage);

  volatile int zero_seen = 0;
  if ((r = setjmp(env2)) == 0) jump_zero();
  zero_seen = r;
  show("longjmp(0) gives", (uint32_t)zero_seen);

  /* values in callee-saved registers across the jump: register locals not modified after setjmp */
  register uint32_t keep1 = 0x11223344u + (uint32_t)stage;
  register float keepf = 2.5f * (float)stage;
  volatile uint32_t counter = 0;
  if (setjmp(env) < 3) {
    counter++;
    if (counter < 3) longjmp(env, (int)counter);
  }
  show("counter", counter);
  show("keep1", keep1);
  show("keepf", f2u(keepf));

  /* many jumps: stack pointer must be restored each time */
  volatile uint32_t loops = 0;
  volatile uint32_t acc = 0;
  int v = setjmp(env);
  acc = acc * 31 + (uint32_t)v;
  if (loops < 1000) {
    loops++;
    dive(0, (int)(loops % 17));
  }
  show("loops", loops);
  show("acc", acc);
  return finish("setjmp_longjmp");
}

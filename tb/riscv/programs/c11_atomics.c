/* C11 <stdatomic.h> on rv32imafc: fetch_add/sub/and/or/xor, exchange, compare_exchange strong
 * and weak (success and failure, with the expected value written back), atomic_flag (a byte
 * test-and-set, which GCC builds from a masked amoor.w), fences, and 8/16-bit fetch-add written
 * by hand as masked lr.w/sc.w loops on the containing word (GCC 12 would call libatomic). */
#include <stdatomic.h>
#include <stdbool.h>

#include "testlib.h"

static _Atomic uint32_t a32;
static _Atomic int32_t s32;
static volatile uint32_t sub_word __attribute__((aligned(4)));

/* Atomically adds `inc` to the `bits`-wide field at bit offset `shift` of *w; returns the old field. */
static uint32_t masked_fetch_add(volatile uint32_t* w, unsigned shift, unsigned bits, uint32_t inc) {
  uint32_t mask = (bits == 32 ? 0xffffffffu : ((1u << bits) - 1)) << shift;
  uint32_t old, tmp, rc;
  __asm__ volatile(
      "1: lr.w %0, (%3)\n"
      "   add %1, %0, %4\n"
      "   xor %1, %1, %0\n"
      "   and %1, %1, %5\n"
      "   xor %1, %1, %0\n"
      "   sc.w %2, %1, (%3)\n"
      "   bnez %2, 1b\n"
      : "=&r"(old), "=&r"(tmp), "=&r"(rc)
      : "r"(w), "r"(inc << shift), "r"(mask)
      : "memory");
  return (old & mask) >> shift;
}
static atomic_flag flag = ATOMIC_FLAG_INIT;

int main(void) {
  atomic_store(&a32, 100);
  show("fetch_add", atomic_fetch_add(&a32, 5));
  show("fetch_sub", atomic_fetch_sub(&a32, 200));
  show("fetch_and", atomic_fetch_and(&a32, 0xff00ff00u));
  show("fetch_or", atomic_fetch_or(&a32, 0x0f0f0f0fu));
  show("fetch_xor", atomic_fetch_xor(&a32, 0xffffffffu));
  show("exchange", atomic_exchange(&a32, 0x55aa55aau));
  show("load", atomic_load_explicit(&a32, memory_order_acquire));

  uint32_t expected = 0x55aa55aau;
  bool ok = atomic_compare_exchange_strong(&a32, &expected, 7u);
  show("cas strong ok", ok);
  show("cas strong expected", expected);
  expected = 1234;
  ok = atomic_compare_exchange_strong(&a32, &expected, 9u);
  show("cas strong fail", ok);
  show("cas strong fail expected", expected);
  expected = 7;
  int tries = 0;
  while (!atomic_compare_exchange_weak(&a32, &expected, 8u)) tries++;
  show("cas weak value", atomic_load(&a32));
  show("cas weak tries<10", tries < 10);

  atomic_store(&s32, -5);
  int32_t m = atomic_fetch_add_explicit(&s32, -10, memory_order_relaxed);
  show("signed old", (uint32_t)m);
  show("signed new", (uint32_t)atomic_load(&s32));

  sub_word = 0xf0e0d0c0u;
  for (unsigned i = 0; i < 4; i++) show("u8 fetch_add", masked_fetch_add(&sub_word, 8 * i, 8, 0x25));
  show("u8 word", sub_word);
  show("u16 fetch_add lo", masked_fetch_add(&sub_word, 0, 16, 0xfff0));
  show("u16 fetch_add hi", masked_fetch_add(&sub_word, 16, 16, 0x1234));
  show("u16 word", sub_word);

  show("flag first", atomic_flag_test_and_set(&flag));
  show("flag second", atomic_flag_test_and_set(&flag));
  atomic_flag_clear(&flag);
  show("flag cleared", atomic_flag_test_and_set(&flag));

  atomic_thread_fence(memory_order_seq_cst);
  atomic_signal_fence(memory_order_acq_rel);

  uint32_t acc = 0;
  for (uint32_t k = 0; k < 3000; k++) acc ^= atomic_fetch_add(&a32, k * 2654435761u);
  show("loop acc", acc);
  show("loop final", atomic_load(&a32));
  return finish("c11_atomics");
}

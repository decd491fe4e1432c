/* Switch statements that GCC compiles to jump tables (dense cases, with defaults and gaps,
 * a table indexed from a negative base, and a char classifier), a sparse switch (compare tree),
 * and a state machine parsing a string of tokens — all indirect jumps through tables in
 * .rodata (lw + jr with rodata addressing). */
#include "testlib.h"

static uint32_t __attribute__((noinline)) dense(uint32_t x) {
  switch (x) {
    case 0: return 0x11;
    case 1: return 0x2203;
    case 2: return x * 77;
    case 3: return 0x4444;
    case 4: return ~x;
    case 5: return x << 20;
    case 6: return 0x66;
    case 7: return 0x7777777;
    case 9: return 999;
    case 10: return x ^ 0xa5a5;
    case 11: return 0xb;
    case 12: return 12 * 12;
    case 13: return 0xdead;
    case 14: return 14;
    case 15: return 0xffff0000;
    default: return 0xdef0 + x;
  }
}

static int32_t __attribute__((noinline)) negbase(int32_t x) {
  switch (x) {
    case -5: return 50;
    case -4: return 40;
    case -3: return 30;
    case -2: return 20;
    case -1: return 10;
    case 0: return 0;
    case 1: return -10;
    case 2: return -20;
    case 3: return -30;
    default: return 12345;
  }
}

static const char* __attribute__((noinline)) classify(char c) {
  switch (c) {
    case 'a': case 'e': case 'i': case 'o': case 'u': return "vowel";
    case 'b': case 'c': case 'd': case 'f': case 'g': case 'h': case 'j': case 'k': case 'l': case 'm':
    case 'n': case 'p': case 'q': case 'r': case 's': case 't': case 'v': case 'w': case 'x': case 'y':
    case 'z': return "consonant";
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9': return "digit";
    case ' ': case '\t': case '\n': return "space";
    default: return "other";
  }
}

static uint32_t __attribute__((noinline)) sparse(uint32_t x) {
  switch (x) {
    case 1: return 1;
    case 100: return 2;
    case 1000: return 3;
    case 65536: return 4;
    case 0x80000000u: return 5;
    case 0xffffffffu: return 6;
    case 12345678: return 7;
    default: return 0;
  }
}

/* a token state machine: counts numbers, words, and operators */
static void scan(const char* s, uint32_t* nums, uint32_t* words, uint32_t* ops, uint32_t* value_sum) {
  enum { START, NUM, WORD } st = START;
  uint32_t v = 0;
  for (;; s++) {
    char c = *s;
    switch (st) {
      case START:
        if (c >= '0' && c <= '9') { st = NUM; v = (uint32_t)(c - '0'); }
        else if ((c >= 'a' && c <= 'z') || c == '_') st = WORD;
        else if (c == '+' || c == '-' || c == '*' || c == '/') (*ops)++;
        break;
      case NUM:
        if (c >= '0' && c <= '9') v = v * 10 + (uint32_t)(c - '0');
        else { (*nums)++; *value_sum += v; st = START; s--; continue; }
        break;
      case WORD:
        if (!((c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9'))) { (*words)++; st = START; s--; continue; }
        break;
    }
    if (!c) break;
  }
}

int main(void) {
  for (uint32_t x = 0; x < 20; x++) {
    uint32_t r = dense(x);
    printf("dense(%lu) = %08lx\n", (unsigned long)x, (unsigned long)r);
    mix(r);
  }
  show("dense(big)", dense(0x80000000u));
  for (int32_t x = -7; x <= 5; x++) mix((uint32_t)negbase(x));
  show("negbase(-5)", (uint32_t)negbase(-5));
  show("negbase(3)", (uint32_t)negbase(3));
  show("negbase(-6)", (uint32_t)negbase(-6));
  const char* text = "Hello, RISC-V world 2024!\tok";
  for (const char* p = text; *p; p++) {
    const char* k = classify(*p);
    printf("%c:%s ", *p == '\t' ? 'T' : *p, k);
    mix((uint32_t)strlen(k) * 256u + (uint8_t)*p);
  }
  printf("\n");
  static const uint32_t sp[] = {0, 1, 100, 1000, 65536, 0x80000000u, 0xffffffffu, 12345678, 99};
  for (unsigned i = 0; i < sizeof sp / sizeof sp[0]; i++) mix(sparse(sp[i]));
  show("sparse(65536)", sparse(65536));
  uint32_t nums = 0, words = 0, ops = 0, vs = 0;
  scan("x1 = 42 + foo_bar * 7 - 1000 / y2 + 3", &nums, &words, &ops, &vs);
  show("nums", nums);
  show("words", words);
  show("ops", ops);
  show("value sum", vs);
  /* a switch in a loop: a jump-table-driven checksum */
  uint32_t acc = 0;
  for (uint32_t k = 0; k < 100000; k++) acc = acc * 3 + dense(k & 31);
  show("loop", acc);
  return finish("jumptable");
}

/* A tiny stack-machine interpreter (switch dispatch in a hot loop, plus a second copy using
 * GCC computed goto) running three bytecode programs: iterative Fibonacci, a prime counter with
 * division, and a nested-loop checksum. Both dispatchers must agree. Exercises indirect jumps,
 * dense switch tables and unpredictable branches. */
#include "testlib.h"

enum { PUSH, POP, DUP, SWAP, OVER, ADD, SUB, MUL, DIV, MOD, LT, EQ, JMP, JZ, JNZ, LOAD, STORE, PRINT, HALT, XOR, SHL, INC, NOP };

static const char* const names[] = {"push", "pop", "dup", "swap", "over", "add", "sub", "mul", "div", "mod", "lt",
                                    "eq", "jmp", "jz", "jnz", "load", "store", "print", "halt", "xor", "shl", "inc", "nop"};

static int32_t out_log[64];
static int out_n;

static int32_t run_switch(const int32_t* code, uint32_t* steps) {
  int32_t stack[64], vars[8] = {0};
  int sp = 0, pc = 0;
  uint32_t n = 0;
  for (;;) {
    n++;
    int32_t op = code[pc++];
    switch (op) {
      case PUSH: stack[sp++] = code[pc++]; break;
      case POP: sp--; break;
      case DUP: stack[sp] = stack[sp - 1]; sp++; break;
      case SWAP: { int32_t t = stack[sp - 1]; stack[sp - 1] = stack[sp - 2]; stack[sp - 2] = t; } break;
      case OVER: stack[sp] = stack[sp - 2]; sp++; break;
      case ADD: sp--; stack[sp - 1] = (int32_t)((uint32_t)stack[sp - 1] + (uint32_t)stack[sp]); break;
      case SUB: sp--; stack[sp - 1] = (int32_t)((uint32_t)stack[sp - 1] - (uint32_t)stack[sp]); break;
      case MUL: sp--; stack[sp - 1] = (int32_t)((uint32_t)stack[sp - 1] * (uint32_t)stack[sp]); break;
      case DIV: sp--; stack[sp - 1] = stack[sp] ? stack[sp - 1] / stack[sp] : -1; break;
      case MOD: sp--; stack[sp - 1] = stack[sp] ? stack[sp - 1] % stack[sp] : stack[sp - 1]; break;
      case LT: sp--; stack[sp - 1] = stack[sp - 1] < stack[sp]; break;
      case EQ: sp--; stack[sp - 1] = stack[sp - 1] == stack[sp]; break;
      case JMP: pc = code[pc]; break;
      case JZ: pc = stack[--sp] == 0 ? code[pc] : pc + 1; break;
      case JNZ: pc = stack[--sp] != 0 ? code[pc] : pc + 1; break;
      case LOAD: stack[sp++] = vars[code[pc++]]; break;
      case STORE: vars[code[pc++]] = stack[--sp]; break;
      case PRINT: if (out_n < 64) out_log[out_n++] = stack[sp - 1]; break;
      case HALT: *steps = n; return sp ? stack[sp - 1] : 0;
      case XOR: sp--; stack[sp - 1] ^= stack[sp]; break;
      case SHL: sp--; stack[sp - 1] = (int32_t)((uint32_t)stack[sp - 1] << (stack[sp] & 31)); break;
      case INC: vars[code[pc]]++; pc++; break;
      case NOP: break;
      default: *steps = n; return -999;
    }
  }
}

static int32_t run_goto(const int32_t* code, uint32_t* steps) {
  static const void* const labels[] = {&&l_push, &&l_pop, &&l_dup, &&l_swap, &&l_over, &&l_add, &&l_sub, &&l_mul,
                                       &&l_div, &&l_mod, &&l_lt, &&l_eq, &&l_jmp, &&l_jz, &&l_jnz, &&l_load,
                                       &&l_store, &&l_print, &&l_halt, &&l_xor, &&l_shl, &&l_inc, &&l_nop};
  int32_t stack[64], vars[8] = {0};
  int sp = 0, pc = 0;
  uint32_t n = 0;
#define NEXT do { n++; goto *labels[code[pc++]]; } while (0)
  NEXT;
l_push: stack[sp++] = code[pc++]; NEXT;
l_pop: sp--; NEXT;
l_dup: stack[sp] = stack[sp - 1]; sp++; NEXT;
l_swap: { int32_t t = stack[sp - 1]; stack[sp - 1] = stack[sp - 2]; stack[sp - 2] = t; } NEXT;
l_over: stack[sp] = stack[sp - 2]; sp++; NEXT;
l_add: sp--; stack[sp - 1] = (int32_t)((uint32_t)stack[sp - 1] + (uint32_t)stack[sp]); NEXT;
l_sub: sp--; stack[sp - 1] = (int32_t)((uint32_t)stack[sp - 1] - (uint32_t)stack[sp]); NEXT;
l_mul: sp--; stack[sp - 1] = (int32_t)((uint32_t)stack[sp - 1] * (uint32_t)stack[sp]); NEXT;
l_div: sp--; stack[sp - 1] = stack[sp] ? stack[sp - 1] / stack[sp] : -1; NEXT;
l_mod: sp--; stack[sp - 1] = stack[sp] ? stack[sp - 1] % stack[sp] : stack[sp - 1]; NEXT;
l_lt: sp--; stack[sp - 1] = stack[sp - 1] < stack[sp]; NEXT;
l_eq: sp--; stack[sp - 1] = stack[sp - 1] == stack[sp]; NEXT;
l_jmp: pc = code[pc]; NEXT;
l_jz: pc = stack[--sp] == 0 ? code[pc] : pc + 1; NEXT;
l_jnz: pc = stack[--sp] != 0 ? code[pc] : pc + 1; NEXT;
l_load: stack[sp++] = vars[code[pc++]]; NEXT;
l_store: vars[code[pc++]] = stack[--sp]; NEXT;
l_print: NEXT;
l_xor: sp--; stack[sp - 1] ^= stack[sp]; NEXT;
l_shl: sp--; stack[sp - 1] = (int32_t)((uint32_t)stack[sp - 1] << (stack[sp] & 31)); NEXT;
l_inc: vars[code[pc]]++; pc++; NEXT;
l_nop: NEXT;
l_halt: *steps = n; return sp ? stack[sp - 1] : 0;
#undef NEXT
}

/* Source programs use LABEL n pseudo-ops and label numbers as jump operands; assemble()
 * strips the labels and patches the jump targets. */
enum { LABEL = 100, END = 101 };
static int has_operand(int32_t op) {
  return op == PUSH || op == JMP || op == JZ || op == JNZ || op == LOAD || op == STORE || op == INC || op == LABEL;
}
static int assemble(const int32_t* src, int32_t* out) {
  int32_t where[16];
  int n = 0;
  for (int i = 0; src[i] != END; i += 1 + has_operand(src[i])) {
    if (src[i] == LABEL) where[src[i + 1]] = n;
    else n += 1 + has_operand(src[i]);
  }
  n = 0;
  for (int i = 0; src[i] != END; i += 1 + has_operand(src[i])) {
    if (src[i] == LABEL) continue;
    out[n++] = src[i];
    if (has_operand(src[i])) out[n++] = (src[i] == JMP || src[i] == JZ || src[i] == JNZ) ? where[src[i + 1]] : src[i + 1];
  }
  return n;
}

/* fib: a = 0, b = 1; repeat 40 times: (a, b) = (b, a + b); result a */
static const int32_t prog_fib[] = {
    PUSH, 0, STORE, 0, PUSH, 1, STORE, 1, PUSH, 40, STORE, 2,
    LABEL, 0, LOAD, 2, JZ, 1,
    LOAD, 0, LOAD, 1, DUP, STORE, 0, ADD, STORE, 1, LOAD, 2, PUSH, 1, SUB, STORE, 2, JMP, 0,
    LABEL, 1, LOAD, 0, PRINT, HALT, END};

/* count the primes below 600 by trial division */
static const int32_t prog_primes[] = {
    PUSH, 2, STORE, 0, PUSH, 0, STORE, 3,
    LABEL, 0, LOAD, 0, PUSH, 600, LT, JZ, 4,
    PUSH, 2, STORE, 1,
    LABEL, 1, LOAD, 0, LOAD, 1, LOAD, 1, MUL, LT, JNZ, 2, /* d*d > n: prime */
    LOAD, 0, LOAD, 1, MOD, JZ, 3,                         /* divisible: not prime */
    INC, 1, JMP, 1,
    LABEL, 2, INC, 3, NOP, NOP,
    LABEL, 3, INC, 0, JMP, 0,
    LABEL, 4, LOAD, 3, PRINT, HALT, END};

/* nested loops: h = ((h ^ (i * j)) << 1) + i */
static const int32_t prog_nested[] = {
    PUSH, 0, STORE, 0, PUSH, 7, STORE, 2,
    LABEL, 0, LOAD, 0, PUSH, 50, LT, JZ, 3,
    PUSH, 0, STORE, 1,
    LABEL, 1, LOAD, 1, PUSH, 50, LT, JZ, 2,
    LOAD, 2, LOAD, 0, LOAD, 1, MUL, XOR, PUSH, 1, SHL, LOAD, 0, ADD, STORE, 2, INC, 1, JMP, 1,
    LABEL, 2, INC, 0, JMP, 0,
    LABEL, 3, LOAD, 2, PRINT, HALT, END};

int main(void) {
  const int32_t* progs[] = {prog_fib, prog_primes, prog_nested};
  const char* pnames[] = {"fib", "primes", "nested"};
  for (int p = 0; p < 3; p++) {
    static int32_t code[256];
    int len = assemble(progs[p], code);
    uint32_t s1 = 0, s2 = 0;
    int32_t r1 = run_switch(code, &s1);
    int32_t r2 = run_goto(code, &s2);
    printf("%s: %d words\n", pnames[p], len);
    printf("%s: switch %ld (%lu steps) goto %ld (%lu steps) first op %s\n", pnames[p], (long)r1, (unsigned long)s1,
           (long)r2, (unsigned long)s2, names[code[0]]);
    mix((uint32_t)r1); mix(s1); mix((uint32_t)(r1 == r2)); mix((uint32_t)(s1 == s2));
  }
  for (int i = 0; i < out_n; i++) printf("printed %ld\n", (long)out_log[i]);
  return finish("interp");
}

/*
 * RISC-V (rv32imafc, ilp32f) probe for fpu_qemu_test.cpp, run under qemu-riscv32: reads records
 * {op, rm, a, b, c} (five little-endian uint32) from stdin, executes the F-extension instruction
 * `op` with fcsr.frm = rm (dynamic rounding) and writes {result, fflags} for each to stdout.
 * Freestanding: no libc, Linux system calls only. Built by the test itself (it is not a .cpp, so
 * the test CMake glob ignores it).
 */
typedef unsigned int u32;

static long sys3(long n, long a, long b, long c) {
  register long a0 asm("a0") = a;
  register long a1 asm("a1") = b;
  register long a2 asm("a2") = c;
  register long a7 asm("a7") = n;
  asm volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
  return a0;
}

#define F3(insn) asm volatile(insn " %0, %1, %2, dyn" : "=f"(fr) : "f"(fa), "f"(fb))
#define F2(insn) asm volatile(insn " %0, %1, %2" : "=f"(fr) : "f"(fa), "f"(fb))
#define F4(insn) asm volatile(insn " %0, %1, %2, %3, dyn" : "=f"(fr) : "f"(fa), "f"(fb), "f"(fc))
#define I2(insn) asm volatile(insn " %0, %1, %2" : "=r"(r) : "f"(fa), "f"(fb))

static void run(const u32* in, u32* out) {
  u32 op = in[0], r = 0, flags;
  float fa, fb, fc, fr = 0;
  int int_result = 0;
  asm volatile("fmv.w.x %0, %1" : "=f"(fa) : "r"(in[2]));
  asm volatile("fmv.w.x %0, %1" : "=f"(fb) : "r"(in[3]));
  asm volatile("fmv.w.x %0, %1" : "=f"(fc) : "r"(in[4]));
  asm volatile("fsrm %0" : : "r"(in[1]));
  asm volatile("fsflags zero");
  switch (op) {
    case 0: F3("fadd.s"); break;
    case 1: F3("fsub.s"); break;
    case 2: F3("fmul.s"); break;
    case 3: F3("fdiv.s"); break;
    case 4: asm volatile("fsqrt.s %0, %1, dyn" : "=f"(fr) : "f"(fa)); break;
    case 5: F4("fmadd.s"); break;
    case 6: F4("fmsub.s"); break;
    case 7: F4("fnmsub.s"); break;
    case 8: F4("fnmadd.s"); break;
    case 9: F2("fmin.s"); break;
    case 10: F2("fmax.s"); break;
    case 11: I2("feq.s"); int_result = 1; break;
    case 12: I2("flt.s"); int_result = 1; break;
    case 13: I2("fle.s"); int_result = 1; break;
    case 14: asm volatile("fclass.s %0, %1" : "=r"(r) : "f"(fa)); int_result = 1; break;
    case 15: asm volatile("fcvt.w.s %0, %1, dyn" : "=r"(r) : "f"(fa)); int_result = 1; break;
    case 16: asm volatile("fcvt.wu.s %0, %1, dyn" : "=r"(r) : "f"(fa)); int_result = 1; break;
    case 17: asm volatile("fcvt.s.w %0, %1, dyn" : "=f"(fr) : "r"(in[2])); break;
    case 18: asm volatile("fcvt.s.wu %0, %1, dyn" : "=f"(fr) : "r"(in[2])); break;
    default: break;
  }
  asm volatile("frflags %0" : "=r"(flags));
  if (!int_result) asm volatile("fmv.x.w %0, %1" : "=r"(r) : "f"(fr));
  out[0] = r;
  out[1] = flags;
}

enum { kBatch = 1024 };
static u32 in_buf[kBatch * 5], out_buf[kBatch * 2];

void _start(void) {
  for (;;) {
    long got = 0;
    while (got < (long)sizeof in_buf) {
      long n = sys3(63, 0, (long)((char*)in_buf + got), (long)sizeof in_buf - got);  /* read */
      if (n <= 0) break;
      got += n;
    }
    long records = got / 20;
    for (long i = 0; i < records; ++i) run(in_buf + 5 * i, out_buf + 2 * i);
    for (long done = 0; done < records * 8;) {
      long n = sys3(64, 1, (long)((char*)out_buf + done), records * 8 - done);  /* write */
      if (n <= 0) break;
      done += n;
    }
    if (got < (long)sizeof in_buf) break;
  }
  sys3(93, 0, 0, 0);  /* exit(0) */
  for (;;) {
  }
}

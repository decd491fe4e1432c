/*
 * Program entry for the ISS differential-test programs (see link.ld for the memory layout).
 * The environment has already set sp (qemu-riscv32: its Linux stack; flaresim iss: 0x7FFFFFF0)
 * and enabled the FPU (fcsr = 0). The loader has zeroed .bss, so nothing is cleared here.
 * _start: set gp and tp (picolibc's errno is thread-local), run constructors, call
 * main(0, NULL), then exit(main's value): exit() runs atexit handlers and ends in _exit()
 * (syscalls.c), which flushes stdout and makes the Linux exit system call (a7 = 93).
 */
	.section .text.init.enter, "ax", @progbits
	.globl	_start
	.type	_start, @function
_start:
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop
	la	tp, __tls_base
	andi	sp, sp, -16
	call	__libc_init_array
	li	a0, 0
	li	a1, 0
	call	main
	call	exit
	/* exit() does not return; if it ever did, end here anyway. */
1:	li	a7, 93
	ecall
	j	1b
	.size	_start, . - _start

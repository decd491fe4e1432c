/*
 * Hand-written assembly main: every RV32I computational instruction applied to each pair of a
 * table of operands, once in a .option norvc block (all 32-bit encodings) and once in a
 * .option rvc block (where the assembler may pick 16-bit forms), with each result printed via
 * printf and folded into a checksum; the two blocks must agree. Also jal/jalr link values
 * (as differences), lui/auipc, and fence/fence.i executed as no-ops. Exit code: checksum & 0x7f.
 */
	.section .rodata
fmt_pair:	.string "%08lx %08lx:"
fmt_val:	.string " %08lx"
fmt_nl:		.string "\n"
fmt_sum:	.string "rv32i_asm checksum 0x%08lx agree %ld link %ld %ld\n"
	.balign 4
operands:
	.word 0x00000000, 0x00000001, 0x7fffffff, 0x80000000, 0xffffffff, 0x0000001f, 0x00000020, 0xdeadbeef
operands_end:

	.bss
	.balign 4
res_a:	.space 4 * 32
res_b:	.space 4 * 32

	.text
	.globl main
	.type main, @function

/* compute_X(a4 = x, a5 = y, a2 = out): 24 results; X = norvc / rvc (same source text). The
 * two-address forms "mv a0, a4; OP a0, a0, a5" and "sw a0, N(a2)" use x8..x15 registers, so
 * in the rvc copy the assembler turns them into c.mv, c.add, c.sub, c.xor, c.or, c.and, c.addi,
 * c.slli, c.srli, c.srai, c.andi, c.li and c.sw. */
.macro BODY
	add	a0, a4, a5;  sw a0, 0(a2)
	sub	a0, a4, a5;  sw a0, 4(a2)
	sll	a0, a4, a5;  sw a0, 8(a2)
	slt	a0, a4, a5;  sw a0, 12(a2)
	sltu	a0, a4, a5;  sw a0, 16(a2)
	srl	a0, a4, a5;  sw a0, 20(a2)
	sra	a0, a4, a5;  sw a0, 24(a2)
	slti	a0, a4, 1;   sw a0, 28(a2)
	sltiu	a0, a4, -1;  sw a0, 32(a2)
	xori	a0, a4, 0x555; sw a0, 36(a2)
	ori	a0, a4, -16; sw a0, 40(a2)
	mv	a0, a4; sub a0, a0, a5; sw a0, 44(a2)
	mv	a0, a4; xor a0, a0, a5; sw a0, 48(a2)
	mv	a0, a4; or a0, a0, a5;  sw a0, 52(a2)
	mv	a0, a4; and a0, a0, a5; sw a0, 56(a2)
	mv	a0, a4; add a0, a0, a5; sw a0, 60(a2)
	mv	a0, a4; addi a0, a0, -32; sw a0, 64(a2)
	mv	a0, a4; slli a0, a0, 31; sw a0, 68(a2)
	mv	a0, a4; srli a0, a0, 7; sw a0, 72(a2)
	mv	a0, a4; srai a0, a0, 31; sw a0, 76(a2)
	mv	a0, a4; andi a0, a0, -31; sw a0, 80(a2)
	mv	a0, a4; andi a0, a0, 0x7f0; sw a0, 84(a2)
	li	a0, -32; add a0, a0, a4; sw a0, 88(a2)
	lui	a0, 0xfffe0; add a0, a0, a5; sw a0, 92(a2)
	ret
.endm

	.option push
	.option norvc
compute_norvc:
	BODY
	.option pop

	.option push
	.option rvc
compute_rvc:
	BODY
	.option pop

main:
	addi	sp, sp, -48
	sw	ra, 44(sp)
	sw	s0, 40(sp)
	sw	s1, 36(sp)
	sw	s2, 32(sp)
	sw	s3, 28(sp)
	sw	s4, 24(sp)
	sw	s5, 20(sp)
	sw	s6, 16(sp)
	li	s0, 0x811c9dc5		/* checksum */
	li	s5, 1			/* agree flag */
	la	s1, operands		/* x pointer */
1:	la	s2, operands		/* y pointer */
2:	lw	a4, 0(s1)
	lw	a5, 0(s2)
	la	a2, res_a
	call	compute_norvc
	lw	a4, 0(s1)
	lw	a5, 0(s2)
	la	a2, res_b
	call	compute_rvc
	la	a0, fmt_pair
	lw	a1, 0(s1)
	lw	a2, 0(s2)
	call	printf
	li	s3, 0			/* index */
3:	la	t0, res_a
	add	t0, t0, s3
	lw	a1, 0(t0)
	la	t1, res_b
	add	t1, t1, s3
	lw	t2, 0(t1)
	beq	a1, t2, 4f
	li	s5, 0
4:	xor	s0, s0, a1		/* checksum = (checksum ^ v) * 16777619 */
	li	t3, 16777619
	mul	s0, s0, t3
	la	a0, fmt_val
	call	printf
	addi	s3, s3, 4
	li	t0, 96
	bltu	s3, t0, 3b
	la	a0, fmt_nl
	call	printf
	addi	s2, s2, 4
	la	t0, operands_end
	bne	s2, t0, 2b
	addi	s1, s1, 4
	bne	s1, t0, 1b

	/* link values: jal and jalr write pc+4 (32-bit) or pc+2 (compressed) */
	.option push
	.option norvc
5:	jal	t0, 6f
6:	auipc	t1, 0
	sub	s4, t1, t0		/* 0: t0 = address of 6: */
	la	t2, 7f
	jalr	t3, 0(t2)
7:	la	t4, 7b
	sub	s6, t4, t3		/* 0 */
	fence
	fence	rw, rw
	.word 0x0000100f		/* fence.i (Zifencei is not in -march) */
	.option pop
	lui	t0, 0xabcde
	xor	s0, s0, t0

	la	a0, fmt_sum
	mv	a1, s0
	mv	a2, s5
	mv	a3, s4
	mv	a4, s6
	call	printf
	andi	a0, s0, 0x7f
	lw	ra, 44(sp)
	lw	s0, 40(sp)
	lw	s1, 36(sp)
	lw	s2, 32(sp)
	lw	s3, 28(sp)
	lw	s4, 24(sp)
	lw	s5, 20(sp)
	lw	s6, 16(sp)
	addi	sp, sp, 48
	ret
	.size main, . - main

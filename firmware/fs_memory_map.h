/* The memory map an HPU sees when it runs a handler on the instruction-set simulator, shared by
 * the RISC-V firmware and the simulator's ISS engine (sc_model/pspin/runtime_registers.cpp,
 * handler_program.cpp).
 *
 *   0x10000000  this cluster's L1 state area (local, single-cycle)
 *   0x1A000000  the HPU's runtime registers (MMIO: its command interface, exit, info)
 *   0x1B000000  the HPU's L1 packet slot (the packet copied by the cluster DMA): a frame from
 *               0x1B000000 + FS_PKT_FRAME_OFFSET (fs_handler.h), so its IPv4 header is at
 *               0x1B000010; a timer's event from 0x1B000000
 *   0x1B100000  the HPU's stack (in L1); the handler arguments sit at its top
 *   0x1C000000  L2 handler memory, shared by all clusters
 *   0x1D000000  program memory: handler code and read-only data
 *   0x20000000 + c * 0x00200000  cluster c's L1 state area (remote unless c is this cluster)
 */
#ifndef FS_MEMORY_MAP_H
#define FS_MEMORY_MAP_H

#define FS_L1_LOCAL_BASE 0x10000000u
#define FS_MMIO_BASE 0x1A000000u
#define FS_PKT_SLOT_BASE 0x1B000000u
#define FS_STACK_BASE 0x1B100000u
#define FS_L2_HANDLER_BASE 0x1C000000u
#define FS_PROGRAM_BASE 0x1D000000u
#define FS_L1_GLOBAL_BASE 0x20000000u
#define FS_L1_GLOBAL_STRIDE 0x00200000u
#define FS_MAX_CLUSTERS 1792u /* 0x20000000 + 1792 * 2 MiB ends at 2^32 */

/* Runtime registers (32-bit) at FS_MMIO_BASE: the HPU's command interface, shaped as PsPIN's
 * (docs/ISS.md, "The runtime registers"). A call of the handler API (handlers/include/fs_api.def,
 * which names each call's registers) stores its arguments in the registers, stores its command
 * into a command register (CMD_TYPE, or DMA_CMD for DMA copies) and loads an issue register
 * (CMD_ISSUE, DMA_ISSUE): the load carries the call out and returns its result, 0 or -1 (bad
 * argument); it takes longer when the call waits (a DMA copy until it is done, a command for a
 * free command slot). Every access costs command.register_cycles more than an L1 access.
 * Registers below FS_REG_INFO are written by the handler (issue registers excepted); from
 * FS_REG_INFO on they are read-only. */
#define FS_REG_CMD_ADDR 0x00u      /* frame or data address */
#define FS_REG_CMD_LEN 0x04u       /* bytes */
#define FS_REG_CMD_PORT 0x08u      /* port (send, host write) */
#define FS_REG_CMD_PORTS 0x0Cu     /* address of a uint32_t port list (multicast) */
#define FS_REG_CMD_NPORTS 0x10u    /* ports in the list */
#define FS_REG_CMD_HOST_LO 0x14u   /* host address, low word (host write) */
#define FS_REG_CMD_HOST_HI 0x18u   /* host address, high word */
#define FS_REG_CMD_TYPE 0x1Cu      /* write: 1 send, 2 multicast, 3 host write, 4 log line, 5/6 timer arm/cancel, 7 next hop */
#define FS_REG_CMD_ISSUE 0x20u     /* read: issues the command in CMD_TYPE; its result */
#define FS_REG_EXIT 0x24u          /* write: the handler's return code; the handler ends */
#define FS_REG_DMA_DST 0x28u       /* DMA copy: destination address */
#define FS_REG_DMA_SRC 0x2Cu       /* DMA copy: source address */
#define FS_REG_DMA_LEN 0x30u       /* DMA copy: bytes */
#define FS_REG_DMA_CMD 0x34u       /* write FS_DMA_COPY */
#define FS_REG_DMA_ISSUE 0x38u     /* read: copies; the load completes when the copy is done; 0, or -1 if refused */
#define FS_REG_ROUTE_ISSUE 0x3Cu   /* read: the next hop of CMD_ADDR (CMD_TYPE 7): a port, or -1 */
#define FS_REG_INFO 0x40u          /* the read-only registers start here */
#define FS_REG_NUM_CLUSTERS 0x40u  /* read */
#define FS_REG_L1_STATE_SIZE 0x44u /* read: bytes of each cluster's L1 state area */
#define FS_REG_CLUSTER_ID 0x48u    /* read */
#define FS_REG_HPU_ID 0x4Cu        /* read */

#define FS_CMD_SEND 1u
#define FS_CMD_MULTICAST 2u
#define FS_CMD_HOST_WRITE 3u
#define FS_CMD_LOG 4u
#define FS_CMD_TIMER_ARM 5u
#define FS_CMD_TIMER_CANCEL 6u
#define FS_CMD_NEXT_HOP 7u
#define FS_DMA_COPY 1u

/* The handler's arguments (fs_handler_args_t) as the RV32 handler sees them, at the top of its
 * stack: the same fields in the same order (one list, FS_HANDLER_ARGS in fs_handler.h), every
 * pointer a 32-bit address in this memory map. The firmware checks at compile time, on RV32,
 * that the two layouts agree (firmware/fs_api.c); the ISS engine writes this struct. */
#ifndef __ASSEMBLER__
#include <stdint.h>

#include "fs_handler.h"

typedef struct fs_handler_args_rv32 {
#define FS_RV32_PTR_(type, name) uint32_t name;
#define FS_RV32_U32_(name) uint32_t name;
  FS_HANDLER_ARGS(FS_RV32_PTR_, FS_RV32_U32_)
#undef FS_RV32_PTR_
#undef FS_RV32_U32_
} fs_handler_args_rv32_t;
#endif

#endif /* FS_MEMORY_MAP_H */

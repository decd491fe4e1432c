/* The memory map an HPU sees when it runs a handler on the instruction-set simulator, shared by
 * the RISC-V firmware and the simulator's ISS engine (sc_model/pspin/iss_engine.cpp).
 *
 *   0x10000000  this cluster's L1 state area (local, single-cycle)
 *   0x1A000000  the HPU's runtime registers (MMIO: commands to the command unit, exit, info)
 *   0x1B000000  the HPU's L1 packet slot (the packet copied by the cluster DMA)
 *   0x1B100000  the HPU's stack (in L1); the handler arguments sit at its top
 *   0x1C000000  L2 handler memory, shared by all clusters
 *   0x1D000000  program memory: handler code and read-only data
 *   0x20000000 + c * 0x01000000  cluster c's L1 state area (remote unless c is this cluster)
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
#define FS_L1_GLOBAL_STRIDE 0x01000000u
#define FS_MAX_CLUSTERS 224u /* 0x20000000 + 224 * 16 MiB stays below 0x2E000000 */

/* Runtime registers (32-bit) at FS_MMIO_BASE. A command is set up in the CMD_* registers and
 * issued by writing its kind to CMD_ISSUE; reading CMD_STATUS gives 0 or -1 (bad argument). */
#define FS_REG_CMD_ADDR 0x00u      /* frame or data address */
#define FS_REG_CMD_LEN 0x04u       /* bytes */
#define FS_REG_CMD_PORT 0x08u      /* port (send, host write) */
#define FS_REG_CMD_PORTS 0x0Cu     /* address of a uint32_t port list (multicast) */
#define FS_REG_CMD_NPORTS 0x10u    /* ports in the list */
#define FS_REG_CMD_HOST_LO 0x14u   /* host address, low word (host write) */
#define FS_REG_CMD_HOST_HI 0x18u   /* host address, high word */
#define FS_REG_CMD_ISSUE 0x1Cu     /* write: 1 send, 2 multicast, 3 host write */
#define FS_REG_CMD_STATUS 0x20u    /* read: result of the last issue */
#define FS_REG_EXIT 0x24u          /* write: the handler's return code; the handler ends */
#define FS_REG_DMA_DST 0x28u       /* DMA copy: destination address */
#define FS_REG_DMA_SRC 0x2Cu       /* DMA copy: source address */
#define FS_REG_DMA_LEN 0x30u       /* DMA copy: bytes */
#define FS_REG_DMA_GO 0x34u        /* write: copy now; the store completes when the copy is done */
#define FS_REG_DMA_STATUS 0x38u    /* read: 0, or -1 if the last copy was refused */
#define FS_REG_NUM_CLUSTERS 0x40u  /* read */
#define FS_REG_L1_STATE_SIZE 0x44u /* read: bytes of each cluster's L1 state area */
#define FS_REG_CLUSTER_ID 0x48u    /* read */
#define FS_REG_HPU_ID 0x4Cu        /* read */

#define FS_CMD_SEND 1u
#define FS_CMD_MULTICAST 2u
#define FS_CMD_HOST_WRITE 3u

#endif /* FS_MEMORY_MAP_H */

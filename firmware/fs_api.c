/* The handler API (handlers/include/fs_handler.h) for the RISC-V HPU: every call is a few
 * stores to the HPU's runtime registers (firmware/fs_memory_map.h), which the simulator's
 * command unit carries out. */
#include <stdint.h>

#include "fs_handler.h"
#include "fs_memory_map.h"

#define REG(off) (*(volatile uint32_t*)(uintptr_t)(FS_MMIO_BASE + (off)))

int fs_send(const void* frame, uint32_t len, uint32_t port) {
  REG(FS_REG_CMD_ADDR) = (uint32_t)(uintptr_t)frame;
  REG(FS_REG_CMD_LEN) = len;
  REG(FS_REG_CMD_PORT) = port;
  REG(FS_REG_CMD_ISSUE) = FS_CMD_SEND;
  return (int)REG(FS_REG_CMD_STATUS);
}

int fs_multicast(const void* frame, uint32_t len, const uint32_t* ports, uint32_t nports) {
  REG(FS_REG_CMD_ADDR) = (uint32_t)(uintptr_t)frame;
  REG(FS_REG_CMD_LEN) = len;
  REG(FS_REG_CMD_PORTS) = (uint32_t)(uintptr_t)ports;
  REG(FS_REG_CMD_NPORTS) = nports;
  REG(FS_REG_CMD_ISSUE) = FS_CMD_MULTICAST;
  return (int)REG(FS_REG_CMD_STATUS);
}

int fs_host_write(uint32_t port, uint64_t addr, const void* data, uint32_t len) {
  REG(FS_REG_CMD_ADDR) = (uint32_t)(uintptr_t)data;
  REG(FS_REG_CMD_LEN) = len;
  REG(FS_REG_CMD_PORT) = port;
  REG(FS_REG_CMD_HOST_LO) = (uint32_t)addr;
  REG(FS_REG_CMD_HOST_HI) = (uint32_t)(addr >> 32);
  REG(FS_REG_CMD_ISSUE) = FS_CMD_HOST_WRITE;
  return (int)REG(FS_REG_CMD_STATUS);
}

uint8_t* fs_cluster_l1(uint32_t cluster_id, uint32_t* size) {
  if (cluster_id >= REG(FS_REG_NUM_CLUSTERS)) return 0;
  if (size) *size = REG(FS_REG_L1_STATE_SIZE);
  return (uint8_t*)(uintptr_t)(FS_L1_GLOBAL_BASE + cluster_id * FS_L1_GLOBAL_STRIDE);
}

int fs_dma_copy(void* dst, const void* src, uint32_t len) {
  REG(FS_REG_DMA_DST) = (uint32_t)(uintptr_t)dst;
  REG(FS_REG_DMA_SRC) = (uint32_t)(uintptr_t)src;
  REG(FS_REG_DMA_LEN) = len;
  REG(FS_REG_DMA_GO) = 1;
  return (int)REG(FS_REG_DMA_STATUS);
}

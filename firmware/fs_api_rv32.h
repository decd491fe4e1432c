/* The handler API's device calls (handlers/include/fs_api.def) for the RISC-V HPU, inlined into
 * the handler as PsPIN's runtime inlines its commands (spcl/pspin sw/runtime/include/handler.h):
 * each call is a command-register sequence generated from its row, a store per argument word to
 * the HPU's runtime registers (firmware/fs_memory_map.h), a store of its command to the command
 * register and a load of the issue register, which the simulator carries out
 * (sc_model/pspin/runtime_registers.cpp) and which returns the call's result. fs_handler.h
 * includes this file on RISC-V in place of the calls' prototypes. The local calls are inlined
 * too, answered from the read-only runtime registers: PsPIN's runtime finds a cluster's L1 by
 * address arithmetic, not by a call. */
#ifndef FS_API_RV32_H
#define FS_API_RV32_H

#include <stdint.h>

#include "fs_api_wire.h"
#include "fs_memory_map.h"

#define FS_RV32_REG_(off) (*(volatile uint32_t*)(uintptr_t)(FS_MMIO_BASE + (off)))

/* One wire item: its stores. */
#define FS_RV32_STORE_(...) FS_API_KIND(FS_RV32_STORE_, __VA_ARGS__)
#define FS_RV32_STORE_U32(reg, name) FS_RV32_REG_(reg) = (uint32_t)(name);
#define FS_RV32_STORE_U64(lo, hi, name) \
  FS_RV32_REG_(lo) = (uint32_t)(name);  \
  FS_RV32_REG_(hi) = (uint32_t)((name) >> 32);
#define FS_RV32_STORE_IN(reg, type, name, bytes) FS_RV32_REG_(reg) = (uint32_t)(uintptr_t)(name);
#define FS_RV32_STORE_OUT FS_RV32_STORE_IN

/* The call reads memory through its IN pointers (the frame to send, the DMA's source) and writes
 * it through its OUT pointers (the DMA's destination), which the compiler cannot see from the
 * register stores. An empty asm per pointer says so, as the host build's function call does: the
 * handler's stores to what it reads reach memory before the call, and its loads of what it writes
 * come after it. (The object: the call's `bytes` from the pointer on.) */
#define FS_RV32_BEFORE_(...) FS_API_KIND(FS_RV32_BEFORE_, __VA_ARGS__)
#define FS_RV32_BEFORE_U32(reg, name)
#define FS_RV32_BEFORE_U64(lo, hi, name)
#define FS_RV32_BEFORE_IN(reg, type, name, bytes) \
  __asm__ volatile("" : : "m"(*(const char(*)[bytes])(const void*)(name)));
#define FS_RV32_BEFORE_OUT(reg, type, name, bytes) \
  __asm__ volatile("" : "+m"(*(char(*)[bytes])(void*)(name)));
#define FS_RV32_AFTER_(...) FS_API_KIND(FS_RV32_AFTER_, __VA_ARGS__)
#define FS_RV32_AFTER_U32(reg, name)
#define FS_RV32_AFTER_U64(lo, hi, name)
#define FS_RV32_AFTER_IN(reg, type, name, bytes)
#define FS_RV32_AFTER_OUT FS_RV32_BEFORE_OUT
#define FS_API_DEVICE(name, ret, params, args, doc, cmd_reg, command, issue, gate, ...) \
  static inline __attribute__((always_inline)) ret fs_##name params {                  \
    ret result_;                                                                       \
    FS_API_EACH(FS_RV32_BEFORE_, __VA_ARGS__)                                          \
    FS_API_EACH(FS_RV32_STORE_, __VA_ARGS__)                                           \
    FS_RV32_REG_(cmd_reg) = (command);                                                 \
    result_ = (ret)FS_RV32_REG_(issue);                                                \
    FS_API_EACH(FS_RV32_AFTER_, __VA_ARGS__)                                           \
    return result_;                                                                    \
  }
/* The bodies of the local calls. */
static inline __attribute__((always_inline)) uint8_t* fs_local_cluster_l1(uint32_t cluster_id, uint32_t* size) {
  if (cluster_id >= FS_RV32_REG_(FS_REG_NUM_CLUSTERS)) return 0;
  if (size) *size = FS_RV32_REG_(FS_REG_L1_STATE_SIZE);
  return (uint8_t*)(uintptr_t)(FS_L1_GLOBAL_BASE + cluster_id * FS_L1_GLOBAL_STRIDE);
}
#define FS_API_LOCAL(name, ret, params, args, doc) \
  static inline __attribute__((always_inline)) ret fs_##name params { return fs_local_##name args; }
#define FS_API_HELPER(...)
#include "fs_api.def"
#undef FS_API_DEVICE
#undef FS_API_LOCAL
#undef FS_API_HELPER

#endif /* FS_API_RV32_H */

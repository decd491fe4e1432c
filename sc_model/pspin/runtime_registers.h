// An HPU's runtime registers on the ISS (firmware/fs_memory_map.h): the handler API's front end
// on the RISC-V side, its command interface, as the command unit is its back end. A call's
// inlined command-register sequence (firmware/fs_api_rv32.h) stores its arguments in the
// registers and its command in a command register, then loads an issue register; this device
// decodes the call on that load (generated from handlers/include/fs_api.def): it reads the
// arguments, checks every guest pointer against the HPU's memory map and turns it into a host
// pointer, calls the run's HandlerApi, tells other cores of the memory a call wrote, and returns
// the result as the loaded value (and the cycles the call makes the HPU wait, a DMA copy's or a
// command's for a free slot, as the load's). It also answers the read-only registers (ids,
// sizes) and takes the handler's exit code.
#pragma once
#include <cstdint>
#include <functional>

#include "iss/memory.h"
#include "iss/reservations.h"
#include "iss/cpu.h"
#include "pspin/handler_api.h"

namespace fs {

class RuntimeRegisters : public iss::MmioDevice {
 public:
  struct Ids {
    uint32_t cluster_id = 0, hpu_id = 0, num_clusters = 0;
    uint32_t l1_state = 0;  // bytes of the handler set's L1 state area in each cluster
  };
  // `mem`: the core's address space, which guest pointers must fall in.
  RuntimeRegisters(const iss::AddressSpace& mem, const Ids& ids, iss::Reservations* reservations,
                   iss::StoreWatch* watch)
      : mem_(mem), ids_(ids), reservations_(reservations), watch_(watch) {}

  // A run starts: the registers are cleared and calls go to `api`; `cycle` tells the PsPIN
  // cycle of the access being made.
  void begin(HandlerApi* api, std::function<uint64_t()> cycle);
  void end() { api_ = nullptr; }
  // Whether the handler wrote the EXIT register, and what.
  bool exited() const { return exited_; }
  int exit_code() const { return exit_code_; }

  Result read(uint32_t off, unsigned size, uint32_t& v, uint32_t& busy) override;
  Result write(uint32_t off, unsigned size, uint32_t v, uint32_t& busy) override;
  bool reaches_switch(uint32_t off, bool store) const override;
  // Every call: each acts on the switch, the log or memory beyond the core.
  bool calls_out(uint32_t off, bool store) const override { return !store && issue_register(off); }

 private:
  struct Call;
  static const Call kCalls[];
  static const Call* issue_register(uint32_t off);  // a call with this issue register, or nullptr
  uint32_t word(uint32_t off) const { return reg_[off / 4]; }
  void stored(const iss::MemRegion* r, uint8_t* host, uint32_t bytes);
  // One decoder per device call of fs_api.def: returns its result.
#define FS_API_DEVICE(name, ...) uint32_t call_##name();
#define FS_API_LOCAL(...)
#define FS_API_HELPER(...)
#include "fs_api.def"
#undef FS_API_DEVICE
#undef FS_API_LOCAL
#undef FS_API_HELPER

  const iss::AddressSpace& mem_;
  Ids ids_;
  iss::Reservations* reservations_;
  iss::StoreWatch* watch_;
  HandlerApi* api_ = nullptr;
  std::function<uint64_t()> cycle_;
  uint32_t reg_[0x40] = {};  // by word offset
  bool exited_ = false;
  int exit_code_ = 0;
};

}  // namespace fs

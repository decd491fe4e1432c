// The runtime registers' decoding of handler API calls (see runtime_registers.h); every decoder
// is generated from its row of handlers/include/fs_api.def.
#include "pspin/runtime_registers.h"

#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "fs_memory_map.h"

namespace fs {
namespace {

// A guest pointer argument of type P to `bytes` bytes: the host bytes it reaches, or not ok()
// if they are not all in one memory region (a device, or read-only for a call that writes, is
// refused too). No bytes: any address will do. A typed array that is misaligned on the host is
// read from an aligned copy.
template <class T>
constexpr size_t align_of() {
  if constexpr (std::is_void_v<T>)
    return 1;
  else
    return alignof(T);
}

template <class P>
class GuestBytes {
  using Elem = std::remove_const_t<std::remove_pointer_t<P>>;
  static constexpr size_t kAlign = align_of<Elem>();

 public:
  GuestBytes(const iss::AddressSpace& mem, uint32_t addr, uint64_t bytes, bool write) {
    if (bytes == 0) {
      ok_ = true;
      return;
    }
    if (bytes > std::numeric_limits<uint32_t>::max()) return;
    region_ = mem.find(addr, uint32_t(bytes));
    if (!region_ || region_->mmio || (write && !region_->writable)) return;
    host_ = region_->host + (addr - region_->base);
    bytes_ = uint32_t(bytes);
    ok_ = true;
    if constexpr (kAlign > 1) {
      if (reinterpret_cast<uintptr_t>(host_) % kAlign) {
        if (write) {  // an OUT pointer is written in place: refused where it cannot be
          ok_ = false;
          return;
        }
        copy_.resize((bytes_ + sizeof(Elem) - 1) / sizeof(Elem));
        std::memcpy(copy_.data(), host_, bytes_);
      }
    }
  }
  bool ok() const { return ok_; }
  P get() {
    void* p = copy_.empty() ? static_cast<void*>(host_) : static_cast<void*>(copy_.data());
    return static_cast<P>(p);
  }
  const iss::MemRegion* region() const { return region_; }
  uint8_t* host() const { return host_; }
  uint32_t size() const { return bytes_; }

 private:
  bool ok_ = false;
  const iss::MemRegion* region_ = nullptr;
  uint8_t* host_ = nullptr;
  uint32_t bytes_ = 0;
  std::vector<std::conditional_t<std::is_void_v<Elem>, uint8_t, Elem>> copy_;
};

}  // namespace

// The device calls of fs_api.def: their registers and decoders.
struct RuntimeRegisters::Call {
  uint32_t cmd_reg, command, issue;
  bool gate;
  uint32_t (RuntimeRegisters::*decode)();
};

#define FS_API_DEVICE(name, ret, params, args, doc, cmd_reg, command, issue, gate, ...) \
  {cmd_reg, command, issue, gate != 0, &RuntimeRegisters::call_##name},
#define FS_API_LOCAL(...)
#define FS_API_HELPER(...)
const RuntimeRegisters::Call RuntimeRegisters::kCalls[] = {
#include "fs_api.def"
};
#undef FS_API_DEVICE

// Calls that share an issue register share its command register and its gate; an issue
// register is no call's command register, and the command tells the calls of one apart.
static constexpr bool issue_registers_agree() {
  struct Row { uint32_t cmd_reg, command, issue; bool gate; };
#define FS_API_DEVICE(name, ret, params, args, doc, cmd_reg, command, issue, gate, ...) {cmd_reg, command, issue, gate != 0},
  constexpr Row rows[] = {
#include "fs_api.def"
  };
#undef FS_API_DEVICE
  for (const Row& a : rows)
    for (const Row& b : rows) {
      if (a.issue == b.cmd_reg) return false;
      if (&a != &b && a.issue == b.issue && (a.cmd_reg != b.cmd_reg || a.gate != b.gate || a.command == b.command))
        return false;
    }
  return true;
}
static_assert(issue_registers_agree(),
              "fs_api.def: calls that share an issue register must share its command register and gate, with "
              "commands of their own");
#undef FS_API_LOCAL
#undef FS_API_HELPER

// Decoders: the arguments as the call's sequence stored them, then every pointer checked and translated,
// then the call, then other cores told of what it wrote.
#define FS_RAW(...) FS_API_KIND(FS_RAW_, __VA_ARGS__)
#define FS_RAW_U32(reg, name) const uint32_t name = word(reg);
#define FS_RAW_U64(lo, hi, name) const uint64_t name = uint64_t(word(hi)) << 32 | word(lo);
#define FS_RAW_IN(reg, type, name, nbytes) const uint32_t name##_guest = word(reg);
#define FS_RAW_OUT FS_RAW_IN
#define FS_PTR(...) FS_API_KIND(FS_PTR_, __VA_ARGS__)
#define FS_PTR_U32(...)
#define FS_PTR_U64(...)
#define FS_PTR_ANY_(type, name, nbytes, write)                                  \
  GuestBytes<type> name##_span(mem_, name##_guest, uint64_t(nbytes), write); \
  if (!name##_span.ok()) return uint32_t(-1);                               \
  type name = name##_span.get();
#define FS_PTR_IN(reg, type, name, nbytes) FS_PTR_ANY_(type, name, nbytes, false)
#define FS_PTR_OUT(reg, type, name, nbytes) FS_PTR_ANY_(type, name, nbytes, true)
#define FS_AFTER(...) FS_API_KIND(FS_AFTER_, __VA_ARGS__)
#define FS_AFTER_U32(...)
#define FS_AFTER_U64(...)
#define FS_AFTER_IN(...)
#define FS_AFTER_OUT(reg, type, name, nbytes) stored(name##_span.region(), name##_span.host(), name##_span.size());
#define FS_API_DEVICE(name, ret, params, args, doc, cmd_reg, command, issue, gate, ...) \
  uint32_t RuntimeRegisters::call_##name() {                                          \
    FS_API_EACH(FS_RAW, __VA_ARGS__)                                                  \
    FS_API_EACH(FS_PTR, __VA_ARGS__)                                                  \
    const uint32_t result = uint32_t(api_->name args);                                \
    FS_API_EACH(FS_AFTER, __VA_ARGS__)                                                \
    return result;                                                                    \
  }
#define FS_API_LOCAL(...)
#define FS_API_HELPER(...)
#include "fs_api.def"
#undef FS_API_DEVICE
#undef FS_API_LOCAL
#undef FS_API_HELPER

void RuntimeRegisters::begin(HandlerApi* api, std::function<uint64_t()> cycle) {
  api_ = api;
  cycle_ = std::move(cycle);
  exited_ = false;
  exit_code_ = 0;
  std::fill(std::begin(reg_), std::end(reg_), 0u);
}

// Memory a call wrote (a DMA copy's destination): cores sharing it lose their reservations of
// it, and spinners on it wake.
void RuntimeRegisters::stored(const iss::MemRegion* r, uint8_t* host, uint32_t bytes) {
  if (!r || !r->sharing) return;
  reservations_->stored(nullptr, host, bytes);
  if (watch_ && watch_->armed) watch_->stored(host, bytes, cycle_());
}

const RuntimeRegisters::Call* RuntimeRegisters::issue_register(uint32_t off) {
  for (const Call& c : kCalls)
    if (c.issue == off) return &c;
  return nullptr;
}

// The load of an issue register carries out the call whose command is in the command register
// (-1 if none is) and returns its result; the load takes as long as the call makes the HPU wait.
iss::MmioDevice::Result RuntimeRegisters::read(uint32_t off, unsigned size, uint32_t& v, uint32_t& busy) {
  if (size != 4 || (off & 3)) return Result::kFault;
  switch (off) {
    case FS_REG_NUM_CLUSTERS: v = ids_.num_clusters; return Result::kOk;
    case FS_REG_L1_STATE_SIZE: v = ids_.l1_state; return Result::kOk;
    case FS_REG_CLUSTER_ID: v = ids_.cluster_id; return Result::kOk;
    case FS_REG_HPU_ID: v = ids_.hpu_id; return Result::kOk;
    default: break;
  }
  if (const Call* any = issue_register(off)) {
    v = uint32_t(-1);
    for (const Call& c : kCalls)
      if (c.issue == off && c.command == word(any->cmd_reg)) {
        v = (this->*(c.decode))();
        busy = uint32_t(api_->take_wait_cycles());
      }
    return Result::kOk;
  }
  if (off < sizeof(reg_)) {
    v = reg_[off / 4];
    return Result::kOk;
  }
  return Result::kFault;
}

bool RuntimeRegisters::reaches_switch(uint32_t off, bool store) const {
  const Call* c = store ? nullptr : issue_register(off);
  return c && c->gate;
}

iss::MmioDevice::Result RuntimeRegisters::write(uint32_t off, unsigned size, uint32_t v, uint32_t&) {
  if (size != 4 || (off & 3) || off >= FS_REG_INFO || issue_register(off)) return Result::kFault;
  if (off == FS_REG_EXIT) {
    exit_code_ = int(int32_t(v));
    exited_ = true;
    return Result::kHalt;
  }
  reg_[off / 4] = v;
  return Result::kOk;
}

}  // namespace fs

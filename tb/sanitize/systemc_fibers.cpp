// The sanitizer build's coroutines for SystemC's threads (scripts/test --sanitize, docs/TESTING.md).
//
// Debian's libsystemc switches SC_THREAD stacks with QuickThreads, which AddressSanitizer cannot
// see: once a thread has run, an exception thrown on the main stack (any error after the
// simulation started) makes ASan unpoison a "stack" that spans two unrelated mappings, and it
// aborts in its own code. This file replaces the four entry points of SystemC's coroutine package
// (sc_core::sc_cor_pkg_qt's create, yield, abort and get_main, which libsystemc calls only
// through the package's vtable) with ucontext coroutines whose every switch is announced to ASan
// (__sanitizer_start_switch_fiber before, __sanitizer_finish_switch_fiber after). The
// executable's definitions take the vtable's slots because the dynamic linker resolves them in
// the executable first (the symbols are exported: CMakeLists.txt, FLARESIM_SANITIZE).
//
// Each thread's stack is mapped with a guard page below it and is four times what SystemC asks
// for (ASan's redzones make frames larger); LeakSanitizer scans it as a root region, since objects
// of a thread stopped mid-way (an interrupted run) are held only there. The switches call libc's
// swapcontext itself: ASan's interceptor of it only warns (on stderr, which the end-to-end tests
// read) that it cannot follow the switch, which the annotations already do. Only one simulation
// context runs at a time, on the process's main thread, as everywhere in flaresim.
#include <dlfcn.h>
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <systemc>
#include <sysc/kernel/sc_cor.h>

namespace {

struct Fiber : sc_core::sc_cor {
  ucontext_t context{};
  char* mapping = nullptr;  // guard page, then the stack
  size_t mapping_bytes = 0;
  void* fake_stack = nullptr;  // ASan's slot while the fiber is switched out
  sc_core::sc_cor_fn* fn = nullptr;
  void* arg = nullptr;

  ~Fiber() override {
    if (!mapping) return;
    __lsan_unregister_root_region(mapping + page(), mapping_bytes - page());
    munmap(mapping, mapping_bytes);
  }
  const void* stack_bottom() const { return mapping ? mapping + page() : main_bottom; }
  size_t stack_bytes() const { return mapping ? mapping_bytes - page() : main_bytes; }

  static size_t page() { return size_t(sysconf(_SC_PAGESIZE)); }
  // The main thread's stack, as ASan reports it when the first fiber starts.
  static inline const void* main_bottom = nullptr;
  static inline size_t main_bytes = 0;
};

Fiber g_main;
Fiber* g_current = &g_main;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "flaresim sanitizer build: %s\n", what);
  std::abort();
}

// libc's swapcontext, not the sanitizer runtime's interceptor that comes first in symbol lookup.
int libc_swapcontext(ucontext_t* save, const ucontext_t* next) {
  using Swap = int (*)(ucontext_t*, const ucontext_t*);
  static const Swap swap = [] {
    void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    void* f = libc ? dlsym(libc, "swapcontext") : nullptr;
    if (!f) fail("cannot find libc's swapcontext");
    return reinterpret_cast<Swap>(f);
  }();
  return swap(save, next);
}

void fiber_main() {
  const void* from_bottom = nullptr;
  size_t from_bytes = 0;
  __sanitizer_finish_switch_fiber(nullptr, &from_bottom, &from_bytes);
  if (!Fiber::main_bottom) {  // the first switch of all leaves the main stack
    Fiber::main_bottom = from_bottom;
    Fiber::main_bytes = from_bytes;
  }
  g_current->fn(g_current->arg);
  fail("a SystemC thread's coroutine function returned");  // it ends with abort() instead
}

// Switches from the running fiber to `next`; with `ending`, the running fiber never runs again.
void switch_to(Fiber* next, bool ending) {
  Fiber* self = g_current;
  g_current = next;
  __sanitizer_start_switch_fiber(ending ? nullptr : &self->fake_stack, next->stack_bottom(), next->stack_bytes());
  if (ending) {
    setcontext(&next->context);
    fail("setcontext failed");
  }
  if (libc_swapcontext(&self->context, &next->context) != 0) fail("swapcontext failed");
  __sanitizer_finish_switch_fiber(self->fake_stack, nullptr, nullptr);
}

}  // namespace

// The package's member functions, by their mangled names (`self`, the package, is not needed).
extern "C++" {
sc_core::sc_cor* fs_fiber_create(void* self, size_t stack_size, sc_core::sc_cor_fn* fn, void* arg) asm(
    "_ZN7sc_core13sc_cor_pkg_qt6createEmPFvPvES1_");
void fs_fiber_yield(void* self, sc_core::sc_cor* next) asm("_ZN7sc_core13sc_cor_pkg_qt5yieldEPNS_6sc_corE");
void fs_fiber_abort(void* self, sc_core::sc_cor* next) asm("_ZN7sc_core13sc_cor_pkg_qt5abortEPNS_6sc_corE");
sc_core::sc_cor* fs_fiber_get_main(void* self) asm("_ZN7sc_core13sc_cor_pkg_qt8get_mainEv");
}

sc_core::sc_cor* fs_fiber_create(void*, size_t stack_size, sc_core::sc_cor_fn* fn, void* arg) {
  auto* f = new Fiber;
  const size_t page = Fiber::page();
  f->mapping_bytes = page + (4 * stack_size + page - 1) / page * page;
  void* m = mmap(nullptr, f->mapping_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) fail("cannot map a SystemC thread's stack");
  f->mapping = static_cast<char*>(m);
  mprotect(f->mapping, page, PROT_NONE);  // an overflow faults here
  __lsan_register_root_region(f->mapping + page, f->mapping_bytes - page);
  f->fn = fn;
  f->arg = arg;
  if (getcontext(&f->context) != 0) fail("getcontext failed");
  f->context.uc_stack.ss_sp = f->mapping + page;
  f->context.uc_stack.ss_size = f->mapping_bytes - page;
  f->context.uc_link = nullptr;
  makecontext(&f->context, fiber_main, 0);
  return f;
}

void fs_fiber_yield(void*, sc_core::sc_cor* next) { switch_to(static_cast<Fiber*>(next), false); }
void fs_fiber_abort(void*, sc_core::sc_cor* next) { switch_to(static_cast<Fiber*>(next), true); }
sc_core::sc_cor* fs_fiber_get_main(void*) { return &g_main; }

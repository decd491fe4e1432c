// The sanitizer builds (FLARESIM_SANITIZE, FS_SANITIZE=address; tb/sanitize/): SystemC's
// coroutine package is the one ASan can follow, and an exception thrown on the main stack after
// SystemC threads ran, the path that aborted inside ASan with Debian's QuickThreads package, is
// caught normally. In the normal build this file has no tests.
#if defined(FLARESIM_SANITIZE) || defined(FS_ASAN_RUNTIME)
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <systemc>

namespace fs {
namespace {

TEST(SanitizerBuild, SystemcCoroutinesAreTheAnnotatedOnes) {
  for (const char* symbol : {"_ZN7sc_core13sc_cor_pkg_qt6createEmPFvPvES1_", "_ZN7sc_core13sc_cor_pkg_qt5yieldEPNS_6sc_corE",
                             "_ZN7sc_core13sc_cor_pkg_qt5abortEPNS_6sc_corE", "_ZN7sc_core13sc_cor_pkg_qt8get_mainEv"}) {
    void* f = dlsym(RTLD_DEFAULT, symbol);
    ASSERT_NE(f, nullptr) << symbol;
    Dl_info info{};
    ASSERT_NE(dladdr(f, &info), 0) << symbol;
    EXPECT_EQ(std::strstr(info.dli_fname, "libsystemc"), nullptr) << symbol << " resolves into " << info.dli_fname;
  }
}

SC_MODULE(Thrower) {
  int rounds = 0;
  SC_CTOR(Thrower) { SC_THREAD(run); }
  void run() {
    for (; rounds < 3; ++rounds) wait(sc_core::sc_time(1, sc_core::SC_NS));
    throw std::runtime_error("from a SystemC thread");
  }
};

TEST(SanitizerBuild, AnExceptionFromAThreadReachesTheMainStack) {
  Thrower t("thrower");
  std::string caught;
  try {
    sc_core::sc_start();
  } catch (const std::exception& e) {
    caught = e.what();
  }
  EXPECT_EQ(t.rounds, 3);
  // SystemC hands it on as an sc_report whose message includes the original one.
  EXPECT_NE(caught.find("from a SystemC thread"), std::string::npos) << caught;
  // And again from the main stack, after the threads' stacks were switched many times.
  EXPECT_THROW(throw std::logic_error("main"), std::logic_error);
}

}  // namespace
}  // namespace fs
#endif

// What every fuzzing harness of tb/fuzz/ holds the code under test to: bad input is answered
// with an fs::InputError (or, for a program that runs, an fs::SimError naming its fault), never
// with a crash, a hang, a sanitizer report or another exception; and what is accepted satisfies
// the harness's invariants (FUZZ_CHECK). Anything else aborts, which libFuzzer records as a
// finding and the corpus replay (ctest -L fuzz) reports as a failed test.
#pragma once
#include <cstdio>
#include <cstdlib>

#include "common/errors.h"

#define FUZZ_CHECK(cond)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)

namespace fs::fuzz {

// Runs `f`; an InputError is a correct answer to bad input. Returns true if `f` accepted it.
template <typename F>
bool accepts(F&& f) {
  try {
    f();
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace fs::fuzz

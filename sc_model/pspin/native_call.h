// The guarded native call: how the simulator runs a C handler compiled into it (native HPUs,
// pspin/native_engine.cpp; the host unit-test harness, tb/blocks/handler_harness.h), so that a
// handler that would crash or hang the simulator ends its run with a fault, as it would on the
// ISS, and the fault follows hpu.on_fault like the ISS's (pspin/retire.h).
//
// One mechanism stops a run from the outside: the handler runs inside sigsetjmp, and a signal
// handler leaves it with siglongjmp, with why and where recorded.
//  - Memory faults (SIGSEGV, SIGBUS) in the handler's code: the guard pages around every simulated
//    memory (common/guarded_memory.h) make an access just past or before one trap; so does any
//    other bad address. The fault names the access (load, store or fetch, from the x86-64 page
//    fault's error code), the address as an offset into the memory it missed, and the host pc as
//    a function and source line (common/host_code.h); a fault inside the C library (a memcpy the
//    handler called) names the handler's call of it too.
//  - The watchdog: a run longer than hpu.native_watchdog_ms of wall time. A thread of the
//    simulator's watches the calls in flight and sends the handler's thread a real-time signal
//    when one passes its bound; the run stops where it was (its pc named the same way). Wall
//    time, because a native handler has no cycles of its own to count (its cycles are the cost
//    model's) and a handler that waits in a system call uses no CPU time but hangs the run all
//    the same; the bound only ends runaway runs and never touches the results of runs that end.
//    An AddressSanitizer report of the handler's that has begun is let finish (it ends the
//    program).
// A signal never leaves from inside the simulator's own C++ code: the host back end's entries
// (HandlerApi::backend) bracket each call with native_api_enter/leave; a watchdog that fires in a
// call is carried out when the call returns (its place is then the handler's call,
// fs_backend_caller). The API refuses pointers that reach a guard (HandlerApi), so the guards do
// not trap inside it; any other fault there is the simulator's and is not caught.
// The SIGSEGV and SIGBUS handlers are installed at the first guarded call, over AddressSanitizer's
// if it installed one (ASan allows this by default), and pass every fault that is not a guarded
// call's to the handler they replaced, so ASan still reports the simulator's own crashes. Each
// thread that makes guarded calls gets an alternate signal stack if it has none, so that reporting
// does not depend on the room left on the handler's stack.
#pragma once
#include <cstdint>

#include "pspin/handler_api.h"
#include "pspin/hpu_engine.h"

namespace fs {

// Runs job's handler (its timer function for a timer's run) natively, with `api` serving its
// calls (api's back end installed for the call only). Sets run.outcome; or, if the handler faults
// or runs longer than `watchdog_ms` milliseconds of wall time (0: no bound), run.fault
// ("handler NAME (cluster C, HPU H): ...") and drops the run's timer commands, as a fault on the
// ISS does (its sends stay: they were made before the fault).
void run_native_handler(const HandlerJob& job, HandlerApi& api, HandlerRun& run, uint32_t watchdog_ms);

// A native handler's call into the simulator (the host back end's entries): a watchdog that fires
// between the two is carried out at native_api_leave.
void native_api_enter();
void native_api_leave();
// Whether a watchdog waits for the current call into the simulator to return: simulator code
// that can wait inside a call should stop waiting and return.
bool native_stop_pending();

}  // namespace fs

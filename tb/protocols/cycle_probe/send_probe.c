/* send_probe: the test suite's handler that sends, whose cycles tb/protocols/cycle_probe_test.cpp
 * works out by hand from the timing table and the command interface's timing (docs/ISS.md): it
 * sends its packet back out of the port it came from, twice, with two inlined command-register
 * sequences (firmware/fs_api_rv32.h), and returns the two results OR'ed (FS_OK). The test checks
 * the instructions the ISS runs against the ones its hand-work assumes. */
#include "fs_handler.h"

__attribute__((aligned(16))) int send_probe_handler(const fs_handler_args_t* args) {
  const int first = fs_send(args->pkt, args->pkt_len, args->ingress_port);
  const int second = fs_send(args->pkt, args->pkt_len, args->ingress_port);
  return first | second;
}

static const fs_outcome_desc_t send_probe_outcomes[] = {{"ok", 0, 0, 0}};
FS_HANDLER_SET(send_probe, "the test suite's handler that sends its packet back twice (tb/protocols/cycle_probe)", -1,
               -1, send_probe_outcomes);

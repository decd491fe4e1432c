// A job's parameter server (PS) as A2TP and ATP use it (A2TP §4.2): it sums what the switch did
// not, and is the reliability anchor. What arrives for a fragment (a sequence number): switch
// results, whole (every worker) or partial (flushed by a resend); gradients that collided at the
// switch; gradients sent straight to it (RESEND: retransmissions, and A2TP's share of LCW outside
// ACW). It counts each worker once: a packet whose workers are all in already is a duplicate, and
// one that overlaps what came as single gradients has those gradients taken out again (the switch
// summed them too). Once every worker is in, the fragment's result goes to every worker, flagged
// COL if any packet of the fragment collided or came flagged COL, and ECE if any was CE-marked or
// flagged ECE. With ATP's dynamic allocation (a2tp_slots.h), a fragment a gradient of which
// collided has its table entry moved when it completes: its results are flagged MOVE and name the
// new aggregator. A worker's gradient for a fragment already complete means its result was lost: the
// PS sends that worker the result again. Arithmetic only: the PS host agent receives and sends
// (a result to each worker, with the fragment's aggregator index, so that the switch it passes
// frees an aggregation of the fragment left there: a2tp.c).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocols/a2tp/a2tp_frame.h"
#include "protocols/a2tp/a2tp_slots.h"

namespace fs {

class A2tpParameterServer {
 public:
  // A PS of a job of `workers` workers (1 to A2TP_MAX_WORKERS).
  explicit A2tpParameterServer(unsigned workers);
  // The same, moving its job's table entries as `mover` says (ATP's dynamic allocation).
  A2tpParameterServer(unsigned workers, const A2tpSlotMover& mover);

  struct Action {
    enum Kind {
      kNone,       // nothing to send (summed in, a duplicate, or refused: see why)
      kMulticast,  // the fragment is complete: its result to every worker
      kResend      // the fragment was complete: its result again to `worker`
    } kind = kNone;
    uint32_t sequence = 0;
    uint16_t aggregator = 0;  // the fragment's, as its packets named it (a result frees it on its way)
    unsigned worker = 0;
    uint8_t flags = 0;  // RESULT, COL and ECE as the fragment saw them, MOVE if its entry moved
    uint16_t next = 0;  // with MOVE, the aggregator the fragment's table entry moved to
    std::vector<int32_t> values;
    std::string why;  // for kNone: "" (summed in), "duplicate", or why the packet was refused
  };
  // Takes a packet of this PS's job (`ce`: its IPv4 header arrived CE-marked).
  Action take(const A2tpPacket& p, bool ce);
  // Forgets complete fragments below `sequence` (their results are no longer resent).
  void forget_before(uint32_t sequence);

  size_t pending() const;   // fragments begun and not complete
  uint64_t completed() const { return completed_; }
  uint64_t duplicates() const { return duplicates_; }
  uint64_t refused() const { return refused_; }
  uint64_t moves() const { return moves_; }  // table entries moved

 private:
  struct Fragment {
    A2tpBitmap have;  // workers summed in
    uint16_t aggregator = 0;
    bool done = false, col = false, ece = false;
    bool collided = false;  // a gradient of it collided at the switch
    std::optional<uint16_t> next;  // where its table entry moved
    std::vector<int32_t> sum;
    std::map<unsigned, std::vector<int32_t>> singles;  // gradients that came alone, by worker
  };
  Action result(uint32_t sequence, const Fragment& f, Action::Kind kind, unsigned worker) const;

  unsigned workers_;
  A2tpBitmap full_;
  std::map<uint32_t, Fragment> fragments_;
  std::optional<A2tpSlotMover> mover_;
  uint64_t completed_ = 0, duplicates_ = 0, refused_ = 0, moves_ = 0;
};

}  // namespace fs

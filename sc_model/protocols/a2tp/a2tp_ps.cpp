// A job's parameter server (see a2tp_ps.h).
#include "protocols/a2tp/a2tp_ps.h"

#include "common/errors.h"

namespace fs {

A2tpParameterServer::A2tpParameterServer(unsigned workers) : workers_(workers) {
  if (workers == 0 || workers > A2TP_MAX_WORKERS)
    throw InputError("a2tp: a job of " + std::to_string(workers) + " workers (1 to " +
                     std::to_string(A2TP_MAX_WORKERS) + ")");
  for (unsigned w = 0; w < workers; ++w) full_.set(w);
}

A2tpParameterServer::A2tpParameterServer(unsigned workers, const A2tpSlotMover& mover)
    : A2tpParameterServer(workers) {
  mover_ = mover;
}

A2tpParameterServer::Action A2tpParameterServer::result(uint32_t sequence, const Fragment& f, Action::Kind kind,
                                                        unsigned worker) const {
  Action a;
  a.kind = kind, a.sequence = sequence, a.aggregator = f.aggregator, a.worker = worker, a.values = f.sum;
  a.flags = uint8_t(A2TP_FLAG_RESULT | (f.col ? A2TP_FLAG_COL : 0u) | (f.ece ? A2TP_FLAG_ECE : 0u) |
                    (f.next ? A2TP_FLAG_MOVE : 0u));
  a.next = f.next.value_or(0);
  return a;
}

A2tpParameterServer::Action A2tpParameterServer::take(const A2tpPacket& p, bool ce) {
  Action a;
  auto refuse = [&](std::string why) {
    ++refused_;
    a.why = std::move(why);
    return a;
  };
  if (p.h.workers != workers_)
    return refuse("a fan-in of " + std::to_string(p.h.workers) + " for a job of " + std::to_string(workers_));
  const bool single = !(p.h.flags & (A2TP_FLAG_RESULT | A2TP_FLAG_SUM));  // one worker's own gradient
  if (mover_) mover_->seen(p.h.aggregator);
  Fragment& f = fragments_[p.h.sequence];
  if (f.have.none() && f.sum.empty()) f.sum.assign(p.values.size(), 0), f.aggregator = p.h.aggregator;
  if (p.values.size() != f.sum.size())
    return refuse(std::to_string(p.values.size()) + " values for a fragment of " + std::to_string(f.sum.size()));
  if (f.done) {
    ++duplicates_;
    if (single) return result(p.h.sequence, f, Action::kResend, p.h.worker);  // its result was lost
    a.why = "duplicate";
    return a;
  }
  const A2tpBitmap bitmap = a2tp_bitmap(p.h.bitmap);
  if ((bitmap & ~f.have).none()) {
    ++duplicates_;
    a.why = "duplicate";
    return a;
  }
  // Workers of this packet already in must have come alone: take them out again.
  const A2tpBitmap overlap = bitmap & f.have;
  for (unsigned w = 0; w < workers_; ++w)
    if (overlap[w] && !f.singles.count(w)) return refuse("worker " + std::to_string(w) + " is in two sums");
  for (unsigned w = 0; w < workers_; ++w) {
    if (!overlap[w]) continue;
    const std::vector<int32_t>& s = f.singles.at(w);
    for (size_t k = 0; k < f.sum.size(); ++k) f.sum[k] = int32_t(uint32_t(f.sum[k]) - uint32_t(s[k]));
  }
  for (size_t k = 0; k < f.sum.size(); ++k) f.sum[k] = int32_t(uint32_t(f.sum[k]) + uint32_t(p.values[k]));
  if (single) f.singles[p.h.worker] = p.values;
  f.have |= bitmap;
  f.col |= (p.h.flags & (A2TP_FLAG_COLLISION | A2TP_FLAG_COL)) != 0;
  f.collided |= (p.h.flags & A2TP_FLAG_COLLISION) != 0;
  f.ece |= ce || (p.h.flags & A2TP_FLAG_ECE);
  if (f.have != full_) return a;
  f.done = true;
  f.singles.clear();
  ++completed_;
  if (mover_ && f.collided) {
    f.next = mover_->move(p.h.sequence);
    moves_ += f.next.has_value();
  }
  return result(p.h.sequence, f, Action::kMulticast, 0);
}

void A2tpParameterServer::forget_before(uint32_t sequence) {
  for (auto it = fragments_.begin(); it != fragments_.end() && it->first < sequence;)
    it = it->second.done ? fragments_.erase(it) : std::next(it);
}

size_t A2tpParameterServer::pending() const {
  size_t n = 0;
  for (const auto& [seq, f] : fragments_) n += !f.done;
  return n;
}

}  // namespace fs

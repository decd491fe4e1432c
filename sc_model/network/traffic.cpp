// Background traffic between hosts (see traffic.h).
#include "network/traffic.h"

#include <algorithm>
#include <cmath>
#include <queue>

#include "common/errors.h"
#include "common/stats.h"
#include "common/fnv1a.h"
#include "common/splitmix64.h"
#include "fs_packet.h"
#include "net/ecn.h"
#include "net/frame.h"
#include "net/headers.h"
#include "net/trace_reader.h"

namespace fs {
namespace {

constexpr uint32_t kMagic = 0x46534247;  // "FSBG": the first payload bytes of a background packet
constexpr unsigned kHeaderBytes = 12;     // magic, message index, packet index (big-endian u32s)

void put32(uint8_t* p, uint32_t v) { p[0] = uint8_t(v >> 24), p[1] = uint8_t(v >> 16), p[2] = uint8_t(v >> 8), p[3] = uint8_t(v); }
uint32_t get32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

// The message's payload split into packets: each chunk of at most `mtu` bytes, at least the header.
std::vector<uint32_t> chunks(uint64_t bytes, unsigned mtu) {
  std::vector<uint32_t> out;
  for (uint64_t left = bytes; left > 0; left -= std::min<uint64_t>(left, mtu))
    out.push_back(uint32_t(std::max<uint64_t>(std::min<uint64_t>(left, mtu), kHeaderBytes)));
  return out;
}

// A frame of a packet's size on the wire: Ethernet + IPv4 + UDP headers, payload, overhead.
Picos message_wire_time(uint64_t bytes, unsigned mtu, const LinkParams& link) {
  Picos t = 0;
  for (uint32_t c : chunks(bytes, mtu)) t += link.wire_time_of(42 + c);
  return t;
}

}  // namespace

std::vector<std::pair<Picos, double>> parse_traffic_schedule(const std::string& text) {
  std::vector<std::pair<Picos, double>> out;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string entry = text.substr(start, comma - start);
    const auto fail = [&](const std::string& why) {
      throw InputError("traffic.schedule: '" + entry + "': " + why);
    };
    const size_t at = entry.find('@');
    const std::string load_text = entry.substr(0, at);
    size_t used = 0;
    double load = -1;
    try {
      load = std::stod(load_text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (load_text.empty() || used != load_text.size() || !(load >= 0 && load <= 1))
      fail("the load '" + load_text + "' is not a number from 0 to 1");
    Picos from = 0;
    std::string err;
    if (at != std::string::npos && entry.substr(at + 1) != "0" && !parse_time_token(entry.substr(at + 1), &from, &err))
      fail(err);
    if (out.empty() ? from != 0 : from <= out.back().first)
      fail("the times must start at 0 and increase (a load with no @TIME is from 0)");
    out.emplace_back(from, load);
    start = comma + 1;
  }
  return out;
}

Picos BackgroundTraffic::next_start(Picos from, double draw, double wire) const {
  if (schedule_.empty()) return from + Picos(std::llround(draw * (wire / cfg_.load)));
  size_t k = 0;
  while (k + 1 < schedule_.size() && schedule_[k + 1].first <= from) ++k;
  for (Picos t = from;; ++k) {
    const double load = schedule_[k].second;
    const bool last = k + 1 == schedule_.size();
    if (load > 0) {
      const double mean = wire / load;  // ps between messages in this step, on average
      const double need = draw * mean;
      if (last || double(t) + need <= double(schedule_[k + 1].first)) return t + Picos(std::llround(need));
      draw -= double(schedule_[k + 1].first - t) / mean;
    } else if (last) {
      return kNever;
    }
    t = schedule_[k + 1].first;
  }
}

BackgroundTraffic::BackgroundTraffic(sc_core::sc_module_name name, const Config& cfg, Network& net)
    : sc_core::sc_module(name), cfg_(cfg.traffic), net_(net) {
  schedule_ = parse_traffic_schedule(cfg_.schedule);
  const unsigned n = unsigned(net.host_count());
  if (cfg_.hosts == "all") {
    for (unsigned h = 0; h < n; ++h) hosts_.push_back(h);
  } else {
    hosts_ = parse_number_list("traffic.hosts", cfg_.hosts, "host");
  }
  for (unsigned h : hosts_)
    if (h >= n)
      throw InputError("bad value '" + cfg_.hosts + "' for 'traffic.hosts': host " + std::to_string(h) +
                       " does not exist (the network has " + std::to_string(n) + " hosts, 0-" + std::to_string(n - 1) + ")");
  if (cfg_.pattern == "incast") {
    if (cfg_.incast_target >= n)
      throw InputError("bad value '" + std::to_string(cfg_.incast_target) + "' for 'traffic.incast_target': host " +
                       std::to_string(cfg_.incast_target) + " does not exist (the network has " + std::to_string(n) +
                       " hosts)");
    if (std::find(hosts_.begin(), hosts_.end(), cfg_.incast_target) == hosts_.end()) hosts_.push_back(cfg_.incast_target);
  }
  if (hosts_.size() < 2)
    throw InputError("traffic.pattern = " + cfg_.pattern + " needs at least two hosts in traffic.hosts, not '" +
                     cfg_.hosts + "'");
  for (unsigned r = 0; r < hosts_.size(); ++r) {
    if (!(cfg_.pattern == "incast" && hosts_[r] == cfg_.incast_target)) senders_.push_back(r);
    rng_.push_back(component_seed(cfg.seed, "traffic/host" + std::to_string(hosts_[r])));
    net_.host(hosts_[r]).bind_udp(kTrafficUdpPort, this);
  }
  sent_.assign(hosts_.size(), 0);
  by_sender_.resize(hosts_.size());
  if (cfg_.pattern == "permutation") {
    // Sattolo's shuffle: a random permutation with one cycle, so nobody sends to itself.
    perm_.resize(hosts_.size());
    for (unsigned r = 0; r < perm_.size(); ++r) perm_[r] = r;
    uint64_t state = component_seed(cfg.seed, "traffic/permutation");
    for (size_t i = perm_.size() - 1; i > 0; --i) {
      state += kSplitmixGolden;
      std::swap(perm_[i], perm_[splitmix64_mix(state) % i]);
    }
  }
  SC_THREAD(send_all);
}

unsigned BackgroundTraffic::pick_peer(unsigned rank) {
  if (cfg_.pattern == "permutation") return perm_[rank];
  if (cfg_.pattern == "incast") {
    return unsigned(std::find(hosts_.begin(), hosts_.end(), cfg_.incast_target) - hosts_.begin());
  }
  // uniform: another host of the list, each equally likely.
  rng_[rank] += kSplitmixGolden;
  const unsigned pick = unsigned(splitmix64_mix(rng_[rank]) % (hosts_.size() - 1));
  return pick >= rank ? pick + 1 : pick;
}

void BackgroundTraffic::start_message(unsigned rank) {
  const unsigned src = hosts_[rank], dst = hosts_[pick_peer(rank)];
  const uint32_t index = uint32_t(messages_.size());
  const std::vector<uint32_t> sizes = chunks(cfg_.message_bytes, cfg_.mtu_payload);
  TrafficMessage m;
  m.src = src, m.dst = dst, m.bytes = cfg_.message_bytes, m.packets = uint32_t(sizes.size()), m.started = now_ps();
  messages_.push_back(m);
  by_sender_[rank].push_back(index);
  uint8_t src_mac[6], dst_mac[6];
  fs_host_mac(src, src_mac);
  fs_host_mac(dst, dst_mac);
  const uint16_t sport = uint16_t(49152 + index % 16384);
  for (uint32_t i = 0; i < sizes.size(); ++i) {
    Bytes payload(sizes[i], 0);
    put32(payload.data(), kMagic), put32(payload.data() + 4, index), put32(payload.data() + 8, i);
    auto p = std::make_shared<Packet>();
    p->data = build_udp_frame(src_mac, dst_mac, fs_host_ipv4(src), fs_host_ipv4(dst), sport, kTrafficUdpPort,
                              payload.data(), payload.size());
    if (cfg_.ecn) set_ecn(p->data, Ecn::kEct0);
    p->arrival = now_ps();
    net_.host(src).send(std::move(p));
  }
}

void BackgroundTraffic::send_all() {
  // Each sender's next start, earliest first (ties: lower rank).
  using Start = std::pair<Picos, unsigned>;
  std::priority_queue<Start, std::vector<Start>, std::greater<Start>> next;
  std::vector<double> wire(hosts_.size());  // a message's time on the sender's link
  auto after = [&](Picos t, unsigned r) {
    rng_[r] += kSplitmixGolden;
    const double u = double(splitmix64_mix(rng_[r]) >> 11) * 0x1.0p-53;  // [0, 1)
    return next_start(t, -std::log1p(-u), wire[r]);
  };
  for (unsigned r : senders_) {
    wire[r] = double(message_wire_time(cfg_.message_bytes, cfg_.mtu_payload, net_.host(hosts_[r]).nic().params()));
    if (const Picos t = after(0, r); t != kNever) next.push({t, r});
  }
  while (!next.empty()) {
    const auto [t, r] = next.top();
    next.pop();
    if (t > now_ps()) wait(ps_time(t - now_ps()));
    start_message(r);
    if (++sent_[r] < cfg_.messages)
      if (const Picos u = after(t, r); u != kNever) next.push({u, r});
  }
}

void BackgroundTraffic::accept(PacketPtr p) {
  const Headers h = walk_headers(p->data.data(), p->data.size());
  const uint8_t* payload = p->data.data() + h.payload_offset;
  if (h.payload_len < kHeaderBytes || get32(payload) != kMagic || get32(payload + 4) >= messages_.size()) {
    ++stray_;
    return;
  }
  TrafficMessage& m = messages_[get32(payload + 4)];
  if (ecn_of(p->data) == Ecn::kCe) ++m.ecn_marked;
  if (++m.received == m.packets) m.done = now_ps();
}

uint64_t BackgroundTraffic::unfinished() const {
  uint64_t n = 0;
  for (const TrafficMessage& m : messages_) n += m.done == 0;
  return n;
}

void BackgroundTraffic::report(StatsTree& out) const {
  report_traffic(cfg_.pattern, hosts_.size(), senders_.size(), messages_, stray_, out);
}

void report_traffic(const std::string& pattern, size_t hosts, size_t senders,
                    const std::vector<TrafficMessage>& messages, uint64_t stray, StatsTree& out) {
  out["pattern"] = pattern;
  out["hosts"] = hosts, out["senders"] = senders;
  uint64_t packets_sent = 0, packets_received = 0, bytes_received = 0, ecn = 0, completed = 0;
  Picos first = ~Picos(0), last = 0;
  std::vector<double> fct_us;
  StatsTree& per = out["per_message"].make_array();
  for (const TrafficMessage& m : messages) {
    packets_sent += m.packets, packets_received += m.received, ecn += m.ecn_marked;
    first = std::min(first, m.started);
    StatsTree& e = per.append();
    e["src"] = m.src, e["dst"] = m.dst, e["bytes"] = m.bytes;
    e["started_us"] = double(m.started) / double(kPicosPerUs);
    e["complete"] = m.done != 0;
    e["fct_us"] = m.done ? double(m.done - m.started) / double(kPicosPerUs) : 0.0;
    e["ecn_marked"] = m.ecn_marked;
    if (!m.done) continue;
    ++completed;
    bytes_received += m.bytes;
    last = std::max(last, m.done);
    fct_us.push_back(double(m.done - m.started) / double(kPicosPerUs));
  }
  out["messages"] = messages.size(), out["completed"] = completed, out["unfinished"] = messages.size() - completed;
  out["packets_sent"] = packets_sent, out["packets_received"] = packets_received;
  out["bytes_received"] = bytes_received;  // of complete messages
  out["ecn_marked_packets"] = ecn;
  out["stray_packets"] = stray;
  std::sort(fct_us.begin(), fct_us.end());
  StatsTree& f = out["fct_us"];
  double sum = 0;
  for (double x : fct_us) sum += x;
  f["mean"] = fct_us.empty() ? 0.0 : sum / double(fct_us.size());
  for (const auto& [key, p] : {std::pair{"p50", 50.0}, std::pair{"p90", 90.0}, std::pair{"p99", 99.0}, std::pair{"max", 100.0}})
    f[key] = nearest_rank(fct_us, p);
  // Goodput: complete messages' bytes over the time from the first start to the last completion.
  out["goodput_gbps"] = last > first ? double(bytes_received) * 8e3 / double(last - first) : 0.0;
}

}  // namespace fs

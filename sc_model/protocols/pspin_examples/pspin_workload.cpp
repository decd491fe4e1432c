// The PsPIN examples' workloads, expected results and verifier (see pspin_workload.h).
#include "protocols/pspin_examples/pspin_workload.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/errors.h"
#include "common/text.h"
#include "common/interrupt.h"
#include "common/splitmix64.h"
#include "net/frame.h"
#include "net/trace_syntax.h"
#include "net/trace_writer.h"

namespace fs {

const std::vector<PspinExample>& pspin_examples() {
  static const std::vector<PspinExample> examples = {
      {PSPIN_EX_EMPTY, "pspin_empty", "examples/empty/handlers/empty.c"},
      {PSPIN_EX_PINGPONG, "pspin_pingpong", "examples/ping_pong/handlers/ping_pong.c"},
      {PSPIN_EX_AGGREGATE_GLOBAL, "pspin_aggregate_global", "examples/aggregate/handlers/aggregate_global.c"},
      {PSPIN_EX_REDUCE_L1, "pspin_reduce_l1", "examples/reduce/handlers/reduce_l1.c"},
      {PSPIN_EX_HISTOGRAM_L1, "pspin_histogram_l1", "examples/histogram/handlers/histogram_l1.c"},
  };
  return examples;
}

const PspinExample* find_pspin_example(const std::string& set) {
  for (const PspinExample& e : pspin_examples())
    if (set == e.set) return &e;
  return nullptr;
}

namespace {

constexpr uint64_t kValuesTag = 0x7073706e76616c73ull;  // "pspnvals"
constexpr uint64_t kMaxWorkloadBytes = 4ull << 30;       // frames of one trace, built in memory
constexpr size_t kMaxProblems = 20;

uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}

bool has_result(uint32_t example) {
  return example == PSPIN_EX_AGGREGATE_GLOBAL || example == PSPIN_EX_REDUCE_L1 || example == PSPIN_EX_HISTOGRAM_L1;
}

std::string name_of(const PspinGenOptions& o, const std::string& field) {
  const auto it = o.names.find(field);
  return it == o.names.end() ? field : it->second;
}

std::string ns_text(Picos t) { return format_picos_ns(t); }

// A line rate as the user wrote it, without trailing zeros ("100", "12.5").
std::string gbps_text(double gbps) {
  std::ostringstream s;
  s << gbps;
  return s.str();
}

// The frame of packet k: from the host on `port` to the switch, the message header, the words.
Bytes packet_frame(uint32_t example, uint16_t port, uint32_t msg, uint32_t index, uint32_t packets, uint16_t result_port,
                   const std::vector<uint32_t>& words) {
  Bytes payload(PSPIN_EX_MSG_HEADER_BYTES + 4 * words.size(), 0);
  fs_put_be32(payload.data() + PSPIN_EX_OFF_MSG, msg);
  fs_put_be16(payload.data() + PSPIN_EX_OFF_INDEX, index);
  fs_put_be16(payload.data() + PSPIN_EX_OFF_PACKETS, packets);
  fs_put_be16(payload.data() + PSPIN_EX_OFF_RESULT_PORT, result_port);
  for (size_t i = 0; i < words.size(); ++i)
    for (int b = 0; b < 4; ++b) payload[PSPIN_EX_MSG_HEADER_BYTES + 4 * i + size_t(b)] = uint8_t(words[i] >> (8 * b));
  uint8_t host[6], sw[6];
  fs_host_mac(port, host);
  fs_switch_mac(sw);
  const uint16_t udp = pspin_example_udp_port(example);
  return build_udp_frame(host, sw, fs_host_ipv4(port), FS_SWITCH_IPV4, udp, udp, payload.data(), payload.size());
}

// pingpong's reply to `frame`: MAC addresses, IPv4 addresses and UDP ports swapped.
Bytes pingpong_reply(Bytes f) {
  std::swap_ranges(f.begin(), f.begin() + 6, f.begin() + 6);
  uint8_t* ip = f.data() + FS_ETH_BYTES;
  std::swap_ranges(ip + 12, ip + 16, ip + 16);
  uint8_t* udp = ip + FS_IPV4_BYTES;
  std::swap_ranges(udp, udp + 2, udp + 2);
  return f;
}

}  // namespace

std::vector<uint32_t> pspin_packet_words(uint32_t example, uint64_t seed, uint64_t k, uint32_t words) {
  std::vector<uint32_t> out(words);
  uint64_t state = splitmix64_mix(splitmix64_mix(seed ^ kValuesTag) + k);
  for (uint32_t i = 0; i < words; ++i) {
    state += kSplitmixGolden;
    const uint64_t z = splitmix64_mix(state);
    out[i] = example == PSPIN_EX_HISTOGRAM_L1 ? uint32_t(z % PSPIN_HISTOGRAM_BINS) : uint32_t(z);
  }
  return out;
}

PspinWorkload generate_pspin_workload(const PspinGenOptions& o) {
  auto bad = [&](const std::string& field, const std::string& why) {
    throw InputError(name_of(o, field) + ": " + why);
  };
  if (o.example >= PSPIN_EX_COUNT) bad("example", "no example " + std::to_string(o.example));
  if (o.messages < 1 || o.messages > PSPIN_EX_MAX_MESSAGES)
    bad("messages", std::to_string(o.messages) + " messages; 1 to " + std::to_string(PSPIN_EX_MAX_MESSAGES) +
                        " (the message states of the handlers' memory)");
  if (o.packets < 1 || o.packets > 0xFFFF)
    bad("packets", std::to_string(o.packets) + " packets per message; 1 to 65535 (the message header's count)");
  constexpr uint32_t kHeaders = FS_IPV4_BYTES + FS_UDP_BYTES + PSPIN_EX_MSG_HEADER_BYTES;
  if (o.size < kHeaders + 4 || o.size > kHeaders + PSPIN_EX_MAX_DATA_BYTES || (o.size - kHeaders) % 4)
    bad("size", std::to_string(o.size) + " bytes; an IPv4 packet of " + std::to_string(kHeaders) +
                    " header bytes (IPv4, UDP, message header) and 1 to " + std::to_string(PSPIN_EX_MAX_DATA_BYTES / 4) +
                    " 32-bit data words: " + std::to_string(kHeaders + 4) + " to " +
                    std::to_string(kHeaders + PSPIN_EX_MAX_DATA_BYTES) + ", a multiple of 4");
  if (!(o.gbps > 0)) bad("gbps", "the line rate must be above 0");
  if (o.num_ports < 1 || o.num_ports > 65536) bad("num_ports", std::to_string(o.num_ports) + " ports; 1 to 65536");
  const uint64_t total = uint64_t(o.messages) * o.packets;
  const uint32_t frame_bytes = FS_ETH_BYTES + o.size;
  if (total * frame_bytes > kMaxWorkloadBytes)
    bad("packets", std::to_string(total) + " packets of " + std::to_string(frame_bytes) +
                       " bytes; at most 4 GiB of frames in one trace");

  // Arrival times: PsPIN's driver waits `gap` after a packet and `message_gap` after a message's last.
  std::vector<Picos> times(total);
  for (uint64_t k = 1; k < total; ++k) {
    const Picos step = k % o.packets == 0 ? o.message_gap : o.gap;
    if (times[k - 1] > ~Picos(0) - step) bad("gap", "the trace's times pass 2^64-1 ps");
    times[k] = times[k - 1] + step;
  }
  // Ports: packet k on port k mod H; each port's packets must be a wire time apart.
  const Picos wire = wire_time(frame_bytes, o.wire_overhead, o.gbps);
  auto fits = [&](unsigned h) {
    for (uint64_t k = h; k < total; ++k)
      if (times[k] - times[k - h] < wire) return false;
    return true;
  };
  unsigned hosts = o.hosts;
  const std::string link = "a " + std::to_string(frame_bytes) + "-byte frame takes " + ns_text(wire) + " on a " +
                           gbps_text(o.gbps) + " Gbit/s link (" + name_of(o, "gbps") + ")";
  if (hosts) {
    if (hosts > o.num_ports)
      bad("hosts", std::to_string(hosts) + " hosts, but the switch has " + std::to_string(o.num_ports) + " ports (" +
                       name_of(o, "num_ports") + ")");
    if (!fits(hosts))
      bad("hosts", std::to_string(hosts) + " ports cannot carry a packet every " + ns_text(std::min(o.gap, o.message_gap)) +
                       ": " + link + "; give more hosts or a longer gap");
  } else {
    for (hosts = 1; hosts <= o.num_ports && !fits(hosts); ++hosts) {
    }
    if (hosts > o.num_ports)
      bad("gap", "even " + std::to_string(o.num_ports) + " ports (" + name_of(o, "num_ports") +
                     ") cannot carry a packet every " + ns_text(std::min(o.gap, o.message_gap)) + ": " + link);
  }

  PspinWorkload w;
  w.hosts = hosts;
  w.expected.example = o.example;
  const uint32_t words = (o.size - kHeaders) / 4;
  w.records.reserve(total);
  for (uint32_t m = 0; m < o.messages; ++m) {
    check_interrupted("generating the trace");
    const uint16_t result_port = uint16_t((uint64_t(m) * o.packets) % hosts);
    PspinExpected::Result result{m, result_port, {}};
    if (o.example == PSPIN_EX_AGGREGATE_GLOBAL) result.words.assign(1, 0);
    if (o.example == PSPIN_EX_REDUCE_L1) result.words.assign(words, 0);
    if (o.example == PSPIN_EX_HISTOGRAM_L1) result.words.assign(PSPIN_HISTOGRAM_BINS, 0);
    for (uint32_t i = 0; i < o.packets; ++i) {
      const uint64_t k = uint64_t(m) * o.packets + i;
      const uint16_t port = uint16_t(k % hosts);
      const std::vector<uint32_t> data = pspin_packet_words(o.example, o.seed, k, words);
      w.records.push_back(TraceRecord{times[k], port, packet_frame(o.example, port, m, i, o.packets, result_port, data), ""});
      for (uint32_t j = 0; j < words; ++j) {
        if (o.example == PSPIN_EX_AGGREGATE_GLOBAL) result.words[0] += data[j];
        if (o.example == PSPIN_EX_REDUCE_L1) result.words[j] += data[j];
        if (o.example == PSPIN_EX_HISTOGRAM_L1) ++result.words[data[j]];
      }
      if (o.example == PSPIN_EX_PINGPONG)
        w.expected.replies.push_back(PspinExpected::Reply{m, i, port, pingpong_reply(w.records.back().data)});
    }
    if (has_result(o.example)) w.expected.results.push_back(std::move(result));
  }
  return w;
}

void write_pspin_expected(std::ostream& out, const PspinExpected& e) {
  out << kPspinExpectedHeader << "\n";
  out << "# what the switch sends back; handlers/pspin_examples/README.md describes this file\n";
  out << "example " << pspin_examples()[e.example].set << "\n";
  for (const PspinExpected::Result& r : e.results) {
    Bytes b(4 * r.words.size());
    for (size_t i = 0; i < r.words.size(); ++i)
      for (int k = 0; k < 4; ++k) b[4 * i + size_t(k)] = uint8_t(r.words[i] >> (8 * k));
    out << "result msg=" << r.msg << " port=" << r.port << " words=" << r.words.size() << " hex=" << to_hex(b.data(), b.size())
        << "\n";
  }
  for (const PspinExpected::Reply& r : e.replies)
    out << "reply msg=" << r.msg << " index=" << r.index << " port=" << r.port << " hex=" << to_hex(r.frame.data(), r.frame.size())
        << "\n";
}

PspinExpected read_pspin_expected(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read the expected-results file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_pspin_expected(path, ss.str());
}

PspinExpected parse_pspin_expected(const std::string& name, const std::string& text) {
  PspinExpected e;
  bool header = false, example = false;
  std::set<uint32_t> result_msgs;
  std::set<std::pair<uint32_t, uint32_t>> reply_keys;
  std::istringstream lines(text);
  std::string line;
  for (size_t n = 1; std::getline(lines, line); ++n) {
    const std::string where = name + ":" + std::to_string(n);
    const std::vector<std::string> t = line_words(line);
    if (t.empty()) continue;
    if (!header) {
      if (t.size() != 2 || t[0] + " " + t[1] != kPspinExpectedHeader)
        throw InputError(where + ": expected '" + kPspinExpectedHeader + "'");
      header = true;
      continue;
    }
    if (t[0] == "example") {
      if (example) throw InputError(where + ": a second example line");
      const PspinExample* ex = t.size() == 2 ? find_pspin_example(t[1]) : nullptr;
      if (!ex) {
        std::string names;
        for (const PspinExample& x : pspin_examples()) names += std::string(names.empty() ? "" : ", ") + x.set;
        throw InputError(where + ": expected 'example NAME', NAME one of " + names);
      }
      e.example = ex->index;
      example = true;
      continue;
    }
    if (t[0] != "result" && t[0] != "reply")
      throw InputError(where + ": unknown line " + quote_token(t[0]) + " (expected example, result or reply)");
    if (!example) throw InputError(where + ": a " + t[0] + " line before the example line");
    const bool is_result = t[0] == "result";
    if (is_result ? !has_result(e.example) : e.example != PSPIN_EX_PINGPONG)
      throw InputError(where + ": " + pspin_examples()[e.example].set + " has no " + t[0] + " lines");
    const std::vector<std::string> keys =
        is_result ? std::vector<std::string>{"msg", "port", "words", "hex"} : std::vector<std::string>{"msg", "index", "port", "hex"};
    std::map<std::string, std::string> kv;
    for (size_t i = 1; i < t.size(); ++i) {
      const size_t eq = t[i].find('=');
      const std::string key = t[i].substr(0, eq);
      if (eq == std::string::npos || std::find(keys.begin(), keys.end(), key) == keys.end())
        throw InputError(where + ": " + t[0] + ": unexpected " + quote_token(t[i]));
      if (!kv.emplace(key, t[i].substr(eq + 1)).second) throw InputError(where + ": " + t[0] + ": duplicate key " + key);
    }
    for (const std::string& k : keys)
      if (!kv.count(k)) throw InputError(where + ": " + t[0] + ": missing key " + k);
    auto number = [&](const std::string& key, uint64_t max) {
      uint64_t v = 0;
      if (!parse_token_uint(kv[key], max, &v))
        throw InputError(where + ": " + t[0] + ": bad value " + quote_token(kv[key]) + " for key " + key + " (0 to " +
                         std::to_string(max) + ")");
      return v;
    };
    Bytes bytes;
    std::string err;
    if (!parse_hex_token(kv["hex"], &bytes, &err)) throw InputError(where + ": " + t[0] + ": hex: " + err);
    const uint32_t msg = uint32_t(number("msg", 0xFFFFFFFFu));
    const uint16_t port = uint16_t(number("port", 0xFFFF));
    if (is_result) {
      const uint64_t words = number("words", std::max(PSPIN_EX_MAX_DATA_BYTES / 4, PSPIN_HISTOGRAM_BINS));
      if (words == 0 || bytes.size() != 4 * words)
        throw InputError(where + ": result: " + std::to_string(bytes.size()) + " hex bytes for " + std::to_string(words) +
                         " words (4 bytes each, at least one)");
      if (!result_msgs.insert(msg).second) throw InputError(where + ": result: a second result for message " + std::to_string(msg));
      PspinExpected::Result r{msg, port, std::vector<uint32_t>(words)};
      for (size_t i = 0; i < words; ++i) r.words[i] = le32(bytes.data() + 4 * i);
      e.results.push_back(std::move(r));
    } else {
      const uint32_t index = uint32_t(number("index", 0xFFFF));
      if (bytes.empty()) throw InputError(where + ": reply: an empty frame");
      if (!reply_keys.insert({msg, index}).second)
        throw InputError(where + ": reply: a second reply for message " + std::to_string(msg) + " packet " + std::to_string(index));
      e.replies.push_back(PspinExpected::Reply{msg, index, port, std::move(bytes)});
    }
  }
  if (!header) throw InputError(name + ": empty: expected '" + kPspinExpectedHeader + "'");
  if (!example) throw InputError(name + ": no example line");
  return e;
}

namespace {

// A frame the switch sent to the example's UDP port, its UDP payload located.
struct ExampleFrame {
  const EgressRecord* rec;
  const uint8_t* payload;
  uint32_t len;
};

void problem(VerifyReport& r, const std::string& what) {
  if (r.problems.size() < kMaxProblems) r.problems.push_back(what);
}

void verify_replies(const PspinExpected& e, const std::vector<ExampleFrame>& frames, VerifyReport& r) {
  std::map<std::pair<uint32_t, uint32_t>, const PspinExpected::Reply*> want;
  for (const PspinExpected::Reply& x : e.replies) want[{x.msg, x.index}] = &x;
  std::set<std::pair<uint32_t, uint32_t>> served;
  for (const ExampleFrame& f : frames) {
    const std::string at = "port " + std::to_string(f.rec->port) + " at " + ns_text(f.rec->time);
    if (f.len < PSPIN_EX_MSG_HEADER_BYTES) {
      ++r.unexpected;
      problem(r, at + ": a frame without a message header");
      continue;
    }
    const std::pair<uint32_t, uint32_t> key{fs_be32(f.payload + PSPIN_EX_OFF_MSG), fs_be16(f.payload + PSPIN_EX_OFF_INDEX)};
    const std::string which = "the reply to message " + std::to_string(key.first) + " packet " + std::to_string(key.second);
    const auto it = want.find(key);
    if (it == want.end() || it->second->port != f.rec->port) {
      ++r.unexpected;
      problem(r, at + ": " + which + (it == want.end() ? ", which no packet asked for" : ", expected on port " + std::to_string(it->second->port)));
      continue;
    }
    if (!served.insert(key).second) {
      ++r.duplicate;
      problem(r, at + ": " + which + " again");
      continue;
    }
    if (f.rec->data == it->second->frame) {
      ++r.matched;
      continue;
    }
    ++r.wrong;
    const Bytes& w = it->second->frame;
    size_t i = 0;
    while (i < w.size() && i < f.rec->data.size() && w[i] == f.rec->data[i]) ++i;
    problem(r, at + ": " + which + " has " + std::to_string(f.rec->data.size()) + " bytes, expected " +
                   std::to_string(w.size()) + "; first difference at byte " + std::to_string(i));
  }
  for (const PspinExpected::Reply& x : e.replies)
    if (!served.count({x.msg, x.index})) {
      ++r.missing;
      problem(r, "port " + std::to_string(x.port) + ": no reply to message " + std::to_string(x.msg) + " packet " +
                     std::to_string(x.index));
    }
}

void verify_results(const PspinExpected& e, const std::vector<ExampleFrame>& frames, VerifyReport& r) {
  std::map<uint32_t, const PspinExpected::Result*> want;
  for (const PspinExpected::Result& x : e.results) want[x.msg] = &x;
  std::map<uint32_t, std::vector<const ExampleFrame*>> got;  // by message, in departure order
  for (const ExampleFrame& f : frames) {
    const std::string at = "port " + std::to_string(f.rec->port) + " at " + ns_text(f.rec->time);
    if (f.len < PSPIN_EX_RESULT_HEADER_BYTES || (f.len - PSPIN_EX_RESULT_HEADER_BYTES) % 4) {
      ++r.unexpected;
      problem(r, at + ": a frame that is no result (" + std::to_string(f.len) + " payload bytes)");
      continue;
    }
    const uint32_t msg = fs_be32(f.payload + PSPIN_EX_OFF_RESULT_MSG);
    if (!want.count(msg)) {
      ++r.unexpected;
      problem(r, at + ": a result for message " + std::to_string(msg) + ", which is not expected");
      continue;
    }
    got[msg].push_back(&f);
  }
  for (const PspinExpected::Result& x : e.results) {
    const std::string which = "message " + std::to_string(x.msg);
    const auto it = got.find(x.msg);
    if (it == got.end()) {
      ++r.missing;
      problem(r, which + ": no result on port " + std::to_string(x.port));
      continue;
    }
    std::vector<uint32_t> sum(x.words.size(), 0);
    std::set<uint32_t> clusters_seen;
    const uint32_t clusters = fs_be32(it->second.front()->payload + PSPIN_EX_OFF_RESULT_CLUSTERS);
    std::string why;
    for (const ExampleFrame* f : it->second) {
      const uint32_t cluster = fs_be32(f->payload + PSPIN_EX_OFF_RESULT_CLUSTER);
      const uint32_t n = fs_be32(f->payload + PSPIN_EX_OFF_RESULT_CLUSTERS);
      const size_t words = (f->len - PSPIN_EX_RESULT_HEADER_BYTES) / 4;
      if (!clusters_seen.insert(cluster).second) {
        ++r.duplicate;
        problem(r, which + ": cluster " + std::to_string(cluster) + "'s result again, on port " + std::to_string(f->rec->port));
        continue;
      }
      if (why.empty() && f->rec->port != x.port)
        why = "cluster " + std::to_string(cluster) + "'s result on port " + std::to_string(f->rec->port) + ", expected " +
              std::to_string(x.port);
      if (why.empty() && (n != clusters || cluster >= n))
        why = "cluster " + std::to_string(cluster) + " of " + std::to_string(n) + " beside frames of " + std::to_string(clusters);
      if (why.empty() && words != x.words.size())
        why = "cluster " + std::to_string(cluster) + "'s result has " + std::to_string(words) + " words, expected " +
              std::to_string(x.words.size());
      if (!why.empty()) continue;
      for (size_t i = 0; i < words; ++i) sum[i] += le32(f->payload + PSPIN_EX_RESULT_HEADER_BYTES + 4 * i);
    }
    if (why.empty() && clusters_seen.size() != clusters)
      why = std::to_string(clusters_seen.size()) + " of its " + std::to_string(clusters) + " clusters' results arrived";
    for (size_t i = 0; why.empty() && i < sum.size(); ++i)
      if (sum[i] != x.words[i])
        why = "word " + std::to_string(i) + " adds up to " + std::to_string(sum[i]) + ", expected " + std::to_string(x.words[i]);
    if (why.empty()) {
      ++r.matched;
    } else {
      ++r.wrong;
      problem(r, which + ": " + why);
    }
  }
}

}  // namespace

VerifyReport verify_pspin_egress(const PspinExpected& e, const std::vector<EgressRecord>& egress) {
  VerifyReport r;
  const uint16_t udp = pspin_example_udp_port(e.example);
  std::vector<ExampleFrame> frames;
  for (const EgressRecord& rec : egress) {
    const FrameInfo f = parse_frame(rec.data.data(), rec.data.size());
    if (!f.ok || !f.udp || f.udp_dport != udp) continue;
    frames.push_back(ExampleFrame{&rec, rec.data.data() + f.l4_offset, f.l4_len});
  }
  if (e.example == PSPIN_EX_PINGPONG) {
    r.expected_packets = e.replies.size();
    verify_replies(e, frames, r);
  } else if (has_result(e.example)) {
    r.expected_packets = e.results.size();
    verify_results(e, frames, r);
  } else {
    for (const ExampleFrame& f : frames) {
      ++r.unexpected;
      problem(r, "port " + std::to_string(f.rec->port) + " at " + ns_text(f.rec->time) + ": a frame from " +
                     pspin_examples()[e.example].set + ", which sends none");
    }
  }
  r.ok = !r.missing && !r.wrong && !r.duplicate && !r.unexpected;
  return r;
}

}  // namespace fs

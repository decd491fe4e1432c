// The RoCEv2 ICRC engine: the software reference, the C++ twin and the Verilated RTL
// (rtl/icrc_engine.sv at 1, 2, 4, 8 and 16 bytes per cycle) against the ICRCs scapy computes
// (tb/rtl/icrc_vectors.py, run at test time), the RTL against the twin in lockstep on random
// beats, directed corner cases on every core, the byte stream a frame gives the engine, and the
// reasons frames are refused.
#include <gtest/gtest.h>

// The RTL at the other widths, Verilated for these tests by rtl/CMakeLists.txt
// (Vicrc_engine_bN: -GBYTES=N). A missing one fails the tests that use it.
#if __has_include(<Vicrc_engine_b1.h>)
#include <Vicrc_engine_b1.h>
#endif
#if __has_include(<Vicrc_engine_b2.h>)
#include <Vicrc_engine_b2.h>
#endif
#if __has_include(<Vicrc_engine_b4.h>)
#include <Vicrc_engine_b4.h>
#endif
#if __has_include(<Vicrc_engine_b16.h>)
#include <Vicrc_engine_b16.h>
#endif

#include <algorithm>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/errors.h"
#include "net/frame.h"
#include "net/icrc.h"
#include "rtl_bridge/icrc_rtl.h"
#include "rtl_bridge/rtl_context.h"

namespace fs {
namespace {

constexpr unsigned kWidths[] = {1, 2, 4, 8, 16};

// The RTL engine of each width (8 is the simulator's IcrcRtl); nullptr, and a test failure, if
// it was not Verilated.
std::unique_ptr<IcrcCore> rtl_core(RtlContext& rtl, unsigned width) {
  switch (width) {
#if __has_include(<Vicrc_engine_b1.h>)
    case 1: return std::make_unique<IcrcRtlOf<Vicrc_engine_b1, 1>>(rtl, "icrc_b1");
#endif
#if __has_include(<Vicrc_engine_b2.h>)
    case 2: return std::make_unique<IcrcRtlOf<Vicrc_engine_b2, 2>>(rtl, "icrc_b2");
#endif
#if __has_include(<Vicrc_engine_b4.h>)
    case 4: return std::make_unique<IcrcRtlOf<Vicrc_engine_b4, 4>>(rtl, "icrc_b4");
#endif
#if __has_include(<Vicrc_engine_b16.h>)
    case 16: return std::make_unique<IcrcRtlOf<Vicrc_engine_b16, 16>>(rtl, "icrc_b16");
#endif
    case 8: return std::make_unique<IcrcRtl>(rtl);
    default:
      ADD_FAILURE() << "icrc_engine at BYTES=" << width << " is not built: rtl/CMakeLists.txt must verilate it "
                    << "with PREFIX Vicrc_engine_b" << width << " and -GBYTES=" << width;
      return nullptr;
  }
}

struct NamedCore {
  std::string name;
  std::unique_ptr<IcrcCore> core;
};

// The twin and the RTL at every width.
std::vector<NamedCore> every_core(RtlContext& rtl) {
  std::vector<NamedCore> v;
  for (unsigned w : kWidths) {
    v.push_back({"model/" + std::to_string(w), std::make_unique<IcrcEngineModel>(w)});
    if (std::unique_ptr<IcrcCore> hw = rtl_core(rtl, w)) v.push_back({"rtl/" + std::to_string(w), std::move(hw)});
  }
  return v;
}

std::string show(const IcrcOut& o) {
  char s[40];
  std::snprintf(s, sizeof s, "valid %d crc %08x", int(o.valid), unsigned(o.crc));
  return s;
}

IcrcOut out(bool valid, uint32_t crc) { return IcrcOut{valid, crc}; }

// One beat from `data` (at most 16 bytes) with the given flags; keep defaults to all the bytes.
IcrcBeat beat(const Bytes& data, bool first, bool last, uint16_t mask = 0, int keep = -1) {
  IcrcBeat b;
  b.valid = true;
  b.first = first;
  b.last = last;
  for (size_t i = 0; i < data.size(); ++i) b.data[i] = data[i];
  b.keep = keep < 0 ? uint16_t((1u << data.size()) - 1) : uint16_t(keep);
  b.mask = mask;
  return b;
}

IcrcBeat idle() { return IcrcBeat{}; }

// The reference CRC of bytes with a mask (1 = the byte counts as 0xFF).
uint32_t crc_ref(const Bytes& data, std::vector<uint8_t> mask = {}) {
  mask.resize(data.size(), 0);
  return icrc_of_stream(IcrcStream{data, mask});
}

Bytes pattern(size_t n, uint8_t seed) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = uint8_t(seed + 37 * i + (i >> 3));
  return b;
}

// Streams bytes as one message in beats of the core's width, the last beat keeping a prefix.
IcrcOut feed(IcrcCore& c, const Bytes& data) {
  const unsigned w = c.bytes_per_cycle();
  IcrcOut o;
  for (size_t at = 0; at < data.size() || at == 0; at += w) {
    const size_t n = std::min<size_t>(w, data.size() - at);
    o = c.tick(beat(Bytes(data.begin() + at, data.begin() + at + n), at == 0, at + w >= data.size()));
  }
  return o;
}

// ---- scapy's ICRCs ----

struct Vector {
  Bytes frame;
  uint32_t icrc = 0;
};

// Runs tb/rtl/icrc_vectors.py; returns an empty string or why the vectors are missing.
std::string scapy_vectors(std::vector<Vector>* out) {
  const std::string cmd = "/usr/bin/python3 '" FLARESIM_SOURCE_DIR "/tb/rtl/icrc_vectors.py'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "cannot run " + cmd;
  std::string text;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  const int status = pclose(p);
  if (status != 0)
    return cmd + " failed (" +
           (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status)) : "status " + std::to_string(status)) +
           "): /usr/bin/python3 needs scapy (python3-scapy); run scripts/install-deps";
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  size_t at = 0;
  while (at < text.size()) {
    const size_t eol = text.find('\n', at);
    const std::string line = text.substr(at, eol - at);
    at = eol == std::string::npos ? text.size() : eol + 1;
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.find(' ');
    if (sp == std::string::npos || sp % 2 || line.size() != sp + 9) return "bad vector line: " + line.substr(0, 80);
    Vector v;
    for (size_t i = 0; i < sp; i += 2) v.frame.push_back(uint8_t(nibble(line[i]) << 4 | nibble(line[i + 1])));
    v.icrc = uint32_t(std::stoul(line.substr(sp + 1), nullptr, 16));
    out->push_back(v);
  }
  return "";
}

TEST(Icrc, ReferenceTwinAndRtlMatchScapyOnEveryWidth) {
  std::vector<Vector> vectors;
  const std::string why = scapy_vectors(&vectors);
  ASSERT_EQ(why, "");
  ASSERT_EQ(vectors.size(), 400u);
  RtlContext rtl;
  std::vector<NamedCore> cores = every_core(rtl);
  size_t vlan = 0, options = 0, padded = 0;
  for (size_t n = 0; n < vectors.size(); ++n) {
    const Bytes& f = vectors[n].frame;
    const RoceLayout l = roce_layout(f.data(), f.size());
    vlan += l.ip_offset == 18;
    options += l.ip_header > 20;
    padded += l.icrc_offset + 4 < f.size();
    ASSERT_EQ(roce_icrc(f.data(), f.size()), vectors[n].icrc) << "frame " << n;
    ASSERT_EQ(carried_icrc(f.data(), f.size()), vectors[n].icrc) << "frame " << n;
    const size_t stream = kIcrcPrefixBytes + l.icrc_offset - l.ip_offset;
    ASSERT_EQ(icrc_stream(f.data(), f.size()).data.size(), stream);
    for (NamedCore& c : cores) {
      uint64_t ticks = 0;
      ASSERT_EQ(icrc_of_frame(*c.core, f.data(), f.size(), &ticks), vectors[n].icrc) << c.name << " frame " << n;
      const unsigned w = c.core->bytes_per_cycle();
      ASSERT_EQ(ticks, (stream + w - 1) / w) << c.name << " frame " << n;
    }
  }
  // The vectors covered what they are meant to (icrc_vectors.py: every 5th frame tagged, 2 in 9
  // with IP options, every 11th with trailing bytes, short ones padded to 60).
  EXPECT_EQ(vlan, 80u);
  EXPECT_EQ(options, 88u);
  EXPECT_GE(padded, 36u);
}

// ---- lockstep ----

IcrcBeat random_beat(std::mt19937_64& rng, bool* in_message) {
  IcrcBeat b;
  for (uint8_t& d : b.data) d = uint8_t(rng());
  b.first = rng() & 1;
  b.last = rng() & 1;
  b.keep = uint16_t(rng());
  b.mask = uint16_t(rng());
  if (rng() % 8 < 2) return b;  // idle, with junk on the other inputs
  b.valid = true;
  b.first = *in_message ? rng() % 32 == 0 : rng() % 8 != 0;  // sometimes a restart, or no first
  b.last = rng() % 4 == 0;
  switch (rng() % 8) {
    case 0: break;                                                  // any pattern
    case 1: b.keep = 0; break;                                      // nothing
    case 2: b.keep = uint16_t((1u << (rng() % 17)) - 1); break;     // a prefix
    default: b.keep = 0xFFFF;                                        // full
  }
  if (rng() % 4 != 0) b.mask = rng() % 2 ? uint16_t(1u << (rng() % 16)) : 0;
  *in_message = !b.last;
  return b;
}

TEST(Icrc, RtlAndTwinInLockstepOnRandomBeats) {
  RtlContext rtl;
  std::mt19937_64 rng(4791);
  uint64_t cycles = 0, messages = 0, resets = 0;
  for (unsigned w : kWidths) {
    std::unique_ptr<IcrcCore> hw = rtl_core(rtl, w);
    if (!hw) continue;
    IcrcEngineModel model(w);
    bool in_message = false;
    const int n_cycles = w == 8 ? 100000 : 25000;
    for (int n = 0; n < n_cycles; ++n, ++cycles) {
      if (rng() % 2000 == 0) {
        hw->reset();
        model.reset();
        in_message = false;
        ++resets;
      }
      const IcrcBeat b = random_beat(rng, &in_message);
      const IcrcOut want = model.tick(b);
      const IcrcOut got = hw->tick(b);
      ASSERT_EQ(got, want) << "width " << w << " cycle " << n << ": rtl " << show(got) << ", model " << show(want);
      messages += got.valid;
    }
  }
  EXPECT_EQ(cycles, 200000u);
  EXPECT_GT(messages, 35000u);
  EXPECT_GT(resets, 60u);
}

// ---- directed cases, on the twin and the RTL at every width ----

TEST(Icrc, KnownCrc32Values) {
  RtlContext rtl;
  for (NamedCore& c : every_core(rtl)) {
    const Bytes digits = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
    EXPECT_EQ(feed(*c.core, digits), out(true, 0xCBF43926u)) << c.name;  // the CRC-32 check value
    EXPECT_EQ(feed(*c.core, Bytes{}), out(true, 0u)) << c.name;          // an empty message
    EXPECT_EQ(feed(*c.core, Bytes(8, 0xFF)), out(true, 0x2144DF1Cu)) << c.name;
  }
}

TEST(Icrc, OneByteMessages) {
  RtlContext rtl;
  for (NamedCore& c : every_core(rtl)) {
    EXPECT_EQ(c.core->tick(beat({0x00}, true, true)), out(true, 0xD202EF8Du)) << c.name;
    EXPECT_EQ(c.core->tick(beat({0xFF}, true, true)), out(true, 0xFF000000u)) << c.name;
    EXPECT_EQ(c.core->tick(beat({0x00}, true, true, 1)), out(true, 0xFF000000u)) << c.name;  // masked
    for (unsigned v = 0; v < 256; v += 17)
      ASSERT_EQ(c.core->tick(beat({uint8_t(v)}, true, true)), out(true, crc_ref({uint8_t(v)}))) << c.name << " " << v;
  }
}

TEST(Icrc, EverySingleMaskPositionAllMaskedAndNoneMasked) {
  RtlContext rtl;
  for (NamedCore& c : every_core(rtl)) {
    const unsigned w = c.core->bytes_per_cycle();
    const Bytes data = pattern(w, 0x5A);
    for (unsigned p = 0; p < w; ++p) {
      std::vector<uint8_t> m(w, 0);
      m[p] = 1;
      Bytes replaced = data;
      replaced[p] = 0xFF;
      ASSERT_EQ(c.core->tick(beat(data, true, true, uint16_t(1u << p))), out(true, crc_ref(replaced))) << c.name << " " << p;
      ASSERT_NE(crc_ref(replaced), crc_ref(data));  // the mask mattered
    }
    EXPECT_EQ(c.core->tick(beat(data, true, true, uint16_t((1u << w) - 1))), out(true, crc_ref(Bytes(w, 0xFF)))) << c.name;
    EXPECT_EQ(c.core->tick(beat(data, true, true, 0)), out(true, crc_ref(data))) << c.name;
    // A mask in the middle of a message, on its second beat.
    c.core->tick(beat(data, true, false));
    Bytes both = data;
    both.insert(both.end(), data.begin(), data.end());
    both[w] = 0xFF;
    EXPECT_EQ(c.core->tick(beat(data, false, true, 1)), out(true, crc_ref(both))) << c.name;
  }
}

TEST(Icrc, KeepPatternsOnTheLastBeat) {
  RtlContext rtl;
  for (NamedCore& c : every_core(rtl)) {
    const unsigned w = c.core->bytes_per_cycle();
    const Bytes a = pattern(w, 1), b = pattern(w, 200);
    for (unsigned k = 0; k <= w; ++k) {  // the last beat keeps its first k bytes
      Bytes want = a;
      want.insert(want.end(), b.begin(), b.begin() + k);
      c.core->tick(beat(a, true, false));
      ASSERT_EQ(c.core->tick(beat(b, false, true, 0, int((1u << k) - 1))), out(true, crc_ref(want))) << c.name << " " << k;
    }
    // Bytes left out anywhere are skipped; the mask is ignored where keep is 0.
    Bytes odd;
    for (unsigned i = 1; i < w; i += 2) odd.push_back(b[i]);
    const uint16_t odd_keep = 0xAAAA & ((1u << w) - 1);
    EXPECT_EQ(c.core->tick(beat(b, true, true, 0x5555, odd_keep)), out(true, crc_ref(odd))) << c.name;
  }
}

TEST(Icrc, ResetInTheMiddleOfAMessage) {
  RtlContext rtl;
  for (NamedCore& c : every_core(rtl)) {
    const unsigned w = c.core->bytes_per_cycle();
    const Bytes a = pattern(w, 3), b = pattern(w, 99);
    ASSERT_EQ(c.core->tick(beat(a, true, true)), out(true, crc_ref(a))) << c.name;
    c.core->tick(beat(b, true, false));  // a message under way...
    c.core->reset();                     // ...is dropped, and the outputs clear
    EXPECT_EQ(c.core->tick(idle()), out(false, 0)) << c.name;
    // After reset the CRC starts from its initial value without a first beat.
    EXPECT_EQ(c.core->tick(beat(a, false, true)), out(true, crc_ref(a))) << c.name;
    c.core->tick(beat(b, true, false));
    c.core->reset();
    EXPECT_EQ(c.core->tick(beat(a, true, true)), out(true, crc_ref(a))) << c.name;
  }
}

TEST(Icrc, FirstRestartsIdleCyclesHoldAndMessagesGoBackToBack) {
  RtlContext rtl;
  for (NamedCore& c : every_core(rtl)) {
    const unsigned w = c.core->bytes_per_cycle();
    const Bytes a = pattern(w, 7), b = pattern(w, 77);
    Bytes ab = a;
    ab.insert(ab.end(), b.begin(), b.end());
    // A first beat abandons the message under way.
    EXPECT_EQ(c.core->tick(beat(a, true, false)), out(false, 0)) << c.name;
    EXPECT_EQ(c.core->tick(beat(b, true, true)), out(true, crc_ref(b))) << c.name;
    // Idle cycles between beats change nothing; out_crc holds until the next last beat.
    EXPECT_EQ(c.core->tick(beat(a, true, false)), out(false, crc_ref(b))) << c.name;
    EXPECT_EQ(c.core->tick(idle()), out(false, crc_ref(b))) << c.name;
    IcrcBeat junk = beat(b, true, true, 0xFFFF);  // not valid: ignored
    junk.valid = false;
    EXPECT_EQ(c.core->tick(junk), out(false, crc_ref(b))) << c.name;
    EXPECT_EQ(c.core->tick(beat(b, false, true)), out(true, crc_ref(ab))) << c.name;
    // Back to back: a message in every cycle, with and without first, then one of two beats.
    EXPECT_EQ(c.core->tick(beat(a, true, true)), out(true, crc_ref(a))) << c.name;
    EXPECT_EQ(c.core->tick(beat(b, false, true)), out(true, crc_ref(b))) << c.name;
    EXPECT_EQ(c.core->tick(beat(a, true, false)), out(false, crc_ref(b))) << c.name;
    EXPECT_EQ(c.core->tick(beat(b, false, true)), out(true, crc_ref(ab))) << c.name;
    EXPECT_EQ(c.core->tick(idle()), out(false, crc_ref(ab))) << c.name;
  }
}

TEST(Icrc, RtlTracesIntoTheSharedWaveform) {
  const std::string path = ::testing::TempDir() + "icrc_trace_test.vcd";
  {
    RtlContext rtl(path);
    IcrcRtl hw(rtl);
    rtl.open();
    EXPECT_EQ(hw.bytes_per_cycle(), 8u);
    EXPECT_EQ(feed(hw, {'1', '2', '3', '4', '5', '6', '7', '8', '9'}), out(true, 0xCBF43926u));
    rtl.close();
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("$scope module icrc_engine $end"), std::string::npos);
  EXPECT_NE(text.str().find(" out_crc [31:0] $end"), std::string::npos);
  EXPECT_NE(text.str().find("b11001011111101000011100100100110 "), std::string::npos);  // 0xCBF43926
  std::remove(path.c_str());
}

// ---- the stream a frame gives the engine, and refused frames ----

Bytes roce_frame(size_t payload_len) {
  const uint8_t src[6] = {2, 0, 0, 0, 0, 1}, dst[6] = {2, 0, 0, 0, 0, 2};
  const Bytes payload = pattern(payload_len, 0x11);
  return build_udp_frame(src, dst, 0x0A000001, 0x0A000002, 49152, kRoceUdpPort, payload.data(), payload.size());
}

std::vector<size_t> masked_at(const IcrcStream& s) {
  std::vector<size_t> at;
  for (size_t i = 0; i < s.mask.size(); ++i)
    if (s.mask[i]) at.push_back(i);
  return at;
}

TEST(Icrc, StreamMasksExactlyTheVariantFields) {
  const Bytes f = roce_frame(16 + 20);  // BTH, 20 payload bytes, ICRC
  const IcrcStream s = icrc_stream(f.data(), f.size());
  ASSERT_EQ(s.data.size(), 8u + 20 + 8 + 12 + 20);
  EXPECT_EQ(Bytes(s.data.begin(), s.data.begin() + 8), Bytes(8, 0xFF));
  EXPECT_EQ(Bytes(s.data.begin() + 8, s.data.end()), Bytes(f.begin() + 14, f.end() - 4));
  // prefix; TOS 9, TTL 16, checksum 18-19; UDP checksum 34-35; BTH byte 4 at 36 + 4.
  EXPECT_EQ(masked_at(s), (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7, 9, 16, 18, 19, 34, 35, 40}));
  // With an 802.1Q tag (not covered), 8 bytes of IP options and Ethernet padding.
  Bytes g = f;
  g.insert(g.begin() + 34, 8, 0x01);  // NOP options
  const uint8_t tag[4] = {0x81, 0x00, 0x00, 0x05};
  g.insert(g.begin() + 12, tag, tag + 4);
  g.resize(g.size() + 6, 0x00);  // padding
  g[18] = 0x47;                // IHL 7
  g[18 + 3] = uint8_t(g[18 + 3] + 8);  // total length + 8
  const IcrcStream t = icrc_stream(g.data(), g.size());
  ASSERT_EQ(t.data.size(), s.data.size() + 8);
  EXPECT_EQ(masked_at(t), (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7, 9, 16, 18, 19, 42, 43, 48}));
  EXPECT_EQ(roce_layout(g.data(), g.size()).icrc_offset, g.size() - 6 - 4);
  // The same packet with its variant fields changed has the same ICRC; any other byte changes it.
  Bytes h = f;
  for (size_t at : {15, 22, 24, 25, 40, 41, 46}) h[at] ^= 0x5A;
  EXPECT_EQ(roce_icrc(h.data(), h.size()), roce_icrc(f.data(), f.size()));
  const std::vector<size_t> variant = {15, 22, 24, 25, 40, 41, 46};
  // Version/IHL, total length, flags/fragment offset, protocol, UDP port and length: a change
  // there makes the frame something else.
  const std::vector<size_t> structural = {14, 16, 17, 20, 21, 23, 36, 37, 38, 39};
  size_t changed = 0;
  for (size_t at = 14; at + 4 < f.size(); ++at) {
    if (std::count(variant.begin(), variant.end(), at) || std::count(structural.begin(), structural.end(), at)) continue;
    ++changed;
    h = f;
    h[at] ^= 0x01;
    ASSERT_NE(roce_icrc(h.data(), h.size()), roce_icrc(f.data(), f.size())) << at;
  }
  EXPECT_EQ(changed, f.size() - 4 - 14 - variant.size() - structural.size());
}

void expect_refused(const Bytes& f, const std::string& why) {
  for (auto fn : {std::function<void()>([&] { roce_icrc(f.data(), f.size()); }),
                  std::function<void()>([&] { icrc_stream(f.data(), f.size()); }),
                  std::function<void()>([&] { carried_icrc(f.data(), f.size()); })}) {
    try {
      fn();
      ADD_FAILURE() << "accepted; expected: " << why;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), "not a RoCEv2 frame: " + why);
    }
  }
}

TEST(Icrc, RefusesFramesThatAreNotRoceV2NamingWhy) {
  const Bytes f = roce_frame(16);
  EXPECT_EQ(roce_layout(f.data(), f.size()).icrc_offset, 54u);
  auto with = [&](size_t at, uint8_t v) {
    Bytes g = f;
    g[at] = v;
    return g;
  };
  expect_refused(Bytes(f.begin(), f.begin() + 13), "frame of 13 bytes is shorter than an Ethernet header (14)");
  {
    Bytes g = with(12, 0x86);
    g[13] = 0xDD;
    expect_refused(g, "IPv6 (ethertype 0x86dd) is not supported, only IPv4");
  }
  expect_refused(with(13, 0x06), "ethertype 0x0806 is not IPv4 (0x0800)");
  {
    Bytes g = with(12, 0x81);
    g[13] = 0x00;
    g.resize(17);
    expect_refused(g, "frame of 17 bytes is shorter than an 802.1Q-tagged Ethernet header (18)");
  }
  expect_refused(Bytes(f.begin(), f.begin() + 33), "IPv4 header truncated (19 of 20 bytes)");
  expect_refused(with(14, 0x65), "IPv4 version field is 6, not 4");
  expect_refused(with(14, 0x44), "IPv4 IHL 4 is below 5");
  expect_refused(with(17, 19), "IPv4 total length 19 is smaller than its header (20)");
  expect_refused(with(17, 45), "IPv4 total length 45 exceeds the 44 bytes present");
  expect_refused(with(20, 0x20), "IPv4 fragment (MF set or offset not 0)");
  expect_refused(with(21, 0x01), "IPv4 fragment (MF set or offset not 0)");
  expect_refused(with(23, 6), "IP protocol 6 is not UDP (17)");
  expect_refused(with(17, 27), "UDP header truncated (7 of 8 bytes)");
  expect_refused(with(39, 23), "UDP length 23 does not match the IPv4 payload (24 bytes)");
  expect_refused(with(37, 0xB6), "UDP destination port 4790 is not 4791");
  const Bytes short_payload = roce_frame(15);
  expect_refused(short_payload, "UDP payload of 15 bytes is shorter than BTH + ICRC (16)");
  // A frame with don't-fragment set is fine, and so is the smallest RoCEv2 frame.
  EXPECT_NO_THROW(roce_icrc(with(20, 0x40).data(), f.size()));
  EXPECT_THROW(IcrcEngineModel(0), InputError);
  EXPECT_THROW(IcrcEngineModel(17), InputError);
}

}  // namespace
}  // namespace fs

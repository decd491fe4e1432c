// Tests of trace merge, shift and filter (sc_model/net/trace_edit): small traces whose results
// are worked out in the test, every field of --match, and every error with the packet it names.
// (tb/e2e/foreign_trace_e2e_test.cpp runs `flaresim trace` on files.)
#include "net/trace_edit.h"

#include <gtest/gtest.h>

#include <functional>

#include "common/errors.h"

namespace fs {
namespace {

std::vector<TraceRecord> text(const std::string& name, const std::string& lines) {
  return parse_trace(name, reinterpret_cast<const uint8_t*>(lines.data()), lines.size(), TraceOptions());
}

// "where@time:port" of every record, to compare whole traces at a glance.
std::string summary(const std::vector<TraceRecord>& rs) {
  std::string s;
  for (const TraceRecord& r : rs) s += (s.empty() ? "" : " ") + r.where + "@" + std::to_string(r.time) + ":" + std::to_string(r.port);
  return s;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceMerge, TimeOrderThenInputOrderThenFileOrder) {
  std::vector<MergeInput> in(3);
  in[0].records = text("a", "1ns 0 udp\n2ns 1 udp\n2ns 0 tcp\n");
  in[1].records = text("b", "0ns 0 udp\n2ns 0 udp\n");
  in[1].port_offset = 10;
  in[2].records = text("c", "2ns 3 udp\n5ns 1 udp\n");
  in[2].port_map = {{3, 60}};
  EXPECT_EQ(summary(merge_traces(in, 64)), "b:1@0:10 a:1@1000:0 a:2@2000:1 a:3@2000:0 b:2@2000:10 c:1@2000:60 c:2@5000:1");
}

TEST(TraceMerge, PortsThatLeaveTheSwitchAreErrors) {
  std::vector<MergeInput> in(1);
  in[0].records = text("a", "0ns 0 udp\n0ns 5 udp\n");
  in[0].port_offset = 3;
  EXPECT_EQ(error_of([&] { merge_traces(in, 8); }), "a:2: port 5 + port offset 3 = 8 >= num_ports 8");
  in[0].port_offset = 0;
  in[0].port_map = {{5, 9}};
  EXPECT_EQ(error_of([&] { merge_traces(in, 8); }), "a:2: port 5 mapped to 9 >= num_ports 8");
}

TEST(TraceShift, BothWaysAndItsLimits) {
  TimeShift by;
  std::string err;
  ASSERT_TRUE(parse_time_shift("-1.5ns", &by, &err));
  EXPECT_TRUE(by.negative);
  EXPECT_EQ(by.amount, 1500u);
  EXPECT_EQ(format_time_shift(by), "-1.5ns");
  auto recs = text("a", "1500ps 0 udp\n2us 1 udp\n");
  shift_trace(recs, by);
  EXPECT_EQ(summary(recs), "a:1@0:0 a:2@1998500:1");
  ASSERT_TRUE(parse_time_shift("+1ps", &by, &err));
  EXPECT_FALSE(by.negative);
  shift_trace(recs, by);
  EXPECT_EQ(summary(recs), "a:1@1:0 a:2@1998501:1");
  ASSERT_TRUE(parse_time_shift("2ps", &by, &err));
  by.negative = true;
  EXPECT_EQ(error_of([&] { shift_trace(recs, by); }), "a:1: time 0.001ns shifted by -0.002ns would be negative");
  auto last = text("z", "18446744073709551615ps 0 udp\n");
  ASSERT_TRUE(parse_time_shift("1ps", &by, &err));
  EXPECT_EQ(error_of([&] { shift_trace(last, by); }),
            "z:1: time 18446744073709551.615ns shifted by +0.001ns would pass 2^64-1 ps");
  EXPECT_FALSE(parse_time_shift("--1ns", &by, &err));
  EXPECT_EQ(err, "negative time '-1ns'");
  EXPECT_FALSE(parse_time_shift("+5", &by, &err));
  EXPECT_EQ(err, "time '5' has no unit (use ps, ns, us, ms or s)");
  ASSERT_TRUE(parse_time_shift("-0ns", &by, &err));
  EXPECT_EQ(format_time_shift(by), "+0ns");
}

TEST(TraceFilter, PortsWindowAndIndexes) {
  const auto recs = text("a", "0ns 0 udp\n1ns 1 udp\n2ns 2 udp\n3ns 1 udp\n4ns 0 udp\n");
  TraceFilter f;
  f.ports = {1, 2};
  EXPECT_EQ(summary(filter_trace(recs, f)), "a:2@1000:1 a:3@2000:2 a:4@3000:1");
  f = TraceFilter();
  f.from = 1000;
  f.to = 3000;
  f.to_given = true;
  EXPECT_EQ(summary(filter_trace(recs, f)), "a:2@1000:1 a:3@2000:2");  // [from, to)
  f = TraceFilter();
  f.first_index = 4;
  EXPECT_EQ(summary(filter_trace(recs, f)), "a:4@3000:1 a:5@4000:0");
  f.first_index = 2;
  f.last_index = 2;
  f.ports = {1};
  EXPECT_EQ(summary(filter_trace(recs, f)), "a:2@1000:1");
  f.ports = {0};
  EXPECT_EQ(summary(filter_trace(recs, f)), "");
}

// Keeps the lines of `lines` whose frames pass --match `m`.
std::string matching(const std::string& m, const std::string& lines) {
  FieldMatch fm;
  std::string err;
  EXPECT_TRUE(FieldMatch::parse(m, &fm, &err)) << m << ": " << err;
  TraceFilter f;
  f.matches = {fm};
  return summary(filter_trace(text("t", lines), f));
}

TEST(TraceFilter, HeaderFields) {
  const std::string lines =
      "0ns 0 udp sport=1 dport=53\n"                                       // 1
      "0ns 0 tcp sport=53 dport=80 vlan=7\n"                               // 2
      "0ns 0 udp src_ip=fd00::5 dst_ip=fd00::1 dport=53\n"                 // 3
      "0ns 0 eth ethertype=0x0806 src_mac=00:1b:21:3a:4f:5e\n"             // 4
      "0ns 0 ip proto=1 src_ip=192.168.1.7 dst_ip=10.0.0.9 vlan=0\n"       // 5
      "0ns 0 hex 0102\n";                                                  // 6: no Ethernet header
  EXPECT_EQ(matching("dport=53", lines), "t:1@0:0 t:3@0:0");
  EXPECT_EQ(matching("sport=0x35", lines), "t:2@0:0");
  EXPECT_EQ(matching("ip_proto=udp", lines), "t:1@0:0 t:3@0:0");
  EXPECT_EQ(matching("ip_proto=6", lines), "t:2@0:0");
  EXPECT_EQ(matching("ip_proto=icmp", lines), "t:5@0:0");
  EXPECT_EQ(matching("ethertype=0x0800", lines), "t:1@0:0 t:2@0:0 t:5@0:0");  // after the VLAN tag
  EXPECT_EQ(matching("ethertype=0x86dd", lines), "t:3@0:0");
  EXPECT_EQ(matching("vlan=7", lines), "t:2@0:0");
  EXPECT_EQ(matching("vlan=0", lines), "t:5@0:0");
  EXPECT_EQ(matching("vlan=none", lines), "t:1@0:0 t:3@0:0 t:4@0:0");
  EXPECT_EQ(matching("src_ip=10.1.0.0/16", lines), "t:1@0:0 t:2@0:0");  // the default source: 10.1.0.0 (port 0)
  EXPECT_EQ(matching("src_ip=fd00::/8", lines), "t:3@0:0");
  EXPECT_EQ(matching("dst_ip=10.0.0.9", lines), "t:5@0:0");
  EXPECT_EQ(matching("src_mac=00:1b:21:3a:4f:5e", lines), "t:4@0:0");
  EXPECT_EQ(matching("dst_mac=02:00:00:ff:ff:ff", lines), "t:1@0:0 t:2@0:0 t:3@0:0 t:4@0:0 t:5@0:0");
}

TEST(TraceFilter, MatchErrors) {
  auto error = [](const std::string& m) {
    FieldMatch fm;
    std::string err;
    EXPECT_FALSE(FieldMatch::parse(m, &fm, &err)) << m;
    return err;
  };
  EXPECT_EQ(error("dport"), "expected FIELD=VALUE");
  EXPECT_EQ(error("dport="), "expected FIELD=VALUE");
  EXPECT_EQ(error("port=1"),
            "unknown field 'port' (fields: ethertype vlan ip_proto src_ip dst_ip sport dport src_mac dst_mac)");
  EXPECT_EQ(error("dport=65536"), "bad value '65536' for dport (expected 0..65535, decimal or 0x hex)");
  EXPECT_EQ(error("vlan=4096"), "bad value '4096' for vlan (expected 0..4095, decimal or 0x hex)");
  EXPECT_EQ(error("ip_proto=sctp"), "bad value 'sctp' for ip_proto (expected 0..255, decimal or 0x hex)");
  EXPECT_EQ(error("src_ip=10.0.0.1/8"), "'10.0.0.1/8' has address bits set beyond the /8 prefix (did you mean 10.0.0.0/8?)");
  EXPECT_EQ(error("src_mac=1:2:3:4:5:6"), "bad MAC address '1:2:3:4:5:6' (expected six hex bytes like 02:00:00:00:00:07)");
}

}  // namespace
}  // namespace fs

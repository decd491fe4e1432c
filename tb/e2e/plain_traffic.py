#!/usr/bin/python3
# Plain (not in-network compute) traffic for tb/e2e/plain_traffic_e2e_test.cpp, built with scapy and
# written as a flaresim text trace ("<time> <port> hex <frame>", traces/FORMAT.md).
#
#   plain_traffic.py bridge OUT.txt
#       seven frames between four hosts (A on port 0, B on 1, C on 2, D on 3), the sequence the
#       test works out by hand: IPv4, ARP broadcast, VLAN 7 IPv6 (routed: to 2001:db8:2::1).
#   plain_traffic.py flows OUT.txt CLUSTERS SPACING_NS
#       eight flows of six packets each, interleaved, SPACING_NS apart (each on its flow's port,
#       0 to 3), to UDP port 7000 or over TCP: IPv4 and IPv6,
#       untagged, 802.1Q and QinQ. Prints one line a packet, "<packet id> <cluster>", the cluster
#       the flow policy must put it on: zlib's CRC-32 of its 5-tuple key (docs/HANDLERS.md: source
#       and destination address, protocol byte, source and destination port) mod CLUSTERS. The
#       flows' ports are chosen so that every cluster gets two flows.
# Exit status 3 when scapy cannot be imported.
import socket
import struct
import sys
import zlib

try:
    import logging
    logging.getLogger("scapy").setLevel(logging.ERROR)
    from scapy.compat import raw
    from scapy.layers.inet import IP, TCP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether
    from scapy.packet import Raw
except ImportError as e:
    sys.stderr.write("plain_traffic.py: cannot import scapy (%s); run scripts/install-deps\n" % e)
    sys.exit(3)

MAC = {"A": "02:00:00:00:00:0a", "B": "02:00:00:00:00:0b", "C": "02:00:00:00:00:0c", "D": "02:00:00:00:00:0d"}
BROADCAST = "ff:ff:ff:ff:ff:ff"


def line(time_ns, port, frame):
    return "%dns %d hex %s\n" % (time_ns, port, raw(frame).hex())


def bridge(out):
    payload = Raw(b"plain traffic")
    frames = [
        (0, Ether(src=MAC["A"], dst=MAC["B"]) / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=4000, dport=5001) / payload),
        (1, Ether(src=MAC["B"], dst=MAC["A"]) / IP(src="10.0.0.2", dst="10.0.0.1") / UDP(sport=5001, dport=4000) / payload),
        (0, Ether(src=MAC["A"], dst=MAC["B"]) / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=4000, dport=5001) / payload),
        (2, Ether(src=MAC["C"], dst=BROADCAST) / ARP(psrc="10.0.0.3", pdst="10.0.0.1")),
        (3, Ether(src=MAC["D"], dst=MAC["A"]) / Dot1Q(vlan=7) / IPv6(src="2001:db8:1::4", dst="2001:db8:2::1")
         / UDP(sport=6000, dport=6001) / payload),
        (0, Ether(src=MAC["A"], dst=MAC["D"]) / Dot1Q(vlan=7) / IPv6(src="2001:db8:2::1", dst="2001:db8:1::4")
         / UDP(sport=6001, dport=6000) / payload),
        (1, Ether(src=MAC["C"], dst=MAC["B"]) / IP(src="10.0.0.3", dst="10.0.0.2") / UDP(sport=1, dport=2) / payload),
    ]
    with open(out, "w") as f:
        f.write("# plain_traffic.py bridge\n")
        for n, (port, frame) in enumerate(frames):
            f.write(line(1000 * n, port, frame))


def five_tuple(l3, l4):
    family = socket.AF_INET6 if isinstance(l3, IPv6) else socket.AF_INET
    proto = 6 if isinstance(l4, TCP) else 17
    return (socket.inet_pton(family, l3.src) + socket.inet_pton(family, l3.dst) + bytes([proto]) +
            struct.pack(">HH", l4.sport, l4.dport))


def flows(out, clusters, spacing_ns):
    kinds = [
        lambda: (IP(src="10.1.0.1", dst="10.2.0.1"), UDP, []),
        lambda: (IPv6(src="2001:db8::a", dst="2001:db8::b"), UDP, []),
        lambda: (IP(src="10.1.0.2", dst="10.2.0.2"), TCP, [Dot1Q(vlan=100)]),
        lambda: (IPv6(src="2001:db8::c", dst="2001:db8::d"), UDP, [Dot1AD(vlan=200), Dot1Q(vlan=300)]),
    ]
    # Eight flows, two per cluster: source ports from 10000 on, the first that give a cluster with
    # room (deterministic).
    chosen, per_cluster, sport = [], [0] * clusters, 10000
    while len(chosen) < 2 * clusters:
        l3, l4_type, tags = kinds[len(chosen) % len(kinds)]()
        l4 = l4_type(sport=sport, dport=7000)
        c = zlib.crc32(five_tuple(l3, l4)) % clusters
        if per_cluster[c] < 2:
            per_cluster[c] += 1
            chosen.append((l3, l4, tags, c))
        sport += 1
    expected = []
    with open(out, "w") as f:
        f.write("# plain_traffic.py flows\n")
        n = 0
        for rnd in range(6):  # round robin over the flows
            for k, (l3, l4, tags, c) in enumerate(chosen):
                frame = Ether(src="02:00:00:00:01:%02x" % k, dst="02:00:00:00:02:00")
                for t in tags:
                    frame = frame / t
                frame = frame / l3.copy() / l4.copy() / Raw(bytes([rnd]) * 32)
                f.write(line(spacing_ns * n, k % 4, frame))
                expected.append((n, c))
                n += 1
    for n, c in expected:
        print(n, c)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "bridge":
        bridge(sys.argv[2])
    elif len(sys.argv) >= 5 and sys.argv[1] == "flows":
        flows(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.stderr.write("usage: plain_traffic.py bridge OUT.txt | flows OUT.txt CLUSTERS SPACING_NS\n")
        sys.exit(2)


main()

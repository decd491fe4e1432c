#!/usr/bin/python3
# Test vectors for the header walker and the flow key (tb/net/headers_test.cpp): builds varied
# frames with scapy (VLAN and QinQ tags, IPv4 with options, IPv6 with extension headers and
# fragments, UDP, TCP with options, ICMP, ARP, Ethernet padding) and prints, one frame a line,
# the frame and what scapy's own dissection says of it:
#   <frame hex> tags=N outer=VID inner=VID type=0xETYPE ip=0|4|6 src=HEX dst=HEX proto=N frag=0|1
#   l4=none|udp|tcp sport=N dport=N payload=OFFSET len=N flow=CRC
# flow is the flow key of scheduler.flow_key = 5tuple as docs/HANDLERS.md defines it, computed
# here: zlib's CRC-32 of the source address, destination address (4 or 16 bytes), the protocol
# (1 byte) and, for TCP and UDP outside fragments, the source and destination ports (2 bytes
# each, big endian); a frame without IP has an empty key (CRC 0). Deterministic (fixed seed).
# Exit status 3 when scapy cannot be imported. Usage: header_vectors.py [COUNT]
import random
import socket
import struct
import sys
import zlib

try:
    import logging
    logging.getLogger("scapy").setLevel(logging.ERROR)
    from scapy.compat import raw
    from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_NOP
    from scapy.layers.inet6 import (IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                                    IPv6ExtHdrRouting)
    from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether
    from scapy.packet import Padding, Raw
except ImportError as e:
    sys.stderr.write("header_vectors.py: cannot import scapy (%s); run scripts/install-deps\n" % e)
    sys.exit(3)


def mac(rng):
    return ":".join("%02x" % rng.randrange(256) for _ in range(6))


def ipv4(rng):
    return ".".join(str(rng.randrange(256)) for _ in range(4))


def ipv6(rng):
    return socket.inet_ntop(socket.AF_INET6, rng.randbytes(16))


def build(rng, n):
    """One frame: the kind of each layer from n and the generator."""
    eth = Ether(src=mac(rng), dst=mac(rng))
    tags = n % 3  # untagged, 802.1Q, QinQ (802.1ad outer, 802.1Q inner)
    if tags == 1:
        eth = eth / Dot1Q(vlan=rng.randrange(4096), prio=rng.randrange(8))
    elif tags == 2:
        eth = eth / Dot1AD(vlan=rng.randrange(4096)) / Dot1Q(vlan=rng.randrange(4096))
    kind = (n // 3) % 8
    payload = Raw(rng.randbytes(rng.randrange(0, 64)))
    if kind == 7:  # not IP
        return eth / ARP(psrc=ipv4(rng), pdst=ipv4(rng))
    if kind < 4:  # IPv4: UDP, TCP with options, ICMP, a fragment
        ip = IP(src=ipv4(rng), dst=ipv4(rng), ttl=rng.randrange(1, 256))
        if rng.random() < 0.3:
            ip.options = [IPOption_NOP()] * rng.randrange(1, 8)
        if kind == 3:
            ip.flags = "MF" if rng.random() < 0.5 else 0
            ip.frag = 0 if ip.flags else rng.randrange(1, 100)
    else:  # IPv6: plain, with extension headers, fragmented
        ip = IPv6(src=ipv6(rng), dst=ipv6(rng), hlim=rng.randrange(256))
        if kind == 5:
            ip = ip / IPv6ExtHdrHopByHop() / IPv6ExtHdrRouting(addresses=[ipv6(rng)]) / IPv6ExtHdrDestOpt()
        elif kind == 6:
            first = rng.random() < 0.5
            atomic = rng.random() < 0.3
            ip = ip / IPv6ExtHdrFragment(offset=0 if first or atomic else rng.randrange(1, 100),
                                         m=0 if atomic else 1, id=rng.randrange(1 << 32))
    l4 = [UDP(sport=rng.randrange(65536), dport=rng.randrange(65536)),
          TCP(sport=rng.randrange(65536), dport=rng.randrange(65536),
              options=[("NOP", None)] * rng.randrange(0, 9)),
          ICMP()][rng.randrange(3) if kind != 2 else 2]
    if kind == 2 and rng.random() < 0.5:
        l4 = UDP(sport=rng.randrange(65536), dport=rng.randrange(65536))
    return eth / ip / l4 / payload


def describe(frame):
    """The fields headers_test.cpp compares, from scapy's dissection of the frame's bytes."""
    p = Ether(frame)
    total = len(frame)
    tags = outer = inner = 0
    layer = p.payload
    ethertype = p.type
    while isinstance(layer, (Dot1Q, Dot1AD)):
        if tags == 0:
            outer = layer.vlan
        inner = layer.vlan
        tags += 1
        ethertype = layer.type
        layer = layer.payload
    out = {"tags": tags, "outer": outer, "inner": inner, "type": "0x%04x" % ethertype}
    ip_ver, src, dst, proto, frag, l4, sport, dport, poff, plen = 0, b"", b"", 0, 0, "none", 0, 0, 0, 0
    key = b""
    if IP in p:
        ip = p[IP]
        ip_ver, proto = 4, ip.proto
        src, dst = socket.inet_pton(socket.AF_INET, ip.src), socket.inet_pton(socket.AF_INET, ip.dst)
        frag = int(bool(ip.flags.MF) or ip.frag != 0)
        ip_off = total - len(raw(ip))
        ip_end = ip_off + ip.len
    elif IPv6 in p:
        ip = p[IPv6]
        ip_ver = 6
        src, dst = socket.inet_pton(socket.AF_INET6, ip.src), socket.inet_pton(socket.AF_INET6, ip.dst)
        ip_off = total - len(raw(ip))
        ip_end = ip_off + 40 + ip.plen
        layer, proto = ip.payload, ip.nh
        while isinstance(layer, (IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment)):
            proto = layer.nh
            if isinstance(layer, IPv6ExtHdrFragment) and (layer.offset != 0 or layer.m):
                frag = 1
                break
            layer = layer.payload
    if ip_ver:
        key = src + dst + bytes([proto])
        if not frag and (UDP in p or TCP in p) and proto in (6, 17):
            t = p[UDP] if proto == 17 else p[TCP]
            l4 = "udp" if proto == 17 else "tcp"
            sport, dport = t.sport, t.dport
            l4_off = total - len(raw(t))
            if proto == 17:
                poff, plen = l4_off + 8, t.len - 8
            else:
                poff = l4_off + t.dataofs * 4
                plen = ip_end - poff
            key += struct.pack(">HH", sport, dport)
    out.update({"ip": ip_ver, "src": src.hex() or "-", "dst": dst.hex() or "-", "proto": proto, "frag": frag,
                "l4": l4, "sport": sport, "dport": dport, "payload": poff, "len": plen,
                "flow": "%08x" % zlib.crc32(key)})
    return out


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 240
    rng = random.Random(14)
    for n in range(count):
        frame = raw(build(rng, n))
        if n % 5 == 0 and len(frame) < 60:
            frame += bytes(60 - len(frame))  # Ethernet padding after the IP packet
        d = describe(frame)
        print(frame.hex(), " ".join("%s=%s" % kv for kv in d.items()))


main()

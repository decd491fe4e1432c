#!/usr/bin/python3
# Test vectors for the RoCEv2 ICRC (tb/rtl/icrc_test.cpp): builds varied RoCEv2 frames with scapy,
# whose scapy.contrib.roce computes the ICRC independently of flaresim, and prints one frame a
# line: "<frame hex> <icrc>", icrc being the 4 ICRC bytes scapy put in the frame read as a
# little-endian word (8 hex digits). Deterministic (fixed seed). Exit status 3 when scapy cannot
# be imported. Usage: icrc_vectors.py [COUNT]
import random
import sys

try:
    import logging
    logging.getLogger("scapy").setLevel(logging.ERROR)
    from scapy.compat import raw
    from scapy.contrib.roce import BTH, _bth_opcodes, cnp
    from scapy.layers.inet import IP, UDP, IPOption_NOP, IPOption_Router_Alert
    from scapy.layers.l2 import Dot1Q, Ether
    from scapy.packet import Raw
except ImportError as e:
    sys.stderr.write("icrc_vectors.py: cannot import scapy (%s); run scripts/install-deps\n" % e)
    sys.exit(3)


def mac(rng):
    return ":".join("%02x" % rng.randrange(256) for _ in range(6))


def ipv4(rng):
    return ".".join(str(rng.randrange(256)) for _ in range(4))


def maybe(rng, value):
    # Half the time leave a checksum for scapy to compute, else a random (wrong) one.
    return value if rng.random() < 0.5 else None


def frame(rng, n):
    # A few fixed payload lengths first (empty, smallest, largest), then random ones.
    plen = [0, 4, 1500][n] if n < 3 else rng.randrange(0, 1501, 4)
    payload = rng.randbytes(plen)
    ip = IP(src=ipv4(rng), dst=ipv4(rng), tos=rng.randrange(256), ttl=rng.randrange(256),
            id=rng.randrange(65536), flags=rng.choice([0, 2]), chksum=maybe(rng, rng.randrange(65536)))
    if n % 9 == 4:
        ip.options = [IPOption_Router_Alert()]
    elif n % 9 == 7:
        ip.options = [IPOption_NOP()] * rng.randrange(1, 40)
    udp = UDP(sport=rng.randrange(65536), dport=4791, chksum=maybe(rng, rng.randrange(65536)))
    if n % 50 == 10:
        bth = cnp(rng.randrange(1 << 24))
    else:
        bth = BTH(opcode=rng.choice(sorted(_bth_opcodes)), solicited=rng.randrange(2), migreq=rng.randrange(2),
                  padcount=rng.randrange(4), version=rng.randrange(16), pkey=rng.randrange(65536),
                  fecn=rng.randrange(2), becn=rng.randrange(2), resv6=rng.randrange(64),
                  dqpn=rng.randrange(1 << 24), ackreq=rng.randrange(2), resv7=rng.randrange(128),
                  psn=rng.randrange(1 << 24))
        if plen:
            bth = bth / Raw(payload)
    l2 = Ether(src=mac(rng), dst=mac(rng))
    if n % 5 == 2:
        l2 = l2 / Dot1Q(vlan=rng.randrange(4096), prio=rng.randrange(8))
    data = raw(l2 / ip / udp / bth)
    icrc = int.from_bytes(data[-4:], "little")  # no padding yet: the ICRC ends the frame
    # scapy's own reading of the frame agrees (its field is the 4 bytes read big endian).
    seen = Ether(data)[BTH].icrc
    assert int.from_bytes(seen.to_bytes(4, "big"), "little") == icrc, (n, hex(seen), hex(icrc))
    # Ethernet padding, which the ICRC does not cover: up to the 60-byte minimum, or extra bytes.
    if len(data) < 60:
        data += bytes(60 - len(data))
    if n % 11 == 5:
        data += rng.randbytes(rng.randrange(1, 9))
    return data, icrc


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    rng = random.Random(4791)
    print("# RoCEv2 frames and the ICRC scapy computed for them")
    for n in range(count):
        data, icrc = frame(rng, n)
        print("%s %08x" % (data.hex(), icrc))


if __name__ == "__main__":
    main()

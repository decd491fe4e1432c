#!/usr/bin/python3
# Reads RoCEv2 frames, one hex string a line (tb/net/roce_frame_test.cpp), or every frame of a
# pcap or pcapng capture (a run's --egress), and prints for each what scapy's scapy.contrib.roce
# makes of it, independently of flaresim: the BTH's opcode, destination QP, acknowledge request,
# pad count and PSN, and whether the ICRC the frame carries is the one scapy computes ("icrc ok"
# or "icrc bad"); a frame that is no RoCEv2 prints "not roce". Exit status 3 when scapy cannot
# be imported. Usage: roce_check.py < frames.txt, or roce_check.py CAPTURE
import sys

try:
    import logging
    logging.getLogger("scapy").setLevel(logging.ERROR)
    from scapy.compat import raw
    from scapy.contrib.roce import BTH
    from scapy.layers.l2 import Ether
    from scapy.utils import rdpcap
except ImportError as e:
    sys.stderr.write("roce_check.py: cannot import scapy (%s); run scripts/install-deps\n" % e)
    sys.exit(3)

frames = [raw(p) for p in rdpcap(sys.argv[1])] if len(sys.argv) > 1 else [bytes.fromhex(l.strip()) for l in sys.stdin]
for data in frames:
    p = Ether(data)
    if BTH not in p:
        print("not roce")
        continue
    b = p[BTH]
    again = Ether(data)
    again[BTH].icrc = None  # scapy computes it when the frame is built again
    ok = raw(again)[-4:] == data[-4:]
    print(b.opcode, b.dqpn, b.ackreq, b.padcount, b.psn, "icrc ok" if ok else "icrc bad")

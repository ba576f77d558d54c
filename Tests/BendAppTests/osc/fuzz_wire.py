# SPDX-License-Identifier: GPL-3.0-or-later
"""Sends COUNT seeded hostile datagrams with python-osc and raw sockets: TUIO bundles
out of order and duplicated, our messages with wrong types, truncations, bit flips.
usage: fuzz_wire.py PORT COUNT SEED"""
import random, socket, sys
from pythonosc import osc_bundle_builder, osc_message_builder

port, count, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

def msg(address, *args):
    m = osc_message_builder.OscMessageBuilder(address=address)
    for a in args:
        m.add_arg(a)
    return m.build()

def tuio(fseq):
    b = osc_bundle_builder.OscBundleBuilder(osc_bundle_builder.IMMEDIATELY)
    alive = rng.sample(range(6), rng.randint(0, 3))
    b.add_content(msg("/tuio/2Dcur", "alive", *alive))
    for s in alive:
        b.add_content(msg("/tuio/2Dcur", "set", s, rng.random(), rng.random(), 0.0, 0.0, 0.0))
    b.add_content(msg("/tuio/2Dcur", "fseq", fseq))
    return b.build().dgram

def own():
    k = rng.randrange(5)
    if k == 0: return msg("/bendsynth/touch", rng.randrange(4), rng.random(), rng.random()).dgram
    if k == 1: return msg("/bendsynth/release", rng.randrange(4)).dgram
    if k == 2: return msg("/bendsynth/touch", "x", rng.random()).dgram
    if k == 3: return msg("/accxyz", rng.random(), rng.random(), rng.random()).dgram
    return msg("/bendsynth/xy/1", rng.random(), rng.random(), float(rng.randrange(2))).dgram

recent, fseq = [], 0
for i in range(count):
    k = rng.randrange(6)
    if k <= 1:
        fseq += 1
        d = tuio(fseq - (rng.randrange(4) if rng.random() < 0.2 else 0))
    elif k == 2: d = own()
    elif k == 3 and recent: d = rng.choice(recent)
    elif k == 4 and recent:
        d = rng.choice(recent); d = d[:rng.randrange(max(1, len(d)))]
    else:
        d = bytearray(rng.choice(recent) if recent else own()) or bytearray(own())
        for _ in range(rng.randint(1, 3)):
            d[rng.randrange(len(d))] ^= 1 << rng.randrange(8)
        d = bytes(d)
    recent = (recent + [d])[-32:]
    sock.sendto(d, ("127.0.0.1", port))

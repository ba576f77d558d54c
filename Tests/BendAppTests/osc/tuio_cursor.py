# SPDX-License-Identifier: GPL-3.0-or-later
"""Plays one TUIO 1.1 cursor with python-osc: bundles of source/alive/set/fseq every
20 ms for SECONDS at (x, y) in TUIO coordinates (y down), then an empty alive.
usage: tuio_cursor.py PORT X Y SECONDS [--vanish]   (--vanish: stop without the empty alive)"""
import os, sys, time
from pythonosc import udp_client, osc_bundle_builder, osc_message_builder

port, x, y, seconds = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
vanish = "--vanish" in sys.argv
client = udp_client.SimpleUDPClient("127.0.0.1", port)

def msg(*args):
    m = osc_message_builder.OscMessageBuilder(address="/tuio/2Dcur")
    for a in args:
        m.add_arg(a)
    return m.build()

def frame(fseq, alive, sets):
    b = osc_bundle_builder.OscBundleBuilder(osc_bundle_builder.IMMEDIATELY)
    b.add_content(msg("source", "pytest-%d@localhost" % os.getpid()))  # a new tracker each run
    b.add_content(msg("alive", *alive))
    for s in sets:
        b.add_content(msg("set", s, x, y, 0.0, 0.0, 0.0))
    b.add_content(msg("fseq", fseq))
    client.send(b.build())

fseq = 1
end = time.monotonic() + seconds
while time.monotonic() < end:
    frame(fseq, [7], [7])
    fseq += 1
    time.sleep(0.02)
if not vanish:
    frame(fseq, [], [])

# SPDX-License-Identifier: GPL-3.0-or-later
"""Every wait is on the runtime (issue 34, item 4): a thread that waits for another, for a
deadline or for a fixed time does so through BendSystem (`Wakeup`, `EventLoop` timers and
descriptors), never by a sleep, a semaphore or Dispatch of its own. check-layers.py runs
`problems()`.

Outside the runtime (BendSystem) and the benches (BendBench, bendsynth-bench), a Swift line
under Sources/ must not call usleep, sleep, nanosleep or clock_nanosleep (a declaration,
`func sleep(`, is not a call), name a Dispatch type (DispatchSemaphore, DispatchQueue,
DispatchGroup, DispatchTime…: a `.wait()` on a Dispatch object needs one), call a POSIX
semaphore or condition wait, or `import Dispatch` — unless the line carries a
`runtime-exception:` comment saying why (the paced output's clock_nanosleep stands in for a
device's clock).
"""
import os
import re

# Where waits are the layer's business: the runtime itself, and the benches that measure it.
EXEMPT = ("Sources/BendSystem/", "Sources/BendBench/", "Sources/bendsynth-bench/")
# PENDING: files another branch is changing right now; each entry goes when that branch is
# merged (none now).
PENDING = set()

MARK = "runtime-exception:"
RULES = [
    (re.compile(r'(?<![\w.])(?<!func )(usleep|sleep|nanosleep|clock_nanosleep)\s*\('), "a sleep"),
    (re.compile(r'(?<!func )\.sleep\s*\(\s*until'), "a sleep"),
    (re.compile(r'\bDispatch[A-Z]\w*'), "Dispatch"),
    (re.compile(r'\b(sem_wait|sem_timedwait|pthread_cond_wait|pthread_cond_timedwait)\s*\('), "a semaphore or condition wait"),
    (re.compile(r'^\s*(@[A-Za-z_]+\s+)*import\s+Dispatch\b'), "Dispatch"),
]


def code_and_comment(line):
    """The line's code (string literals blanked) and its `//` comment."""
    code, i, quoted = [], 0, False
    while i < len(line):
        c = line[i]
        if quoted:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                quoted = False
            code.append(" ")
        elif c == '"':
            quoted = True
            code.append(" ")
        elif line.startswith("//", i):
            return "".join(code), line[i:]
        else:
            code.append(c)
        i += 1
    return "".join(code), ""


def problems(root):
    found = []
    for folder, _, files in os.walk(os.path.join(root, "Sources")):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, root)
            if rel.startswith(EXEMPT) or rel in PENDING:
                continue
            with open(full, encoding="utf-8") as handle:
                lines = handle.read().split("\n")
            for number, line in enumerate(lines, 1):
                code, comment = code_and_comment(line)
                if MARK in comment or code.lstrip().startswith(("///", "*")):
                    continue
                for pattern, what in RULES:
                    if pattern.search(code):
                        found.append(f"{rel}:{number}: {what} outside the runtime, expected a Wakeup or an EventLoop "
                                     f"timer (BendSystem), or a '{MARK}' comment on the line saying why")
                        break
    return found

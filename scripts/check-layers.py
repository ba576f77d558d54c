#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The map stays true: reads Package.swift and the sources' `import` lines and fails when

- a target imports a module it does not declare (SwiftPM lets a module reached only through
  another target be imported: that is how an arrow ends up pointing the wrong way);
- a target declares a dependency that none of its files imports;
- a file imports a module it uses nothing of (scripts/import_use.py: the names each
  project module, C shim and toolchain module provides, against the file's identifiers);
- a dependency points up or sideways in the layer table below (imports only point down);
- a plugin shell (PLUGIN_TARGETS) imports the engine or the audio layer: it is a shell over
  the instrument core (InstrumentCore, HostRender);
- an input target (INPUT_TARGETS) imports the engine: sources read meters from the control
  layer's snapshot (InstrumentMeters), never the engine;
- a target uses a toolchain module its layer must not (the engine: Synchronization only);
- a target has no layer in the table (a new target must be placed on the map), or the
  table names a target Package.swift does not declare;
- the layer comment at the top of Package.swift does not list exactly each target's
  dependencies;
- a Swift file under Sources/ or Tests/ is longer than 400 lines;
- a function of the instrument core's folder (Sources/BendInstrument) is longer than 80
  lines, or asks a concrete type (`as?`, `is`) what a protocol member should answer;
- a source file (Swift, C, Python, shell, the web page, the TTL) has no
  `SPDX-License-Identifier: GPL-3.0-or-later` line among its first three (the licence, LICENSE);
- a source outside the runtime and the benches sleeps, uses Dispatch or a semaphore without a
  `runtime-exception:` comment on the line (scripts/runtime_waits.py).

Prints one line per finding, `file:line: what, expected what`, and exits 1; prints
nothing and exits 0 when the map is true.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import import_use  # noqa: E402
import runtime_waits  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_LINES = 400

# Layer of each Swift target: a target may depend only on targets of a LOWER layer (C shims
# are layer 0). Targets on the same layer (the input sources, audio out) never see each other.
LAYERS = {
    "BendEngine": 1, "BendSystem": 1,
    # the SFZ format's text read into regions (a pure decoder; audio out loads the samples).
    "BendSFZ": 1,
    "BendControl": 2,
    # libsystemd's services, the system layer's second target (BendSystem links no
    # libsystemd): D-Bus (sd-bus) run by BendSystem's EventLoop (BlueZ for BendPeers),
    # RealtimeKit (SystemThread's real-time fallback, installed by the app), sd_notify.
    "BendDBus": 2,
    # audio out, and the input sources: each decodes outside bytes into control events.
    "BendAudio": 3, "BendInput": 3, "BendEvdev": 3, "BendOSC": 3, "BendPeers": 3,
    "BendWeb": 3, "BendMIDI": 3,
    # the benches: they drive sinks and sources, so they sit above both.
    "BendBench": 5,
    # a headless LV2 host on liblilv: the tests' and the benches' plugin host.
    "BendLV2Host": 4,
    # the fuzz targets: they feed every input source's decoder.
    "BendFuzz": 5,
    # the instrument assembly: sources, sinks and their wiring from one settings value.
    "BendInstrument": 4,
    "BendApp": 6,
    # the LV2 plugin: a front end over the instrument, beside the command line.
    "BendLV2": 6,
    "bendsynth": 7,
    # the benches' executable (`make bench`): the app's option parser over BendBench.
    "bendsynth-bench": 7,
}
# The input sources: outside bytes → control events. They see the control layer (ports,
# InstrumentMeters), never the engine.
INPUT_TARGETS = {"BendInput", "BendEvdev", "BendOSC", "BendPeers", "BendWeb", "BendMIDI"}
# Plugin shells: they reach the instrument only through its core (BendInstrument's
# InstrumentCore and HostRender), never the engine or the audio layer themselves.
PLUGIN_TARGETS = {"BendLV2"}
PLUGIN_FORBIDDEN = {"BendEngine", "BendAudio"}
ENGINE = "BendEngine"
# Toolchain modules each layer may use besides its declared dependencies.
TOOLCHAIN = {"Foundation", "FoundationEssentials", "Glibc", "Synchronization", "Dispatch"}
TOOLCHAIN_ONLY = {
    "BendEngine": {"Synchronization"},          # the render loop: no Foundation, no C library
    "BendSystem": {"Glibc", "Synchronization"},  # the runtime: the C library, no Foundation
}
TEST_TOOLCHAIN = TOOLCHAIN | {"XCTest", "Testing"}
# Modules whose imports the use check leaves alone (every test file uses XCTest's names).
UNCHECKED = {"XCTest", "Testing"}
# What a module re-exports: its names count for it when the file imports none of these.
REEXPORTS = {"Foundation": ["Glibc", "Dispatch"], "FoundationEssentials": ["Glibc"]}

IMPORT = re.compile(r'^\s*((?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*)import\s+(?:(?:struct|class|enum|func|var|let|protocol|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)')


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def targets(package):
    """(kind, name, dependencies, path, line, pkgConfig) of every target in Package.swift."""
    found = []
    for m in re.finditer(r'\.(target|testTarget|executableTarget|systemLibrary)\(', package):
        depth, i = 1, m.end()
        while depth and i < len(package):
            depth += {"(": 1, ")": -1}.get(package[i], 0)
            i += 1
        body = package[m.end():i - 1]
        name = re.search(r'name:\s*"([^"]+)"', body).group(1)
        deps_match = re.search(r'dependencies:\s*\[([^\]]*)\]', body)
        deps = re.findall(r'"([^"]+)"', deps_match.group(1)) if deps_match else []
        path_match = re.search(r'path:\s*"([^"]+)"', body)
        pkg_config = re.search(r'pkgConfig:\s*"([^"]+)"', body)
        default = ("Tests/" if m.group(1) == "testTarget" else "Sources/") + name
        found.append((m.group(1), name, deps, path_match.group(1) if path_match else default,
                      line_of(package, m.start()), pkg_config.group(1) if pkg_config else None))
    return found


def swift_files(path):
    result = []
    for folder, _, files in os.walk(os.path.join(ROOT, path)):
        result += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".swift")]
    return sorted(result)


def read_file(full):
    with open(full, encoding="utf-8") as handle:
        return handle.read()


def file_imports(text):
    """[(module, line, testable)] of a file's import lines (not the lines of a multi-line
    string literal, such as a script a test hands to python3)."""
    found = []
    in_literal = False
    for number, line in enumerate(text.splitlines(), 1):
        m = None if in_literal else IMPORT.match(line)
        if m:
            found.append((m.group(2), number, "@testable" in m.group(1), "@_exported" in m.group(1)))
        if line.split("//", 1)[0].count('"""') % 2:
            in_literal = not in_literal
    return found


def layer_comment(package):
    """{target: ([dependencies], line)} from the `//   Name → A, B` lines at the top of Package.swift."""
    declared = {}
    for number, line in enumerate(package.splitlines(), 1):
        m = re.match(r'^//\s+([A-Za-z_][A-Za-z0-9_-]*)(?:\s+\([^)]*\))?\s+→\s*(.*)$', line)
        if m:
            rest = m.group(2).strip()
            declared[m.group(1)] = ([] if rest in ("", "—", "-") else [d.strip() for d in rest.split(",")], number)
    return declared


def layers_lines():
    """{name: line} of the LAYERS table's keys in this file."""
    own = read_file(os.path.abspath(__file__))
    start = own.index("LAYERS = {")
    end = own.index("\n}", start)
    return {m.group(1): line_of(own, start + m.start()) for m in re.finditer(r'"([^"]+)":\s*\d', own[start:end])}


def shim_headers(kind, path):
    """The header(s) a C module is read through: module.modulemap's `header`, or a C
    target's include/*.h."""
    folder = os.path.join(ROOT, path)
    modulemap = os.path.join(folder, "module.modulemap")
    if kind == "systemLibrary" and os.path.exists(modulemap):
        return [os.path.join(folder, h) for h in re.findall(r'^\s*header\s+"([^"]+)"', read_file(modulemap), re.M)]
    include = os.path.join(folder, "include")
    return sorted(os.path.join(include, f) for f in os.listdir(include) if f.endswith(".h")) if os.path.isdir(include) else []


def module_names(all_targets, shims, parsed, problems):
    """{module: {kind: names}} of every module a file may import: "top" (any use of the
    name), "mem" (used as a member, `.name`), "lab" (used as a label, `name:`), and
    "top+"/"mem+" for a @testable import (internal names too)."""
    provided = {}
    cache = import_use.NameCache(ROOT)
    try:
        toolchain, glibc_files, clang, stdlib = import_use.toolchain_names(cache)
    except (RuntimeError, OSError) as e:
        problems.append(f"scripts/import_use.py:1: cannot read the toolchain's modules ({e}), expected swiftc, clang "
                        f"and swift-symbolgraph-extract of the Swift toolchain on PATH")
        return provided
    for kind, name, _, path, _, _ in all_targets:
        if name in shims:
            continue
        kinds = {"top": set(), "mem": set(), "lab": set(), "top+": set(), "mem+": set()}
        members = []
        for full in swift_files(path):
            top, extended = import_use.swift_declarations(parsed[full][1])
            for decl, access in top.items():
                kinds["top+"].add(decl)
                if access in import_use.EXPORTED:
                    kinds["top"].add(decl)
            members += extended
        # members of extensions of other modules' types (`"x".escaped`), unless the
        # standard library has a member of that name; those of its own types come with
        # the type's name
        for extended, member, access in members:
            if extended in kinds["top+"] or member in stdlib:
                continue
            kinds["mem+"].add(member)
            if access in import_use.EXPORTED:
                kinds["mem"].add(member)
        provided[name] = kinds
    for module, (top, mem, lab) in toolchain.items():
        provided[module] = {"top": top, "mem": mem, "lab": lab, "top+": top, "mem+": mem}
    for kind, name, _, path, line, pkg_config in all_targets:
        if name not in shims:
            continue
        try:
            cflags = import_use.pkg_config_cflags(pkg_config) if pkg_config else []
            headers = shim_headers(kind, path)
            stamp = import_use.fingerprint([import_use.NAMES_VERSION, clang] + cflags + [read_file(h) for h in headers]
                                           + [read_file(os.path.join(ROOT, path, "module.modulemap"))
                                              if os.path.exists(os.path.join(ROOT, path, "module.modulemap")) else ""])
            names = cache.get("shim:" + name, stamp)
            if names is None:
                names, read = set(), set()
                for h in headers:
                    n, r = import_use.c_module_names(h, cflags, clang, glibc_files)
                    names |= n
                    read |= set(r)
                cache.put("shim:" + name, stamp, names, sorted(read))
        except (RuntimeError, OSError) as e:
            problems.append(f"Package.swift:{line}: cannot read {name}'s headers ({e}), expected them installed ('make deps')")
            names = set()
        provided[name] = {"top": names, "mem": set(), "lab": set(), "top+": names, "mem+": set()}
    cache.save()
    return provided


def unused_imports(all_targets, shims, parsed, provided):
    """Findings for each import a file uses nothing of."""
    found = []
    for kind, name, _, path, _, _ in all_targets:
        if name in shims:
            continue
        for full in swift_files(path):
            imports, tokens = parsed[full]
            ids, members, labels = import_use.used_names(tokens, {number for _, number, _, _ in imports})
            direct = {m for m, _, _, _ in imports}

            def uses(module, testable=False):
                kinds = provided[module]
                return not (ids.isdisjoint(kinds["top+" if testable else "top"])
                            and members.isdisjoint(kinds["mem+" if testable else "mem"])
                            and labels.isdisjoint(kinds["lab"]))
            for module, number, testable, exported in imports:
                if module in UNCHECKED or exported or module not in provided:
                    continue
                used = uses(module, testable) or any(
                    uses(again) for again in REEXPORTS.get(module, ["Glibc"] if module in shims else [])
                    if again not in direct and again in provided)
                if not used:
                    found.append(f"{os.path.relpath(full, ROOT)}:{number}: import {module} is unused (no name {module} "
                                 f"provides appears in the file), expected the line removed")
    return found


def main():
    package = read_file(os.path.join(ROOT, "Package.swift"))
    problems = []
    all_targets = targets(package)
    names = {name for _, name, _, _, _, _ in all_targets}
    lines = {name: line for _, name, _, _, line, _ in all_targets}
    # C shims: system libraries, and C targets (no Swift file) such as the test-only allocation counter.
    shims = {name for kind, name, _, path, _, _ in all_targets
             if kind == "systemLibrary" or (name.startswith("C") and not swift_files(path))}
    comment = layer_comment(package)
    parsed = {}
    for _, name, _, path, _, _ in all_targets:
        if name not in shims:
            for full in swift_files(path):
                text = read_file(full)
                parsed[full] = (file_imports(text), import_use.swift_tokens(text))

    for kind, name, deps, path, line, _ in all_targets:
        if name in shims:
            continue
        is_test = kind == "testTarget" or path.startswith("Tests/")
        used = {}
        for full in swift_files(path):
            for module, number, _, _ in parsed[full][0]:
                used.setdefault(module, f"{os.path.relpath(full, ROOT)}:{number}")
        toolchain = TEST_TOOLCHAIN if is_test else TOOLCHAIN_ONLY.get(name, TOOLCHAIN)
        for module, where in sorted(used.items()):
            if name in PLUGIN_TARGETS and module in PLUGIN_FORBIDDEN:
                problems.append(f"{where}: {name} is a plugin shell and imports {module}, expected what it needs of the "
                                f"instrument through BendInstrument's core (InstrumentCore, HostRender)")
                continue
            if name in INPUT_TARGETS and module == ENGINE:
                problems.append(f"{where}: {name} is an input target and imports {ENGINE}, expected what it reads of "
                                f"the engine through BendControl (InstrumentMeters), as every input source does")
                continue
            if module in deps or module in toolchain:
                continue
            if module in names:
                problems.append(f"{where}: {name} imports {module} without declaring it, expected \"{module}\" in its "
                                f"dependencies in Package.swift (line {line}) or no import")
            else:
                problems.append(f"{where}: {name} imports {module}, which its layer must not use, expected only "
                                f"{', '.join(sorted(toolchain))} and its declared dependencies")
        for dep in deps:
            if dep not in used:
                problems.append(f"Package.swift:{line}: {name} declares {dep} but no file under {path} imports it, "
                                f"expected the dependency removed or used")
        if is_test:
            continue
        if name not in LAYERS:
            problems.append(f"Package.swift:{line}: {name} has no layer, expected it placed in LAYERS in scripts/check-layers.py")
            continue
        for dep in deps:
            if dep in shims:
                continue
            if name in INPUT_TARGETS and dep == ENGINE:
                problems.append(f"Package.swift:{line}: {name} is an input target and depends on {ENGINE}, expected "
                                f"no engine dependency (meters come through BendControl)")
            elif name in PLUGIN_TARGETS and dep in PLUGIN_FORBIDDEN:
                problems.append(f"Package.swift:{line}: {name} is a plugin shell and depends on {dep}, expected "
                                f"only the instrument core (BendInstrument) between it and the engine")
            elif dep not in LAYERS:
                problems.append(f"Package.swift:{line}: {name} depends on {dep}, expected only targets of LAYERS or C shims")
            elif LAYERS[dep] >= LAYERS[name]:
                problems.append(f"Package.swift:{line}: {name} (layer {LAYERS[name]}) depends on {dep} "
                                f"(layer {LAYERS[dep]}), expected imports that point down")
        if name not in comment:
            problems.append(f"Package.swift:1: the layer comment has no line for {name}, expected "
                            f"'//   {name} → {', '.join(deps) or '—'}'")
        elif sorted(comment[name][0]) != sorted(deps):
            problems.append(f"Package.swift:{comment[name][1]}: the layer comment says {name} → "
                            f"{', '.join(comment[name][0]) or '—'}, expected its dependencies: {', '.join(deps) or 'nothing'}")
    for name, (_, number) in comment.items():
        if name not in names:
            problems.append(f"Package.swift:{number}: the layer comment names {name}, expected only targets of Package.swift")
    for name, number in layers_lines().items():
        if name not in names:
            problems.append(f"scripts/check-layers.py:{number}: LAYERS names {name}, which Package.swift does not "
                            f"declare, expected only its targets")

    problems += unused_imports(all_targets, shims, parsed, module_names(all_targets, shims, parsed, problems))

    for top in ("Sources", "Tests"):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith(".swift"):
                    full = os.path.join(folder, f)
                    count = read_file(full).count("\n")
                    if count > MAX_LINES:
                        problems.append(f"{os.path.relpath(full, ROOT)}:{MAX_LINES + 1}: {count} lines, expected at most "
                                        f"{MAX_LINES} (split it by concept)")

    problems += missing_licence_lines()
    problems += long_functions()
    problems += type_questions()
    problems += runtime_waits.problems(ROOT)

    for p in problems:
        print(f"layer check: {p}", file=sys.stderr)
    return 1 if problems else 0


SPDX = "SPDX-License-Identifier: GPL-3.0-or-later"
SPDX_SUFFIXES = (".swift", ".c", ".h", ".cpp", ".py", ".sh", ".js", ".css", ".html", ".ttl", ".modulemap", ".lua", ".sfz")


# Targets whose functions stay short enough to read at a glance (the instrument core and
# its shells' wiring): at most SHORT_FUNCTION_LINES lines from the declaration to its brace.
SHORT_FUNCTION_TARGETS = {"Sources/BendInstrument"}
SHORT_FUNCTION_LINES = 80
FUNCTION_START = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|static|final|override|"
                            r"mutating|nonisolated|convenience|@discardableResult)\s+)*(?:func\s+\w+|init\??)\s*[(<]")


def long_functions():
    """Functions and initialisers longer than SHORT_FUNCTION_LINES in SHORT_FUNCTION_TARGETS,
    measured by brace depth from the declaration (braces in strings are not expected there)."""
    problems = []
    for folder in sorted(SHORT_FUNCTION_TARGETS):
        for full in swift_files(folder):
            lines = read_file(full).split("\n")
            i = 0
            while i < len(lines):
                if not FUNCTION_START.match(lines[i]) or lines[i].lstrip().startswith("//"):
                    i += 1
                    continue
                depth, opened, j = 0, False, i
                while j < len(lines):
                    code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', lines[j].split("//")[0] if "//" in lines[j] and '"' not in lines[j] else lines[j])
                    depth += code.count("{") - code.count("}")
                    opened = opened or "{" in code
                    if opened and depth <= 0:
                        break
                    if not opened and j > i + 8:  # a protocol requirement: no body
                        break
                    j += 1
                length = j - i + 1
                if opened and length > SHORT_FUNCTION_LINES:
                    problems.append(f"{os.path.relpath(full, ROOT)}:{i + 1}: a function of {length} lines, expected at most "
                                    f"{SHORT_FUNCTION_LINES} (split it into phases)")
                i += 1
    return problems


TYPE_QUESTION = re.compile(r"\b(?:as[?!]\s*[A-Z]\w*|is\s+[A-Z]\w*)")


def type_questions():
    """Downcasts and `is` tests in the core's folder (SHORT_FUNCTION_TARGETS): what it needs
    to know of a source or an output is a member of InputSource or AudioOutput. Error
    catches (`catch let e as X`) are allowed."""
    problems = []
    for folder in sorted(SHORT_FUNCTION_TARGETS):
        for full in swift_files(folder):
            for number, line in enumerate(read_file(full).split("\n"), 1):
                code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
                code = code.split("//")[0]
                if "catch" in code:
                    continue
                if TYPE_QUESTION.search(code):
                    problems.append(f"{os.path.relpath(full, ROOT)}:{number}: asks a concrete type ({TYPE_QUESTION.search(code).group(0)}), "
                                    f"expected a member of the protocol (InputSource, AudioOutput) that answers it")
    return problems


def missing_licence_lines():
    """Every source file the repository tracks names the project's licence in its first three
    lines (after a shebang or the tools-version line); fixtures and corpora are data."""
    import subprocess
    try:
        tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return []
    problems = []
    for rel in tracked:
        name = os.path.basename(rel)
        if not (name.endswith(SPDX_SUFFIXES) or name == "Makefile" or rel == ".ci/run"):
            continue
        if "/Fixtures/" in rel or "/corpus/" in rel or not os.path.exists(os.path.join(ROOT, rel)):
            continue
        head = read_file(os.path.join(ROOT, rel)).split("\n", 3)[:3]
        if not any(SPDX in line for line in head):
            problems.append(f"{rel}:1: no licence line, expected '{SPDX}' in the first three lines")
    return problems


if __name__ == "__main__":
    sys.exit(main())

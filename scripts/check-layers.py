#!/usr/bin/env python3
"""The map stays true: reads Package.swift and the sources' `import` lines and fails when

- a target imports a module it does not declare (SwiftPM lets a module reached only through
  another target be imported: that is how an arrow ends up pointing the wrong way);
- a target declares a dependency that none of its files imports;
- a dependency points up or sideways in the layer table below (imports only point down);
- a target uses a toolchain module its layer must not (the engine: Synchronization only);
- a target has no layer in the table (a new target must be placed on the map);
- the layer comment at the top of Package.swift does not list exactly each target's
  dependencies;
- a Swift file under Sources/ or Tests/ is longer than 400 lines.

Prints one line per finding and exits 1; prints nothing and exits 0 when the map is true.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_LINES = 400

# Layer of each Swift target: a target may depend only on targets of a LOWER layer (C shims
# are layer 0). Targets on the same layer (the input sources, audio out) never see each other.
LAYERS = {
    "BendEngine": 1, "BendSystem": 1,
    "BendControl": 2,
    # libsystemd's services, the system layer's second target (BendSystem links no
    # libsystemd): D-Bus (sd-bus) run by BendSystem's EventLoop (BlueZ for BendPeers),
    # RealtimeKit (SystemThread's real-time fallback, installed by the app), sd_notify.
    "BendDBus": 2,
    # audio out, and the input sources: each decodes outside bytes into control events.
    "BendAudio": 3, "BendInput": 3, "BendEvdev": 3, "BendOSC": 3, "BendPeers": 3,
    "BendWeb": 3, "BendMIDI": 3, "BendJack": 3,
    # the benches: they drive sinks and sources, so they sit above both.
    "BendBench": 5,
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
# Toolchain modules each layer may use besides its declared dependencies.
TOOLCHAIN = {"Foundation", "FoundationEssentials", "Glibc", "Synchronization", "Dispatch"}
TOOLCHAIN_ONLY = {
    "BendEngine": {"Synchronization"},          # the render loop: no Foundation, no C library
    "BendSystem": {"Glibc", "Synchronization"},  # the runtime: the C library, no Foundation
}
TEST_TOOLCHAIN = TOOLCHAIN | {"XCTest", "Testing"}

IMPORT = re.compile(r'^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|func|var|let|protocol|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)')


def targets(package):
    """(kind, name, dependencies, path) of every target declared in Package.swift."""
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
        default = ("Tests/" if m.group(1) == "testTarget" else "Sources/") + name
        found.append((m.group(1), name, deps, path_match.group(1) if path_match else default))
    return found


def imports(path):
    """{module: first 'file:line'} for the Swift files under `path`."""
    result = {}
    for folder, _, files in os.walk(os.path.join(ROOT, path)):
        for f in sorted(files):
            if not f.endswith(".swift"):
                continue
            full = os.path.join(folder, f)
            with open(full, encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    m = IMPORT.match(line)
                    if m:
                        result.setdefault(m.group(1), f"{os.path.relpath(full, ROOT)}:{number}")
    return result


def imports_any_swift(path):
    """True when `path` holds a Swift file."""
    return any(f.endswith(".swift") for _, _, files in os.walk(os.path.join(ROOT, path)) for f in files)


def layer_comment(package):
    """{target: [dependencies]} from the `//   Name → A, B` lines at the top of Package.swift."""
    declared = {}
    for line in package.splitlines():
        m = re.match(r'^//\s+([A-Za-z_][A-Za-z0-9_-]*)(?:\s+\([^)]*\))?\s+→\s*(.*)$', line)
        if m:
            rest = m.group(2).strip()
            declared[m.group(1)] = [] if rest in ("", "—", "-") else [d.strip() for d in rest.split(",")]
    return declared


def main():
    with open(os.path.join(ROOT, "Package.swift"), encoding="utf-8") as handle:
        package = handle.read()
    problems = []
    all_targets = targets(package)
    names = {name for _, name, _, _ in all_targets}
    # C shims: system libraries, and C targets (no Swift file) such as the test-only allocation counter.
    shims = {name for kind, name, _, path in all_targets
             if kind == "systemLibrary" or (name.startswith("C") and not imports_any_swift(path))}
    comment = layer_comment(package)

    for kind, name, deps, path in all_targets:
        if name in shims:
            continue
        is_test = kind == "testTarget" or path.startswith("Tests/")
        used = imports(path)
        toolchain = TEST_TOOLCHAIN if is_test else TOOLCHAIN_ONLY.get(name, TOOLCHAIN)
        for module, where in sorted(used.items()):
            if module in deps:
                continue
            if module in toolchain:
                continue
            if module in names:
                problems.append(f"{where}: {name} imports {module} without declaring it in Package.swift")
            else:
                problems.append(f"{where}: {name} imports {module}, which its layer must not use")
        for dep in deps:
            if dep not in used:
                problems.append(f"Package.swift: {name} declares {dep} but no file under {path} imports it")
        if is_test:
            continue
        if name not in LAYERS:
            problems.append(f"Package.swift: {name} has no layer; place it in LAYERS in scripts/check-layers.py")
            continue
        for dep in deps:
            if dep in shims:
                continue
            if dep not in LAYERS:
                problems.append(f"Package.swift: {name} depends on {dep}, which is not a layer a library target may use")
            elif LAYERS[dep] >= LAYERS[name]:
                problems.append(f"Package.swift: {name} (layer {LAYERS[name]}) depends on {dep} "
                                f"(layer {LAYERS[dep]}): imports must point down")
        if name not in comment:
            problems.append(f"Package.swift: the layer comment has no line for {name}")
        elif sorted(comment[name]) != sorted(deps):
            problems.append(f"Package.swift: the layer comment says {name} → {', '.join(comment[name]) or '—'}, "
                            f"but it depends on {', '.join(deps) or 'nothing'}")
    for name in comment:
        if name not in names:
            problems.append(f"Package.swift: the layer comment names {name}, which is not a target")

    for top in ("Sources", "Tests"):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith(".swift"):
                    full = os.path.join(folder, f)
                    with open(full, encoding="utf-8") as handle:
                        count = sum(1 for _ in handle)
                    if count > MAX_LINES:
                        problems.append(f"{os.path.relpath(full, ROOT)}: {count} lines; split it by concept "
                                        f"(at most {MAX_LINES})")

    for p in problems:
        print(f"layer check: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: GPL-3.0-or-later
"""Which `import` lines a Swift file does not use (scripts/check-layers.py's import check).

swiftc 6.3 has no warning for an unused import (its only one, "public import of X was not
used in public declarations", is about access levels), so this reads the names:

- a project module (a Swift target) provides the names it declares at the top level
  (public, open and package ones; internal ones too for `@testable import`) and the
  members of its extensions of other types (`"x".escaped`);
- a C shim provides what its headers declare: functions, types, struct/union/enum tags,
  enumerators, globals and object-like macros of the files its header (module.modulemap's
  `header`, a C target's include/*.h) reads through clang's preprocessor (`clang -E -dD`
  with the target's `pkg-config --cflags`), except glibc's: those are Glibc's, unless the
  shim's header names the glibc header itself (`#include <sys/socket.h>`, with its bits/
  and asm/ parts: see Sources/CBluetooth/shim.h for why a file imports a shim for them);
- Glibc provides the names of the headers Swift's SwiftGlibc.h reads, plus its Swift
  overlay; Foundation (with FoundationEssentials and FoundationInternationalization),
  Dispatch and Synchronization provide their top-level symbols and the members and
  initialiser labels of their extensions (`String(format:)`), read from the toolchain's
  modules by swift-symbolgraph-extract.

A file uses an import when an identifier of its code (comments left out; in string
literals, only what follows an interpolation's `\\(`) is a name the module provides.
Names a module re-exports count for it only when no other import of the file provides
them: Foundation re-exports Glibc (a file importing only Foundation may use `strlen`
through it), and a C shim with `export *` re-exports the glibc its headers include.
The check errs towards "used": an identifier that merely looks like one of a module's
names keeps its import.

The names of the C shims and toolchain modules are cached in .build/check-layers/ and
made again when a header, a pkg-config answer or the toolchain changes.
"""
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile

# Comments (block comments taken as not nested: Swift nests them, this code does not),
# string literals (multi-line, raw, plain), identifiers, braces and newlines.
SWIFT_TOKEN = re.compile(r'''//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/|(\#*)"""(?:.|\n)*?"""\1|(\#*)"(?:[^"\\\n]|\\.)*"\2|(?:(?<!\.)\.)?[A-Za-z_][A-Za-z0-9_]*(?:[ \t]*:(?!:))?|[{}\n]''')
IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')
DECL_KEYWORDS = {"struct", "class", "enum", "protocol", "actor", "typealias", "func", "var", "let", "macro"}
ACCESS = {"public", "open", "package", "internal", "fileprivate", "private"}
EXPORTED = {"public", "open", "package"}
# Part of every cache stamp: change it when the way names are read changes.
NAMES_VERSION = "5"


def swift_tokens(text):
    """[(kind, text, line)] of a Swift file: identifiers ('id'; 'mem' after a `.`, a
    member), each identifier followed by `:` once more as 'lab' (a label, `format:`),
    braces ('{', '}') and newlines ('nl'); comments dropped; a string literal gives the
    identifiers after its interpolations' `\\(`."""
    out, line = [], 1
    append = out.append
    for m in SWIFT_TOKEN.finditer(text):
        token = m.group()
        c = token[0]
        if c == "\n":
            line += 1
            append(("nl", token, line))
        elif c == "{" or c == "}":
            append((c, c, line))
        elif c == "/":
            line += token.count("\n")
        elif c == '"' or c == "#":
            start = token.find("\\(")
            while start >= 0:  # the code of each interpolation: `\\(` to its closing `)`
                depth, end = 0, start + 1
                while end < len(token):
                    depth += {"(": 1, ")": -1}.get(token[end], 0)
                    if depth == 0:
                        break
                    end += 1
                out.extend(("id", w, line) for w in IDENT.findall(token, start + 2, end))
                start = token.find("\\(", end)
            line += token.count("\n")
        else:
            label = token[-1] == ":"
            name = token.rstrip(": \t")
            if c == ".":
                append(("mem", name[1:], line))
            else:
                append(("id", name, line))
            if label:
                append(("lab", name.lstrip("."), line))
    return out


def swift_declarations(tokens):
    """The declarations of one file: {name: access} at the top level, and
    [(extended type, name, access)] of the members of its top-level extensions (a member
    without an access of its own has the extension's)."""
    top, members = {}, []
    depth = 0
    line_ids = []            # identifiers since the last newline at this depth
    extension = None         # (type, access) of the extension whose body is open at depth 1
    pending = None
    for index, (kind, text, _) in enumerate(tokens):
        if kind == "nl":
            line_ids = []
            continue
        if kind == "{":
            if depth == 0 and pending is not None:
                extension, pending = pending, None
            depth += 1
            line_ids = []
            continue
        if kind == "}":
            depth -= 1
            if depth == 0:
                extension = None
            line_ids = []
            continue
        if depth == 0 and text == "extension":
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            pending = (following[1] if following and following[0] == "id" else "",
                       next((w for w in line_ids if w in ACCESS), "internal"))
        elif text in DECL_KEYWORDS and (depth == 0 or (depth == 1 and extension is not None)):
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            if following and following[0] == "id":
                access = next((w for w in line_ids if w in ACCESS), None)
                name = following[1]
                if depth == 0:
                    access = access or "internal"
                    if access not in ("private", "fileprivate") and top.get(name) not in EXPORTED:
                        top[name] = access  # the widest access wins (overloads)
                else:
                    access = access or extension[1]
                    if access not in ("private", "fileprivate"):
                        members.append((extension[0], name, access))
        line_ids.append(text)
    return top, members


# Swift's literal keywords: never a module's name (C's stdbool.h defines `true` and
# `false` as macros, which would make every `{ false }` a use of Glibc).
SWIFT_LITERALS = {"true", "false", "nil"}


def used_names(tokens, skip_lines=()):
    """(identifiers, member names, labels) a file uses, leaving out `skip_lines`."""
    used = {"id": set(), "mem": set(), "lab": set()}
    for kind, text, line in tokens:
        if kind in used and line not in skip_lines and text not in SWIFT_LITERALS:
            used[kind].add(text)
    return used["id"], used["mem"], used["lab"]


# --- C headers -------------------------------------------------------------------------

C_TOKEN = re.compile(r'[A-Za-z_][A-Za-z0-9_]*|[{}()\[\];,=*]|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
C_KEYWORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
    "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "while", "_Bool", "_Complex", "_Noreturn", "_Alignas", "_Atomic", "_Thread_local",
    "__inline", "__inline__", "__restrict", "__restrict__", "__extension__", "__const", "__signed__",
    "__volatile__", "__asm__", "__asm", "__attribute__", "__attribute", "__typeof__", "_Static_assert",
    "typeof", "__builtin_va_list", "__int128", "__float128",
}
LINE_MARKER = re.compile(r'^# (\d+) "([^"]*)"((?: \d)*)$')
DEFINE = re.compile(r'^#define ([A-Za-z_][A-Za-z0-9_]*)(?=\s|$)')


def c_names(code):
    """Names C code declares at file scope: functions, typedefs, tags, enumerators,
    globals (C_TOKEN's tokens; struct fields and parameters left out)."""
    names = set()
    tokens = C_TOKEN.findall(code)
    statement = []  # (token, paren depth) at brace depth 0
    i, n = 0, len(tokens)

    def skip_block(j):  # tokens[j] == "{": the index after its matching "}"
        depth = 0
        while j < n:
            if tokens[j] == "{":
                depth += 1
            elif tokens[j] == "}":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return n

    def finish(stmt):
        words = [t for t, _ in stmt]
        if not words:
            return
        # tags defined here (`struct x {`) or declared (`struct x;`), not only mentioned
        for k, t in enumerate(words[:-1]):
            if t in ("struct", "union", "enum") and IDENT.fullmatch(words[k + 1]) and words[k + 1] not in C_KEYWORDS \
                    and (words[k + 2:k + 3] == ["{...}"] or len(words) == 2):
                names.add(words[k + 1])
        # split into declarators at commas outside parentheses, drop attributes
        parts, current = [], []
        for t, paren in stmt:
            if t == "," and paren == 0:
                parts.append(current)
                current = []
            else:
                current.append((t, paren))
        parts.append(current)
        for part in parts:
            toks = [t for t, _ in part]
            # a function pointer: ( * NAME ) at the top of the declarator
            for k in range(len(toks) - 2):
                if toks[k] == "(" and part[k][1] == 0 and toks[k + 1] == "*" and IDENT.fullmatch(toks[k + 2]) \
                        and toks[k + 2] not in C_KEYWORDS:
                    names.add(toks[k + 2])
                    break
            else:
                # a function: the identifier before the first "(" at depth 0
                name = None
                for (t, paren), nxt in zip(part, part[1:] + [(None, 0)]):
                    if nxt[0] == "(" and paren == 0 and IDENT.fullmatch(t):
                        if t not in C_KEYWORDS and not t.startswith("__attribute"):
                            name = t
                        break
                if name is None:
                    # a variable or typedef: the last identifier at depth 0 before "=" or "["
                    last = None
                    for t, paren in part:
                        if t in ("=", "["):
                            break
                        if paren == 0 and IDENT.fullmatch(t) and t not in C_KEYWORDS:
                            last = t
                    name = last
                if name:
                    names.add(name)

    paren = 0
    while i < n:
        t = tokens[i]
        if t == "(":
            paren += 1
        elif t == ")":
            paren -= 1
        if t == "{":
            words = [w for w, _ in statement]
            is_tag = any(w in ("struct", "union", "enum") for w in words) and "(" not in words
            if is_tag:
                is_enum = any(w == "enum" for w in words[-3:])
                end = skip_block(i)
                if is_enum:  # enumerators: after "{" or ","
                    depth = 0
                    for k in range(i, end):
                        tok = tokens[k]
                        if tok in ("{", "("):
                            depth += 1
                        elif tok in ("}", ")"):
                            depth -= 1
                        elif depth == 1 and IDENT.fullmatch(tok) and tokens[k - 1] in ("{", ","):
                            names.add(tok)
                statement.append(("{...}", paren))
                i = end
                continue
            # a function body (static inline wrappers): its name, then the body skipped
            finish(statement)
            statement = []
            i = skip_block(i)
            paren = 0
            continue
        if t == ";" and paren == 0:
            finish(statement)
            statement = []
        elif not t.startswith(("\"", "'")):
            statement.append((t, paren if t != "(" else paren - 1))
        i += 1
    return {x for x in names if x not in C_KEYWORDS and x != "{...}"}


def preprocess(header, cflags, clang):
    """{file: [text lines]} and {file: parent file} of `header` through `clang -E -dD`."""
    result = subprocess.run([clang, "-E", "-dD", "-x", "c", *cflags, header],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"clang -E {header}: {result.stderr.strip().splitlines()[-1] if result.stderr.strip() else 'failed'}")
    files, parents, stack = {}, {}, []
    current = None
    for line in result.stdout.splitlines():
        m = LINE_MARKER.match(line)
        if m:
            path, flags = m.group(2), m.group(3).split()
            if "1" in flags:  # entering a file
                parents.setdefault(path, current)
                stack.append(current)
            elif "2" in flags and stack:  # back in the includer
                stack.pop()
            current = path
            files.setdefault(path, [])
            continue
        if current is not None:
            files[current].append(line)
    return files, parents


def c_module_names(header, cflags, clang, glibc_files):
    """(names, files read) of one C module's header: see the module docstring."""
    files, parents = preprocess(header, cflags, clang)
    header_real = os.path.realpath(header)

    def is_bits(path):
        return "/bits/" in path or "/asm/" in path or "/asm-generic/" in path

    owned_cache = {}

    def owned(path):
        if path in owned_cache:
            return owned_cache[path]
        owned_cache[path] = False  # cycles
        parent = parents.get(path)
        real = os.path.realpath(path) if path and not path.startswith("<") else path
        if path.startswith("<"):
            result = False
        elif real == header_real or (parent and os.path.realpath(parent) == header_real):
            result = True
        elif real not in glibc_files:
            result = True
        else:
            result = bool(is_bits(path) and parent and owned(parent))
        owned_cache[path] = result
        return result

    code, names = [], set()
    for path, lines in files.items():
        if not owned(path):
            continue
        for line in lines:
            d = DEFINE.match(line)
            if d:
                names.add(d.group(1))
            elif not line.startswith("#"):
                code.append(line)
    names |= c_names("\n".join(code))
    read = sorted(os.path.realpath(p) for p in files if not p.startswith("<"))
    return names, read


# --- toolchain modules -----------------------------------------------------------------

def symbolgraph_names(module, target, out_dir):
    """(top-level names, {extended module: (member names, initialiser labels)} of the
    extensions `module` makes of that module's types) of `module`, from
    swift-symbolgraph-extract. For the standard library ("Swift"), its own types'
    members are under "Swift"."""
    tool = shutil.which("swift-symbolgraph-extract")
    if tool is None:
        raise RuntimeError("swift-symbolgraph-extract is not on PATH (it comes with the Swift toolchain)")
    result = subprocess.run([tool, "-module-name", module, "-target", target, "-output-dir", out_dir],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"swift-symbolgraph-extract {module}: {result.stderr.strip()[:200]}")
    top, members = set(), {}
    for path in glob.glob(os.path.join(out_dir, f"{module}.symbols.json")) + glob.glob(os.path.join(out_dir, f"{module}@*.symbols.json")):
        name = os.path.basename(path)[:-len(".symbols.json")]
        extended = name.split("@", 1)[1] if "@" in name else None
        with open(path, encoding="utf-8") as handle:
            graph = json.load(handle)
        for symbol in graph.get("symbols", []):
            components = symbol.get("pathComponents", [])
            if not components:
                continue
            last = components[-1]
            base = re.sub(r'\(.*', '', last)
            if len(components) == 1 and extended is None:
                top.add(base)
            elif extended is not None or module == "Swift":
                names, labels = members.setdefault(extended or module, (set(), set()))
                if base == "init":
                    labels.update(re.findall(r'([A-Za-z_][A-Za-z0-9_]*):', last))
                elif base:
                    names.add(base)
    return top, members


def swift_target():
    machine = os.uname().machine
    return f"{machine}-unknown-linux-gnu"


def toolchain_dir():
    swiftc = shutil.which("swiftc")
    if swiftc is None:
        raise RuntimeError("swiftc is not on PATH")
    return os.path.dirname(os.path.dirname(os.path.realpath(swiftc)))


def fingerprint(parts):
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def pkg_config_cflags(name):
    result = subprocess.run(["pkg-config", "--cflags", name], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"pkg-config --cflags {name} failed ({result.stderr.strip()}); 'make deps' installs the -dev packages")
    return result.stdout.split()


class NameCache:
    """The names of the C shims and toolchain modules, in .build/check-layers/names.json."""

    def __init__(self, root):
        self.path = os.path.join(root, ".build", "check-layers", "names.json")
        try:
            with open(self.path, encoding="utf-8") as handle:
                self.entries = json.load(handle)
        except (OSError, ValueError):
            self.entries = {}
        self.changed = False
        self.used = set()

    def get(self, key, stamp):
        self.used.add(key)
        entry = self.entries.get(key)
        if not entry or entry.get("stamp") != stamp:
            return None
        for path, mtime in entry.get("files", {}).items():
            try:
                if os.stat(path).st_mtime != mtime:
                    return None
            except OSError:
                return None
        return set(entry["names"])

    def put(self, key, stamp, names, files=()):
        stamps = {}
        for p in files:
            try:
                stamps[p] = os.stat(p).st_mtime
            except OSError:
                pass
        self.entries[key] = {"stamp": stamp, "names": sorted(names), "files": stamps}
        self.used.add(key)
        self.changed = True

    def save(self):
        """Writes the entries of this run (others are of an older way of reading or of a
        shim that is gone) when one was made again."""
        if not self.changed:
            return
        self.entries = {k: v for k, v in self.entries.items() if k in self.used}
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(self.entries, handle)
        os.replace(tmp, self.path)


def toolchain_names(cache):
    """{module: (names, member names, initialiser labels)} for Glibc, Foundation, Dispatch
    and Synchronization; the set of glibc's header files (those SwiftGlibc.h reads); the
    toolchain's clang; the standard library's member names. A module's extension members
    count only when the standard library has no member of that name (`description`,
    `count` say nothing of who provides them), and only for extensions of types outside
    the module (its own types' members come with the type's name)."""
    tdir = toolchain_dir()
    target = swift_target()
    platform = os.path.join(tdir, "lib", "swift", "linux")
    glibc_h = os.path.join(platform, os.uname().machine, "SwiftGlibc.h")
    clang = os.path.join(tdir, "bin", "clang")
    stamp = fingerprint([tdir, str(os.stat(platform).st_mtime), target, NAMES_VERSION])

    def graph(module):
        with tempfile.TemporaryDirectory() as out:
            return symbolgraph_names(module, target, out)

    stdlib = cache.get("Swift", stamp)
    if stdlib is None:
        top, members = graph("Swift")
        stdlib = top.union(*(n for n, _ in members.values()))
        cache.put("Swift", stamp, stdlib)
    glibc_files = cache.get("glibc-files", stamp)
    if glibc_files is None or cache.get("glibc-c", stamp) is None:
        files, _ = preprocess(glibc_h, [], clang)
        glibc_files = {os.path.realpath(p) for p in files if not p.startswith("<")}
        code, names = [], set()
        for path, lines in files.items():
            for line in lines:
                d = DEFINE.match(line)
                if d:
                    names.add(d.group(1))
                elif not line.startswith("#"):
                    code.append(line)
        cache.put("glibc-c", stamp, names | c_names("\n".join(code)))
        cache.put("glibc-files", stamp, glibc_files)
    groups = {
        "Glibc": ["Glibc", "_Builtin_float"],
        "Foundation": ["Foundation", "FoundationEssentials", "FoundationInternationalization"],
        "FoundationEssentials": ["FoundationEssentials"],
        "Dispatch": ["Dispatch"],
        "Synchronization": ["Synchronization"],
    }
    result = {}
    for module, parts in groups.items():
        entry = tuple(cache.get(f"{module}:{k}", stamp) for k in ("top", "mem", "lab"))
        if None in entry:
            top = set(cache.get("glibc-c", stamp)) if module == "Glibc" else set()
            mem, lab = set(), set()
            for part in parts:
                if os.path.exists(os.path.join(platform, part + ".swiftmodule")):
                    t, members = graph(part)
                    top |= t
                    for extended, (names, labels) in members.items():
                        if extended not in parts:
                            mem |= names - stdlib
                            lab |= labels
            entry = tuple({n for n in x if n.strip("_")} for x in (top, mem, lab))
            for k, x in zip(("top", "mem", "lab"), entry):
                cache.put(f"{module}:{k}", stamp, x)
        result[module] = entry
    return result, set(glibc_files), clang, stdlib

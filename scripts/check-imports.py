#!/usr/bin/env python3
"""Package hygiene: Package.swift's target dependencies, the imports and docs/architecture.md agree.

Checks, each failure listed (exit status 1 when there is any):
1. Every target's declared dependencies equal the modules its Swift files import (`import X`,
   `@testable import X`, `@_exported import X`, `import struct X.Y`; comments and string literals are
   skipped). A product such as `.product(name: "Logging", package: "swift-log")` is module `Logging`.
   Toolchain modules (Foundation, Glibc, Testing, ...) are never declared and are not compared.
2. docs/architecture.md's module graph (the fenced block after the `<!-- module-graph` marker) lists
   every target once with exactly its declared dependencies, and each module's layer is one more than
   the highest layer among its dependencies (0 for none): an import that leaves the documented graph,
   a new target or a dropped one fails here until the doc says so.
3. No target but a test target depends on MultitouchTestKit, directly or through another target; and
   the clients (MultitouchClient, the WebSocket bridge) link only what `CLIENT_MAY_LINK` allows: the
   protocol, TouchVocabulary and the system call wrapper, none of the engine.
4. No Swift file outside the SystemCalls module calls a system call of `RAW_CALLS` (open, read, send,
   socket, epoll_ctl, getsockopt, getgrnam_r, ...; also as `Glibc.read`) or mentions `EINTR` (comments
   and strings skipped): every call goes through SystemCalls' wrappers, which retry EINTR in one place,
   stop on EBADF/EFAULT (the program's bugs) and throw the rest as `SystemError`.
5. docs/architecture.md's prose claims that can be checked hold: a backticked path exists (from the
   root or under Sources), a type written `Type` (Module) is declared in that module, `Type.member`
   names a declared type and a member declared where the type is declared or extended, and a bare
   backticked UpperCamel name is a declared type (its "This page is checked" section is skipped).

`--print-graph` prints the graph block as Package.swift implies it (paste it into the doc after a
deliberate change). Python 3 standard library only.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Modules of the Swift toolchain and the C library: importable without a declared dependency.
TOOLCHAIN_MODULES = {
    "Swift", "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
    "FoundationXML", "CoreFoundation", "Dispatch", "Glibc", "Musl", "Darwin", "Android", "Bionic", "WinSDK",
    "ucrt", "WASILibc", "Testing", "XCTest", "Synchronization", "Observation", "RegexBuilder", "_Concurrency",
    "_StringProcessing", "os", "PackageDescription",
}

# Modules an external product brings along that code may import through it (Yams' libyaml).
PRODUCT_SUBMODULES = {"Yams": {"CYaml"}}

TARGET_KINDS = {"target": "regular", "executableTarget": "executable", "testTarget": "test",
                "systemLibrary": "system", "plugin": "plugin", "macro": "macro"}


def strip_swift(text):
    """`text` with comments and string-literal contents blanked (newlines kept, so lines still line up)."""
    out = []
    i, n = 0, len(text)
    block_depth = 0
    while i < n:
        c = text[i]
        if block_depth:
            if text.startswith("/*", i):
                block_depth += 1
                out.append("  ")
                i += 2
            elif text.startswith("*/", i):
                block_depth -= 1
                out.append("  ")
                i += 2
            else:
                out.append("\n" if c == "\n" else " ")
                i += 1
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if text.startswith("/*", i):
            block_depth = 1
            out.append("  ")
            i += 2
            continue
        m = re.match(r'(#*)("""|")', text[i:i + 64])
        if m and (m.group(1) == "" or m.group(2)):
            hashes, quote = m.group(1), m.group(2)
            closing = quote + hashes
            j = i + len(m.group(0))
            while j < n:
                if not hashes and text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(closing, j):
                    j += len(closing)
                    break
                if quote == '"' and text[j] == "\n":
                    break
                j += 1
            literal = text[i:j]
            out.append('"' + "".join("\n" if ch == "\n" else " " for ch in literal[1:-1]) + '"' if len(literal) > 1
                       else literal)
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


def strip_comments_keep_strings(text):
    """Package.swift without comments (strings kept: target names live in them)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i)
            i = n if j < 0 else j + 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def balanced(text, start):
    """The text inside the bracket at `start` ('(' or '['), up to its matching close."""
    pairs = {"(": ")", "[": "]"}
    stack = [pairs[text[start]]]
    i = start + 1
    while i < len(text) and stack:
        c = text[i]
        if c == '"':
            i = text.index('"', i + 1)
        elif c in pairs:
            stack.append(pairs[c])
        elif c in ")]":
            if c != stack.pop():
                raise ValueError(f"unbalanced bracket at {i}")
        i += 1
    return text[start + 1:i - 1]


def argument(body, label):
    """The value text of `label:` at the top level of a call's arguments, or None."""
    depth = 0
    i = 0
    while i < len(body):
        c = body[i]
        if c == '"':
            i = body.index('"', i + 1)
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0 and body.startswith(label + ":", i) and (i == 0 or not (body[i - 1].isalnum() or body[i - 1] == "_")):
            j = i + len(label) + 1
            while body[j].isspace():
                j += 1
            if body[j] in "([":
                return body[j] + balanced(body, j) + ("]" if body[j] == "[" else ")")
            m = re.match(r'"[^"]*"|[^,]+', body[j:])
            return m.group(0).strip()
        i += 1
    return None


def parse_package(path):
    """{target name: {"kind", "dependencies" (set of module names), "path", "sources"}} of Package.swift."""
    text = strip_comments_keep_strings(open(path, encoding="utf-8").read())
    targets = {}
    for m in re.finditer(r"\.(" + "|".join(TARGET_KINDS) + r")\(", text):
        body = balanced(text, m.end() - 1)
        name = argument(body, "name")
        if name is None or not name.startswith('"'):
            continue
        name = name.strip('"')
        deps = set()
        dep_text = argument(body, "dependencies")
        if dep_text:
            inner = dep_text[1:-1]
            for product in re.finditer(r'\.product\(\s*name:\s*"([^"]+)"', inner):
                deps.add(product.group(1))
            inner = re.sub(r"\.product\([^)]*\)", "", inner)
            for named in re.finditer(r'"([^"]+)"', inner):
                deps.add(named.group(1))
        path_arg = argument(body, "path")
        sources = argument(body, "sources")
        kind = TARGET_KINDS[m.group(1)]
        targets[name] = {
            "kind": kind,
            "dependencies": deps,
            "path": path_arg.strip('"') if path_arg else os.path.join("Tests" if kind == "test" else "Sources", name),
            "sources": re.findall(r'"([^"]+)"', sources) if sources else None,
        }
    return targets


IMPORT = re.compile(
    r"^[ \t]*(?:@\w+(?:\([^)\n]*\))?\s+)*import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?"
    r"([A-Za-z_]\w*)", re.MULTILINE)


def swift_files(target):
    base = os.path.join(ROOT, target["path"])
    roots = [os.path.join(base, s) for s in target["sources"]] if target["sources"] else [base]
    for r in roots:
        if os.path.isfile(r):
            yield r
        for folder, _, files in os.walk(r):
            for f in sorted(files):
                if f.endswith(".swift"):
                    yield os.path.join(folder, f)


def imports_of(target):
    """{module: first file importing it} over the target's Swift files."""
    found = {}
    for f in swift_files(target):
        for m in IMPORT.finditer(strip_swift(open(f, encoding="utf-8").read())):
            found.setdefault(m.group(1), os.path.relpath(f, ROOT))
    return found


def check_imports(targets):
    problems = []
    external = set()
    for t in targets.values():
        external |= {d for d in t["dependencies"] if d not in targets}
    for name, t in sorted(targets.items()):
        if t["kind"] in ("system", "plugin"):
            continue
        imported = imports_of(t)
        allowed_extra = set()
        for d in t["dependencies"]:
            allowed_extra |= PRODUCT_SUBMODULES.get(d, set())
        for module, where in sorted(imported.items()):
            if module in TOOLCHAIN_MODULES or module == name or module in t["dependencies"] or module in allowed_extra:
                continue
            if module in targets or module in external or any(module in s for s in PRODUCT_SUBMODULES.values()):
                problems.append(f"{name}: imports {module} ({where}) but does not declare it in Package.swift")
            else:
                problems.append(f"{name}: imports {module} ({where}), neither a declared module nor a toolchain "
                                "module (add it to TOOLCHAIN_MODULES in scripts/check-imports.py if it is one)")
        for d in sorted(t["dependencies"]):
            if d not in imported:
                problems.append(f"{name}: declares {d} in Package.swift but no file imports it")
    return problems


def layers(targets):
    """Each non-test target's layer: 0 without project dependencies, else 1 + the highest of theirs."""
    result = {}

    def layer(name, seen=()):
        if name in result:
            return result[name]
        if name in seen:
            raise ValueError("dependency cycle: " + " -> ".join(seen + (name,)))
        deps = [d for d in targets[name]["dependencies"] if d in targets]
        result[name] = 1 + max((layer(d, seen + (name,)) for d in deps), default=-1)
        return result[name]

    for name, t in targets.items():
        if t["kind"] != "test":
            layer(name)
    return result


def graph_lines(targets, width=110):
    """The doc's graph block: `layer N  Module ──► deps` per module (highest layer first), then the
    test targets; long dependency lists continue on indented lines."""
    level = layers(targets)

    def lines(prefix, name):
        deps = sorted(targets[name]["dependencies"], key=lambda d: (d not in targets, -level.get(d, -1), d))
        head = f"{prefix:<9}{name:<22} ──► "
        rows, row = [], head
        for i, d in enumerate(deps):
            item = d + ("," if i < len(deps) - 1 else "")
            if row != head and not row.endswith("──► ") and len(row) + 1 + len(item) > width:
                rows.append(row)
                row = " " * len(head) + item
            else:
                row += ("" if row.endswith("──► ") or row.endswith(" " * 4) else " ") + item
        rows.append(row if deps else head + "(none)")
        return rows

    rows = []
    for n in sorted(level, key=lambda n: (-level[n], n)):
        rows += lines(f"layer {level[n]}", n)
    rows.append("")
    for n in sorted(targets):
        if targets[n]["kind"] == "test":
            rows += lines("test", n)
    return rows


GRAPH_LINE = re.compile(r"^(layer (\d+)|test)\s+(\S+)\s+(?:──►|->)\s+(.*)$")


def check_doc(targets, doc_path):
    text = open(doc_path, encoding="utf-8").read()
    m = re.search(r"<!-- module-graph[^>]*-->\s*```[^\n]*\n(.*?)\n```", text, re.DOTALL)
    rel = os.path.relpath(doc_path, ROOT)
    if not m:
        return [f"{rel}: no module graph block (a fenced block after `<!-- module-graph -->`)"]
    problems = []
    documented = {}
    level = layers(targets)
    entries = []
    for raw in m.group(1).splitlines():
        if not raw.strip():
            continue
        if raw[0].isspace() and entries:
            entries[-1] += " " + raw.strip()
        else:
            entries.append(raw.strip())
    for raw in entries:
        g = GRAPH_LINE.match(raw.strip())
        if not g:
            problems.append(f"{rel}: unreadable graph line: {raw.strip()}")
            continue
        name = g.group(3)
        deps = set() if g.group(4).strip() == "(none)" else {d.strip() for d in g.group(4).split(",") if d.strip()}
        if name in documented:
            problems.append(f"{rel}: {name} is listed twice")
        documented[name] = deps
        if name not in targets:
            problems.append(f"{rel}: lists {name}, which is no target of Package.swift")
            continue
        is_test = targets[name]["kind"] == "test"
        if is_test != (g.group(2) is None):
            problems.append(f"{rel}: {name} is {'a test target' if is_test else 'a module'}: list it as "
                            f"{'test' if is_test else 'layer ' + str(level[name])}")
        elif not is_test and int(g.group(2)) != level[name]:
            problems.append(f"{rel}: {name} is in layer {g.group(2)}; its dependencies put it in layer {level[name]}")
        declared = targets[name]["dependencies"]
        for d in sorted(declared - deps):
            problems.append(f"{rel}: {name} depends on {d} (Package.swift), which the graph does not allow")
        for d in sorted(deps - declared):
            problems.append(f"{rel}: the graph gives {name} the dependency {d}, which Package.swift does not declare")
    for name in sorted(set(targets) - set(documented)):
        problems.append(f"{rel}: target {name} is missing from the module graph")
    return problems


# Targets only test targets may depend on (directly or through another target): nothing shipped links them.
TEST_ONLY = {"MultitouchTestKit"}


def check_test_only(targets):
    problems = []
    for name, t in sorted(targets.items()):
        if t["kind"] == "test" or name in TEST_ONLY:
            continue
        seen, todo = set(), [d for d in t["dependencies"] if d in targets]
        while todo:
            d = todo.pop()
            if d not in seen:
                seen.add(d)
                todo += [e for e in targets[d]["dependencies"] if e in targets]
        for d in sorted(seen & TEST_ONLY):
            problems.append(f"{name}: depends on {d}, which only test targets may use (move what it needs into "
                            "a shipped module, as TouchScripting)")
    return problems


# What a client may link, directly or through another target (issue 32): the protocol, the vocabulary it
# shares with the engine (TouchVocabulary) and the system call wrapper; never the tracker, the engine, the
# router, the pipeline or the daemon. The bridge relays lines and parses none, so it is held to the same.
CLIENT_MAY_LINK = {
    "MultitouchClient": {"WireProtocol", "TouchVocabulary", "SystemCalls", "CLinuxSystem"},
    "WebBridge": {"WebAssets", "WireProtocol", "TouchVocabulary", "SystemCalls", "CLinuxSystem"},
}


def closure(targets, name):
    """Every target of ours `name` depends on, directly or through another."""
    seen, todo = set(), [d for d in targets[name]["dependencies"] if d in targets]
    while todo:
        d = todo.pop()
        if d not in seen:
            seen.add(d)
            todo += [e for e in targets[d]["dependencies"] if e in targets]
    return seen


def check_clients(targets):
    problems = []
    for name, allowed in sorted(CLIENT_MAY_LINK.items()):
        if name not in targets:
            problems.append(f"{name}: named in CLIENT_MAY_LINK but no target of Package.swift")
            continue
        for d in sorted(closure(targets, name) - allowed):
            problems.append(f"{name}: links {d}, which a client may not (CLIENT_MAY_LINK: "
                            f"{', '.join(sorted(allowed))}); share a value type through TouchVocabulary instead")
    return problems


# System calls (and the libc calls that fail through errno) that only Sources/SystemCalls may make: every
# other file goes through its wrappers (`Sys.*`, or a wrapper type of that module), so EINTR is retried in
# one place, EBADF and EFAULT stop the program as the bugs they are, and every other failure is thrown as
# a `SystemError` naming the call (swift-nio's `Posix` enum does the same). Calls that cannot fail
# (getpid, getuid, geteuid, umask, strerror) are not listed: there is nothing to wrap.
RAW_CALL_MODULE = "SystemCalls"
RAW_CALLS = {
    # descriptors and files
    "open", "openat", "creat", "close", "read", "readv", "pread", "write", "writev", "pwrite", "fcntl",
    "ioctl", "dup", "dup2", "dup3", "pipe", "pipe2", "lseek", "fsync", "fdatasync", "ftruncate", "truncate",
    "stat", "fstat", "lstat", "fstatat", "access", "faccessat", "mkdir", "mkdirat", "rmdir", "unlink",
    "unlinkat", "rename", "renameat", "chmod", "fchmod", "fchmodat", "chown", "fchown", "fchownat", "flock",
    "mmap", "munmap", "realpath", "readlink", "readlinkat", "symlink", "link", "opendir", "readdir", "closedir",
    "getrandom", "mkdtemp", "mkstemp", "multitouchd_renameat_noreplace",
    # sockets
    "socket", "socketpair", "bind", "listen", "connect", "accept", "accept4", "send", "sendto", "sendmsg",
    "recv", "recvfrom", "recvmsg", "shutdown", "setsockopt", "getsockopt", "getsockname", "getpeername",
    "multitouchd_accept",
    # waiting, timers, signals, events
    "poll", "ppoll", "select", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
    "timerfd_create", "timerfd_settime", "timerfd_gettime", "signalfd", "eventfd", "inotify_init",
    "inotify_init1", "inotify_add_watch", "inotify_rm_watch", "sigprocmask", "pthread_sigmask", "sigaction",
    "signal", "kill", "raise", "nanosleep", "usleep", "sleep", "clock_gettime",
    # processes and limits
    "fork", "vfork", "execve", "execvp", "execv", "posix_spawn", "posix_spawnp", "waitpid", "wait",
    "getrlimit", "setrlimit", "prctl", "malloc_trim", "gethostname", "uname",
    # users, groups, names
    "getgrnam_r", "getgrgid_r", "getpwnam_r", "getpwuid_r", "getgrouplist", "getaddrinfo",
}
# C structs that share a call's name: `stat()` with no arguments makes the struct, not the call.
RAW_CALL_STRUCTS = {"stat", "flock", "sigaction"}
RAW_CALL = re.compile(r"(?<![\w.$])(Glibc\.|Darwin\.|Musl\.)?(" + "|".join(sorted(RAW_CALLS)) + r")\s*\((\s*\))?")
FUNC_DECL = re.compile(r"\bfunc\s+`?(\w+)`?")


def raw_calls(code):
    """[(line, call)] of the calls to RAW_CALLS in `code` (comments and strings already blanked). A call
    named like a function the file declares is the file's own (`func send`), unless written `Glibc.send`:
    inside a type with such a method Swift only finds the C function that way."""
    own = set(FUNC_DECL.findall(code))
    found = []
    for m in RAW_CALL.finditer(code):
        qualifier, name, empty = m.group(1), m.group(2), m.group(3)
        if code[max(0, m.start() - 5):m.start()].endswith("func "):
            continue
        if name in RAW_CALL_STRUCTS and empty:
            continue
        if name in own and not qualifier:
            continue
        found.append((code.count("\n", 0, m.start()) + 1, (qualifier or "") + name))
    return found


def check_raw_calls(targets):
    problems = []
    for name, t in sorted(targets.items()):
        if t["kind"] in ("test", "system") or name == RAW_CALL_MODULE:
            continue
        for path in swift_files(t):
            rel = os.path.relpath(path, ROOT)
            code = strip_swift(open(path, encoding="utf-8").read())
            for line, call in raw_calls(code):
                problems.append(f"{rel}:{line}: calls {call}( directly; go through Sources/{RAW_CALL_MODULE} "
                                "(a `Sys` wrapper: EINTR retried, EBADF/EFAULT a bug, a thrown SystemError)")
            for i, text in enumerate(code.split("\n")):
                if re.search(r"\bEINTR\b", text):
                    problems.append(f"{rel}:{i + 1}: handles EINTR itself; only Sys.uninterrupted may")
    return problems

TYPE_DECL = re.compile(r"\b(?:struct|enum|class|protocol|actor|typealias)\s+(\w+)")
MEMBER_DECL = re.compile(r"\b(?:func|var|let|struct|enum|class|typealias|protocol)\s+`?(\w+)`?")
CASE_DECL = re.compile(r"\bcase\s+(\w+(?:\([^)]*\))?(?:\s*,\s*\w+(?:\([^)]*\))?)*)")
CODE_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
TYPE_IN_MODULE = re.compile(r"(?<!`)`([A-Z]\w*)` \((\w+)\)")
PATH_SPAN = re.compile(r"^[\w.+-]+(?:/[\w.+-]+)*/?$")


def declarations(paths):
    """(types, members, texts): the type names the files declare, the member names (functions,
    properties, cases, nested types), and each file's code, for the claims of docs/architecture.md."""
    types, members, texts = set(), set(), {}
    for path in paths:
        code = strip_swift(open(path, encoding="utf-8").read())
        texts[path] = code
        types.update(TYPE_DECL.findall(code))
        members.update(MEMBER_DECL.findall(code))
        for group in CASE_DECL.findall(code):
            members.update(re.findall(r"(?:^|,)\s*(\w+)", re.sub(r"\([^)]*\)", "", group)))
    return types, members, texts


def check_doc_claims(targets, doc_path):
    """The claims docs/architecture.md makes that can be checked: backticked paths exist, a type
    written `Type` (Module) is declared in that module, `Type.member` names a declared type and a member
    declared where the type is declared or extended, a bare backticked type name is declared."""
    problems = []
    rel_doc = os.path.relpath(doc_path, ROOT)
    text = open(doc_path, encoding="utf-8").read()
    text = re.sub(r"<!-- module-graph.*?```.*?```", "", text, flags=re.S)
    text = re.sub(r"\n## This page is checked\n.*?(?=\n## )", "\n", text, flags=re.S)
    by_module = {name: declarations(swift_files(t)) for name, t in targets.items() if t["kind"] != "system"}
    all_types = set().union(*(d[0] for d in by_module.values()))
    all_texts = {}
    for d in by_module.values():
        all_texts.update(d[2])
    for m in TYPE_IN_MODULE.finditer(text):
        type_name, module = m.group(1), m.group(2)
        if module in by_module and type_name not in by_module[module][0]:
            where = sorted(n for n, d in by_module.items() if type_name in d[0])
            problems.append(f"{rel_doc}: says `{type_name}` is in {module}; declared in "
                            f"{', '.join(where) or 'no module'}")
    for m in CODE_SPAN.finditer(text):
        span = m.group(1).strip()
        if "/" in span and PATH_SPAN.match(span):
            if not any(os.path.exists(os.path.join(base, span)) for base in (ROOT, os.path.join(ROOT, "Sources"))):
                problems.append(f"{rel_doc}: `{span}` does not exist (from the root or under Sources)")
            continue
        dotted = re.match(r"^([A-Z]\w*)((?:\.\w+)+)(?:\(.*\))?$", span)
        if dotted:
            owner, path = dotted.group(1), dotted.group(2).split(".")[1:]
            if owner not in all_types:
                problems.append(f"{rel_doc}: `{span}`: no type {owner} is declared")
                continue
            member = path[0]
            decl = re.compile(r"\b(?:struct|enum|class|protocol|actor|extension)\s+" + owner + r"\b")
            homes = [code for code in all_texts.values() if decl.search(code)]
            declared = any(
                re.search(r"\b(?:func|var|let|struct|enum|class|typealias|case)\s+`?" + member + r"\b", code)
                or re.search(r"\bcase\b[^\n]*[\s,]" + member + r"\b", code) for code in homes)
            if not declared:
                problems.append(f"{rel_doc}: `{span}`: {owner} declares no member {member}")
            continue
        if re.match(r"^[A-Z][a-z]\w*$", span) and span not in all_types:
            problems.append(f"{rel_doc}: `{span}` is not a type any module declares")
    return problems


def main(argv):
    targets = parse_package(os.path.join(ROOT, "Package.swift"))
    if "--print-graph" in argv:
        print("\n".join(graph_lines(targets)))
        return 0
    problems = (check_imports(targets) + check_test_only(targets) + check_clients(targets) + check_raw_calls(targets)
                + check_doc(targets, os.path.join(ROOT, "docs", "architecture.md"))
                + check_doc_claims(targets, os.path.join(ROOT, "docs", "architecture.md")))
    for p in problems:
        print(p)
    if problems:
        print(f"check-imports: {len(problems)} problem(s); `python3 scripts/check-imports.py --print-graph` prints "
              "the graph block Package.swift implies")
        return 1
    print(f"check-imports: {len(targets)} targets: dependencies equal imports, no test kit in shipped code, "
          f"clients link no engine, system calls only in {RAW_CALL_MODULE}, docs/architecture.md's graph and claims match")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

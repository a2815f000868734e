#!/usr/bin/env python3
"""Checks that every command the documentation tells a user to run exists.

    python3 scripts/check-doc-commands.py [BIN_DIR]

Reads the shell blocks (```sh, ```bash, ```console, ```shell) of README.md, docs/*.md and the
clients' READMEs, and the indented command lines in the comments of config/ and config/examples/
files (`#   multitouchd --config ...`). For each command of each line (split at |, &&, ||, ;) it
takes the program, past `sudo`, `env` and VAR=value assignments, and checks that it is a shell
builtin, an existing path, or a program on PATH (with BIN_DIR, where the built multitouchd and
multitouchctl are, and /usr/sbin, /sbin). `multitouchctl VERB` must name one of multitouchctl's
subcommands. A few names stand for the reader's own program (`myapp`); they are listed below with
the reason. Prints every command that does not exist, with file and line, and exits 1 if any.
BIN_DIR defaults to `swift build --show-bin-path`.
"""

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SHELL_WORDS = {
    "cd", "export", "for", "do", "done", "if", "then", "else", "fi", "while", "echo", "source", ".", "set", "read",
    "test", "[", "true", "false", "printf", "wait", "kill", "exit", "trap", "unset", "case", "esac", "{", "}",
    "exec", "time", "command", "alias", "ulimit", "umask",
}
WRAPPERS = {"sudo", "env", "exec", "time", "nohup", "command"}
# Names that stand for something of the reader's, not a program of this machine.
PLACEHOLDERS = {
    "myapp": "the reader's own program (docs/TUIO.md: how to hand Qt's TuioTouch plugin to it)",
}
# Programs the documentation names together with the Debian package to install (checked: the same
# file says `apt install PACKAGE`).
INSTALL_FIRST = {"socat": "socat"}


def shell_blocks(path):
    """(line number, text) of each line in the file's shell code blocks, continuations joined."""
    lines = open(path, encoding="utf-8").read().split("\n")
    inside = False
    shell = False
    pending = None
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            if not inside:
                inside = True
                shell = line[3:].strip() in ("sh", "bash", "console", "shell")
            else:
                inside = False
            continue
        if not (inside and shell):
            continue
        if pending is not None:
            start, text = pending
            text += " " + line.strip()
        else:
            start, text = number, line.strip()
        if text.endswith("\\"):
            pending = (start, text[:-1])
            continue
        pending = None
        yield start, text


def comment_commands(path):
    """(line number, text) of comment lines indented as commands: `#   multitouchd --config ...`."""
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        match = re.match(r"^#\s{3,}(\S.*)$", line.rstrip("\n"))
        # Commented-out TOML (`# key = value`, `# [table]`) is not a command.
        if match and not re.match(r"^(\[|[A-Za-z0-9_.\"-]+\s*=)", match.group(1)):
            yield number, match.group(1)


def strip_comment(text):
    """The line without a trailing `# comment` (a # that starts a word, outside quotes)."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i].rstrip()
    return text


def programs(text):
    """The program word and its words of each command in a shell line."""
    text = strip_comment(text.lstrip("$ ").strip())
    if not text:
        return
    # A | between words is a pipe; FILE|DIR in a synopsis is not.
    for part in re.split(r"\s\|\|\s|&&|;|\s\|\s|\$\(|`|\)", text):
        try:
            words = shlex.split(part)
        except ValueError:
            words = part.split()
        while words and (words[0] in WRAPPERS or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]) or
                         words[0].startswith("-")):
            words = words[1:]
        if words:
            yield words[0], words


def main():
    bin_dir = sys.argv[1] if len(sys.argv) > 1 else subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    path = os.pathsep.join([bin_dir, os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    ctl = os.path.join(bin_dir, "multitouchctl")
    help_text = subprocess.run([ctl, "--help"], capture_output=True, text=True).stdout
    verbs = set(re.findall(r"^  ([a-z][a-z-]+)\s", help_text.split("SUBCOMMANDS:", 1)[-1], re.M)) | {"help"}
    if len(verbs) < 5:
        sys.exit("check-doc-commands: could not read multitouchctl's subcommands from %s --help" % ctl)

    sources = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) + sorted(
        glob.glob(os.path.join(ROOT, "clients", "**", "README.md"), recursive=True))
    configs = sorted(glob.glob(os.path.join(ROOT, "config", "*.toml")) +
                     glob.glob(os.path.join(ROOT, "config", "examples", "*.toml")))
    lines = [(f, n, t) for f in sources for n, t in shell_blocks(f)] + \
        [(f, n, t) for f in configs for n, t in comment_commands(f)]
    problems = []
    checked = 0
    for file, number, text in lines:
        for program, words in programs(text):
            checked += 1
            where = "%s:%d" % (os.path.relpath(file, ROOT), number)
            if program in SHELL_WORDS or program in PLACEHOLDERS:
                continue
            if program in INSTALL_FIRST:
                if "apt install %s" % INSTALL_FIRST[program] not in open(file, encoding="utf-8").read():
                    problems.append("%s: %s: not installed here, and the page does not say `apt install %s`" % (
                        where, program, INSTALL_FIRST[program]))
                continue
            if "/" in program:
                # Build outputs (.build/...) exist once the build the same line starts has run.
                if program.startswith(".build/") or program.startswith("./.build/"):
                    continue
                if not (os.path.exists(program) or os.path.exists(os.path.join(ROOT, program))):
                    problems.append("%s: %s: no such file (in: %s)" % (where, program, text))
                continue
            if shutil.which(program, path=path) is None:
                problems.append("%s: %s: not a command here (in: %s)" % (where, program, text))
                continue
            if program == "multitouchctl" and len(words) > 1 and not words[1].startswith("-"):
                if words[1] not in verbs:
                    problems.append("%s: multitouchctl has no subcommand %r (in: %s)" % (where, words[1], text))
    for problem in problems:
        print(problem)
    print("check-doc-commands: %d commands in %d lines, %d that do not exist" % (checked, len(lines), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

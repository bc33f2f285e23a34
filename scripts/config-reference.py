#!/usr/bin/env python3
"""Prints docs/reference/configuration.md: every key the server reads (`voicebridge serve
--list-keys`: its environment variables, kind and default, from the reader itself) with what it does
(the comment beside the key in config/voicebridge.example.yaml). `make test` compares the page with
this output, so it cannot drift from the reader, and fails when a key has no comment to say what it
does. After changing a key or its comment:

    python3 scripts/config-reference.py .build/debug/voicebridge > docs/reference/configuration.md
"""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "config" / "voicebridge.example.yaml"
KEY_LINE = re.compile(r"^(\s*)([A-Za-z0-9_]+):(.*)$")


def split_comment(rest):
    """`value   # comment` → (value, comment, the comment's column in `rest`); quotes respected."""
    quote = None
    for i, ch in enumerate(rest):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or rest[i - 1].isspace()):
            return rest[:i].strip(), rest[i + 1:].strip(), i
    return rest.strip(), None, None


def example_comments(text):
    """The example file read for its comments: {dotted key: comment} (a comment continued on the
    next lines, aligned under it, joined), and {section: the comment block just above it}."""
    comments, intros = {}, {}
    stack = []            # (indent, name) of the keys enclosing the current line
    last = None           # (key, column of its comment): where an aligned comment line continues
    block = []            # column-0 comment lines since the last key or blank line
    for line in text.splitlines():
        if not line.strip():
            block, last = [], None
            continue
        if line.lstrip().startswith("#"):
            column = len(line) - len(line.lstrip())
            body = line.strip()[1:].strip()
            if last and column == last[1]:
                comments[last[0]] += " " + body
            elif column == 0:
                block.append(body)
            continue
        match = KEY_LINE.match(line)
        if not match:     # a list item, under a key that has said what it is
            continue
        indent, name, rest = len(match.group(1)), match.group(2), match.group(3)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, name))
        key = ".".join(n for _, n in stack)
        if indent == 0 and block:
            intros[key] = " ".join(block)
        block = []
        _, comment, at = split_comment(rest)
        last = None
        if comment is not None:
            comments[key] = comment
            last = (key, len(line) - len(rest) + at)
    return comments, intros


def cell(text):
    return text.replace("|", "\\|")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/voicebridge"
    listed = subprocess.run([binary, "serve", "--config", str(EXAMPLE), "--list-keys"],
                            check=True, capture_output=True, text=True).stdout
    definitions = [json.loads(line) for line in listed.splitlines() if line.strip()]
    comments, intros = example_comments(EXAMPLE.read_text())
    undocumented = [d["key"] for d in definitions if d["key"] not in comments]
    if undocumented:
        sys.stderr.write("config-reference: keys the server reads with no comment in config/voicebridge.example.yaml "
                         "to say what they do: " + ", ".join(undocumented) + "\n")
        sys.exit(1)

    print("# Configuration reference\n")
    print("Every key `voicebridge serve` reads, in the order it reads them: the kind of value, the default,")
    print("the environment variables that set it, and what it does. Made by `scripts/config-reference.py`")
    print("from the server's own reader (`voicebridge serve --list-keys`) and the comments in")
    print("[`config/voicebridge.example.yaml`](../../config/voicebridge.example.yaml); `make test` fails")
    print("when this page differs from what they say, or when a key has no comment. How the file, the")
    print("environment and the defaults combine: [Configuration](../guide/configuration.md).")
    # One table a section, the sections in the order the server first reads them (it reads
    # barge_in between engine's own keys).
    first = {}
    for i, d in enumerate(definitions):
        first.setdefault(d["key"].split(".")[0], i)
    definitions.sort(key=lambda d: first[d["key"].split(".")[0]])   # stable: keys keep their order
    section = None
    for d in definitions:
        top = d["key"].split(".")[0]
        if top != section:
            section = top
            print(f"\n## `{section}`\n")
            intro = " ".join(x for x in (intros.get(section), comments.get(section) if section != d["key"] else None) if x)
            if intro:
                print(intro + "\n")
            print("| key | default | kind | environment | what it does |")
            print("|---|---|---|---|---|")
        environment = ", ".join(f"`{name}`" for name in d["environment"]) or "— (the file only)"
        print(f"| `{d['key']}` | `{cell(d['default'])}` | {cell(d['kind'])} | {environment} | {cell(comments[d['key']])} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Lists number literals outside hwdocs that may be hardware facts, and fails if one is unexplained.

Issue #18: every register offset, bit, field width, record layout and limit the hardware fixes
comes from hwdocs's data. Anything else that looks like one (a hex literal of two or more
digits, or a power of two of 64 or more) must say why it is not a hardware fact, in a comment:
on its line, on the line above it, or (a plain `//` comment, not an item's doc) above the
block that holds it: one comment over a table of GL enums explains the table. Test code (`tests/`, `#[cfg(test)]` modules, files
named `tests.rs`), the fuzz targets and string contents are not read.

Usage: tools/hw_literals.py [--list] [paths...]   (default: every tracked .rs file)
Exit status 1 when an unexplained literal is found; --list prints them all (and exits 0).
"""
import re
import subprocess
import sys

HEX = re.compile(r"\b0x[0-9a-fA-F_]{2,}\b")
DEC = re.compile(r"(?<![\w.])(\d[\d_]*)(?:u8|u16|u32|u64|usize|i32|i64)?(?![\w.])")


def skipped(path):
    return (
        path.startswith(("hwdocs/", "fuzz/", "target/"))
        or "/tests/" in path
        or path.endswith("tests.rs")
        or "/tests_" in path
        or "/benches/" in path
    )


def candidates(code):
    code = re.sub(r'"(\\.|[^"\\])*"', '""', code)
    code = re.sub(r"'(\\.|[^'\\])'", "''", code)
    hits = HEX.findall(code)
    for m in DEC.findall(code):
        n = int(m.replace("_", ""))
        if n >= 64 and n & (n - 1) == 0:
            hits.append(m)
    return hits


def indent(line):
    return len(line) - len(line.lstrip())


def explained(lines, i):
    """A comment on line i, above it, or above an enclosing (less indented) line."""
    if "//" in lines[i]:
        return True
    level = indent(lines[i])
    j = i - 1
    while j >= 0:
        s = lines[j].strip()
        if not s:
            j -= 1
            continue
        if s.startswith("//") or s.startswith("#["):
            # A comment (or an attribute under one) directly above the line or its block.
            k = j
            while k >= 0 and lines[k].strip().startswith("#["):
                k -= 1
            if k >= 0 and lines[k].strip().startswith("//"):
                return True
        if indent(lines[j]) < level:
            level = indent(lines[j])
            # The enclosing line: explained if a comment sits directly above it.
            k = j - 1
            while k >= 0 and lines[k].strip().startswith("#["):
                k -= 1
            above = lines[k].strip() if k >= 0 else ""
            if above.startswith("//") and not above.startswith(("///", "//!")):
                return True
            if level == 0:
                return False
        j -= 1
    return False


def scan(path):
    out = []
    lines = open(path, encoding="utf-8").read().split("\n")
    head = "\n".join(lines[:3]).lower()
    if "generated" in head:
        # Generated from another project's headers (bindgen, Mesa's enums): their numbers.
        return out
    test_depth = None
    for i, line in enumerate(lines):
        s = line.strip()
        if test_depth is not None:
            if s and indent(line) <= test_depth and s.startswith("}"):
                test_depth = None
            continue
        if s.startswith("#[cfg(test)]"):
            # A test item with a body is skipped to its closing brace; `#[cfg(test)] mod x;`
            # declares a file (left out by test_modules) and hides nothing after it.
            nxt = next((l.strip() for l in lines[i + 1 :] if l.strip()), "")
            if not re.match(r"(pub(\([\w:]+\))?\s+)?mod \w+;", nxt):
                test_depth = indent(line)
            continue
        if not s or s.startswith("//"):
            continue
        code = line.split("//")[0]
        hits = candidates(code)
        if hits and not explained(lines, i):
            out.append((path, i + 1, ", ".join(hits), s[:100]))
    return out


def test_modules(files):
    """Files of modules declared under #[cfg(test)] (`#[cfg(test)] mod x;` in their parent)."""
    out = set()
    for f in files:
        if not f.endswith(".rs"):
            continue
        lines = open(f, encoding="utf-8").read().split("\n")
        base = f[:-3]
        folder = base.rsplit("/", 1)[0] if base.endswith(("/lib", "/main", "/mod")) else base
        for i, line in enumerate(lines[1:], 1):
            m = re.match(r"\s*(?:pub(?:\([\w:]+\))?\s+)?mod (\w+);", line)
            if m and lines[i - 1].strip() == "#[cfg(test)]":
                out.add(f"{folder}/{m.group(1)}.rs")
                out.add(f"{folder}/{m.group(1)}/")
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    listing = "--list" in sys.argv
    if args:
        files = args
    else:
        files = subprocess.run(
            ["git", "ls-files", "*.rs"], capture_output=True, text=True, check=True
        ).stdout.split()
    found = []
    tests = test_modules(files)
    for f in files:
        if skipped(f) or f in tests or any(f.startswith(t) for t in tests if t.endswith("/")):
            continue
        found += scan(f)
    for path, n, hits, text in found:
        print(f"{path}:{n}: {hits}: {text}")
    print(f"hw_literals: {len(found)} unexplained literal(s) outside hwdocs", file=sys.stderr)
    return 0 if listing or not found else 1


if __name__ == "__main__":
    sys.exit(main())

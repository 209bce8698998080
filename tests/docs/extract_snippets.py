#!/usr/bin/env python3
"""Writes each C++ block of a Markdown page to OUTDIR/<name>.inc, for tests/docs/test_doc_snippets.cpp
to compile:  extract_snippets.py PAGE.md OUTDIR

Every ```cpp block must follow a line `<!-- snippet: name -->` (name: letters, digits, _); a block
without one, or a name used twice, is an error (exit 1), so no C++ in the page goes uncompiled."""
import pathlib
import re
import sys


def snippets(text):
    """[(name, code, line)] of the page's ```cpp blocks; raises ValueError on an unnamed block."""
    lines = text.splitlines()
    out, seen = [], set()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```cpp":
            start = i + 1
            m = re.fullmatch(r"<!-- snippet: ([A-Za-z0-9_]+) -->", lines[i - 1].strip()) if i > 0 else None
            if not m:
                raise ValueError(f"line {start}: a ```cpp block without a `<!-- snippet: name -->` line before it")
            name = m.group(1)
            if name in seen:
                raise ValueError(f"line {start}: snippet name '{name}' used twice")
            seen.add(name)
            j = start
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            if j == len(lines):
                raise ValueError(f"line {start}: the ```cpp block is not closed")
            out.append((name, "\n".join(lines[start:j]) + "\n", start))
            i = j
        i += 1
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    page, outdir = pathlib.Path(argv[1]), pathlib.Path(argv[2])
    try:
        found = snippets(page.read_text())
    except ValueError as e:
        print(f"{page}: {e}", file=sys.stderr)
        return 1
    outdir.mkdir(parents=True, exist_ok=True)
    for name, code, line in found:
        target = outdir / f"{name}.inc"
        text = f"// {page.name}, line {line}\n{code}"
        if not target.exists() or target.read_text() != text:  # unchanged files keep their time stamps
            target.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

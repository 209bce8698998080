#!/usr/bin/env python3
"""Writes each C++ block of Markdown pages to OUTDIR/<name>.inc, for tests/docs/test_doc_snippets.cpp
to compile:  extract_snippets.py OUTDIR PAGE.md...

Every ```cpp block must follow a line `<!-- snippet: name -->` (name: letters, digits, _); a block
without one, or a name used twice in the pages, is an error (exit 1), so no C++ in the pages goes
uncompiled."""
import pathlib
import re
import sys


def snippets(text, seen):
    """[(name, code, line)] of the page's ```cpp blocks; raises ValueError on an unnamed block or a
    name in `seen` (the names found so far, which it extends)."""
    lines = text.splitlines()
    out = []
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
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    outdir, pages = pathlib.Path(argv[1]), [pathlib.Path(p) for p in argv[2:]]
    found, seen = [], set()
    for page in pages:
        try:
            found += [(page, *snippet) for snippet in snippets(page.read_text(), seen)]
        except ValueError as e:
            print(f"{page}: {e}", file=sys.stderr)
            return 1
    outdir.mkdir(parents=True, exist_ok=True)
    for page, name, code, line in found:
        target = outdir / f"{name}.inc"
        text = f"// {page.parent.name}/{page.name}, line {line}\n{code}"
        if not target.exists() or target.read_text() != text:  # unchanged files keep their time stamps
            target.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

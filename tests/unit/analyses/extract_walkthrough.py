#!/usr/bin/env python3
"""Writes the C code of the walkthrough in analyses/README.md ("Adding an
analysis: a walkthrough", its first ```c block) to OUT, so that the
analysis-template test builds exactly what the walkthrough shows.

usage: extract_walkthrough.py README OUT
"""
import sys

readme, out = sys.argv[1], sys.argv[2]
text = open(readme, encoding="utf-8").read()
start = text.find("## Adding an analysis: a walkthrough")
if start < 0:
    sys.exit(f"{readme}: no section 'Adding an analysis: a walkthrough'")
block = text.find("```c\n", start)
end = text.find("\n```", block + 5)
if block < 0 or end < 0:
    sys.exit(f"{readme}: the walkthrough has no ```c block")
with open(out, "w", encoding="utf-8") as f:
    f.write("/* Generated from analyses/README.md by extract_walkthrough.py. */\n")
    f.write(text[block + 5:end + 1])

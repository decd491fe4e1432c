#!/usr/bin/python3
"""Checks that every #include in sc_model/ respects the layers the build declares: a file in
folder F may include only headers of F itself and of the folders F's library links (LAYERS,
written by CMakeLists.txt as 'folder:used,used,...' lines), plus the handler API and protocol
wire-format headers; and <nlohmann/...> only where the folder's library uses JSON ('nlohmann'). Prints each violation as
'file:line: folder F includes G' and exits 1 if there is any.

Usage: check_layers.py SC_MODEL_DIR LAYERS_FILE
"""
import os
import re
import sys

sc_model, layers_file = sys.argv[1], sys.argv[2]
allowed = {}
for line in open(layers_file):
    line = line.strip()
    if not line:
        continue
    name, _, used = line.partition(":")
    allowed[name] = {u for u in used.split(",") if u}
folders = set(os.listdir(sc_model))
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
json_include = re.compile(r'^\s*#\s*include\s+<nlohmann/')
problems = []
for root, _, files in os.walk(sc_model):
    for f in sorted(files):
        path = os.path.join(root, f)
        rel = os.path.relpath(path, sc_model)
        folder = rel.split(os.sep)[0]
        if folder not in allowed:
            problems.append(f"{rel}: folder {folder} is not declared in the build's layers")
            continue
        for n, text in enumerate(open(path, encoding="utf-8"), 1):
            if json_include.match(text) and "nlohmann" not in allowed[folder]:
                problems.append(f"{rel}:{n}: folder {folder} includes nlohmann/json, but its library does not use it "
                                "(block models report to the app, which makes the JSON)")
                continue
            m = include.match(text)
            if not m:
                continue
            target = m.group(1).split("/")[0] if "/" in m.group(1) else None
            if target is None or target not in folders:
                continue  # same-folder, handler API or wire-format headers
            if target != folder and target not in allowed[folder]:
                problems.append(f"{rel}:{n}: folder {folder} includes {m.group(1)}, but its library does not use {target}")
for p in problems:
    print(p)
print(f"{len(problems)} layer violations in {sc_model}")
sys.exit(1 if problems else 0)

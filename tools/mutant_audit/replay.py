"""Replay recorded mutants against a tree (docs/mutant_audit.md, second audit):
.venv/bin/python tools/mutant_audit/replay.py TREE tools/mutant_audit/audA.json tools/mutant_audit/audB.json > result.md

Each mutant: replace the exact `old` line (must occur once in `file`) by `new`, run its recorded test files
(those that still exist) plus any given with --also, restore the file. Caught = pytest exit code != 0."""
import json, os, subprocess, sys, pathlib, time

tree = pathlib.Path(sys.argv[1])
rows = []
for path in sys.argv[2:]:
    for m in json.load(open(path)):
        f = tree / m["file"]
        if not f.exists():
            rows.append((m["id"], m["file"], "file gone", "")); continue
        text = f.read_text()
        old = m["old"].rstrip("\n")
        lines = text.split("\n")
        hits = [i for i, l in enumerate(lines) if l == old]
        if len(hits) != 1:
            hits = [i for i, l in enumerate(lines) if l.strip() == old.strip()]
        if len(hits) != 1:
            rows.append((m["id"], m["file"], f"line not found once ({len(hits)})", "")); continue
        new_lines = list(lines)
        indent = lines[hits[0]][: len(lines[hits[0]]) - len(lines[hits[0]].lstrip())]
        new_lines[hits[0]] = indent + m["new"].strip()
        tests = [t for t in m["tests"] if (tree / t).exists()]
        f.write_text("\n".join(new_lines))
        try:
            t0 = time.time()
            r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:xdist",
                                "-p", "no:cacheprovider", *tests], cwd=tree, capture_output=True, text=True,
                               env={"PYTHONPATH": str(tree), "PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "")})
            failed = [l for l in r.stdout.splitlines() if l.startswith(("FAILED", "ERROR"))]
            rows.append((m["id"], m["file"], "caught" if r.returncode != 0 else "survived",
                         (failed[0] if failed else "") + f" ({time.time()-t0:.0f}s)"))
        finally:
            f.write_text(text)
        print(rows[-1], file=sys.stderr, flush=True)
caught = sum(r[2] == "caught" for r in rows)
print(f"caught {caught} of {len(rows)}\n")
print("| id | file | result | first failing test |\n|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r) + " |")

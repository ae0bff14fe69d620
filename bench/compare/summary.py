#!/usr/bin/env python3
"""Summarises bench/compare/run.sh: per page and step, the medians of the old and new
extension (all rounds pooled), Playwright MCP's median, and each run's load."""
import glob, json, statistics, sys

base = sys.argv[1]
samples = {}  # (variant, server, page, step) -> [ms]
ok = {}
loads = []
for path in sorted(glob.glob(f"{base}/*-*/results.json")):
    variant = path.split("/")[-2].split("-")[0]
    r = json.load(open(path))
    loads.append((path.split("/")[-2], r.get("loadBefore", "").split()[:3], round(r.get("busy", 0) * 100)))
    for s in r["samples"]:
        if s.get("skipped"):
            continue
        k = (variant, s["server"], s["page"], s["step"])
        samples.setdefault(k, []).append(s["ms"])
        ok.setdefault(k, [0, 0])
        ok[k][0] += 1 if s.get("ok") else 0
        ok[k][1] += 1

def med(k):
    v = samples.get(k)
    return statistics.median(v) if v else float("nan")

def q(k, p):
    v = sorted(samples.get(k, []))
    return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")

pages = sorted({k[2] for k in samples})
print("| page | step | old median (p25–p75) | new median (p25–p75) | new/old | Playwright median | new/Playwright | old/Playwright | effect new |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for page in pages:
    for step in ["navigate", "snapshot", "click", "type", "screenshot"]:
        o, n = ("old", "monkbrowse", page, step), ("new", "monkbrowse", page, step)
        if o not in samples:
            continue
        pw = [x for v in ("old", "new") for x in samples.get((v, "playwright", page, step), [])]
        pwm = statistics.median(pw) if pw else float("nan")
        print(f"| {page} | {step} | {med(o):.0f} ({q(o,.25):.0f}–{q(o,.75):.0f}) ms | {med(n):.0f} ({q(n,.25):.0f}–{q(n,.75):.0f}) ms | "
              f"{med(n)/med(o):.2f}× | {pwm:.0f} ms | {med(n)/pwm:.2f}× | {med(o)/pwm:.2f}× | {ok[n][0]}/{ok[n][1]} |")
print()
print("runs (load average before, machine busy %):", "; ".join(f"{n}: {' '.join(l)} ({b} %)" for n, l, b in loads))
print()
print("Act, then see the page (as in BENCHMARKS.md: Playwright MCP's action plus its snapshot call; monkbrowse's action result carries the changes):")
print()
print("| page | action | old | new | Playwright action + snapshot | old/Playwright | new/Playwright |")
print("|---|---|---:|---:|---:|---:|---:|")
for page in pages:
    for step in ["click", "type"]:
        o, n = med(("old", "monkbrowse", page, step)), med(("new", "monkbrowse", page, step))
        pw = [x for v in ("old", "new") for x in samples.get((v, "playwright", page, step), [])]
        ps = [x for v in ("old", "new") for x in samples.get((v, "playwright", page, "snapshot"), [])]
        if not pw or not ps:
            continue
        see = statistics.median(pw) + statistics.median(ps)
        print(f"| {page} | {step} | {o:.0f} ms | {n:.0f} ms | {see:.0f} ms | {o/see:.2f}× | {n/see:.2f}× |")

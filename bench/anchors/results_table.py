#!/usr/bin/python3
"""Turns one run of bench/run.sh into the Markdown tables of bench/RESULTS.md.

    results_table.py RESULTS.csv MACHINE.txt

RESULTS.csv has one line per engine and scene (columns: bench_common.h); MACHINE.txt holds
key=value lines (date, commit, cpu, load, compiler, flags, anchors). The cube drop's angular
momentum files lz-<engine>-cube_drop.csv are read from MACHINE.txt's folder when present.
"""
import csv
import math
import os
import sys

# touche's point model ("touche"), touche with another contact model forced ("touche-<model>",
# bench_touche --contact), then the anchors. Only the engines found in the CSV get a column;
# the ratio columns and the issue-2 targets compare the point model with the anchors.
ALL_ENGINES = ["touche", "touche-lcp", "touche-volume", "touche-pressure", "mujoco", "ode",
               "bullet"]
ENGINES = list(ALL_ENGINES)
ANCHORS = ["mujoco", "ode", "bullet"]
TITLES = {"touche": "touche", "touche-lcp": "touche lcp", "touche-volume": "touche volume",
          "touche-pressure": "touche pressure", "mujoco": "MuJoCo", "ode": "ODE",
          "bullet": "Bullet"}
# The targets: more steps per second than every anchor on these scenes ...
SPEED_TARGETS = ["pile100", "pile1000", "stack13"]
# ... and on this one a 99th-percentile step under a fifth of the best anchor's.
P99_TARGET = ("pile100-1ms", 0.2)


def scene_order(name):
    kind = "".join(c for c in name if c.isalpha())
    digits = "".join(c for c in name.split("-")[0] if c.isdigit())
    return ({"stack": 0, "pile": 1, "cubedrop": 2}.get(kind.replace("ms", ""), 3),
            int(digits or 0), name)


def number(row, key):
    try:
        return float(row[key])
    except (KeyError, TypeError, ValueError):
        return math.nan


def load(path):
    """Lines by (scene, engine): the fastest round (most steps per second), and every round's
    steps per second."""
    best, rounds = {}, {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["scene"], row["engine"])
            sps = number(row, "steps_per_s")
            rounds.setdefault(key, []).append(sps)
            if key not in best or sps > number(best[key], "steps_per_s"):
                best[key] = row
    return best, rounds


def spread_lines(rounds):
    """Per engine, the largest run-to-run spread (max - min) / max of steps per second."""
    counts = {len(v) for v in rounds.values()}
    if max(counts) < 2:
        return ["- one round per scene"]
    lines = [f"- rounds per scene: {', '.join(str(c) for c in sorted(counts))}; each figure is "
             "the engine's fastest round; the largest spread between rounds, (max - min) / max "
             "of steps per second:"]
    for e in ENGINES:
        spreads = [((max(v) - min(v)) / max(v), scene) for (scene, eng), v in rounds.items()
                   if eng == e and len(v) > 1 and max(v) > 0]
        if spreads:
            worst, scene = max(spreads)
            lines.append(f"{TITLES[e]} {worst:.0%} ({scene})")
    return [lines[0] + " " + "; ".join(lines[1:])]


def fmt(x, digits=3):
    if math.isnan(x):
        return "n/a"
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def ran(row):
    return row is not None and row.get("steps") not in (None, "", "0")


def speed_table(results, scenes):
    lines = ["| scene | bodies | dt (ms) | steps | " +
             " | ".join(TITLES[e] for e in ENGINES) + " | " +
             " | ".join(f"touche / {TITLES[a]}" for a in ANCHORS) + " |",
             "|" + "---|" * (4 + len(ENGINES) + len(ANCHORS))]
    for scene in scenes:
        rows = {e: results.get((scene, e)) for e in ENGINES}
        ref = next((r for r in rows.values() if ran(r)), None)
        if ref is None:
            continue
        sps = {e: number(rows[e], "steps_per_s") if ran(rows[e]) else math.nan for e in ENGINES}
        ratios = [sps["touche"] / sps[a] if sps[a] > 0 else math.nan for a in ANCHORS]
        marks = {e: " *" if ran(rows[e]) and rows[e]["status"] != "ok" else "" for e in ENGINES}
        lines.append(f"| {scene} | {ref['bodies']} | {number(ref, 'dt') * 1e3:g} | "
                     f"{ref['steps']} | " +
                     " | ".join(fmt(sps[e]) + marks[e] for e in ENGINES) + " | " +
                     " | ".join(fmt(r, 3) for r in ratios) + " |")
    if any(ran(r) and r["status"] != "ok" for r in results.values()):
        lines += ["", "\\* the run did not go as it should (dropped contacts, divergence): see its "
                  "status under Outcomes."]
    return lines


def percentile_table(results, scenes):
    lines = ["| scene | " + " | ".join(TITLES[e] for e in ENGINES) + " |",
             "|" + "---|" * (1 + len(ENGINES))]
    for scene in scenes:
        cells = []
        for e in ENGINES:
            row = results.get((scene, e))
            if not ran(row):
                cells.append("n/a")
                continue
            cells.append(" / ".join(fmt(number(row, k)) for k in
                                    ("p50_us", "p99_us", "max_us")))
        lines.append(f"| {scene} | " + " | ".join(cells) + " |")
    return lines


def lz_summary(folder, engine):
    path = os.path.join(folder, f"lz-{engine}-cube_drop.csv")
    if not os.path.exists(path):
        return ""
    with open(path, newline="") as f:
        values = [(float(r["time"]), float(r["Lz"])) for r in csv.DictReader(f)]
    if not values:
        return ""
    peak = max(abs(v) for _, v in values)
    return f"; max abs L_z {fmt(peak, 2)}, final {fmt(abs(values[-1][1]), 2)} kg m²/s"


def outcome(scene, row, folder, engine):
    if row is None:
        return "not run"
    if not ran(row):
        return f"not run: {row['status']}"
    pen = f"max pen. {number(row, 'max_pen_m') * 1e3:.3g} mm, ΔE {number(row, 'energy_change_J'):.3g} J"
    if scene.startswith("stack"):
        verdict = "stands" if row["standing"] == "1" else "fell"
        text = f"{verdict} (top z {number(row, 'top_z_ratio'):.3f}×); {pen}"
    elif scene == "cube_drop":
        rest = "at rest" if row["at_rest"] == row["bodies"] else (
            f"moving (|v| {fmt(number(row, 'max_v'), 2)}, |w| {fmt(number(row, 'max_w'), 2)})")
        text = f"{rest}; {pen}{lz_summary(folder, engine)}"
    else:
        text = f"{pen}; {row['at_rest']}/{row['bodies']} at rest"
    if row["status"] != "ok":
        text += f"; **{row['status']}**"
    return text


def outcome_table(results, scenes, folder):
    lines = ["| scene | " + " | ".join(TITLES[e] for e in ENGINES) + " |",
             "|" + "---|" * (1 + len(ENGINES))]
    for scene in scenes:
        cells = [outcome(scene, results.get((scene, e)), folder, e) for e in ENGINES]
        lines.append(f"| {scene} | " + " | ".join(cells) + " |")
    return lines


def model_ratio_table(results, scenes):
    """Every touche model's steps per second over each anchor's, on the scenes where some
    model besides the point model ran (the shared comparison scenes)."""
    models = [e for e in ENGINES if e.startswith("touche")]
    shown = [s for s in scenes if any(ran(results.get((s, m))) for m in models[1:])]
    if not shown:
        return []
    lines = ["| scene | " + " | ".join(f"{TITLES[m]} / {TITLES[a]}" for m in models
                                      for a in ANCHORS) + " |",
             "|" + "---|" * (1 + len(models) * len(ANCHORS))]
    for scene in shown:
        cells = []
        for m in models:
            for a in ANCHORS:
                mine, theirs = results.get((scene, m)), results.get((scene, a))
                ratio = (number(mine, "steps_per_s") / number(theirs, "steps_per_s")
                         if ran(mine) and ran(theirs) else math.nan)
                cells.append(fmt(ratio, 3))
        lines.append(f"| {scene} | " + " | ".join(cells) + " |")
    return ["", "### Every contact model against the anchors, steps per second ratio", "",
            "`touche` is the point model (the scenes set none); `touche <model>` forces the "
            "model on every pair.", ""] + lines


def target_lines(results):
    lines = []
    for scene in SPEED_TARGETS:
        touche = results.get((scene, "touche"))
        if not ran(touche):
            lines.append(f"- {scene}: touche did not run")
            continue
        parts, met = [], True
        for a in ANCHORS:
            row = results.get((scene, a))
            if not ran(row):
                parts.append(f"{TITLES[a]} n/a")
                continue
            ratio = number(touche, "steps_per_s") / number(row, "steps_per_s")
            met &= ratio > 1
            parts.append(f"{TITLES[a]} {ratio:.2f}×")
        lines.append(f"- {scene}, steps per second touche / anchor: " + ", ".join(parts) +
                     (": **met**" if met else ": **not met**"))
    scene, limit = P99_TARGET
    touche = results.get((scene, "touche"))
    anchors = [(number(results[(scene, a)], "p99_us"), a) for a in ANCHORS
               if ran(results.get((scene, a)))]
    if ran(touche) and anchors:
        best, who = min(anchors)
        ratio = number(touche, "p99_us") / best
        lines.append(f"- {scene}, p99 step time: touche {fmt(number(touche, 'p99_us'))} µs, best "
                     f"anchor {TITLES[who]} {fmt(best)} µs, ratio {ratio:.3f} (target < {limit}): "
                     + ("**met**" if ratio < limit else "**not met**"))
    return lines


def settings_lines(results, scenes):
    """Each engine's settings: a program may end them with " | " and a part that depends on the
    scene (MuJoCo's buffer sizes), listed per scene."""
    lines = []
    for e in ENGINES:
        common, per_scene = {}, {}
        for scene in scenes:
            row = results.get((scene, e))
            if ran(row):
                shared, _, specific = row["settings"].partition(" | ")
                common.setdefault(shared, []).append(scene)
                if specific:
                    per_scene.setdefault(specific, []).append(scene)
        for shared, where in common.items():
            suffix = f" ({', '.join(where)})" if len(common) > 1 else ""
            lines.append(f"- {TITLES[e]}{suffix}: {shared}")
        if per_scene:
            lines.append("  - " + "; ".join(f"{', '.join(where)}: {specific}"
                                            for specific, where in per_scene.items()))
    return lines


def machine_lines(path):
    info = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            info[key] = value
    names = [("date", "date"), ("commit", "commit"), ("cpu", "CPU"),
             ("load", "load average at start"), ("load_end", "load average at end"),
             ("scheduling", "bench programs run under"),
             ("compiler", "compilers"), ("flags", "flags"), ("anchors", "anchor packages")]
    return [f"- {title}: {info[key]}" for key, title in names if key in info]


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    results, rounds = load(argv[1])
    present = {engine for _, engine in results}
    ENGINES[:] = [e for e in ALL_ENGINES if e in present or not e.startswith("touche-")]
    folder = os.path.dirname(argv[2])
    scenes = sorted({scene for scene, _ in results}, key=scene_order)
    out = ["### Machine and build", ""] + machine_lines(argv[2])
    out += spread_lines(rounds)
    out += ["", "### Steps per second (higher is better) and ratios touche / anchor", ""]
    out += speed_table(results, scenes)
    out += ["", "### Step time p50 / p99 / max, µs", ""] + percentile_table(results, scenes)
    out += ["", "### Outcomes", ""] + outcome_table(results, scenes, folder)
    out += model_ratio_table(results, scenes)
    out += ["", "### Targets of issue 2", ""] + target_lines(results)
    out += ["", "### Engine settings", ""] + settings_lines(results, scenes)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

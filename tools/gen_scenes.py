#!/usr/bin/python3
"""Writes the generated example and benchmark scenes (MJCF) and the example torus (OBJ).

    tools/gen_scenes.py stack N [--contact MODEL] > stackN.xml
    tools/gen_scenes.py pile N [--dt S] [--contact MODEL] > pileN.xml
    tools/gen_scenes.py torus R r [--segments U V] > torus.obj

stack: N blocks of 1 x 1 x 2 m and 1 kg standing on each other, dt 5 ms (Hasegawa-Sato,
experiment 1), placed exactly touching (zero gap). pile: N boxes of 0.2 m and 1 kg on a
jittered grid above the floor, each turned a little about a random axis, so they fall onto each
other; the jitter comes from a fixed seed so the file is the same every time. Both set no
touche attribute (every contact parameter at its default) unless --contact names a model.

torus: a closed triangulated torus of major radius R and tube radius r about the x axis, U
segments around the axis and V around the tube (default 24 x 10), faces counter-clockwise seen
from outside: the non-convex surface that `touche mesh` turns into a tet mesh with its field.
The axis is x because the compiler places a mesh geom's frame at the mesh's principal axes,
largest moment first (MuJoCo's rule, src/io/compile.c), while a touche:tetmesh file is read in
the geom's frame: with the axis along x and U a multiple of 4 the two frames agree up to a
symmetry of the torus.
"""
import math
import random
import sys

HEADER = """<mujoco model="{name}"{namespace}>
  <option timestep="{dt}" gravity="0 0 -9.81" integrator="Euler"{contact}/>
  <default>
    <geom friction="{mu} 0.005 0.0001"/>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
"""
FOOTER = """  </worldbody>
</mujoco>
"""


def header(name, dt, contact, mu):
    if contact is None:
        return HEADER.format(name=name, namespace="", dt=dt, contact="", mu=mu)
    return HEADER.format(name=name, namespace=' xmlns:touche="urn:touche"', dt=dt,
                         contact=f' touche:contact="{contact}"', mu=mu)


def stack(n, contact):
    out = [header(f"stack{n}", 0.005, contact, 0.6)]
    for i in range(n):
        out.append(f'    <body name="block{i + 1}" pos="0 0 {1.0 + 2.0 * i:.6g}">\n'
                   f'      <freejoint/>\n'
                   f'      <geom type="box" size="0.5 0.5 1" mass="1"/>\n'
                   f'    </body>\n')
    out.append(FOOTER)
    return "".join(out)


def pile(n, contact, dt):
    rng = random.Random(20261122)
    side = max(1, math.ceil(math.sqrt(n / 4)))
    spacing = 0.3
    out = [header(f"pile{n}", dt, contact, 0.5)]
    for i in range(n):
        layer, rest = divmod(i, side * side)
        row, col = divmod(rest, side)
        x = (col - (side - 1) / 2) * spacing + rng.uniform(-0.03, 0.03)
        y = (row - (side - 1) / 2) * spacing + rng.uniform(-0.03, 0.03)
        z = 0.15 + 0.3 * layer
        axis = [rng.uniform(-1, 1) for _ in range(3)]
        norm = math.sqrt(sum(a * a for a in axis)) or 1.0
        angle = rng.uniform(-0.4, 0.4)
        s = math.sin(angle / 2)
        q = [math.cos(angle / 2)] + [a / norm * s for a in axis]
        out.append(f'    <body name="box{i + 1}" pos="{x:.6g} {y:.6g} {z:.6g}" '
                   f'quat="{q[0]:.9g} {q[1]:.9g} {q[2]:.9g} {q[3]:.9g}">\n'
                   f'      <freejoint/>\n'
                   f'      <geom type="box" size="0.1 0.1 0.1" mass="1"/>\n'
                   f'    </body>\n')
    out.append(FOOTER)
    return "".join(out)


def torus(major, minor, segments_u, segments_v):
    """Vertex (i, j) sits at angle 2 pi i / U about x and 2 pi j / V about the tube; the quad
    (i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1) turns counter-clockwise seen from outside
    (d/du x d/dv points away from the tube's centre line), split into two triangles."""
    out = [f"# torus R = {major:g} m, r = {minor:g} m, {segments_u} x {segments_v} segments "
           f"(tools/gen_scenes.py torus)\n"]
    for i in range(segments_u):
        u = 2 * math.pi * i / segments_u
        for j in range(segments_v):
            v = 2 * math.pi * j / segments_v
            ring = major + minor * math.cos(v)
            out.append(f"v {minor * math.sin(v):.9g} {ring * math.cos(u):.9g} "
                       f"{ring * math.sin(u):.9g}\n")

    def index(i, j):
        return (i % segments_u) * segments_v + (j % segments_v) + 1

    for i in range(segments_u):
        for j in range(segments_v):
            a, b = index(i, j), index(i + 1, j)
            c, d = index(i + 1, j + 1), index(i, j + 1)
            out.append(f"f {a} {b} {c}\nf {a} {c} {d}\n")
    return "".join(out)


def parse_options(args, allowed):
    """--flag value pairs into a dict; None after printing what is wrong."""
    options = {}
    while args:
        flag = args[0]
        count = 2 if flag == "--segments" else 1
        if flag not in allowed or len(args) <= count:
            sys.stderr.write(f"unknown option or missing value: {flag}\n")
            return None
        options[flag] = args[1:1 + count]
        args = args[1 + count:]
    return options


def main(argv):
    kinds = {"stack": ("--contact",), "pile": ("--contact", "--dt"), "torus": ("--segments",)}
    if len(argv) < 3 or argv[1] not in kinds:
        sys.stderr.write(__doc__)
        return 2
    positional = 3 if argv[1] == "torus" else 2
    options = parse_options(argv[1 + positional:], kinds[argv[1]])
    if options is None:
        return 2
    contact = options.get("--contact", [None])[0]
    if argv[1] == "stack":
        sys.stdout.write(stack(int(argv[2]), contact))
    elif argv[1] == "pile":
        sys.stdout.write(pile(int(argv[2]), contact, float(options.get("--dt", ["0.002"])[0])))
    else:
        u, v = options.get("--segments", ["24", "10"])
        sys.stdout.write(torus(float(argv[2]), float(argv[3]), int(u), int(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

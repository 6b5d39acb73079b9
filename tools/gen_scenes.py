#!/usr/bin/python3
"""Writes the generated example and benchmark scenes (MJCF with touche attributes).

    tools/gen_scenes.py stack N [--contact MODEL] > stackN.xml
    tools/gen_scenes.py pile N [--dt S] > pileN.xml

stack: N blocks of 1 x 1 x 2 m and 1 kg standing on each other, dt 5 ms (Hasegawa-Sato,
experiment 1), placed where the point model's springs hold them at rest. pile: N boxes of 0.2 m and 1 kg on a jittered grid above the floor, each turned a
little about a random axis, so they fall onto each other; the jitter comes from a fixed seed so
the file is the same every time.
"""
import math
import random
import sys

HEADER = """<mujoco model="{name}" xmlns:touche="urn:touche">
  <option timestep="{dt}" gravity="0 0 -9.81" integrator="Euler" touche:contact="{contact}"/>
  <default>
    <geom friction="{mu} 0.005 0.0001" touche:stiffness="{k}" touche:damping="{b}"/>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
"""
FOOTER = """  </worldbody>
</mujoco>
"""


def stack(n, contact):
    k, g = 5000.0, 9.81
    out = [HEADER.format(name=f"stack{n}", dt=0.005, contact=contact, mu=0.6, k=k, b=20)]
    z = 1.0
    for i in range(n):
        # Start at the point model's equilibrium: the face under block i carries the n - i
        # blocks above it on four corner springs of k / 2 each (both geoms set k, and a pair
        # combines them in series), so it sinks by (n - i) m g / (4 k / 2).
        z -= (n - i) * 1.0 * g / (4 * k / 2)
        out.append(f'    <body name="block{i + 1}" pos="0 0 {z:.6g}">\n'
                   f'      <freejoint/>\n'
                   f'      <geom type="box" size="0.5 0.5 1" mass="1"/>\n'
                   f'    </body>\n')
        z += 2.0
    out.append(FOOTER)
    return "".join(out)


def pile(n, contact, dt):
    rng = random.Random(20261122)
    side = max(1, math.ceil(math.sqrt(n / 4)))
    spacing = 0.3
    out = [HEADER.format(name=f"pile{n}", dt=dt, contact=contact, mu=0.5, k=20000, b=30)]
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


def main(argv):
    if len(argv) < 3 or argv[1] not in ("stack", "pile"):
        sys.stderr.write(__doc__)
        return 2
    n = int(argv[2])
    contact = "point"
    dt = 0.002
    args = argv[3:]
    while args:
        flag, value, args = args[0], args[1], args[2:]
        if flag == "--contact":
            contact = value
        elif flag == "--dt":
            dt = float(value)
        else:
            sys.stderr.write(f"unknown option {flag}\n")
            return 2
    sys.stdout.write(stack(n, contact) if argv[1] == "stack" else pile(n, contact, dt))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

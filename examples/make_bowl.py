#!/usr/bin/env python3
"""Writes bowl.obj: a hemispherical bowl, a closed non-convex triangle surface for
pressure_bowl.xml. The solid between two hemispheres (outer radius R, inner r) about the
origin, below z = 0, where a flat annular rim joins them; revolved in `segments` steps, with
`rings` steps of latitude per hemisphere. Counter-clockwise seen from outside.

    python3 make_bowl.py [R r rings segments] > bowl.obj
"""
import math
import sys


def bowl(outer, inner, rings, segments):
    # profile from the outer pole up to the rim, then down the inside to the inner pole
    profile = [(0.0, -outer)]
    profile += [(outer * math.sin(a), -outer * math.cos(a))
                for a in (math.pi / 2 * k / rings for k in range(1, rings + 1))]
    profile += [(inner * math.sin(a), -inner * math.cos(a))
                for a in (math.pi / 2 * k / rings for k in range(rings, 0, -1))]
    profile += [(0.0, -inner)]
    vertices, index = [], {}
    for i, (rho, z) in enumerate(profile):
        for j in range(1 if rho == 0 else segments):
            phi = 2 * math.pi * j / segments
            index[i, j] = len(vertices) + 1
            vertices.append((rho * math.cos(phi), rho * math.sin(phi), z))
    def at(i, j):
        return index[i, 0 if profile[i][0] == 0 else j % segments]
    triangles = []
    for i in range(len(profile) - 1):
        for j in range(segments):
            a, b, c, d = at(i, j), at(i, j + 1), at(i + 1, j + 1), at(i + 1, j)
            for t in ((a, b, c), (a, c, d)):
                if len(set(t)) == 3:
                    triangles.append(t)
    # wind outward: the enclosed volume (divergence theorem) must be positive
    def volume(t):
        (ax, ay, az), (bx, by, bz), (cx, cy, cz) = (vertices[k - 1] for k in t)
        return ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
    if sum(volume(t) for t in triangles) < 0:
        triangles = [(a, c, b) for a, b, c in triangles]
    return vertices, triangles


def main():
    outer, inner, rings, segments = 0.11, 0.1, 6, 24
    if len(sys.argv) == 5:
        outer, inner = float(sys.argv[1]), float(sys.argv[2])
        rings, segments = int(sys.argv[3]), int(sys.argv[4])
    vertices, triangles = bowl(outer, inner, rings, segments)
    print(f"# bowl R = {outer} m, r = {inner} m, {rings} rings x {segments} segments "
          "(examples/make_bowl.py)")
    for v in vertices:
        print("v %.10g %.10g %.10g" % v)
    for t in triangles:
        print("f %d %d %d" % t)


if __name__ == "__main__":
    main()

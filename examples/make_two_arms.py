#!/usr/bin/env python3
"""Writes two_arms.xml: Ruspini and Khatib's two PUMA 560 arms under a rain of 60 blocks
(seeds/003 sec. 7), in the reproducible form of shared/reference/puma560.md: arms on pedestals
at x = -0.6 and +0.6 m facing each other, shoulders at z = 0.6604 m, held at
qn = (0, pi/4, -pi, 0, pi/4, 0) by joint servos (kp 2000, 2000, 1000, 100, 100, 50, written as
joint springs about qn so that both engines start the arms at rest there without a keyframe),
armature, damping and Coulomb friction from the drive table; 60 free 0.2 m cubes of 2 kg on a
5 x 4 x 3 lattice 1.6 to 3.4 m up, jittered in position and orientation (fixed seed). Arm links
collide with blocks, not with each other, the pedestals or the floor (contype/conaffinity).

The arm is examples/puma560.xml's (standard DH set, MJCF placement) with collision capsules on
links 1 to 3 and a sphere on the wrist; link 1 gets 1e-9 kg because MuJoCo 2.2.2 refuses a
massless moving body (the dynamics are the same to rounding). Plain MJCF, no touche attributes:
touche runs it with --contact lcp or volume, MuJoCo as it is.

    python3 make_two_arms.py > two_arms.xml
"""
import math
import random

QN = (0, math.pi / 4, -math.pi, 0, math.pi / 4, 0)
KP = (2000, 2000, 1000, 100, 100, 50)
SHOULDER_Z = 0.6604
ARM_X = 0.6

# (name, pos, quat, inertial, joint axis, joint anchor, drive "armature damping frictionloss",
#  range (deg), collision geom or None): examples/puma560.xml's links
LINKS = [
    ("link1", None, None, '<inertial pos="0 0 0" mass="1e-9" diaginertia="0.175 0.35 0.175"/>',
     (0, 1, 0), (0, 0, 0), (0.784, 5.8, 25.95), (-160, 160),
     '<geom name="{p}shoulder" type="capsule" fromto="0 -0.05 0 0 0.2 0" size="0.09"'),
    ("link2", (0.4318, 0, 0), (1, 0, 0, 0),
     '<inertial pos="-0.3638 0.006 0.2275" mass="17.4" diaginertia="0.13 0.524 0.539"/>',
     (0, 0, 1), (-0.4318, 0, 0), (2.325, 9.5, 10.63), (-45, 225),
     '<geom name="{p}upperarm" type="capsule" fromto="-0.4318 0 0.2 0.0203 0 0.2" size="0.07"'),
    ("link3", (0.0203, 0, 0.15005), (0.707106781187, -0.707106781187, 0, 0),
     '<inertial pos="-0.0203 -0.0141 0.07" mass="4.8" diaginertia="0.06975 0.086 0.01625"/>',
     (0, -1, 0), (-0.0203, 0.15005, 0), (0.577, 3.98, 6.365), (-225, 45),
     '<geom name="{p}forearm" type="capsule" fromto="0 0 0.05 0 0 0.38" size="0.05"'),
    ("link4", (0, 0, 0.4318), (0.707106781187, 0.707106781187, 0, 0),
     '<inertial pos="0 0.019 0" mass="0.82" diaginertia="0.0018 0.0013 0.0018"/>',
     (0, 1, 0), (0, -0.4318, 0), (0.191, 0.412, 1.0685), (-110, 170), None),
    ("link5", (0, 0, 0), (0.707106781187, -0.707106781187, 0, 0),
     '<inertial pos="0 0 0" mass="0.34" diaginertia="0.0003 0.0004 0.0003"/>',
     (0, -1, 0), (0, 0, 0), (0.171, 0.427, 0.8545), (-100, 100), None),
    ("link6", (0, 0, 0), (1, 0, 0, 0),
     '<inertial pos="0 0 0.032" mass="0.09" diaginertia="0.00015 0.00015 4e-05"/>',
     (0, 0, 1), (0, 0, 0), (0.194, 0.216, 0.5545), (-266, 266),
     '<geom name="{p}hand" type="sphere" size="0.05" pos="0 0 0.05"'),
]


def quat_mul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def axis_angle(axis, angle):
    s = math.sin(angle / 2)
    return (math.cos(angle / 2), axis[0] * s, axis[1] * s, axis[2] * s)


def fmt(values):
    return " ".join("%.12g" % v for v in values)


def rotate(q, v):
    w, x, y, z = q
    r = quat_mul(quat_mul(q, (0, v[0], v[1], v[2])), (w, -x, -y, -z))
    return r[1:]


def arm(prefix, x, yaw):
    """The arm's bodies placed as they sit at qn (each body turned about its joint by qn_i),
    with ref = springref = qn: qpos0 is qn, and the joint springs (stiffness = the servo's kp)
    hold it there from rest."""
    hz = (SHOULDER_Z - 0.1) / 2
    out = ['    <body name="%spedestal" pos="%g 0 0">\n'
           '      <geom name="%spedestal" type="cylinder" size="0.12 %.6g" pos="0 0 %.6g" '
           'contype="1" conaffinity="1"/>\n    </body>\n' % (prefix, x, prefix, hz, hz)]
    indent = "    "
    for i, (name, pos, quat, inertial, axis, anchor, drive, limits, geom) in enumerate(LINKS):
        if pos is None:
            pos = (x, 0, SHOULDER_Z)
            quat = quat_mul(axis_angle((0, 0, 1), yaw), axis_angle((1, 0, 0), math.pi / 2))
        turn = axis_angle(axis, QN[i])
        shift = [a - b for a, b in zip(anchor, rotate(turn, anchor))]
        pos = [p + s for p, s in zip(pos, rotate(quat, shift))]
        quat = quat_mul(quat, turn)
        ref = math.degrees(QN[i])
        out.append('%s<body name="%s%s" pos="%s" quat="%s">\n' % (indent, prefix, name, fmt(pos),
                                                                  fmt(quat)))
        indent += "  "
        out.append("%s%s\n" % (indent, inertial))
        out.append('%s<joint name="%sjoint%d" axis="%s" pos="%s" armature="%g" damping="%g" '
                   'frictionloss="%g" range="%g %g" ref="%g" springref="%g" stiffness="%g"/>\n'
                   % (indent, prefix, i + 1, fmt(axis), fmt(anchor), drive[0], drive[1],
                      drive[2], limits[0], limits[1], ref, ref, KP[i]))
        if geom:
            out.append('%s%s contype="0" conaffinity="2" mass="0"/>\n' % (indent,
                                                                          geom.format(p=prefix)))
    for i in range(len(LINKS)):
        indent = indent[:-2]
        out.append("%s</body>\n" % indent)
    return "".join(out)


def blocks(rng):
    out = []
    n = 0
    for k, z in enumerate((1.6, 2.5, 3.4)):
        for i in range(5):
            for j in range(4):
                p = (-0.8 + 0.4 * i + rng.uniform(-0.05, 0.05),
                     -0.6 + 0.4 * j + rng.uniform(-0.05, 0.05), z + rng.uniform(-0.05, 0.05))
                axis = [rng.gauss(0, 1) for _ in range(3)]
                norm = math.sqrt(sum(a * a for a in axis))
                q = axis_angle([a / norm for a in axis], rng.uniform(0, 0.3))
                out.append('    <body name="block%d" pos="%s" quat="%s">\n'
                           '      <freejoint/>\n'
                           '      <geom type="box" size="0.1 0.1 0.1" mass="2" contype="3" '
                           'conaffinity="1"/>\n'
                           '    </body>\n' % (n, fmt(p), fmt(q)))
                n += 1
    return "".join(out)


def main():
    rng = random.Random(560)
    print("""<!-- Two PUMA 560 arms under a rain of 60 blocks (Ruspini and Khatib, seeds/003 sec. 7),
     written by make_two_arms.py (see there). Plain MJCF: touche runs it with the contact
     model lcp or volume chosen on the command line, MuJoCo 2.2.2 as it is. The arms start at
     rest in qn (ref = springref = qn); the servos are joint springs of the reference's gains.
     Regenerate with: python3 make_two_arms.py > two_arms.xml -->
<mujoco model="two_arms">
  <compiler angle="degree" autolimits="true"/>
  <option gravity="0 0 -9.81" timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" contype="1" conaffinity="1"/>
%s%s%s  </worldbody>
</mujoco>""" % (arm("left_", -ARM_X, 0), arm("right_", ARM_X, math.pi), blocks(rng)))


if __name__ == "__main__":
    main()

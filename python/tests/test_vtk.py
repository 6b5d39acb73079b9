"""touche run --vtk DIR: the VTK XML files (bodies, tet meshes with their pressure fields, contact
patches) and the run.pvd time series, parsed and checked against the run's own trajectory."""
import csv
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = Path(os.environ.get("TOUCHE_CLI", ROOT / "build" / "release" / "cli" / "touche"))
# The CLI without the sanitizer runtime the interpreter may have preloaded (its own is linked in).
CLI_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
pytestmark = pytest.mark.skipif(not CLI.exists(), reason=f"no CLI at {CLI}")

SHAPES = """<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 3 1"/>
    <body name="box" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.2 0.3"/></body>
    <body name="sphere" pos="1 0 1"><freejoint/><geom type="sphere" size="0.25"/></body>
    <body name="capsule" pos="2 0 1"><freejoint/><geom type="capsule" size="0.1 0.2"/></body>
    <body name="cylinder" pos="3 0 1"><freejoint/><geom type="cylinder" size="0.15 0.1"/></body>
    <body name="ellipsoid" pos="4 0 1"><freejoint/><geom type="ellipsoid" size="0.1 0.2 0.3"/></body>
  </worldbody>
</mujoco>"""


def run_vtk(tmp_path, scene, *args):
    out = tmp_path / "vtk"
    subprocess.run([str(CLI), "run", str(scene), "--out", str(tmp_path / "out"), "--vtk", str(out),
                    *args], check=True, capture_output=True, env=CLI_ENV)
    rows = {}
    with open(tmp_path / "out" / "trajectory.csv") as f:
        for row in csv.DictReader(f):
            rows.setdefault(float(row["time"]), {})[row["body"]] = row
    return out, rows


def numbers(element, name, dtype=float):
    array = element.find(f".//DataArray[@Name='{name}']")
    return np.array(array.text.split(), dtype=dtype)


def polydata(path):
    """Points, polygons (lists of point indices) and cell or point arrays of a .vtp."""
    piece = ET.parse(path).getroot().find("PolyData/Piece")
    points = numbers(piece, "points").reshape(-1, 3)
    connectivity, offsets = numbers(piece, "connectivity", int), numbers(piece, "offsets", int)
    assert len(points) == int(piece.get("NumberOfPoints"))
    assert len(offsets) == int(piece.get("NumberOfPolys"))
    assert (offsets[-1] if len(offsets) else 0) == len(connectivity)
    assert len(connectivity) == 0 or connectivity.max() < len(points)
    polygons = np.split(connectivity, offsets[:-1]) if len(offsets) else []
    return points, polygons, piece


def series(out):
    """{part: [(time, file)]} of run.pvd."""
    parts = {}
    for dataset in ET.parse(out / "run.pvd").getroot().iter("DataSet"):
        parts.setdefault(int(dataset.get("part")), []).append(
            (float(dataset.get("timestep")), dataset.get("file")))
    return parts


def test_bodies_are_their_shapes_at_their_poses(tmp_path):
    scene = tmp_path / "shapes.xml"
    scene.write_text(SHAPES)
    out, rows = run_vtk(tmp_path, scene, "--duration", "0.1", "--every", "25")
    parts = series(out)
    assert [t for t, _ in parts[0]] == sorted(t for t, _ in parts[0]) and len(parts[0]) == 2
    assert 1 not in parts  # no compliant geom: no tet meshes
    for t, name in parts[0]:
        points, polygons, piece = polydata(out / name)
        geom = numbers(piece, "geom", int)
        owner = np.zeros(len(points), dtype=int)
        for polygon, g in zip(polygons, geom):
            owner[polygon] = g
        centre = {g: np.array([float(rows[t][b][k]) for k in "xyz"])
                  for g, b in enumerate(["", "box", "sphere", "capsule", "cylinder", "ellipsoid"])
                  if b}
        floor = points[owner == 0]
        assert np.allclose(np.abs(floor).max(axis=0), [2, 3, 0])
        box = points[owner == 1] - centre[1]  # no rotation in the first 0.1 s of free fall
        assert np.allclose(np.abs(box).max(axis=0), [0.1, 0.2, 0.3], atol=1e-6)
        sphere = np.linalg.norm(points[owner == 2] - centre[2], axis=1)
        assert np.allclose(sphere, 0.25, atol=1e-6)
        capsule = points[owner == 3] - centre[3]
        assert np.abs(capsule[:, 2]).max() == pytest.approx(0.3, abs=1e-6)
        assert np.linalg.norm(capsule[:, :2], axis=1).max() == pytest.approx(0.1, abs=1e-6)
        cylinder = points[owner == 4] - centre[4]
        assert np.allclose(np.abs(cylinder).max(axis=0), [0.15, 0.15, 0.1], atol=1e-6)
        ellipsoid = (points[owner == 5] - centre[5]) / [0.1, 0.2, 0.3]
        assert np.allclose(np.linalg.norm(ellipsoid, axis=1), 1, atol=1e-6)


def test_pressure_run_writes_tet_fields_and_patches(tmp_path):
    # the ball touches the floor from 0.2 s to about 0.24 s
    out, rows = run_vtk(tmp_path, ROOT / "examples" / "pressure_ball.xml", "--duration", "0.25",
                        "--every", "20")
    parts = series(out)
    assert len(parts[0]) == len(parts[1]) == len(parts[2]) == 25
    for t, name in parts[1]:
        piece = ET.parse(out / name).getroot().find("UnstructuredGrid/Piece")
        points = numbers(piece, "points").reshape(-1, 3)
        epsilon, pressure = numbers(piece, "epsilon"), numbers(piece, "pressure")
        assert len(points) == int(piece.get("NumberOfPoints")) == len(epsilon)
        assert np.allclose(pressure, 1e5 * epsilon)  # touche:modulus="1e5"
        assert set(numbers(piece, "types", int)) == {10}
        assert numbers(piece, "connectivity", int).max() < len(points)
        ball = np.array([float(rows[t]["ball"][k]) for k in "xyz"])
        # the ball's mesh, moved with the ball (its vertices within 1 % of the radius)
        assert np.linalg.norm(points - ball, axis=1).max() == pytest.approx(0.1, rel=0.01)
    in_contact = [polydata(out / name) for t, name in parts[2] if 0.205 < t < 0.235]
    assert in_contact and all(len(polygons) > 0 for _, polygons, _ in in_contact)
    points, polygons, piece = in_contact[-1]
    assert numbers(piece, "pressure").max() > 0
    assert abs(points[:, 2]).max() < 0.01  # the patch lies on the floor


def test_paraview_reads_the_series(tmp_path):
    pvpython = shutil.which("pvpython")
    if not pvpython:
        pytest.skip("pvpython (Debian's paraview) is not installed; the files are checked by "
                    "parsing above")
    out, _ = run_vtk(tmp_path, ROOT / "examples" / "pressure_ball.xml", "--duration", "0.3",
                     "--every", "100")
    script = ("from paraview.simple import OpenDataFile, UpdatePipeline\n"
              f"r = OpenDataFile({str(out / 'run.pvd')!r})\n"
              "UpdatePipeline(time=0.25, proxy=r)\n"
              "print(r.GetDataInformation().GetNumberOfPoints())\n")
    result = subprocess.run([pvpython, "-c", script], check=True, capture_output=True, text=True)
    assert int(result.stdout.split()[-1]) > 0

"""Tests of the touche Python module: every binding, the views' lifetime, the GIL, and a step
from Python against the same step from C (the CLI's trajectory)."""
import csv
import gc
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import touche

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CLI = Path(os.environ.get("TOUCHE_CLI", ROOT / "build" / "release" / "cli" / "touche"))
# The CLI without the sanitizer runtime the interpreter may have preloaded (its own is linked in).
CLI_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}

BOX_ON_FLOOR = """<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body name="box" pos="0 0 0.1"><freejoint/><geom name="box" type="box" size="0.1 0.1 0.1" mass="1"/></body>
  </worldbody>
  <keyframe><key name="up" qpos="0 0 1 1 0 0 0" qvel="1 0 0 0 0 0"/></keyframe>
</mujoco>"""


@pytest.fixture
def stack():
    return touche.load(EXAMPLES / "stack13.xml")


# ---- loading, specs, errors ----


def test_load_file_gives_the_scene(stack):
    assert stack.body_count == 14 and stack.free_count == 13
    assert stack.nq == 7 * 13 and stack.nv == 6 * 13
    assert stack.body_names[0] == "world" and stack.body_names[1] == "block1"
    assert stack.timestep > 0 and len(stack.gravity) == 3
    assert isinstance(stack.integrator, str)
    assert touche.__version__.count(".") == 2


def test_load_string_with_overrides():
    m = touche.load_string(BOX_ON_FLOOR, name="box.xml", contact="lcp", timestep=0.004)
    assert m.timestep == 0.004
    assert m.pair_params(0, 1)["model"] == "lcp"
    assert m.key_names == ["up"] and m.key_index("up") == 0


def test_error_carries_the_library_message_file_and_line():
    bad = BOX_ON_FLOOR.replace('size="0.1 0.1 0.1"', 'size="0.1"')
    with pytest.raises(touche.Error) as caught:
        touche.load_string(bad, name="bad.xml")
    e = caught.value
    assert e.file == "bad.xml" and e.line == 4 and e.element == "geom"
    assert e.status == "parse error" and e.code > 0
    assert e.message in str(e) and str(e).startswith("bad.xml:4: ")
    with pytest.raises(touche.Error) as missing:
        touche.load(ROOT / "no_such_scene.xml")
    assert "no_such_scene.xml" in str(missing.value)
    assert issubclass(touche.DivergedError, touche.Error)


def test_diverged_step_raises_diverged_error():
    m = touche.load_string(BOX_ON_FLOOR)
    d = touche.Data(m)
    d.qvel[0] = np.inf
    with pytest.raises(touche.DivergedError) as caught:
        d.step()
    assert caught.value.status == "diverged"


def test_spec_edit_compile_save(tmp_path):
    spec = touche.Spec.from_string(BOX_ON_FLOOR.replace("<worldbody>", "<visual/><worldbody>"),
                                   name="w.xml")
    assert spec.body_count == 1 and spec.geom_count == 2
    assert any("visual" in w for w in spec.warnings)
    spec.timestep = -1.0
    with pytest.raises(touche.Error, match="timestep"):
        spec.compile()
    spec.timestep = 0.001
    assert spec.timestep == 0.001
    spec.force_contact_model("volume")
    with pytest.raises(ValueError):
        spec.force_contact_model("glue")
    m = spec.compile()
    assert m.timestep == 0.001 and m.pair_params(0, 1)["model"] == "volume"
    spec.force_contact_model(None)
    assert spec.compile().pair_params(0, 1)["model"] == "point"
    spec.save(tmp_path / "saved.xml")
    again = touche.Spec.load(tmp_path / "saved.xml").compile()
    assert again.timestep == 0.001 and again.body_names == m.body_names


def test_model_arrays_are_read_only_and_indices_raise(stack):
    assert stack.body_mass.shape == (14,) and stack.body_mass[1] > 0
    assert list(stack.body_free[:2]) == [0, 1]
    assert stack.body_qpos_adr[1] == 0 and stack.body_qvel_adr[2] == 6
    assert stack.geom_size.shape == (stack.geom_count, 3)
    assert stack.geom_type[0] == 0 and stack.geom_body[1] == 1  # a plane, then block1's box
    assert np.array_equal(stack.qpos0[:3], [0, 0, 1.0])
    assert stack.key_qpos.shape == (0, stack.nq) and stack.key_time.shape == (0,)
    with pytest.raises(ValueError):
        stack.qpos0[0] = 1.0
    assert stack.body_index("block2") == 2
    with pytest.raises(KeyError):
        stack.body_index("nobody")
    box = touche.load_string(BOX_ON_FLOOR)
    assert box.geom_index("box") == 1 and box.geom_names == ["floor", "box"]
    params = stack.pair_params(0, 1)
    assert params["model"] == "point" and params["friction"] > 0 and "modulus" in params
    with pytest.raises(IndexError):
        stack.pair_params(0, 99)


# ---- data, views, lifetime ----


def test_views_are_zero_copy_and_writable_where_the_state_is(stack):
    d = touche.Data(stack)
    qpos, body_pos = d.qpos, d.body_pos
    assert qpos.shape == (stack.nq,) and body_pos.shape == (14, 3)
    assert body_pos.strides == (56, 8) and d.body_quat.shape == (14, 4)
    z = qpos[2]
    d.step(10)
    assert qpos[2] != z  # the same memory, moved by the steps
    assert d.time == pytest.approx(10 * stack.timestep)
    assert np.array_equal(body_pos[1], qpos[0:3]) and np.array_equal(d.body_quat[1], qpos[3:7])
    qpos[0] = 5.0
    d.forward()
    assert body_pos[1, 0] == 5.0 and d.geom_pos[1, 0] == 5.0
    with pytest.raises(ValueError):
        body_pos[1, 0] = 0.0
    for name in ("qvel", "qacc", "body_com", "body_vel", "body_angvel", "body_force",
                 "body_torque", "geom_quat", "applied_force", "applied_torque"):
        assert getattr(d, name).size > 0, name


def test_views_keep_the_data_alive_and_close_refuses_while_they_live(stack):
    d = touche.Data(stack)
    view = d.qpos[7:14]  # a slice of a view holds the guard too
    with pytest.raises(BufferError):
        d.close()
    del d
    gc.collect()
    assert view[2] > 0  # the data lives on through the view
    d = touche.Data(stack)
    v = d.body_pos
    del v
    d.close()
    d.close()  # twice is fine
    assert d.closed
    for access in (lambda: d.qpos, lambda: d.step(), lambda: d.time, lambda: d.contacts(),
                   lambda: d.reset(), lambda: d.summary(), lambda: d.energy()):
        with pytest.raises(ValueError, match="closed"):
            access()
    with touche.Data(stack) as e:
        e.step()
    assert e.closed


def test_reset_and_keyframes():
    m = touche.load_string(BOX_ON_FLOOR)
    d = m.make_data()
    d.step(5)
    d.reset()
    assert d.time == 0 and np.array_equal(d.qpos, m.qpos0) and not d.qvel.any()
    d.reset_key("up")
    assert d.qpos[2] == 1.0 and d.qvel[0] == 1.0
    d.reset()
    d.reset_key(0)
    assert d.qpos[2] == 1.0
    with pytest.raises(KeyError):
        d.reset_key("down")
    with pytest.raises(IndexError):
        d.reset_key(3)


def test_body_state_applied_force_energy_and_momentum():
    m = touche.load_string(BOX_ON_FLOOR)
    d = touche.Data(m)
    d.set_body_state("box", [0, 0, 2], [1, 0, 0, 0], vel=[1, 0, 0], angvel=[0, 0, 3])
    pos, quat, vel, angvel = d.body_state(1)
    assert np.allclose(pos, [0, 0, 2]) and np.allclose(vel, [1, 0, 0])
    assert np.allclose(angvel, [0, 0, 3]) and np.allclose(quat, [1, 0, 0, 0])
    p, L = d.momentum()
    assert np.allclose(p, [1, 0, 0])
    e0 = d.energy()
    d.applied_force[1] = [0, 0, 9.81 * m.body_mass[1]]  # cancels gravity: free flight
    d.step(100)
    pos, _, vel, _ = d.body_state("box")
    assert pos[2] == pytest.approx(2.0, abs=1e-9) and vel[0] == pytest.approx(1.0)
    assert d.energy() == pytest.approx(e0, rel=1e-9)
    with pytest.raises(touche.Error):
        d.set_body_state(0, [0, 0, 0], [1, 0, 0, 0])  # the world is not free
    with pytest.raises(ValueError):
        d.set_body_state(1, [0, 0], [1, 0, 0, 0])


def test_settings_properties(stack):
    d = touche.Data(stack)
    d.contact_energy = True
    d.thread_count = 2
    d.time = 1.5
    assert d.contact_energy and d.thread_count == 2 and d.time == 1.5
    assert d.model is stack
    with pytest.raises(ValueError):
        d.thread_count = -1
    with pytest.raises(AttributeError):
        del d.time
    with pytest.raises(TypeError):
        d.time = "later"


# ---- contacts, patches, diagnostics ----


def test_contacts_and_pairs_are_structured_copies(stack):
    d = touche.Data(stack)
    d.step(20)
    contacts, pairs = d.contacts(), d.pairs()
    assert contacts.dtype == touche.contact_dtype and len(contacts) == d.summary()["contact_count"]
    assert np.allclose(np.linalg.norm(contacts["n"], axis=1), 1.0)
    assert touche.CONTACT_MODELS[contacts["model"][0]] == "point"
    for pair in pairs:  # a pair's net force is the sum of its points'
        points = contacts[pair["contact_start"]:pair["contact_start"] + pair["contact_count"]]
        assert np.allclose(points["f"].sum(axis=0), pair["f"])
    floor = pairs[(pairs["geom_a"] == 0)][0]
    assert floor["f"][2] > 0 and floor["friction"] > 0
    contacts["depth"][:] = 0  # a copy: the data is untouched
    assert d.contacts()["depth"].max() > 0


def test_patches_of_the_pressure_model():
    m = touche.load(EXAMPLES / "pressure_ball.xml")
    d = touche.Data(m)
    d.contact_energy = True
    d.step(450)  # the ball reaches the floor after about 0.2 s
    patches = d.patches()
    polygons, vertices, pressure = patches["polygons"], patches["vertices"], patches["pressure"]
    assert len(polygons) > 0 and vertices.shape == (len(pressure), 3)
    assert polygons["vertex_start"][-1] + polygons["vertex_count"][-1] == len(vertices)
    assert pressure.max() > 0 and d.pairs()["area"][0] > 0
    assert d.pairs()["elastic_energy"][0] > 0
    mesh = m.geom_tetmesh(m.geom_index("ball"))
    assert m.geom_tetmesh(0) is None  # the rigid floor
    radius = m.geom_size[m.geom_index("ball")][0]
    # the mesh approximates the sphere (its vertices within 1 %)
    assert np.linalg.norm(mesh["vertices"], axis=1).max() == pytest.approx(radius, rel=0.01)
    assert mesh["tets"].shape[1] == 4 and mesh["tets"].max() < len(mesh["vertices"])
    assert mesh["epsilon"].min() == 0 and mesh["epsilon"].max() == pytest.approx(1)
    assert mesh["modulus"] == 1e5  # touche:modulus of pressure_ball.xml


def test_summary_and_watch_report(stack):
    d = touche.Data(stack)
    d.step(20)
    s = d.summary()
    assert s["time"] == d.time and s["contact_count"] > 0 and s["pair_count"] == 13
    assert set(s["warnings"]) >= {"energy_gain", "deep_penetration"}
    assert s["constraint_paths"].keys() == {"lemke", "pgs", "normal_lemke", "normal_pgs"}
    r = d.watch_report()
    assert r["steps"] == 20 and r["energy"] <= r["energy_start"] + 1e-9
    assert r["deepest"]["point"] > 0 and r["warnings"] == []


def cradle_island_problems():
    """The island problems of Newton's cradle's first 60 steps (the first impact at about 51)."""
    m = touche.load(EXAMPLES / "newton_cradle.xml")
    d = touche.Data(m)
    d.reset_key("launch")
    with pytest.raises(RuntimeError):
        d.island_problems()
    d.observe_islands(True)
    d.step(60)
    problems = d.island_problems()
    assert problems and d.island_problems() == []
    d.observe_islands(False)
    d.step()
    return problems


def test_island_problems_of_the_lcp_model():
    problems = cradle_island_problems()
    assert any(p["z"].max() > 0 for p in problems)  # the impact's impulses
    for p in problems:
        n = p["n"]
        assert p["matrix"].shape == (n, n) and p["z"].shape == (n,) and p["q"].shape == (n,)
        assert p["path"] in ("lemke", "pgs", "normal_lemke", "normal_pgs")
        bounds = dict(lo=p["lo"], hi=p["hi"], normal_index=p["normal_index"])
        r = touche.lcp_residuals(p["matrix"], p["q"], p["z"], disc=p["friction_disc"], **bounds)
        assert r["natural_map"] <= max(1e-6, 2 * p["residual"])


def test_island_problems_solved_again_by_the_public_solvers():
    for p in cradle_island_problems():
        plain_lcp = p["lo"] is None or (not p["lo"].any() and np.isinf(p["hi"]).all()
                                        and (p["normal_index"] < 0).all())
        assert plain_lcp  # frictionless: normal rows only
        z, info = touche.lemke(p["matrix"], p["q"])  # M is positive definite: one solution
        assert info["reason"] == "solved" and info["residual"] <= 1e-9
        assert np.allclose(z, p["z"], atol=1e-6 * max(1.0, np.abs(z).max()))
        z, info = touche.pgs(p["matrix"], p["q"], tolerance=1e-12, iterations=10000)
        assert np.allclose(z, p["z"], atol=1e-6 * max(1.0, np.abs(z).max()))


M2 = [[2.0, 1.0], [1.0, 2.0]]


def test_solvers_against_closed_forms():
    z, info = touche.lemke(M2, [-5, -6])  # interior: M z = -q
    assert np.allclose(z, [4 / 3, 7 / 3], atol=1e-12) and info["reason"] == "solved"
    z, info = touche.lemke(M2, [-5, -6], z0=z)  # warm start at the solution: no pivot
    assert info["iterations"] == 0
    z, _ = touche.pgs(M2, [-2, 3], tolerance=1e-12, iterations=200)
    assert np.allclose(z, [1, 0], atol=1e-12)
    z, _ = touche.pgs(M2, [-5, -6], lo=[0, 0], hi=[1, 1])  # both at the upper bound
    assert np.allclose(z, [1, 1])
    z, _ = touche.mixed_lcp(M2, [-5, 6], equality_count=1)  # 2u + v = 5, v = 0
    assert np.allclose(z, [2.5, 0])
    with pytest.raises(touche.Error, match="ray"):
        touche.lemke([[-1.0]], [-1.0])  # w = -z - 1 >= 0 has no solution
    with pytest.raises(ValueError):
        touche.lemke(M2, [1.0])
    r = touche.lcp_residuals(M2, [-5, -6], [0, 0])
    assert r["natural_map"] == 6 and r["infeasibility"] == 6  # min(z, w) = (0, -6) at worst


# ---- the GIL and threads ----


def test_step_releases_the_gil_and_a_data_steps_in_one_thread_at_a_time():
    m = touche.load(EXAMPLES / "stack13.xml")
    saw_busy = False
    for _ in range(3):  # a loaded machine may not run this thread during one attempt's steps
        d = touche.Data(m)
        worker = threading.Thread(target=d.step, args=(4000,))
        worker.start()
        while worker.is_alive():  # runs only because the step released the GIL
            try:
                d.time
            except RuntimeError:
                saw_busy = True
        worker.join()
        assert d.time == pytest.approx(4000 * m.timestep)
        if saw_busy:
            break
    assert saw_busy


# ---- Python against C ----


def cli_trajectory(scene, out, *args):
    subprocess.run([str(CLI), "run", str(scene), "--every", "1", "--out", str(out), *args],
                   check=True, capture_output=True, env=CLI_ENV)
    rows = {}
    with open(out / "trajectory.csv") as f:
        for row in csv.DictReader(f):
            rows.setdefault(float(row["time"]), {})[row["body"]] = row
    return rows


@pytest.mark.skipif(not CLI.exists(), reason=f"no CLI at {CLI}")
@pytest.mark.parametrize("scene,args,steps", [
    ("stack13.xml", ["--duration", "0.1"], 20),
    ("newton_cradle.xml", ["--duration", "0.1", "--key", "launch"], 100),
    ("pressure_ball.xml", ["--duration", "0.25"], 500),
])
def test_a_step_from_python_equals_a_step_from_c(tmp_path, scene, args, steps):
    rows = cli_trajectory(EXAMPLES / scene, tmp_path, *args)
    m = touche.load(EXAMPLES / scene)
    d = touche.Data(m)
    d.contact_energy = True  # as the CLI's run
    if "--key" in args:
        d.reset_key(args[args.index("--key") + 1])
    for _ in range(steps):
        d.step()
    row_time = min(rows, key=lambda t: abs(t - d.time))
    assert row_time == d.time
    for b in range(1, m.body_count):
        pos, quat, vel, angvel = d.body_state(b)
        row = rows[row_time][m.body_names[b]]
        c = [float(row[k]) for k in "x y z qw qx qy qz vx vy vz wx wy wz".split()]
        assert np.array_equal(np.concatenate([pos, quat, vel, angvel]), c), m.body_names[b]


def test_the_readme_example_runs_as_written():
    readme = (ROOT / "README.md").read_text()
    example = re.search(r"<!-- python example -->\s*```python\n(.*?)```", readme, re.S)
    assert example, "README.md lost its Python example"
    result = subprocess.run([sys.executable, "-c", example.group(1)], cwd=ROOT, check=True,
                            capture_output=True, text=True)
    assert len(result.stdout.splitlines()) >= 13

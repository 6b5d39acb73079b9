"""Reads a `touche run --vtk DIR` series with ParaView (run by pvpython): DIR/run.pvd through
ParaView's PVD reader, every time step, and checks what a user would look at in ParaView.

Usage: pvpython read_vtk_series.py DIR/run.pvd STATES
  STATES  the number of states the run wrote (the series must have exactly that many steps)

Checks: the series has STATES time steps, increasing; each step has the three parts (bodies,
tet meshes, patches); the bodies' surfaces have points and polygons with their geom and body
ids; the tet meshes carry a positive pressure field p0 and the extent epsilon; some step has a
contact patch whose vertex pressures are positive. Prints one line per check and exits 1 on
the first failure."""
import sys

from paraview import servermanager
from paraview.simple import PVDReader


def fail(message):
    print("FAIL " + message)
    sys.exit(1)


def blocks(data):
    """The leaves of a multiblock data set, in order."""
    it = data.NewIterator()
    it.InitTraversal()
    leaves = []
    while not it.IsDoneWithTraversal():
        leaves.append(it.GetCurrentDataObject())
        it.GoToNextItem()
    return leaves


def array_range(attributes, name):
    array = attributes.GetArray(name)
    if array is None:
        return None
    return array.GetRange(0)


def main(pvd, states):
    reader = PVDReader(FileName=pvd)
    times = list(reader.TimestepValues)
    if len(times) != states:
        fail("%d time steps in %s, expected %d" % (len(times), pvd, states))
    if any(b <= a for a, b in zip(times, times[1:])):
        fail("time steps not increasing: %s" % times)
    print("ok   %d time steps from %g to %g s" % (len(times), times[0], times[-1]))
    largest_patch_pressure = 0.0
    for t in times:
        reader.UpdatePipeline(t)
        bodies, tets, patches = check_parts(servermanager.Fetch(reader), t)
        check_bodies(bodies, t)
        check_tets(tets, t)
        if patches.GetNumberOfPoints() > 0:
            low, high = array_range(patches.GetPointData(), "pressure")
            if low < 0:
                fail("negative patch pressure %g at t = %g" % (low, t))
            largest_patch_pressure = max(largest_patch_pressure, high)
    print("ok   bodies, tet meshes with pressure and epsilon, at every step")
    if largest_patch_pressure <= 0:
        fail("no step has a contact patch with a positive pressure")
    print("ok   contact patches, largest vertex pressure %.6g Pa" % largest_patch_pressure)


def check_parts(data, t):
    parts = blocks(data)
    if len(parts) != 3:
        fail("%d parts at t = %g, expected bodies, tets and patches" % (len(parts), t))
    return parts


def check_bodies(bodies, t):
    if bodies.GetNumberOfPoints() == 0 or bodies.GetNumberOfCells() == 0:
        fail("no body surface at t = %g" % t)
    for name in ("geom", "body"):
        if bodies.GetCellData().GetArray(name) is None:
            fail("the bodies have no cell array '%s' at t = %g" % (name, t))


def check_tets(tets, t):
    if tets.GetNumberOfCells() == 0:
        fail("no tet mesh at t = %g" % t)
    pressure = array_range(tets.GetPointData(), "pressure")
    if pressure is None or pressure[1] <= 0 or tets.GetPointData().GetArray("epsilon") is None:
        fail("the tet mesh has no positive pressure field and epsilon at t = %g" % t)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))

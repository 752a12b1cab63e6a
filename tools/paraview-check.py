# Opened by ParaView's default reader, a run's sidecar (RUN.xmf, written by `opsim xdmf RUN.h5
# --ellipsoids`) gives every frame's values exactly as the run file holds them: positions,
# orientations, radii, body numbers and the surface bit for bit (read back with `opsim export`),
# and ellipsoid tensors whose columns are the current axes R·Ē scaled by the radii (to 1e-12).
# With --substeps, the sub-step sidecar RUN.substeps.xmf of a run that stored every sub-step
# (`--set run.output=substeps`) against /substeps: its times are the sub-steps' times, one a
# sub-step, and its particles those of /substeps (it has no surface).
# Run by `make test-paraview`:  xvfb-run -a pvpython tools/paraview-check.py OPSIM RUN.h5 [--substeps]
# Prints one line per frame checked and "paraview: N passed, 0 failed"; exits 1 on a mismatch.
import math
import subprocess
import sys

from paraview import servermanager as sm
from paraview.simple import OpenDataFile

opsim, run = sys.argv[1], sys.argv[2]
substeps = sys.argv[3:] == ["--substeps"]
group, state = ("/substeps", "sub-step") if substeps else ("/particles", "frame")
stem = run[:-3] if run.endswith(".h5") else run
sidecar = stem + (".substeps.xmf" if substeps else ".xmf")


def export(*args):
    text = subprocess.run([opsim, "export", run, *args], check=True, capture_output=True, text=True).stdout
    return [[float(x) for x in line.split("\t")] for line in text.splitlines() if line and not line.startswith("#")]


def blocks(data):
    """The leaves of the reader's output."""
    out = []
    iterator = data.NewIterator()
    iterator.InitTraversal()
    while not iterator.IsDoneWithTraversal():
        out.append(iterator.GetCurrentDataObject())
        iterator.GoToNextItem()
    return out


def values(array):
    return [array.GetComponent(i, c) for i in range(array.GetNumberOfTuples()) for c in range(array.GetNumberOfComponents())]


failures = 0


def expect(what, got, want, tolerance=0.0):
    global failures
    bad = len(got) != len(want) or any(abs(a - b) > tolerance * max(1.0, abs(b)) for a, b in zip(got, want))
    if bad:
        failures += 1
        print(f"MISMATCH {what}: {len(got)} values against {len(want)}", file=sys.stderr)


reader = OpenDataFile(sidecar)
print("reader:", reader.GetXMLName(), "of", sidecar.rsplit("/", 1)[-1])
if reader.GetXMLName() not in ("Xdmf3ReaderS", "Xdmf3ReaderT"):
    failures += 1
positions = export(group + "/position/value")
orientations = export(group + "/orientation/value")
surface = [] if substeps else export("/surface/position/value")
times = reader.TimestepValues
expect(f"the {state}s' times", list(times), [row[0] for row in export(group + "/position/time")], 1e-15)
frames = list(range(len(times)))
checked = [frames[0], frames[len(frames) // 2], frames[-1]]
if substeps:  # and two between the first frames
    checked[1:1] = frames[1:3]
for t in checked:
    reader.UpdatePipeline(times[t])
    leaves = blocks(sm.Fetch(reader))
    particles = next(b for b in leaves if b.GetPointData().GetArray("orientation"))
    points = particles.GetPoints().GetData()
    expect(f"{state} {t} positions", values(points), positions[t])
    expect(f"{state} {t} orientations", values(particles.GetPointData().GetArray("orientation")), orientations[t])
    radii = values(particles.GetPointData().GetArray("radii"))
    ellipsoid = particles.GetPointData().GetArray("ellipsoid")
    if ellipsoid is None:
        failures += 1
        print("no ellipsoid array: write the sidecar with 'opsim xdmf RUN.h5 --ellipsoids'", file=sys.stderr)
    else:
        e = values(ellipsoid)
        norms = [math.sqrt(sum(e[9 * i + 3 * k + c] ** 2 for c in range(3))) for i in range(len(radii) // 3) for k in range(3)]
        expect(f"{state} {t} ellipsoid column lengths", norms, radii, 1e-12)
    skins = [b for b in leaves if b.GetPointData().GetArray("orientation") is None]
    if substeps and skins:
        failures += 1
        print(f"{state} {t}: a surface grid in the sub-step sidecar", file=sys.stderr)
    if surface and skins:
        expect(f"frame {t} surface", values(skins[0].GetPoints().GetData()), surface[t])
    print(f"{state} {t} (t = {times[t]:.6g} s): {particles.GetNumberOfPoints()} particles"
          + (f", {skins[0].GetNumberOfPoints()} surface vertices" if skins else ""))
print(f"paraview: {len(checked) if not failures else 0} passed, {failures} failed")
sys.exit(1 if failures else 0)

# Renders a run to PNG with ParaView, headless: the bodies' skinned surface (coloured by body)
# and, beside it, the particles as ellipsoids (Tensor Glyph of the sidecar's "ellipsoid" array).
#     bin/opsim xdmf RUN.h5 --ellipsoids                            # the sidecar with ellipsoids
#     xvfb-run -a pvbatch tools/render-run.py RUN.xmf OUT.png [FRAME]  # FRAME: an index, default last
# Debian's pvbatch needs an X display even off screen, hence xvfb-run (package xvfb).
import sys

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetAnimationScene, OpenDataFile, Render,
                             ResetCamera, SaveScreenshot, Show, TensorGlyph, ExtractBlock, Transform)

sidecar, png = sys.argv[1], sys.argv[2]
reader = OpenDataFile(sidecar)
times = list(reader.TimestepValues) or [0.0]
frame = int(sys.argv[3]) if len(sys.argv) > 3 else len(times) - 1
time = times[frame]
scene = GetAnimationScene()
scene.UpdateAnimationUsingDataTimeSteps()
scene.AnimationTime = time
view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [1200, 600]
view.Background = [1, 1, 1]
try:
    view.UseColorPaletteForBackground = 0
except AttributeError:
    pass
view.OrientationAxesVisibility = 0

surface = Show(reader, view)
ColorBy(surface, ("POINTS", "body"))
if "ellipsoid" in reader.PointData.keys():
    glyphs = TensorGlyph(Input=reader, GlyphType="Sphere")
    glyphs.Tensors = ["POINTS", "ellipsoid"]
    glyphs.ExtractEigenvalues = 0
    glyphs.ScaleFactor = 1.0
    shifted = Transform(Input=glyphs)
    reader.UpdatePipeline(time)
    bounds = reader.GetDataInformation().GetBounds()
    shifted.Transform.Translate = [1.2 * (bounds[1] - bounds[0]), 0.0, 0.0]
    shown = Show(shifted, view)
    ColorBy(shown, ("POINTS", "body"))
view.CameraPosition = [0.0, 0.6, 3.0]
view.CameraViewUp = [0.0, 1.0, 0.0]
ResetCamera(view)
Render(view)
SaveScreenshot(png, view, ImageResolution=[1200, 600])
print(f"{png}: frame {frame} (t = {time:.6g} s) of {sidecar}")

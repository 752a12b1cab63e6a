/* `opsim xdmf`: writes (again) the XDMF sidecar RUN.xmf of a run file and its companion
 * RUN.views.h5 for ParaView (core/io/xdmf.h), and RUN.substeps.xmf with RUN.substeps.views.h5
 * when the run stored its sub-steps; `opsim run` writes them too. Runs in the guarded child of
 * app/files.c.
 *
 * usage: opsim xdmf RUN.h5 [--ellipsoids] */
#include <stdio.h>
#include <string.h>

#include <unistd.h>

#include "commands.h"
#include "io/xdmf.h"

const char app_xdmf_usage[] =
    "usage: opsim xdmf RUN.h5 [--ellipsoids]\n"
    "\n"
    "Writes (again) the XDMF sidecar RUN.xmf and its companion RUN.views.h5 beside a run file made\n"
    "by 'opsim run' (core/io/xdmf.h): per output frame, the bodies' skinned surface as triangles\n"
    "(when the run stored it) and their particles as points with orientation, radii and body\n"
    "number. ParaView's default XDMF reader opens RUN.xmf; play the frames. The companion maps\n"
    "each frame onto the run file (HDF5 virtual datasets, no copy). A run that stored every\n"
    "sub-step's state ('--set run.output=substeps') also gets RUN.substeps.xmf and its companion\n"
    "RUN.substeps.views.h5: the particles after every sub-step, at the sub-steps' times (no\n"
    "surface: the run stores none between frames).\n"
    "  --ellipsoids  also the ellipsoid tensor of every particle and frame, ready for ParaView's\n"
    "                Tensor Glyph (as large as the orientations: 72 bytes a particle a frame)\n"
    "Prints the sidecar's path, and the sub-step sidecar's when written.\n";

int app_xdmf(const app_call *call)
{
    int ellipsoids = 0;
    const char *run = NULL;
    for (int a = 1; a < call->argc; ++a) {
        if (strcmp(call->argv[a], "--help") == 0) {
            fputs(app_xdmf_usage, stdout);
            return 0;
        }
        if (strcmp(call->argv[a], "--ellipsoids") == 0)
            ellipsoids = 1;
        else if (call->argv[a][0] == '-' || run)
            return app_usage_error("xdmf", "%s", "give exactly one run file, and --ellipsoids or nothing");
        else
            run = call->argv[a];
    }
    if (!run)
        return app_usage_error("xdmf", "%s", "give exactly one run file");
    op_ctx ctx;
    op_ctx_init(&ctx);
    char sidecar[4200], substeps[4200];
    if (op_xdmf_write(&ctx, run, ellipsoids) != OP_OK || op_xdmf_path(&ctx, run, sidecar, sizeof sidecar) != OP_OK ||
        op_xdmf_substeps_path(&ctx, run, substeps, sizeof substeps) != OP_OK)
        return app_report_failure(&ctx);
    printf("%s\n", sidecar);
    if (access(substeps, F_OK) == 0)
        printf("%s\n", substeps);
    return 0;
}

/* opsim xdmf: write a run file's XDMF sidecar for ParaView. */
#include "app.h"

#include "io/xdmf.h"

static const char xdmf_help[] =
    "usage: opsim xdmf RUN.h5\n"
    "\n"
    "Writes (again) the XDMF sidecar RUN.xmf beside a run file made by 'opsim run' (core/io/xdmf.h):\n"
    "per output frame, each body's skinned surface as triangles (when the run stored it) and its\n"
    "particles as points with their orientation, radii and rest axes. Open RUN.xmf in ParaView\n"
    "(File > Open, then the XDMF reader) and play the frames. Prints the sidecar's path.\n";

int command_xdmf(int argc, char **argv)
{
    int status = check_single_run_file("xdmf", xdmf_help, argc, argv);
    if (status >= 0)
        return status;
    op_ctx ctx;
    op_ctx_init(&ctx);
    char sidecar[4200];
    if (op_xdmf_write(&ctx, argv[1]) != OP_OK || op_xdmf_path(&ctx, argv[1], sidecar, sizeof sidecar) != OP_OK)
        return report_failure(&ctx);
    printf("%s\n", sidecar);
    return 0;
}

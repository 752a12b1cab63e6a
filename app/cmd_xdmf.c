/* `opsim xdmf`: writes (again) the XDMF sidecar RUN.xmf of a run file for ParaView
 * (core/io/xdmf.h); `opsim run` writes it too. Runs in the guarded child of app/files.c.
 *
 * usage: opsim xdmf RUN.h5 */
#include <stdio.h>

#include "commands.h"
#include "io/xdmf.h"

const char app_xdmf_usage[] =
    "usage: opsim xdmf RUN.h5\n"
    "\n"
    "Writes (again) the XDMF sidecar RUN.xmf beside a run file made by 'opsim run' (core/io/xdmf.h):\n"
    "per output frame, each body's skinned surface as triangles (when the run stored it) and its\n"
    "particles as points with their orientation, radii and rest axes. Open RUN.xmf in ParaView\n"
    "(File > Open, then the XDMF reader) and play the frames. Prints the sidecar's path.\n";

int app_xdmf(const app_call *call)
{
    int status = app_single_run_file(call, app_xdmf_usage);
    if (status >= 0)
        return status;
    op_ctx ctx;
    op_ctx_init(&ctx);
    char sidecar[4200];
    if (op_xdmf_write(&ctx, call->argv[1]) != OP_OK ||
        op_xdmf_path(&ctx, call->argv[1], sidecar, sizeof sidecar) != OP_OK)
        return app_report_failure(&ctx);
    printf("%s\n", sidecar);
    return 0;
}

/* `opsim info`: what a run file holds (provenance, bodies, groups, datasets), printed by
 * op_runfile_info. Runs in the guarded child of app/files.c: a damaged file exits 65.
 *
 * usage: opsim info RUN.h5 */
#include <stdio.h>

#include "commands.h"
#include "opsim/runfile.h"

const char app_info_usage[] = "usage: opsim info RUN.h5\n\nPrints the provenance, bodies, groups and datasets of a run file.\n";

int app_info(const app_call *call)
{
    int status = app_single_run_file(call, app_info_usage);
    if (status >= 0)
        return status;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile_info(&ctx, call->argv[1], stdout);
    return app_exit_status(&ctx);
}

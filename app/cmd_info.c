/* opsim info: print what a run file holds. */
#include "app.h"

static const char info_help[] = "usage: opsim info RUN.h5\n\nPrints the provenance, bodies, groups and datasets of a run file.\n";

int command_info(int argc, char **argv)
{
    int status = check_single_run_file("info", info_help, argc, argv);
    if (status >= 0)
        return status;
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_runfile_info(&ctx, argv[1], stdout) != OP_OK)
        return report_failure(&ctx);
    return 0;
}

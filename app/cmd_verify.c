/* `opsim verify`: reads a run file end to end (op_runfile_verify, include/opsim/runfile.h):
 * every group, attribute and dataset value, so that each checksum is tested, then the bodies'
 * structure. Runs in the guarded child of app/files.c: a damaged file exits 65.
 *
 * usage: opsim verify RUN.h5 */
#include <stdio.h>

#include "commands.h"
#include "opsim/runfile.h"

const char app_verify_usage[] =
    "usage: opsim verify RUN.h5\n"
    "\n"
    "Reads the whole run file: every group, attribute and dataset value (each dataset carries an\n"
    "HDF5 Fletcher-32 checksum per chunk, each object header a checksum of its own), then checks\n"
    "the bodies as the readers do. Prints what it read and exits 0, or names the damaged object\n"
    "and exits 65 (74 when the file cannot be read at all).\n";

int app_verify(const app_call *call)
{
    int status = app_single_run_file(call, app_verify_usage);
    if (status >= 0)
        return status;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile_verified count;
    if (op_runfile_verify(&ctx, call->argv[1], &count) != OP_OK)
        return app_report_failure(&ctx);
    printf("%s: verified: %ld groups, %ld attributes, %ld datasets (%ld with checksums), %llu bytes of values\n",
           call->argv[1], count.groups, count.attributes, count.datasets, count.checksummed, count.bytes);
    return 0;
}

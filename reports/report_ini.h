/* A key of a config's sections scaled into --set overrides (reports/report_ini.c), the
 * `scale-key` section of opsim-report, for the runs that scale one parameter of every body:
 *   opsim-report scale-key --in experiments/fig2.ini --section body --key stiffness --factor 8
 * prints "body bar_k.stiffness=4e+09", one line per [body NAME] section holding the key (in file
 * order), the value times the factor in %.17g. The file is read by inih as opsim run reads it
 * (include/opsim/scene.h: comments, line length). A key that is not a number, or no section with
 * the key, is an error naming the file; nothing is printed then. */
#ifndef OPSIM_REPORT_INI_H
#define OPSIM_REPORT_INI_H

#include <stdio.h>

#include "opsim/ctx.h"

int report_scale_key(op_ctx *ctx, const char *path, const char *section, const char *key, const char *factor,
                     FILE *out);

#endif

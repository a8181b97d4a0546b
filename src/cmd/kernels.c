#include <stdio.h>

#include "cmd.h"
#include "core/ctx.h"

/* Placeholder until the command lands; replaced by its real parser. */
int cmd_kernels(int argc, char **argv, struct ctx *ctx)
{
    (void)argc;
    (void)argv;
    return diag_usage(&ctx->diag, "'kernels' is not available in this build");
}

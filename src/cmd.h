/* Every subcommand: argv[0] is the command's own name.  A cmd_* function
 * parses its arguments with the option table parser (core/options.h),
 * calls a run/ pipeline with plain structs and returns an exit status
 * (enum fom_status). */
#ifndef FOM_CMD_H
#define FOM_CMD_H

struct ctx;

int cmd_ingest(int argc, char **argv, struct ctx *ctx);
int cmd_estimate(int argc, char **argv, struct ctx *ctx);
int cmd_fom(int argc, char **argv, struct ctx *ctx);
int cmd_report(int argc, char **argv, struct ctx *ctx);
int cmd_machine(int argc, char **argv, struct ctx *ctx);
int cmd_kernels(int argc, char **argv, struct ctx *ctx);
int cmd_roofline(int argc, char **argv, struct ctx *ctx);

#endif

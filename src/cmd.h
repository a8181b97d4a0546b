/* Every subcommand: argv[0] is the command's own name.  A cmd_* function
 * parses its arguments, calls library code with plain structs and returns
 * an exit status (enum fom_status). */
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

/* True when argv holds -h or --help before any "--". */
int cmd_wants_help(int argc, char **argv);

#endif

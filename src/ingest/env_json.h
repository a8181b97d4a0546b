/* The env.json our measurement scripts write next to a folder of kernel
 * tables: the hardware is the "hw" key when present, else for a CPU folder
 * the "Model name" line of the "lscpu" key, else the "gpu" key.  The
 * software is built from "torch", "cuda" and "cudnn". */
#ifndef FOM_ENV_JSON_H
#define FOM_ENV_JSON_H

struct diag;

struct kernels_env {
    char *hw;               /* NULL when env.json names none */
    char *software;         /* NULL when env.json names none */
};

/* Read dir/env.json if present (a missing file leaves e empty and returns
 * 0).  is_cpu: the tables are the host CPU's.  The caller releases e with
 * kernels_env_release, also on failure. */
int kernels_env_read(const char *dir, int is_cpu, struct kernels_env *e, struct diag *d);
void kernels_env_release(struct kernels_env *e);

#endif

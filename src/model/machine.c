#include "model/machine.h"

#include <stdlib.h>

double machine_peak(const struct machine *m, enum precision p, enum exec_unit u)
{
    if ((unsigned)p >= PREC_COUNT || (unsigned)u >= EXEC_COUNT)
        return 0;
    return m->peak_flops[p][u];
}

double machine_mem_bw(const struct machine *m)
{
    return m->n_mem ? m->mem[m->n_mem - 1].bw_bs : 0;
}

double machine_ridge(const struct machine *m, enum precision p, enum exec_unit u)
{
    double bw = machine_mem_bw(m);
    double f = machine_peak(m, p, u);
    return bw > 0 && f > 0 ? f / bw : 0;
}

void machine_release(struct machine *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_mem; i++)
        free(m->mem[i].name);
    free(m->mem);
    free(m->path);
    free(m->id);
    free(m->name);
    free(m->vendor);
    free(m->device_name);
    free(m->source);
}

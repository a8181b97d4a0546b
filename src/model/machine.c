#include "model/machine.h"

#include <stdlib.h>
#include <string.h>

double machine_peak(const struct machine *m, enum precision p, enum exec_unit u)
{
    if ((unsigned)p >= PREC_COUNT || (unsigned)u >= EXEC_COUNT)
        return 0;
    return m->peak_flops[p][u];
}

int machine_has_tf32(const struct machine *m)
{
    if (m->kind == MACHINE_CPU)
        return 0;
    for (int u = 0; u < EXEC_COUNT; u++)
        if (m->peak_flops[PREC_TF32][u] > 0)
            return 1;
    return 0;
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

static const char *const topology_names[TOPO_COUNT] = {
    [TOPO_UNKNOWN] = "unknown", [TOPO_SWITCH] = "switch", [TOPO_DIRECT] = "direct",
    [TOPO_PCIE] = "pcie", [TOPO_FAT_TREE] = "fat-tree", [TOPO_DRAGONFLY] = "dragonfly",
    [TOPO_TORUS] = "torus",
};

const char *link_topology_name(enum link_topology t)
{
    return (unsigned)t < TOPO_COUNT ? topology_names[t] : "unknown";
}

enum link_topology link_topology_parse(const char *s)
{
    for (int t = TOPO_SWITCH; s && t < TOPO_COUNT; t++)
        if (strcmp(s, topology_names[t]) == 0)
            return (enum link_topology)t;
    return TOPO_COUNT;
}

int link_topology_fits(enum link_topology t, int inter_node)
{
    if (inter_node)
        return t == TOPO_FAT_TREE || t == TOPO_DRAGONFLY || t == TOPO_TORUS;
    return t == TOPO_SWITCH || t == TOPO_DIRECT || t == TOPO_PCIE;
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
    for (size_t i = 0; i < m->n_table_names; i++)
        free(m->table_names[i]);
    free(m->table_names);
    free(m->source);
    free(m->intra.fabric);
    free(m->inter.fabric);
}

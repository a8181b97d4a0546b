/* A machine as described by machines/NAME.xml: one node with one or more
 * identical devices.  Rates and bandwidths are per device; the node has
 * devices_per_node of them.  All values are SI base units (s, FLOP/s, B/s,
 * B, W); 0 means "not given in the file". */
#ifndef FOM_MACHINE_H
#define FOM_MACHINE_H
#include <stddef.h>

#include "model/precision.h"

enum machine_kind { MACHINE_GPU, MACHINE_CPU, MACHINE_ACCEL };

struct mem_level {
    char *name;             /* "HBM3", "L2", "DDR5" */
    double capacity_b;      /* bytes, per device */
    double bw_bs;           /* bytes/s, per device */
};

/* How the devices of a node, or the nodes of a system, are joined.  The
 * communication model (model/comm.h) takes the bandwidth and latency; the
 * topology says what the bandwidth means and is shown beside it. */
enum link_topology {
    TOPO_UNKNOWN,
    TOPO_SWITCH,        /* intra: every device reaches every peer through a switch (NVSwitch) */
    TOPO_DIRECT,        /* intra: point-to-point links between devices (NVLink, xGMI, Xe Link) */
    TOPO_PCIE,          /* intra: through the host's PCIe */
    TOPO_FAT_TREE,      /* inter: folded Clos, full bisection when not tapered */
    TOPO_DRAGONFLY,     /* inter: all-to-all groups (Slingshot) */
    TOPO_TORUS,         /* inter: 3-D torus (Gemini) */
    TOPO_COUNT,
};

struct net_link {
    double bw_bs;           /* bytes/s per direction: per device for the
                               intra-node link, the node's injection (all
                               NICs) for the inter-node one */
    double latency_s;       /* per message step, 0 = not given */
    int nics;               /* inter-node: NICs per node, 0 = not given */
    double nic_bw_bs;       /* inter-node: bytes/s per NIC per direction, 0 = not given */
    enum link_topology topology;
    char *fabric;           /* "NVLink 4", "Slingshot-11", or NULL */
};

const char *link_topology_name(enum link_topology t);   /* "switch", "fat-tree", ... */
/* TOPO_COUNT when s names no topology. */
enum link_topology link_topology_parse(const char *s);
/* 1 when t may describe a link of that scope (intra-node: switch, direct,
 * pcie; inter-node: fat-tree, dragonfly, torus). */
int link_topology_fits(enum link_topology t, int inter_node);

struct machine {
    char *path;             /* file it came from */
    char *id;               /* short id, e.g. "h100-sxm5-80gb" */
    char *name;             /* "NVIDIA H100 SXM5 80GB" */
    char *vendor;
    enum machine_kind kind;
    char *device_name;      /* as a profiler reports it, e.g. "NVIDIA H100 80GB HBM3" (may be NULL) */
    char **table_names;     /* other names of the device in kernel tables (<table-name>,
                               e.g. DeepBench's "NV_V100"), in file order */
    size_t n_table_names;
    int devices_per_node;
    /* Multiprocessors per device (<compute-units>: NVIDIA's SMs, AMD's
     * compute units, Intel's Xe cores), from the datasheet; 0 = not given.
     * A kernel of fewer blocks than this leaves some of them idle. */
    int compute_units;
    /* Dense peak rates per device, [precision][unit]; 0 = not available. */
    double peak_flops[PREC_COUNT][EXEC_COUNT];
    struct mem_level *mem;  /* fastest (closest to the cores) first */
    size_t n_mem;
    double launch_latency_s;    /* per kernel launch on the device */
    /* Device time between two kernels queued on one stream (<overheads
     * kernel-gap=>, measured by estimators/measure/kernel_gap.py), which
     * no kernel's traced duration holds; 0 = not known, the launch
     * latency stands in. */
    double kernel_gap_s;
    double dispatch_s;          /* per-op host framework dispatch cost */
    /* Host time of a cuDNN recurrent layer per layer, direction and time
     * step, forward and backward pass (<overheads rnn-forward-step=
     * rnn-backward-step=>, measured by estimators/measure/rnn_host.py);
     * 0 = not known, the launch count model stands in (est_host.c). */
    double rnn_fwd_step_s, rnn_bwd_step_s;
    /* Host time of one call of a recurrent layer that cuDNN runs as
     * persistent kernels (est_host.c: rnn_persistent), forward and
     * backward, fp32 and half precision (<overheads rnn-persistent-forward=
     * rnn-persistent-backward= and their -half twins>, measured by
     * estimators/measure/rnn_host.py); 0 = not known, the launch count
     * stands in. */
    double rnn_persist_fwd_s, rnn_persist_bwd_s;
    double rnn_persist_fwd_half_s, rnn_persist_bwd_half_s;
    struct net_link intra;      /* between devices of a node */
    struct net_link inter;      /* between nodes */
    double power_w;             /* per node: <power>, else devices x device_power_w
                                   + host_power_w when both are given; 0 unknown */
    double device_power_w;      /* per device, the datasheet TDP (<device-power>) */
    double host_power_w;        /* per node, everything but the devices (<host-power>) */
    int power_from_parts;       /* power_w = devices x device + host */
    double price_usd;           /* per node, 0 if not given */
    char *source;               /* citation of the datasheet */
};

/* Best peak for a precision: the matrix unit if given, else vector.  When
 * the precision is absent, 0 is returned (callers fall back and warn). */
double machine_peak(const struct machine *m, enum precision p, enum exec_unit u);
/* A GPU (not a host CPU) with a TF32 peak on some unit: one whose cuDNN can
 * run fp32 convolutions and recurrent layers as TF32. */
int machine_has_tf32(const struct machine *m);
/* Main-memory bandwidth: the last (largest) level. 0 if none. */
double machine_mem_bw(const struct machine *m);
/* Ridge point (FLOP per byte) of a precision against main memory. */
double machine_ridge(const struct machine *m, enum precision p, enum exec_unit u);

void machine_release(struct machine *m);   /* frees members, not m itself */

#endif

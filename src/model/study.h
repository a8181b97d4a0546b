/* A study: which systems are compared on which problems, and how long one
 * unit of work takes on each (measured), or what workload to estimate it
 * from.  Plain data filled by study_load() (ingest/study_xml.c); all
 * paths are already resolved against the study file's directory and all
 * times are in seconds. */
#ifndef FOM_STUDY_H
#define FOM_STUDY_H
#include <stddef.h>
#include <stdint.h>

#include "model/precision.h"

enum time_basis {
    TIME_PER_UNIT,      /* the whole unit of work (one training run) */
    TIME_PER_EPOCH,     /* one epoch; the unit is epochs of them */
};

/* One measured time.  Several of these for the same system and problem
 * are repeated measurements and are all kept. */
struct study_time {
    size_t system;          /* index into study.systems */
    enum time_basis basis;
    double time_s;          /* as written, converted to seconds */
    long line;
};

struct study_workload {
    int present;
    char *profile;          /* resolved path of the trace or profile */
    int64_t batch;          /* samples per minibatch (one pass) */
    int64_t profile_batch;  /* batch the profile was taken at, 0 when not given
                               (then the profile or its .meta.json must say it) */
    int64_t samples_per_epoch;
    double epochs;          /* epochs per unit of work */
    enum precision precision;   /* PREC_UNKNOWN when not given */
    int cudnn_tf32;             /* cudnn-tf32="true": as `fom estimate --cudnn-tf32` */
    int64_t devices_per_run;    /* data-parallel width of one run, 1 when not given */
    int64_t parameters;         /* trained parameters, 0 when not given (the
                                   profile's are used then, model/comm.h) */
    long line;
};

struct study_problem {
    char *id;
    double weight;          /* 1 when not given */
    int has_weight;
    double epochs;          /* epochs per unit for per-epoch times, 0 = none
                               (resolved: problem attribute, else workload) */
    struct study_workload workload;
    struct study_time *times;
    size_t n_times, alloc_times;
    long line;
};

struct study_system {
    char *id;
    int64_t nodes;
    char *machine;          /* resolved path, NULL when not given */
    char *kernels;          /* resolved path, NULL when not given */
    double node_power_w;    /* study override of a node's power, 0 when not given */
    double node_price_usd;  /* study override of a node's price, 0 when not given */
    long line;
};

struct study {
    char *path;             /* file it came from, as given */
    char *name;
    size_t baseline;        /* index into systems */
    struct study_system *systems;
    size_t n_systems, alloc_systems;
    struct study_problem *problems;
    size_t n_problems, alloc_problems;
    int has_weights;        /* some problem has a weight attribute */
};

void study_init(struct study *s);
void study_release(struct study *s);   /* frees members, not s itself */

#endif

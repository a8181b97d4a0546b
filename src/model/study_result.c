/* The study and its evaluated result as plain data: releasing them and the
 * pure roll-ups from a pass time to hours per unit of work (model/study.h,
 * model/study_result.h). */
#include "model/study_result.h"

#include <stdlib.h>
#include <string.h>

#include "model/rollup.h"

void study_init(struct study *s)
{
    memset(s, 0, sizeof *s);
}

void study_release(struct study *s)
{
    for (size_t i = 0; i < s->n_systems; i++) {
        free(s->systems[i].id);
        free(s->systems[i].machine);
        free(s->systems[i].kernels);
    }
    for (size_t i = 0; i < s->n_problems; i++) {
        free(s->problems[i].id);
        free(s->problems[i].workload.profile);
        free(s->problems[i].times);
    }
    free(s->systems);
    free(s->problems);
    free(s->path);
    free(s->name);
    study_init(s);
}

double study_workload_hours(const struct study_workload *w, double pass_s)
{
    double epoch_s = rollup_epoch_s(pass_s, w->samples_per_epoch, w->batch);
    return rollup_hours(rollup_run_s(epoch_s, w->epochs));
}

double study_time_hours(const struct study_problem *p, const struct study_time *t)
{
    if (t->basis == TIME_PER_EPOCH)
        return rollup_hours(rollup_run_s(t->time_s, p->epochs));
    return rollup_hours(t->time_s);
}

double study_cell_hours(const struct study_workload *w, const struct run_layout *l,
                        double pass_s)
{
    return study_workload_hours(w, pass_s + l->exposed_comm_s) / l->runs_per_node;
}

void study_eval_release(struct study_eval *ev)
{
    free(ev->nodes);
    free(ev->weights);
    free(ev->hours);
    free(ev->runs_per_node);
    free(ev->repeats);
    free(ev->hours_ci);
    free(ev->fom_lo);
    free(ev->fom_hi);
    for (size_t i = 0; ev->hours_draws && i < ev->n_systems * ev->n_problems; i++)
        free(ev->hours_draws[i]);
    free(ev->hours_draws);
    free(ev->n_hours_draws);
    free(ev->ratio_lo);
    free(ev->ratio_hi);
    free(ev->basis);
    free(ev->estimated);
    free(ev->fom_unformed);
    for (size_t s = 0; ev->power_from && s < ev->n_systems; s++) {
        free(ev->power_from[s]);
        free(ev->price_from[s]);
    }
    free(ev->power_from);
    free(ev->price_from);
    free(ev->node_power_w);
    free(ev->node_price_usd);
    econ_result_release(&ev->econ);
    for (size_t i = 0; ev->scaling && i < ev->n_systems * ev->n_problems; i++)
        free(ev->scaling[i]);
    free(ev->scaling);
    free(ev->n_scaling);
    free(ev->exposed_comm_s);
    fom_result_release(&ev->fom);
    memset(ev, 0, sizeof *ev);
}

double study_weak_share(const struct estimate_basis *b)
{
    return b->method_share[EST_ROOFLINE] + b->method_share[EST_EFFICIENCY] +
           b->method_share[EST_SCALED];
}

int study_cell_weak(const struct study_eval *ev, size_t i)
{
    return ev->estimated && ev->estimated[i] && study_weak_share(&ev->basis[i]) >= STUDY_WEAK_SHARE;
}

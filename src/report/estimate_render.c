#include "report/estimate_render.h"

#include <math.h>
#include <string.h>

#include "report/csv.h"
#include "report/json.h"

static double ms(double s)
{
    return s * 1e3;
}

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

static const char *prec_or(enum precision p, const char *dflt)
{
    return (unsigned)p < PREC_COUNT ? precision_name(p) : dflt;
}

/* An interval of zero width (the draws never move the pass, e.g. a
 * host-bound step) is reported as unavailable, not as "x .. x". */
static int ci_moves(const struct estimate *e)
{
    return isfinite(e->pass_ci_lo_s) && isfinite(e->pass_ci_hi_s) && e->pass_ci_hi_s > e->pass_ci_lo_s;
}

/* The weight of a class's calls in dispatches: its own where all its
 * calls take it, else their mean (convolutions by pass and dimensions,
 * ops of several kernels on the GPU), to four decimals: a million
 * calls' sum of times leaves the quotient off in its tenth digit. */
static double host_mean_weight(const struct estimate *e, int k)
{
    if (!(e->host_calls[k] > 0) || !(e->host_dispatch_s > 0))
        return est_host_class_weight((enum est_host_class)k);
    return round(e->host_class_s[k] / (e->host_calls[k] * e->host_dispatch_s) * 1e4) / 1e4;
}

/* What a CPU trace's host time on a GPU rests on (struct estimate:
 * host_calls), when it has that basis. */
static void text_host_basis(FILE *fp, const struct estimate *e)
{
    if (!(e->host_dispatch_s > 0))
        return;
    fprintf(fp, "  host per op kind: the machine's dispatch %.2f us x each call's weight (the development "
                "set's GPU traces: estimators/measure/host_weights.py), x %.3f for the pass's %.1f calls per "
                "op record but the optimizer's (a pass that repeats its ops issues them faster)\n",
            e->host_dispatch_s * 1e6, e->host_repeat_scale, e->host_calls_per_record);
    for (int k = 0; k < HOST_CLASS_COUNT; k++)
        if (e->host_calls[k] > 0)
            fprintf(fp, "  %-16s %10.0f calls x %.1f %12.4f\n", est_host_class_name((enum est_host_class)k),
                    e->host_calls[k], host_mean_weight(e, k), ms(e->host_class_s[k]));
    if (e->host_rnn_loop_s > 0)
        fprintf(fp, "  %-16s %35.4f\n", "recurrent loops", ms(e->host_rnn_loop_s));
    if (e->host_multi_calls > 0)
        fprintf(fp, "  of which %.0f calls of ops of several kernels on the GPU (estimators/measure/"
                    "kernels_per_call.py), at their measured cost: %.4f ms\n",
                e->host_multi_calls, ms(e->host_multi_s));
}

/* The host calibration against the run's measured step, when one was
 * given (struct estimate: calib). */
static void text_calib(FILE *fp, const struct estimate *e)
{
    const char *from = e->calib_from ? e->calib_from : "given";
    if (e->calib == CALIB_NONE)
        return;
    if (e->calib == CALIB_NOT_APPLICABLE) {
        fprintf(fp, "  host not calibrated: the measured step %.4f ms (%s) calibrates a GPU trace's "
                    "host times on a GPU target\n", ms(e->calib_step_s), from);
        return;
    }
    fprintf(fp, "  host calibrated: trace host times x%.4g so that the trace replayed on its device "
                "gives %.4f ms against %.4f ms without the profiler (%s); the trace alone "
                "replays %.4f ms%s\n", e->host_scale, ms(e->calib_replayed_s), ms(e->calib_step_s),
            from, ms(e->calib_replay_s),
            e->calib != CALIB_CLAMPED ? ""
            : e->host_scale > 1 ? "; clamped: the trace's host with the profiler's cost left in "
                                  "is the slowest it allows"
                                : "; clamped: the trace's device work alone replays longer than "
                                  "the measured step, so the host's busy time is held to that step");
    if (e->calib_lo_s > 0 && e->calib_hi_s > 0)
        fprintf(fp, "  measured step: median %.4f ms, its 95%% interval %.4f..%.4f ms (order statistics "
                    "of the timed steps)\n", ms(e->calib_step_s), ms(e->calib_lo_s), ms(e->calib_hi_s));
}

/* The host calibration (struct estimate: calib), null when none was given. */
static void json_calib(struct json *j, const struct estimate *e)
{
    json_key(j, "host_calibration");
    if (e->calib != CALIB_NONE) {
        json_obj_begin(j);
        json_kstr(j, "state", est_calib_name(e->calib));
        json_knum(j, "measured_step_s", e->calib_step_s);
        json_kstr(j, "from", e->calib_from);
        json_knum(j, "trace_replay_s", e->calib != CALIB_NOT_APPLICABLE ? e->calib_replay_s : NAN);
        json_knum(j, "calibrated_replay_s", e->calib != CALIB_NOT_APPLICABLE ? e->calib_replayed_s : NAN);
        json_knum(j, "host_scale", e->host_scale);
        json_knum(j, "host_scale_max", e->calib != CALIB_NOT_APPLICABLE ? e->host_scale_max : NAN);
        json_knum(j, "least_host_replay_s", e->calib != CALIB_NOT_APPLICABLE ? e->calib_floor_s : NAN);
        json_key(j, "measured_median_ci_s");
        if (e->calib_lo_s > 0 && e->calib_hi_s > 0) {
            json_arr_begin(j);
            json_num(j, e->calib_lo_s);
            json_num(j, e->calib_hi_s);
            json_arr_end(j);
        } else {
            json_null(j);
        }
        json_obj_end(j);
    } else {
        json_null(j);
    }
}

/* ------------------------------------------------------------------ text */

static void render_text(FILE *fp, const struct estimate *e, const struct estimate_render_info *in)
{
    fprintf(fp, "estimate of %s on %s\n", in && in->profile ? in->profile : "profile",
            e->machine ? e->machine : "?");
    if (in && in->machine_path)
        fprintf(fp, "machine file:   %s\n", in->machine_path);
    for (size_t i = 0; in && i < in->n_kernels; i++)
        fprintf(fp, "kernel tables:  %s\n", in->kernels[i]);
    fprintf(fp, "profiled on:    %s\n", in && in->source_device ? in->source_device : "host only");
    fprintf(fp, "target table:   %s\n", e->target_hw ? e->target_hw : "none (machine file only)");
    if (e->source_hw)
        fprintf(fp, "source table:   %s (scaled-table: measured time x target/source entry)\n",
                e->source_hw);
    fprintf(fp, "precision:      %s%s\n", prec_or(e->precision, "as profiled"),
            e->cudnn_tf32 ? " (fp32 convolutions and recurrent layers as TF32: --cudnn-tf32)" : "");
    if (e->batch > 0 && e->src_batch > 0)
        fprintf(fp, "batch:          %lld (profiled %lld, from %s; x%.4g)\n", (long long)e->batch,
                (long long)e->src_batch, in && in->batch_from ? in->batch_from : "the profile",
                e->batch_scale);
    else if (e->src_batch > 0)
        fprintf(fp, "batch:          as profiled (%lld)\n", (long long)e->src_batch);
    else
        fprintf(fp, "batch:          as profiled (its size is not recorded; --profile-batch N "
                    "gives it)\n");
    fputc('\n', fp);

    fprintf(fp, "%-40s %-11s %-5s %-12s %-7s %9s %13s %14s %10s\n", "op", "kind", "prec",
            "method", "bound", "count", "measured [ms]", "estimate [ms]", "host [ms]");
    for (size_t i = 0; i < e->n_ops; i++) {
        const struct op_estimate *o = &e->ops[i];
        const char *name = o->name ? o->name : "?";
        size_t len = strlen(name);
        if (len > 40)
            fprintf(fp, "%.37s...", name);
        else
            fprintf(fp, "%-40s", name);
        fprintf(fp, " %-11s %-5s %-12s %-7s %9.4g %13.4f %14.4f %10.4f\n", op_kind_name(o->kind),
                prec_or(o->prec, "-"), est_method_name(o->method), est_bound_name(o->bound),
                o->count, ms(o->src_time_s), ms(o->time_s), ms(o->host_s));
    }
    fputc('\n', fp);
    fprintf(fp, "device time [ms]   %10.4f\n", ms(e->device_time_s));
    fprintf(fp, "host time [ms]     %10.4f\n", ms(e->host_time_s));
    text_host_basis(fp, e);
    text_calib(fp, e);
    fprintf(fp, "sync [ms]          %10.4f\n", ms(e->sync_s));
    fprintf(fp, "pass time [ms]     %10.4f  (p05..p95 %.4f..%.4f)  bound: %s\n", ms(e->pass_time_s),
            ms(e->pass_lo_s), ms(e->pass_hi_s), est_bound_name(e->bound));
    if (e->n_spread_ops && !ci_moves(e))
        fprintf(fp, "pass %2.0f%% CI [ms]        n/a  (the spreads of %zu op%s do not move the "
                    "pass time: it is bound by the host)\n", e->ci_level * 100, e->n_spread_ops,
                e->n_spread_ops == 1 ? "" : "s");
    else if (e->n_spread_ops)
        fprintf(fp, "pass %2.0f%% CI [ms] %10.4f .. %.4f  (the %zu op%s with a table spread at its "
                    "%.1f%% and %.1f%% quantiles: kernel timing spread only, not model error)\n",
                e->ci_level * 100, ms(e->pass_ci_lo_s), ms(e->pass_ci_hi_s), e->n_spread_ops,
                e->n_spread_ops == 1 ? "" : "s", (1 - e->ci_level) / 2 * 100,
                (1 + e->ci_level) / 2 * 100);
    else
        fprintf(fp, "pass %2.0f%% CI [ms]        n/a  (no op has a table spread to draw from)\n",
                e->ci_level * 100);
    if (e->src_pass_time_s > 0)
        fprintf(fp, "profiled step [ms] %10.4f  (estimate %.4f / profiled %.4f = %.3f)\n",
                ms(e->src_pass_time_s), ms(e->pass_time_s), ms(e->src_pass_time_s),
                e->pass_time_s / e->src_pass_time_s);
    fputc('\n', fp);
    fprintf(fp, "%-14s %12s %14s %9s\n", "method", "device [ms]", "of device [ms]", "share [%]");
    for (int m = 0; m < EST_METHOD_COUNT; m++)
        if (e->method_time_s[m] > 0)
            fprintf(fp, "%-14s %12.4f %14.4f %9.1f\n", est_method_name((enum est_method)m),
                    ms(e->method_time_s[m]), ms(e->device_time_s),
                    pct(e->method_time_s[m], e->device_time_s));
    double tot = 0;
    for (int b = 0; b < BOUND_COUNT; b++)
        tot += e->bound_time_s[b];
    fprintf(fp, "%-14s %12s %14s %9s\n", "op bound", "ops [ms]", "of ops [ms]", "share [%]");
    for (int b = 0; b < BOUND_COUNT; b++)
        if (e->bound_time_s[b] > 0)
            fprintf(fp, "%-14s %12.4f %14.4f %9.1f\n", est_bound_name((enum est_bound)b),
                    ms(e->bound_time_s[b]), ms(tot), pct(e->bound_time_s[b], tot));
    for (int l = 0; l < LIMIT_COUNT; l++)
        if (e->limit_ops[l])
            fprintf(fp, "limit %-10s %s %zu op(s)\n", est_limit_name((enum est_limit)l),
                    l == LIMIT_ABOVE_PEAK ? "flagged" : "held", e->limit_ops[l]);
    for (size_t i = 0; i < e->n_warnings; i++)
        fprintf(fp, "%s%s\n", i == 0 ? "\nwarnings:\n  " : "  ", e->warnings[i]);
}

/* ------------------------------------------------------------------ json */

/* One element of "ops", on one line: an op's estimate, its method, bound
 * and limits. */
static void write_op(struct json *j, const struct op_estimate *o)
{
    json_obj_begin_line(j);
    json_kstr(j, "name", o->name);
    json_kstr(j, "kind", op_kind_name(o->kind));
    json_knum(j, "time_s", o->time_s);
    json_kstr(j, "method", est_method_name(o->method));
    json_kstr(j, "bound", est_bound_name(o->bound));
    json_kstr(j, "phase", op_phase_name(o->phase));
    json_kstr(j, "precision", (unsigned)o->prec < PREC_COUNT ? precision_name(o->prec) : NULL);
    json_knum(j, "count", o->count);
    json_knum(j, "device_time_s", o->device_s);
    json_knum(j, "host_time_s", o->host_s);
    json_knum(j, "time_lo_s", o->time_lo_s);
    json_knum(j, "time_hi_s", o->time_hi_s);
    json_knum(j, "measured_time_s", o->src_time_s);
    json_knum(j, "flops", o->flops);
    json_knum(j, "bytes", o->bytes);
    json_knum(j, "ratio", o->ratio);
    json_kstr(j, "lookup", o->lookup);
    json_knum(j, "distance", o->distance);
    json_key(j, "limits");
    json_arr_begin(j);
    for (int l = 0; l < LIMIT_COUNT; l++)
        if (o->limits & (1u << l))
            json_str(j, est_limit_name((enum est_limit)l));
    json_arr_end(j);
    json_obj_end(j);
}

/* "host_basis": a CPU trace's host time on a GPU by class of op, or null
 * where the host time is the trace's own (a GPU trace) or a CPU's. */
static void json_host_basis(struct json *j, const struct estimate *e)
{
    json_key(j, "host_basis");
    if (!(e->host_dispatch_s > 0)) {
        json_null(j);
        return;
    }
    json_obj_begin(j);
    json_knum(j, "dispatch_s", e->host_dispatch_s);
    json_knum(j, "calls_per_op_record", e->host_calls_per_record);
    json_knum(j, "repeat_scale", e->host_repeat_scale);
    json_key(j, "classes");
    json_obj_begin(j);
    for (int k = 0; k < HOST_CLASS_COUNT; k++) {
        json_key(j, est_host_class_name((enum est_host_class)k));
        json_obj_begin(j);
        json_knum(j, "weight", host_mean_weight(e, k));
        json_knum(j, "calls", e->host_calls[k]);
        json_knum(j, "time_s", e->host_class_s[k]);
        json_obj_end(j);
    }
    json_obj_end(j);
    json_knum(j, "recurrent_loops_s", e->host_rnn_loop_s);
    json_key(j, "multi_kernel_ops");
    json_obj_begin(j);
    json_knum(j, "calls", e->host_multi_calls);
    json_knum(j, "time_s", e->host_multi_s);
    json_kstr(j, "from", "ops PyTorch runs as several kernels on a GPU, from the development set's GPU "
                         "traces (estimators/measure/kernels_per_call.py), at their names' host cost "
                         "(estimators/measure/host_weights.py)");
    json_obj_end(j);
    json_kstr(j, "weights_from", "the development set's GPU traces: the mean call per class, and per op name "
                                 "where they measured it, in the machine's dispatches "
                                 "(estimators/measure/host_weights.py, src/model/est_host.c, est_host_ops.c)");
    json_obj_end(j);
}

static void render_json(FILE *fp, const struct estimate *e, const struct estimate_render_info *in)
{
    struct json j;
    json_init(&j, fp, 1);
    json_obj_begin(&j);
    json_kstr(&j, "machine", e->machine);
    json_knum(&j, "pass_time_s", e->pass_time_s);
    json_knum(&j, "pass_time_lo_s", e->pass_lo_s);
    json_knum(&j, "pass_time_hi_s", e->pass_hi_s);
    json_key(&j, "pass_time_ci");
    if (e->n_spread_ops && ci_moves(e)) {
        json_obj_begin(&j);
        json_knum(&j, "lo_s", e->pass_ci_lo_s);
        json_knum(&j, "hi_s", e->pass_ci_hi_s);
        json_kstr(&j, "method", "the pass with every op at the same quantile of its kernel table's "
                                "p05/p95 spread (log-normal per op): exact, the pass being monotone "
                                "in that quantile");
        json_knum(&j, "level", e->ci_level);
        json_kint(&j, "spread_ops", (int64_t)e->n_spread_ops);
        json_obj_end(&j);
    } else {
        json_null(&j);
    }
    json_knum(&j, "device_time_s", e->device_time_s);
    json_knum(&j, "host_time_s", e->host_time_s);
    json_host_basis(&j, e);
    json_knum(&j, "sync_s", e->sync_s);
    json_key(&j, "profiler_overhead");
    json_obj_begin(&j);
    json_knum(&j, "per_event_s", e->profiler_event_s);
    json_knum(&j, "events", e->profiler_events);
    json_knum(&j, "host_removed_s", e->profiler_host_s);
    json_kstr(&j, "method", "median time from a parent op's start to its first child plus from its last child to its end, in the trace, per recorded event");
    json_obj_end(&j);
    json_calib(&j, e);
    json_kstr(&j, "bound", est_bound_name(e->bound));
    json_knum(&j, "profiled_step_time_s", e->src_pass_time_s > 0 ? e->src_pass_time_s : NAN);
    json_kstr(&j, "profile", in ? in->profile : NULL);
    json_kstr(&j, "machine_file", in ? in->machine_path : NULL);
    json_kstr(&j, "source_device", in ? in->source_device : NULL);
    json_kstr(&j, "target_table", e->target_hw);
    json_kstr(&j, "source_table", e->source_hw);
    json_kstr(&j, "source_table_found", e->source_table_path);
    json_kstr(&j, "source_machine_found", e->source_machine_path);
    json_key(&j, "kernels");
    json_arr_begin(&j);
    for (size_t i = 0; in && i < in->n_kernels; i++)
        json_str(&j, in->kernels[i]);
    json_arr_end(&j);
    json_kstr(&j, "precision", (unsigned)e->precision < PREC_COUNT ? precision_name(e->precision) : NULL);
    json_key(&j, "cudnn_tf32");
    json_bool(&j, e->cudnn_tf32);
    json_kint(&j, "batch", e->batch > 0 ? e->batch : e->src_batch);
    json_kint(&j, "profiled_batch", e->src_batch);
    json_kstr(&j, "profiled_batch_from", in ? in->batch_from : NULL);
    json_key(&j, "method_time_s");
    json_obj_begin(&j);
    for (int m = 0; m < EST_METHOD_COUNT; m++)
        json_knum(&j, est_method_name((enum est_method)m), e->method_time_s[m]);
    json_obj_end(&j);
    json_key(&j, "bound_time_s");
    json_obj_begin(&j);
    for (int b = 0; b < BOUND_COUNT; b++)
        json_knum(&j, est_bound_name((enum est_bound)b), e->bound_time_s[b]);
    json_obj_end(&j);
    json_key(&j, "limits_fired");
    json_obj_begin(&j);
    for (int l = 0; l < LIMIT_COUNT; l++)
        json_kint(&j, est_limit_name((enum est_limit)l), (int64_t)e->limit_ops[l]);
    json_obj_end(&j);
    json_key(&j, "efficiency_model");
    json_bool(&j, e->efficiency_model);
    json_key(&j, "ops");
    json_arr_begin(&j);
    for (size_t i = 0; i < e->n_ops; i++)
        write_op(&j, &e->ops[i]);
    json_arr_end(&j);
    json_key(&j, "warnings");
    json_arr_begin(&j);
    for (size_t i = 0; i < e->n_warnings; i++)
        json_str(&j, e->warnings[i]);
    json_arr_end(&j);
    json_obj_end(&j);
    json_finish(&j);
}

/* ------------------------------------------------------------------- csv */

static void render_csv(FILE *fp, const struct estimate *e)
{
    fputs("name,kind,phase,precision,method,bound,count,measured_ms,time_ms,device_ms,host_ms,"
          "time_lo_ms,time_hi_ms,flops,bytes,ratio,ci_lo_ms,ci_hi_ms\n", fp);
    for (size_t i = 0; i < e->n_ops; i++) {
        const struct op_estimate *o = &e->ops[i];
        csv_field(fp, o->name);
        fprintf(fp, ",%s,%s,%s,%s,%s,%.17g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.17g,%.17g,%.9g",
                op_kind_name(o->kind), op_phase_name(o->phase), prec_or(o->prec, ""),
                est_method_name(o->method), est_bound_name(o->bound), o->count, ms(o->src_time_s),
                ms(o->time_s), ms(o->device_s), ms(o->host_s), ms(o->time_lo_s), ms(o->time_hi_s),
                o->flops, o->bytes, o->ratio);
        fputs(",,\n", fp);
    }
    fprintf(fp, "(pass),,,%s,,%s,,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,,,,",
            prec_or(e->precision, ""), est_bound_name(e->bound), ms(e->src_pass_time_s),
            ms(e->pass_time_s), ms(e->device_time_s), ms(e->host_time_s), ms(e->pass_lo_s),
            ms(e->pass_hi_s));
    /* the Monte Carlo interval of the pass (empty when no op has a spread) */
    if (ci_moves(e))
        fprintf(fp, "%.9g,%.9g", ms(e->pass_ci_lo_s), ms(e->pass_ci_hi_s));
    else
        fputc(',', fp);
    fputc('\n', fp);
}

void estimate_render(FILE *fp, enum out_format f, const struct estimate *e,
                     const struct estimate_render_info *info)
{
    switch (f) {
    case FMT_JSON:
        render_json(fp, e, info);
        break;
    case FMT_CSV:
        render_csv(fp, e);
        break;
    default:
        render_text(fp, e, info);
        break;
    }
}

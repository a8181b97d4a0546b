#include "core/progress.h"

#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_init(struct progress *p, FILE *out, const char *what)
{
    p->out = out;
    p->what = what;
    p->start_s = p->last_s = now_s();
    p->shown = 0;
}

void progress_bytes(struct progress *p, uint64_t done, uint64_t total)
{
    if (!p || !p->out)
        return;
    double t = now_s();
    /* Quiet for the first half second: short work shows nothing. */
    if (t - p->start_s < 0.5 || t - p->last_s < 0.25)
        return;
    p->last_s = t;
    double mb = (double)done / 1e6;
    double rate = mb / (t - p->start_s);
    if (total)
        fprintf(p->out, "\rfom: %s: %.0f%% (%.0f of %.0f MB, %.0f MB/s)   ", p->what,
                100.0 * (double)done / (double)total, mb, (double)total / 1e6, rate);
    else
        fprintf(p->out, "\rfom: %s: %.0f MB (%.0f MB/s)   ", p->what, mb, rate);
    fflush(p->out);
    p->shown = 1;
}

void progress_end(struct progress *p)
{
    if (!p || !p->out || !p->shown)
        return;
    /* Erase the line: the terminal is left as if nothing was drawn. */
    fputs("\r\033[K", p->out);
    fflush(p->out);
    p->shown = 0;
}

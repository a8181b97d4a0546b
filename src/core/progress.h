/* A progress line on stderr for long work, shown only when stderr is a
 * terminal (the caller decides: out NULL means silent), redrawn at most a
 * few times a second, and erased when the work ends so that it never mixes
 * with messages or ends up in a log. */
#ifndef FOM_PROGRESS_H
#define FOM_PROGRESS_H
#include <stdint.h>
#include <stdio.h>

struct progress {
    FILE *out;          /* NULL: silent */
    const char *what;   /* e.g. the file being read */
    double start_s, last_s;
    int shown;
};

void progress_init(struct progress *p, FILE *out, const char *what);
/* done of total units (bytes); total 0 when unknown. */
void progress_bytes(struct progress *p, uint64_t done, uint64_t total);
void progress_end(struct progress *p);

#endif

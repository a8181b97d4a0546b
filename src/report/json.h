/* A small streaming JSON writer: keeps track of commas and indentation so
 * renderers only say what to write.  Non-finite numbers become null (JSON
 * has no NaN), which is what a consumer should see for "not available". */
#ifndef FOM_JSON_H
#define FOM_JSON_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32
/* The writer's own buffer: 16 KiB, many lines per fwrite into fp's
 * buffer, on the stack of the renderers that hold a struct json. */
#define JSON_OUT_B 16384

struct json {
    FILE *fp;
    int depth;
    int pretty;
    int count[JSON_MAX_DEPTH]; /* items written at each depth */
    int after_key;
    int line_from;             /* depth of the open one-line object, or 0: inside it, pretty
                                * output stays on its line */
    /* The last fraction json_num printed and its text: records repeat
     * values (an op's time, device time and its bounds are often one
     * number), and printf's floating-point conversion is the writer's
     * largest cost. */
    double last_num;
    char last_text[32];
    /* What was written and not yet handed to fp: one memcpy per key or
     * value instead of one stdio call (a saved profile of a million ops
     * is 50 million of them), fwrite when full and at json_finish. */
    size_t out_n;
    char out[JSON_OUT_B];
};

void json_init(struct json *j, FILE *fp, int pretty);
void json_obj_begin(struct json *j);
/* An object written on one line, with what it holds, in pretty output: a
 * record among a million (a saved profile's ops) reads as one line and
 * takes a quarter fewer bytes than one key per line. */
void json_obj_begin_line(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);   /* NULL -> null */
void json_num(struct json *j, double v);         /* non-finite -> null */
/* Like json_num but with as many digits as strtod needs to give v back
 * bit for bit (data that is read back in, such as saved profiles). */
void json_num_exact(struct json *j, double v);
/* A compact array of numbers on one line, [1,0.25,null], written exact;
 * for long lists of small records where one number per line is noise. */
void json_num_row(struct json *j, const double *v, size_t n);
void json_int(struct json *j, int64_t v);
void json_bool(struct json *j, int v);
void json_null(struct json *j);
/* Convenience: key + value. */
void json_kstr(struct json *j, const char *key, const char *s);
void json_knum(struct json *j, const char *key, double v);
void json_kint(struct json *j, const char *key, int64_t v);
/* {"lo": lo, "hi": hi}, or null when either is not finite (unavailable). */
void json_interval(struct json *j, double lo, double hi);
/* Ends the document with a newline and hands what is held to fp.  The
 * writer holds its output until then: nothing else may be written to fp
 * between the first key or value and json_finish. */
void json_finish(struct json *j);
/* Hands what is held to fp without ending the document. */
void json_flush(struct json *j);

/* The shortest %.Ng (N = 15..17) of v that reads back as v; buf of 32
 * bytes is enough.  Non-finite v gives "null". */
const char *num_fmt_exact(char *buf, size_t n, double v);

#endif

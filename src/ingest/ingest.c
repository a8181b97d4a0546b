/* ingest_read: recognise a trace by its content (through gzip) and hand it
 * to its reader.  A format named on the command line is checked against
 * the content too, so that "--format tfprof" on a Kineto file says what
 * the file is instead of failing somewhere inside the wrong parser. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#include "core/diag.h"
#include "ingest/ingest.h"
#include "ingest/sidecar.h"

static const struct { const char *name; enum trace_format f; } formats[] = {
    { "auto", TRACE_AUTO },
    { "kineto", TRACE_KINETO },
    { "tfprof", TRACE_TFPROF },
    { "tf-timeline", TRACE_TF_TIMELINE },
    { "pt-table", TRACE_PT_TABLE },
    { "profile", TRACE_PROFILE },
};
#define N_FORMATS (sizeof formats / sizeof formats[0])

const char *trace_format_name(enum trace_format f)
{
    for (size_t i = 0; i < N_FORMATS; i++)
        if (formats[i].f == f)
            return formats[i].name;
    return "unknown";
}

int trace_format_parse(const char *s, enum trace_format *f)
{
    for (size_t i = 0; s && i < N_FORMATS; i++)
        if (strcmp(s, formats[i].name) == 0) {
            *f = formats[i].f;
            return 0;
        }
    return -1;
}

/* What each format looks like, for messages. */
static const char *format_desc(enum trace_format f)
{
    switch (f) {
    case TRACE_KINETO: return "a PyTorch profiler (Kineto) JSON trace";
    case TRACE_TFPROF: return "TensorFlow tfprof text";
    case TRACE_TF_TIMELINE: return "a TensorFlow timeline JSON trace";
    case TRACE_PT_TABLE: return "a torch key_averages() table";
    case TRACE_PROFILE: return "a profile written by fom ingest";
    default: return "a supported trace";
    }
}

static int contains(const char *hay, const char *needle)
{
    return strstr(hay, needle) != NULL;
}

/* Recognise a format from the first bytes of the (decompressed) content.
 * Returns TRACE_AUTO when nothing matches. */
static enum trace_format sniff(const char *s)
{
    const char *p = s;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (*p == '{' || *p == '[') {
        if (contains(s, "\"schemaVersion\"") || contains(s, "\"deviceProperties\"") ||
            contains(s, "\"cpu_op\"") || contains(s, "\"External id\"") ||
            contains(s, "\"user_annotation\"") || contains(s, "PyTorch Profiler"))
            return TRACE_KINETO;
        if (contains(s, "/job:") || contains(s, "\"Allocators\"") ||
            (contains(s, "\"cat\": \"Op\"") || contains(s, "\"cat\":\"Op\"")))
            return TRACE_TF_TIMELINE;
        if (contains(s, "\"ops\"") && contains(s, "\"format\"") && !contains(s, "\"traceEvents\""))
            return TRACE_PROFILE;
        if (contains(s, "\"traceEvents\"") || *p == '[')
            return TRACE_KINETO;
        return TRACE_AUTO;
    }
    if (strncmp(p, "# format:", 9) == 0 || strncmp(p, "name,kind,phase", 15) == 0 ||
        (p[0] == '#' && contains(s, "\nname,kind,phase")))
        return TRACE_PROFILE;
    if (contains(s, "Self CPU %") || contains(s, "# of Calls"))
        return TRACE_PT_TABLE;
    if (contains(s, "node name |") || strncmp(p, "tfprof>", 7) == 0 ||
        contains(s, "exec_time:") || contains(s, "Profile:\n"))
        return TRACE_TFPROF;
    return TRACE_AUTO;
}

/* Describe what was found in a file that matched no expectation. */
static void found_desc(const char *s, size_t n, char *buf, size_t len)
{
    const char *p = s;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (n == 0) {
        snprintf(buf, len, "an empty file");
        return;
    }
    size_t k = 0;
    char quoted[32];
    while (p[k] && p[k] != '\n' && k < 20) {
        unsigned char c = (unsigned char)p[k];
        quoted[k] = c >= 32 && c < 127 ? (char)c : '?';
        k++;
    }
    quoted[k] = '\0';
    snprintf(buf, len, "content starting '%s'", quoted);
}

/* A PyTorch execution trace (ExecutionTraceObserver, MLCommons Chakra JSON:
 * top-level "schema" and "nodes", no "traceEvents") records the op graph
 * with shapes but no op or kernel times, so no pass time can come from it.
 * Returns 1 and the schema version (up to len - 1 bytes) when s is one. */
static int is_execution_trace(const char *s, char *schema, size_t len)
{
    const char *k = strstr(s, "\"schema\"");
    if (!k || !strstr(s, "\"nodes\"") || strstr(s, "\"traceEvents\""))
        return 0;
    const char *q = strchr(k + 8, '"');
    size_t n = 0;
    if (q && strchr(k + 8, ':') && strchr(k + 8, ':') < q)
        for (q++; q[n] && q[n] != '"' && n + 1 < len; n++)
            schema[n] = q[n];
    schema[n] = '\0';
    return 1;
}

/* The step the harness measured without the profiler, from the
 * .meta.json beside a Kineto trace (ingest/sidecar.h), when it has one. */
static int read_measured_step(const char *path, struct profile *out, struct diag *d)
{
    struct trace_sidecar sc;
    int rc = trace_sidecar_read(path, &sc, d);
    if (!rc && sc.path && sc.step_s > 0) {
        out->measured_step_s = sc.step_s;
        out->measured_step_lo_s = sc.step_lo_s;
        out->measured_step_hi_s = sc.step_hi_s;
        out->measured_step_from = sc.path;
        sc.path = NULL;
    }
    trace_sidecar_release(&sc);
    return rc;
}

int ingest_read(const char *path, const struct ingest_opts *o, struct profile *out,
                struct diag *d)
{
    char head[65537];
    int n;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return diag_error_at(d, path, 0, 0, "found a directory, expected a trace file (give "
                             "one file of it)");
    gzFile f = gzopen(path, "rb");
    if (!f)
        return diag_syserr(d, "cannot open '%s': %s", path, strerror(errno ? errno : ENOENT));
    n = gzread(f, head, sizeof head - 1);
    if (n < 0) {
        int zerr;
        const char *msg = gzerror(f, &zerr);
        gzclose(f);
        return diag_error_at(d, path, 0, 0,
                             "found damaged gzip data at byte 0 (%s), expected a trace", msg);
    }
    gzclose(f);
    head[n] = '\0';
    if (memchr(head, '\0', (size_t)n))
        return diag_error_at(d, path, 0, 0,
                             "found binary data at byte %zu, expected a text or JSON trace",
                             (size_t)((char *)memchr(head, '\0', (size_t)n) - head));
    char schema[64];
    if (is_execution_trace(head, schema, sizeof schema))
        return diag_error_at(d, path, 1, 0,
                             "found a PyTorch execution trace (ET/Chakra, schema '%s'), which "
                             "fom does not read: it holds the op graph but no times; expected "
                             "a Kineto trace of the same run (torch.profiler.profile(...)"
                             ".export_chrome_trace(\"trace.json\"))", schema);
    enum trace_format seen = sniff(head);
    enum trace_format want = o ? o->format : TRACE_AUTO;
    if (n == 0)
        return diag_error_at(d, path, 0, 0, "found an empty file at byte 0, expected %s",
                             format_desc(want));
    if (want == TRACE_AUTO) {
        if (seen == TRACE_AUTO) {
            char what[64];
            found_desc(head, (size_t)n, what, sizeof what);
            return diag_error_at(d, path, 1, 0,
                                 "found %s, expected a Kineto or TF timeline JSON trace, "
                                 "tfprof text, a key_averages table or a fom profile", what);
        }
        want = seen;
    } else if (seen != TRACE_AUTO && seen != want) {
        return diag_error_at(d, path, 1, 0, "found %s, expected %s (--format %s)",
                             format_desc(seen), format_desc(want), trace_format_name(want));
    }
    if (want == TRACE_KINETO) {
        int rc = kineto_read(path, o, out, d);
        return rc ? rc : read_measured_step(path, out, d);
    }
    switch (want) {
    case TRACE_TFPROF: return tfprof_read(path, o, out, d);
    case TRACE_TF_TIMELINE: return tf_timeline_read(path, o, out, d);
    case TRACE_PT_TABLE: return pt_table_read(path, o, out, d);
    case TRACE_PROFILE: return profile_file_read(path, o, out, d);
    default: break;
    }
    return diag_usage(d, "unknown trace format");
}

#include "ingest/env_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "model/kernel_table.h"

/* env.json is a few kB; anything much larger is not ours. */
#define ENV_MAX_BYTES (1 << 20)

void kernels_env_release(struct kernels_env *e)
{
    free(e->hw);
    free(e->software);
    memset(e, 0, sizeof *e);
}

static const char *env_str(yajl_val root, const char *key)
{
    const char *path[] = { key, NULL };
    yajl_val v = yajl_tree_get(root, path, yajl_t_string);
    return YAJL_IS_STRING(v) ? v->u.string : NULL;
}

/* The value of "Model name:" in lscpu output, trimmed; caller frees. */
static char *lscpu_model(const char *lscpu)
{
    const char *p = lscpu ? strstr(lscpu, "Model name:") : NULL;
    if (!p)
        return NULL;
    p += strlen("Model name:");
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = strcspn(p, "\n");
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
        n--;
    return n ? xstrndup(p, n) : NULL;
}

int kernels_env_read(const char *dir, int is_cpu, struct kernels_env *e, struct diag *d)
{
    struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
    yajl_val root = NULL;
    FILE *fp = NULL;
    int rc = 0;
    char err[256];
    strbuf_addf(&path, "%s/env.json", dir);
    fp = fopen(path.buf, "r");
    if (!fp) {
        if (errno != ENOENT)
            rc = diag_syserr(d, "cannot open '%s': %s", path.buf, strerror(errno));
        goto out;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
        strbuf_add(&text, buf, n);
        if (text.len > ENV_MAX_BYTES) {
            rc = diag_error_at(d, path.buf, 0, 0, "found more than %d bytes, expected a small JSON object",
                               ENV_MAX_BYTES);
            goto out;
        }
    }
    if (ferror(fp)) {
        rc = diag_syserr(d, "cannot read '%s': %s", path.buf, strerror(errno));
        goto out;
    }
    root = yajl_tree_parse(strbuf_str(&text), err, sizeof err);
    if (!root || !YAJL_IS_OBJECT(root)) {
        char *nl = strchr(err, '\n');
        if (nl)
            *nl = 0;
        rc = diag_error_at(d, path.buf, 0, 0, "found %s, expected a JSON object",
                           root ? "another JSON value" : err);
        goto out;
    }
    const char *hw = env_str(root, "hw");
    char *cpu = lscpu_model(env_str(root, "lscpu"));
    if (hw)
        e->hw = xstrdup(hw);
    else if (is_cpu && cpu)
        e->hw = xstrdup(cpu);
    else if (env_str(root, "gpu"))
        e->hw = xstrdup(env_str(root, "gpu"));
    else if (cpu)
        e->hw = xstrdup(cpu);
    free(cpu);

    struct strbuf sw = STRBUF_INIT;
    const char *torch = env_str(root, "torch"), *cuda = env_str(root, "cuda");
    if (torch)
        strbuf_addf(&sw, "PyTorch %s", torch);
    if (!is_cpu) {
        if (cuda)
            strbuf_addf(&sw, "%sCUDA %s", sw.len ? ", " : "", cuda);
        const char *path_cudnn[] = { "cudnn", NULL };
        yajl_val v = yajl_tree_get(root, path_cudnn, yajl_t_number);
        if (YAJL_IS_INTEGER(v) && v->u.number.i > 0) {
            /* cuDNN encodes its version as major*10000 + minor*100 + patch. */
            long long c = v->u.number.i;
            strbuf_addf(&sw, "%scuDNN %lld.%lld.%lld", sw.len ? ", " : "", c / 10000, c / 100 % 100,
                        c % 100);
        }
    }
    /* Rows of fom's harness timed one call at a time, the host launching
     * as it goes (env.json without "timing"), hold the host's dispatch gap
     * in short rows: the estimator takes it out (est_op.c).  Later runs
     * queue the calls behind a device-side wait and say so in "timing". */
    const char *harness = env_str(root, "harness");
    if (harness && strstr(harness, "measure.py") && !env_str(root, "timing"))
        strbuf_addf(&sw, "%s%s", sw.len ? ", " : "", KERNEL_TIMED_PER_CALL);
    /* "cudnn_benchmark" says how cuDNN chose convolution algorithms.  The
     * harness set torch.backends.cudnn.benchmark = True until it recorded
     * the setting (with "timing", estimators/measure/measure.py's history),
     * so its earlier folders are autotuned. */
    const char *path_bench[] = { "cudnn_benchmark", NULL };
    yajl_val bench = yajl_tree_get(root, path_bench, yajl_t_any);
    int autotuned = YAJL_IS_TRUE(bench)
                    || (!bench && harness && strstr(harness, "measure.py") && !env_str(root, "timing"));
    if (!is_cpu && autotuned)
        strbuf_addf(&sw, "%s%s", sw.len ? ", " : "", KERNEL_CUDNN_AUTOTUNED);
    e->software = sw.len ? strbuf_detach(&sw) : NULL;
    strbuf_release(&sw);
out:
    if (fp)
        fclose(fp);
    yajl_tree_free(root);
    strbuf_release(&path);
    strbuf_release(&text);
    return rc;
}

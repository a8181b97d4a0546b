/* Replays the fuzz corpora (tests/fuzz/corpus/<target>/: seeds from the
 * test data and every input a fuzzer once found crashing) through the
 * fuzz targets themselves, compiled here without libFuzzer, so `make test`
 * and the sanitizer build of `make check` keep them fixed. */
#include "test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

/* Each target defines LLVMFuzzerTestOneInput; give each its own name. */
#define LLVMFuzzerTestOneInput fuzz_kineto
#include "../fuzz/fuzz-kineto.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_tfprof
#include "../fuzz/fuzz-tfprof.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_tf_timeline
#include "../fuzz/fuzz-tf-timeline.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_pt_table
#include "../fuzz/fuzz-pt-table.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_profile_file
#include "../fuzz/fuzz-profile-file.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_ingest_auto
#include "../fuzz/fuzz-ingest-auto.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_machine_xml
#include "../fuzz/fuzz-machine-xml.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_study_xml
#include "../fuzz/fuzz-study-xml.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_kernel_csv
#include "../fuzz/fuzz-kernel-csv.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_units
#include "../fuzz/fuzz-units.c"
#undef LLVMFuzzerTestOneInput

typedef int (*fuzz_fn)(const uint8_t *, size_t);

struct target {
    const char *dir;        /* tests/fuzz/corpus/<dir> */
    fuzz_fn fn;
    int min_files;          /* the corpus must not silently vanish */
};

static const struct target targets[] = {
    { "kineto", fuzz_kineto, 2 },
    { "tfprof", fuzz_tfprof, 2 },
    { "tf-timeline", fuzz_tf_timeline, 1 },
    { "pt-table", fuzz_pt_table, 1 },
    { "profile-file", fuzz_profile_file, 2 },
    { "ingest-auto", fuzz_ingest_auto, 2 },
    { "machine-xml", fuzz_machine_xml, 2 },
    { "study-xml", fuzz_study_xml, 2 },
    { "kernel-csv", fuzz_kernel_csv, 2 },
    { "units", fuzz_units, 2 },
};

static char *corpus_dir(const char *name)
{
    const char *dir = getenv("TESTS_DIR");
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s/fuzz/corpus/%s", dir && *dir ? dir : "tests", name);
    return strbuf_detach(&sb);
}

static int read_file(const char *path, uint8_t **buf, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    struct strbuf sb = STRBUF_INIT;
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
        strbuf_add(&sb, chunk, n);
    fclose(fp);
    *len = sb.len;
    *buf = (uint8_t *)strbuf_detach(&sb);
    return 0;
}

static void replay(void **state)
{
    const struct target *t = *state;
    char *dir = corpus_dir(t->dir);
    DIR *dp = opendir(dir);
    if (!dp)
        fail_msg("cannot open corpus %s", dir);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        struct strbuf path = STRBUF_INIT;
        strbuf_addf(&path, "%s/%s", dir, e->d_name);
        uint8_t *buf = NULL;
        size_t len = 0;
        if (read_file(strbuf_str(&path), &buf, &len))
            fail_msg("cannot read %s", strbuf_str(&path));
        t->fn(buf, len);    /* a crash or sanitizer report fails the test */
        free(buf);
        strbuf_release(&path);
        files++;
    }
    closedir(dp);
    if (files < t->min_files)
        fail_msg("%s holds %d inputs, expected at least %d", dir, files, t->min_files);
    free(dir);
}

int main(void)
{
    enum { N = sizeof targets / sizeof targets[0] };
    struct CMUnitTest tests[N];
    for (size_t i = 0; i < N; i++) {
        tests[i] = (struct CMUnitTest){ targets[i].dir, replay, NULL, NULL,
                                        (void *)&targets[i] };
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}

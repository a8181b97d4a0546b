#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "ingest/machine_xml.h"
#include "model/machine.h"

/* Files are found from TESTS_DIR (set by tests/run.sh) or, when a binary
 * is run by hand from the top of the tree, from "tests". */
static char *test_path(const char *rel)
{
    const char *dir = getenv("TESTS_DIR");
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s/%s", dir && *dir ? dir : "tests", rel);
    return strbuf_detach(&sb);
}

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    struct strbuf sb = STRBUF_INIT;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        strbuf_add(&sb, buf, n);
    fclose(fp);
    return strbuf_detach(&sb);
}

/* Loads text as a machine named "m.xml"; returns the status and the
 * diagnostics in *msg (caller frees). */
static int load_text(const char *text, struct machine *m, char **msg)
{
    size_t len = 0;
    FILE *f = open_memstream(msg, &len);
    struct diag d;
    diag_init(&d, f);
    int rc = machine_load_mem("m.xml", text, strlen(text), m, &d);
    fclose(f);
    return rc;
}

static void test_good_file(void **state)
{
    (void)state;
    char *path = test_path("data/machine/good.xml");
    struct machine m;
    struct diag d;
    diag_init(&d, stderr);
    assert_int_equal(machine_load(path, &m, &d), 0);
    assert_string_equal(m.path, path);
    assert_string_equal(m.id, "test-node");
    assert_string_equal(m.name, "Test node & friends");
    assert_string_equal(m.vendor, "Example");
    assert_string_equal(m.device_name, "Example X1");
    assert_int_equal(m.kind, MACHINE_ACCEL);
    assert_int_equal(m.devices_per_node, 4);
    assert_int_equal(m.compute_units, 96);
    assert_close(m.peak_flops[PREC_FP64][EXEC_VECTOR], 10e12, 1e-15);
    assert_close(m.peak_flops[PREC_BF16][EXEC_MATRIX], 400e12, 1e-15);
    assert_close(m.peak_flops[PREC_INT8][EXEC_MATRIX], 0.8e15, 1e-15);
    assert_true(m.peak_flops[PREC_FP32][EXEC_VECTOR] == 0);
    assert_true(m.peak_flops[PREC_FP64][EXEC_MATRIX] == 0);
    assert_int_equal(m.n_mem, 2);
    assert_string_equal(m.mem[0].name, "SRAM");
    assert_close(m.mem[0].capacity_b, 64.0 * 1048576, 1e-15);
    assert_close(m.mem[0].bw_bs, 20e12, 1e-15);
    assert_string_equal(m.mem[1].name, "HBM");
    assert_close(m.mem[1].capacity_b, 96.0 * 1073741824, 1e-15);
    assert_close(m.mem[1].bw_bs, 2e12, 1e-15);
    assert_close(m.launch_latency_s, 2.5e-6, 1e-12);
    assert_close(m.dispatch_s, 12e-6, 1e-12);
    assert_close(m.intra.bw_bs, 25e9, 1e-15);
    assert_close(m.intra.latency_s, 1e-6, 1e-12);
    assert_close(m.inter.bw_bs, 50e9, 1e-15);
    assert_close(m.inter.latency_s, 2e-6, 1e-12);
    assert_close(m.power_w, 1500, 1e-15);
    assert_close(m.price_usd, 125000, 1e-15);
    assert_string_equal(m.source, "fom test fixture");
    /* helpers over the loaded struct: main memory is the last level */
    assert_close(machine_mem_bw(&m), 2e12, 1e-15);
    assert_close(machine_ridge(&m, PREC_BF16, EXEC_MATRIX), 200.0, 1e-12);
    assert_true(machine_ridge(&m, PREC_FP32, EXEC_VECTOR) == 0);
    assert_int_equal(d.errors, 0);
    machine_release(&m);
    free(path);
}

static void test_h100_file(void **state)
{
    (void)state;
    char *path = test_path("../machines/h100-sxm5-80gb.xml");
    struct machine m;
    struct diag d;
    diag_init(&d, stderr);
    assert_int_equal(machine_load(path, &m, &d), 0);
    assert_close(m.peak_flops[PREC_BF16][EXEC_MATRIX], 989.4e12, 1e-15);
    assert_close(machine_mem_bw(&m), 3.35e12, 1e-15);
    /* 989.4 / 3.35 = 295.343... FLOP per byte */
    assert_close(machine_ridge(&m, PREC_BF16, EXEC_MATRIX), 295.34328358208955, 1e-12);
    machine_release(&m);
    free(path);
}

#define HEAD "<?xml version=\"1.0\"?>\n"
#define OPEN "<machine id=\"t\" kind=\"gpu\">\n<name>T</name>\n<vendor>V</vendor>\n" \
             "<devices-per-node>1</devices-per-node>\n"
/* line numbers: HEAD is line 1, OPEN lines 2-5, the first peak is line 6 */
#define PEAK "<peak precision=\"fp32\" unit=\"vector\">10 TFLOP/s</peak>\n"
#define MEM "<memory level=\"HBM\" capacity=\"16 GB\" bandwidth=\"900 GB/s\"/>\n"
#define CLOSE "<source>s</source>\n</machine>\n"

struct bad_case {
    const char *what;
    const char *text;
    int rc;
    const char *msg;    /* substring of the diagnostics */
};

static const struct bad_case bad_cases[] = {
    { "unclosed tag", HEAD OPEN PEAK MEM "<source>s</source>\n", 1, "m.xml:" },
    { "unknown unit", HEAD OPEN PEAK "<memory level=\"HBM\" bandwidth=\"900 GHz\"/>\n" CLOSE, 1,
      "m.xml:7: error: found unit 'GHz' in <memory bandwidth>, expected a number with a bandwidth unit" },
    { "missing unit", HEAD OPEN "<peak precision=\"fp32\" unit=\"vector\">10</peak>\n" MEM CLOSE, 1,
      "m.xml:6: error: found '10' with no unit in <peak>, expected a number with a rate unit" },
    { "rate unit for bandwidth", HEAD OPEN PEAK "<memory level=\"HBM\" bandwidth=\"3 TFLOP/s\"/>\n" CLOSE, 1,
      "m.xml:7: error: found unit 'TFLOP/s' in <memory bandwidth>" },
    { "negative", HEAD OPEN "<peak precision=\"fp32\" unit=\"vector\">-10 TFLOP/s</peak>\n" MEM CLOSE, 1,
      "m.xml:6: error: found '-10 TFLOP/s' in <peak>, expected a value greater than zero" },
    { "zero", HEAD OPEN PEAK "<memory level=\"HBM\" bandwidth=\"0 GB/s\"/>\n" CLOSE, 1,
      "m.xml:7: error: found '0 GB/s' in <memory bandwidth>, expected a value greater than zero" },
    { "nan", HEAD OPEN "<peak precision=\"fp32\" unit=\"vector\">NaN TFLOP/s</peak>\n" MEM CLOSE, 1,
      "m.xml:6: error: found 'NaN TFLOP/s' in <peak>, expected a number with a rate unit" },
    { "inf", HEAD OPEN PEAK MEM "<power>inf W</power>\n" CLOSE, 1,
      "m.xml:8: error: found 'inf W' in <power>, expected a number with a power unit" },
    { "overflow", HEAD OPEN PEAK "<memory level=\"HBM\" bandwidth=\"1e999 GB/s\"/>\n" CLOSE, 1,
      "m.xml:7: error: found '1e999 GB/s' in <memory bandwidth>, expected a bandwidth below 1.8e308 B/s (the value is out of range, not the unit)" },
    { "zero devices", HEAD "<machine id=\"t\" kind=\"gpu\">\n<name>T</name>\n<vendor>V</vendor>\n"
      "<devices-per-node>0</devices-per-node>\n" PEAK MEM CLOSE, 1,
      "m.xml:5: error: found '0' in <devices-per-node>, expected an integer from 1" },
    { "negative devices", HEAD "<machine id=\"t\" kind=\"gpu\">\n<name>T</name>\n<vendor>V</vendor>\n"
      "<devices-per-node>-2</devices-per-node>\n" PEAK MEM CLOSE, 1,
      "m.xml:5: error: found '-2' in <devices-per-node>" },
    { "zero compute units", HEAD OPEN "<compute-units>0</compute-units>\n" PEAK MEM CLOSE, 1,
      "m.xml:6: error: found '0' in <compute-units>, expected an integer from 1 to 1000000" },
    { "compute units not a count", HEAD OPEN "<compute-units>132 SMs</compute-units>\n" PEAK MEM CLOSE, 1,
      "m.xml:6: error: element 'compute-units'" },
    { "no peak", HEAD OPEN MEM CLOSE, 1, "m.xml:6: error: element 'memory'" },
    { "no memory", HEAD OPEN PEAK CLOSE, 1, "m.xml:7: error: element 'source'" },
    { "duplicate peak", HEAD OPEN PEAK PEAK MEM CLOSE, 1,
      "m.xml:7: error: found a second <peak precision=\"fp32\" unit=\"vector\">, expected one (the first is on line 6)" },
    { "unknown precision", HEAD OPEN "<peak precision=\"fp128\" unit=\"vector\">1 TFLOP/s</peak>\n" MEM CLOSE, 1,
      "m.xml:6: error: element 'peak', attribute 'precision'" },
    { "memory order", HEAD OPEN PEAK "<memory level=\"HBM\" capacity=\"16 GB\" bandwidth=\"900 GB/s\"/>\n"
      "<memory level=\"L2\" capacity=\"6 MB\" bandwidth=\"3 TB/s\"/>\n" CLOSE, 1,
      "m.xml:8: error: found <memory level=\"L2\"> smaller than \"HBM\" above it" },
    { "main memory without bandwidth", HEAD OPEN PEAK "<memory level=\"HBM\" capacity=\"16 GB\"/>\n" CLOSE, 1,
      "m.xml:7: error: found <memory level=\"HBM\"> without bandwidth" },
    { "price not a number", HEAD OPEN PEAK MEM "<price currency=\"USD\">nan</price>\n" CLOSE, 1,
      "m.xml:8: error: found 'nan' in <price>" },
    { "unknown element", HEAD OPEN PEAK MEM "<clock>2 GHz</clock>\n" CLOSE, 1,
      "m.xml:8: error: element 'clock': this element is not expected" },
    { "wrong root", HEAD "<study/>\n", 1, "m.xml:2: error: element 'study'" },
    { "undeclared entity", HEAD OPEN PEAK MEM "<source>&x;</source>\n</machine>\n", 1, "m.xml:8: error:" },
    { "internal entity", HEAD "<!DOCTYPE machine [\n<!ENTITY v \"Vendor\">\n]>\n"
      "<machine id=\"t\" kind=\"gpu\">\n<name>T</name>\n<vendor>&v;</vendor>\n"
      "<devices-per-node>1</devices-per-node>\n" PEAK MEM CLOSE, 1,
      "m.xml:3: error: found entity declaration 'v', expected no entities" },
    { "parameter entity", HEAD "<!DOCTYPE machine [\n<!ENTITY % p SYSTEM \"file:///etc/passwd\">\n%p;\n]>\n"
      OPEN PEAK MEM CLOSE, 1, "m.xml:3: error: found entity declaration 'p'" },
    { "empty document", "", 1, "m.xml" },
    { "nics on the intra-node link", HEAD OPEN PEAK MEM
      "<link scope=\"intra-node\" bandwidth=\"100 GB/s\" nics=\"2\"/>\n" CLOSE, 1,
      "m.xml:8: error: found nics=\"2\" on the intra-node link, expected nics only on <link scope=\"inter-node\">" },
    { "too many nics", HEAD OPEN PEAK MEM
      "<link scope=\"inter-node\" bandwidth=\"25 GB/s\" nics=\"65\"/>\n" CLOSE, 1,
      "m.xml:8: error: found nics=\"65\", expected an integer from 1 to 64" },
    { "zero nics", HEAD OPEN PEAK MEM
      "<link scope=\"inter-node\" bandwidth=\"25 GB/s\" nics=\"0\"/>\n" CLOSE, 1,
      "m.xml:8: error: element 'link', attribute 'nics'" },
    { "network topology inside a node", HEAD OPEN PEAK MEM
      "<link scope=\"intra-node\" bandwidth=\"100 GB/s\" topology=\"dragonfly\"/>\n" CLOSE, 1,
      "m.xml:8: error: found topology=\"dragonfly\" on the intra-node link, expected switch, direct or pcie" },
    { "node topology between nodes", HEAD OPEN PEAK MEM
      "<link scope=\"inter-node\" bandwidth=\"25 GB/s\" topology=\"switch\"/>\n" CLOSE, 1,
      "m.xml:8: error: found topology=\"switch\" on the inter-node link, expected fat-tree, dragonfly or torus" },
    { "unknown topology", HEAD OPEN PEAK MEM
      "<link scope=\"inter-node\" bandwidth=\"25 GB/s\" topology=\"hypercube\"/>\n" CLOSE, 1,
      "m.xml:8: error: element 'link', attribute 'topology'" },
    { "nic bandwidth in Hz", HEAD OPEN PEAK MEM
      "<link scope=\"inter-node\" nics=\"4\" bandwidth=\"200 GHz\"/>\n" CLOSE, 1,
      "m.xml:8: error: found unit 'GHz' in <link bandwidth>" },
    { "zero link latency", HEAD OPEN PEAK MEM
      "<link scope=\"intra-node\" bandwidth=\"100 GB/s\" latency=\"0 us\"/>\n" CLOSE, 1,
      "m.xml:8: error: found '0 us' in <link latency>, expected a value greater than zero" },
    { "empty fabric", HEAD OPEN PEAK MEM
      "<link scope=\"intra-node\" bandwidth=\"100 GB/s\" fabric=\"\"/>\n" CLOSE, 1,
      "m.xml:8: error: element 'link', attribute 'fabric'" },
};

static void test_bad_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *c = &bad_cases[i];
        struct machine m;
        char *msg = NULL;
        int rc = load_text(c->text, &m, &msg);
        if (rc != c->rc || !strstr(msg, c->msg))
            fail_msg("%s: status %d (want %d), message '%s' (want '%s')", c->what, rc, c->rc,
                     msg, c->msg);
        /* failure leaves an empty struct that machine_release accepts */
        assert_null(m.id);
        assert_int_equal(m.n_mem, 0);
        machine_release(&m);
        free(msg);
    }
}

/* The network fields: nics makes bandwidth per NIC, and the node's
 * injection is their product; topology and fabric are kept. */
static void test_network(void **state)
{
    (void)state;
    struct machine m;
    char *msg = NULL;
    assert_int_equal(load_text(HEAD OPEN PEAK MEM
                               "<link scope=\"intra-node\" bandwidth=\"300 GB/s\" latency=\"3 us\" "
                               "fabric=\"NVLink 3\" topology=\"direct\"/>\n"
                               "<link scope=\"inter-node\" nics=\"4\" bandwidth=\"200 Gbit/s\" "
                               "latency=\"9 us\" fabric=\"Slingshot\" topology=\"dragonfly\"/>\n"
                               CLOSE, &m, &msg), 0);
    assert_close(m.intra.bw_bs, 300e9, 1e-15);
    assert_int_equal(m.intra.nics, 0);
    assert_int_equal(m.intra.topology, TOPO_DIRECT);
    assert_string_equal(m.intra.fabric, "NVLink 3");
    assert_int_equal(m.inter.nics, 4);
    assert_close(m.inter.nic_bw_bs, 25e9, 1e-15);
    assert_close(m.inter.bw_bs, 100e9, 1e-15);
    assert_close(m.inter.latency_s, 9e-6, 1e-12);
    assert_int_equal(m.inter.topology, TOPO_DRAGONFLY);
    assert_string_equal(link_topology_name(m.inter.topology), "dragonfly");
    machine_release(&m);
    free(msg);
    /* without nics the bandwidth is the node's injection, as before */
    assert_int_equal(load_text(HEAD OPEN PEAK MEM
                               "<link scope=\"inter-node\" bandwidth=\"50 GB/s\"/>\n" CLOSE, &m, &msg), 0);
    assert_close(m.inter.bw_bs, 50e9, 1e-15);
    assert_int_equal(m.inter.nics, 0);
    assert_true(m.inter.nic_bw_bs == 0);
    assert_int_equal(m.inter.topology, TOPO_UNKNOWN);
    assert_null(m.inter.fabric);
    machine_release(&m);
    free(msg);
}

static void test_external_entity(void **state)
{
    (void)state;
    char *path = test_path("data/machine/bad-xxe.xml");
    char *passwd = slurp("/etc/passwd");
    struct machine m;
    char *msg = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&msg, &len);
    struct diag d;
    diag_init(&d, f);
    int rc = machine_load(path, &m, &d);
    fclose(f);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(msg, "bad-xxe.xml:2: error: found entity declaration 'x', expected no entities"));
    /* nothing of the file may leak into the message */
    assert_null(strstr(msg, "root:"));
    if (passwd) {
        char first[32];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(passwd, "\n"), passwd);
        if (*first)
            assert_null(strstr(msg, first));
    }
    assert_null(m.name);
    machine_release(&m);
    free(msg);
    free(passwd);
    free(path);
}

static void test_billion_laughs(void **state)
{
    (void)state;
    struct strbuf sb = STRBUF_INIT;
    strbuf_addstr(&sb, HEAD "<!DOCTYPE machine [\n<!ENTITY l0 \"lol\">\n");
    for (int i = 1; i <= 30; i++)
        strbuf_addf(&sb, "<!ENTITY l%d \"&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;\">\n",
                    i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
    strbuf_addstr(&sb, "]>\n<machine id=\"t\" kind=\"gpu\">\n<name>&l30;</name>\n</machine>\n");
    struct machine m;
    char *msg = NULL;
    clock_t t0 = clock();
    int rc = load_text(sb.buf, &m, &msg);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    assert_int_equal(rc, 1);
    assert_non_null(strstr(msg, "m.xml:3: error: found entity declaration 'l0'"));
    assert_true(secs < 1.0);
    machine_release(&m);
    free(msg);
    strbuf_release(&sb);
}

static void test_too_big(void **state)
{
    (void)state;
    size_t n = MACHINE_FILE_MAX + 10;
    char *buf = malloc(n + 1);
    memset(buf, ' ', n);
    buf[n] = '\0';
    struct machine m;
    char *msg = NULL;
    assert_int_equal(load_text(buf, &m, &msg), 1);
    assert_non_null(strstr(msg, "m.xml: error: found more than 1048576 bytes"));
    machine_release(&m);
    free(msg);
    free(buf);
}

static void test_unclosed_file(void **state)
{
    (void)state;
    char *path = test_path("data/machine/bad-unclosed.xml");
    struct machine m;
    char *msg = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&msg, &len);
    struct diag d;
    diag_init(&d, f);
    assert_int_equal(machine_load(path, &m, &d), 1);
    fclose(f);
    /* libxml2 reports the mismatch where </machine> closes <vendor> */
    assert_non_null(strstr(msg, "bad-unclosed.xml:6: error: opening and ending tag mismatch: vendor"));
    machine_release(&m);
    free(msg);
    free(path);
}

static void test_missing_file(void **state)
{
    (void)state;
    struct machine m;
    char *msg = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&msg, &len);
    struct diag d;
    diag_init(&d, f);
    assert_int_equal(machine_load("/nonexistent/m.xml", &m, &d), 3);
    fclose(f);
    assert_non_null(strstr(msg, "error: cannot open '/nonexistent/m.xml'"));
    machine_release(&m);
    free(msg);
}

/* The schema built into fom must be machines/machine.xsd, byte for byte. */
static void test_schema_matches_file(void **state)
{
    (void)state;
    char *path = test_path("../machines/machine.xsd");
    char *text = slurp(path);
    if (!text)
        fail_msg("cannot read %s", path);
    if (strcmp(text, machine_xsd) != 0) {
        size_t i = 0;
        while (text[i] && text[i] == machine_xsd[i])
            i++;
        fail_msg("machine_xsd differs from %s at byte %zu", path, i);
    }
    free(text);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_h100_file),
        cmocka_unit_test(test_bad_cases),
        cmocka_unit_test(test_network),
        cmocka_unit_test(test_external_entity),
        cmocka_unit_test(test_billion_laughs),
        cmocka_unit_test(test_too_big),
        cmocka_unit_test(test_unclosed_file),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_schema_matches_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

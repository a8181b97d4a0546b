#include "ingest/study_xml.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "core/xalloc.h"

/* A study is a page of XML; anything much larger is not a study. */
#define STUDY_MAX_BYTES (16u << 20)
/* After this many schema errors the rest are usually consequences. */
#define STUDY_MAX_SCHEMA_ERRORS 20

static const char study_xsd[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<!-- Schema of a fom study file (see reports/README.md).  The same text is\n"
    "     compiled into fom (src/ingest/study_xml.c); a unit test keeps the two\n"
    "     identical.  The schema checks structure and integer fields; fom itself\n"
    "     checks what XSD 1.0 cannot say well: time units and positivity,\n"
    "     references between elements, duplicates and completeness. -->\n"
    "<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\" elementFormDefault=\"qualified\">\n"
    "\n"
    "  <xs:element name=\"study\">\n"
    "    <xs:annotation><xs:documentation>\n"
    "      name: a title for reports.  baseline: the id of the system every\n"
    "      ratio and the FOM are relative to.\n"
    "    </xs:documentation></xs:annotation>\n"
    "    <xs:complexType>\n"
    "      <xs:sequence>\n"
    "        <xs:element name=\"system\" type=\"systemType\" maxOccurs=\"unbounded\"/>\n"
    "        <xs:element name=\"problem\" type=\"problemType\" maxOccurs=\"unbounded\"/>\n"
    "      </xs:sequence>\n"
    "      <xs:attribute name=\"name\" type=\"xs:string\" use=\"required\"/>\n"
    "      <xs:attribute name=\"baseline\" type=\"xs:string\" use=\"required\"/>\n"
    "    </xs:complexType>\n"
    "  </xs:element>\n"
    "\n"
    "  <xs:complexType name=\"systemType\">\n"
    "    <xs:annotation><xs:documentation>\n"
    "      nodes: how many nodes (or nodelets) run units of work side by side.\n"
    "      machine and kernels (a CSV file, a folder of CSV files or a database)\n"
    "      are needed only for problems estimated from a workload; relative\n"
    "      paths are relative to the study file.  node-power and node-price\n"
    "      override the machine file's power and price of one node (a number\n"
    "      with a unit: \"2.8kW\", \"700 W\"; a price in US dollars, \"300000\"), for\n"
    "      the FOM per megawatt and per dollar.\n"
    "    </xs:documentation></xs:annotation>\n"
    "    <xs:attribute name=\"id\" type=\"xs:string\" use=\"required\"/>\n"
    "    <xs:attribute name=\"nodes\" type=\"xs:positiveInteger\" use=\"required\"/>\n"
    "    <xs:attribute name=\"machine\" type=\"xs:string\"/>\n"
    "    <xs:attribute name=\"kernels\" type=\"xs:string\"/>\n"
    "    <xs:attribute name=\"node-power\" type=\"xs:string\"/>\n"
    "    <xs:attribute name=\"node-price\" type=\"xs:string\"/>\n"
    "  </xs:complexType>\n"
    "\n"
    "  <xs:complexType name=\"problemType\">\n"
    "    <xs:annotation><xs:documentation>\n"
    "      weight: optional positive weight of the problem in the (weighted)\n"
    "      harmonic mean; 1 when absent.  epochs: epochs in one unit of work,\n"
    "      used by per-epoch times when the problem has no workload (a workload's\n"
    "      epochs attribute gives it otherwise; if both are given they must\n"
    "      agree).  The number of epochs belongs to the problem, not to a time,\n"
    "      because it defines the unit of work, which must be the same on every\n"
    "      system.\n"
    "    </xs:documentation></xs:annotation>\n"
    "    <xs:sequence>\n"
    "      <xs:element name=\"workload\" type=\"workloadType\" minOccurs=\"0\"/>\n"
    "      <xs:element name=\"time\" type=\"timeType\" minOccurs=\"0\" maxOccurs=\"unbounded\"/>\n"
    "    </xs:sequence>\n"
    "    <xs:attribute name=\"id\" type=\"xs:string\" use=\"required\"/>\n"
    "    <xs:attribute name=\"weight\" type=\"xs:double\"/>\n"
    "    <xs:attribute name=\"epochs\" type=\"xs:double\"/>\n"
    "  </xs:complexType>\n"
    "\n"
    "  <xs:complexType name=\"workloadType\">\n"
    "    <xs:annotation><xs:documentation>\n"
    "      A problem to estimate from a profile of one training pass: the pass\n"
    "      time is rolled up to an epoch (x ceil(samples-per-epoch / batch)\n"
    "      minibatches) and to a run (x epochs).  precision: fp32, tf32, bf16,\n"
    "      fp16 (optional).  cudnn-tf32: true when the runs keep PyTorch's\n"
    "      default of TF32 for fp32 convolutions and recurrent layers, as\n"
    "      `fom estimate --cudnn-tf32` (false when absent: IEEE fp32).\n"
    "      devices-per-run: devices one run trains on,\n"
    "      data-parallel (1 when absent): at most a node's devices (a node runs\n"
    "      floor(devices per node / devices-per-run) runs side by side) or a\n"
    "      multiple of them (whole nodes per run).  A run wider than one\n"
    "      device splits the batch over its devices and exchanges the\n"
    "      gradients (parameters x 4 bytes) each pass, in buckets overlapped\n"
    "      with the backward pass (src/model/comm.h); parameters: the trained\n"
    "      parameter count, read from the profile when absent and the trace\n"
    "      says it.  profile-batch: the batch the profile was taken at, when\n"
    "      the profile does not say it; the pass is rescaled from it to batch\n"
    "      (per device) as `fom estimate --batch` does.  Without it the batch\n"
    "      comes from a saved profile or the .meta.json beside a trace, and a\n"
    "      study whose profile says none of these is refused.\n"
    "    </xs:documentation></xs:annotation>\n"
    "    <xs:attribute name=\"profile\" type=\"xs:string\" use=\"required\"/>\n"
    "    <xs:attribute name=\"batch\" type=\"xs:positiveInteger\" use=\"required\"/>\n"
    "    <xs:attribute name=\"profile-batch\" type=\"xs:positiveInteger\"/>\n"
    "    <xs:attribute name=\"samples-per-epoch\" type=\"xs:positiveInteger\" use=\"required\"/>\n"
    "    <xs:attribute name=\"epochs\" type=\"xs:double\" use=\"required\"/>\n"
    "    <xs:attribute name=\"precision\" type=\"xs:string\"/>\n"
    "    <xs:attribute name=\"cudnn-tf32\" type=\"xs:boolean\"/>\n"
    "    <xs:attribute name=\"devices-per-run\" type=\"xs:positiveInteger\"/>\n"
    "    <xs:attribute name=\"parameters\" type=\"xs:positiveInteger\"/>\n"
    "  </xs:complexType>\n"
    "\n"
    "  <xs:complexType name=\"timeType\">\n"
    "    <xs:annotation><xs:documentation>\n"
    "      A measured time on one system: exactly one of per-unit (one whole\n"
    "      unit of work) or per-epoch, each a number with a time unit (s, min,\n"
    "      h, d; also ns, us, ms), e.g. \"60h\", \"3612 s\".  Several time elements\n"
    "      for the same system are repeated measurements: fom uses their median\n"
    "      and a bootstrap confidence interval.\n"
    "    </xs:documentation></xs:annotation>\n"
    "    <xs:attribute name=\"system\" type=\"xs:string\" use=\"required\"/>\n"
    "    <xs:attribute name=\"per-unit\" type=\"xs:string\"/>\n"
    "    <xs:attribute name=\"per-epoch\" type=\"xs:string\"/>\n"
    "  </xs:complexType>\n"
    "\n"
    "</xs:schema>\n";

const char *study_xsd_text(void)
{
    return study_xsd;
}

/* ---- parsing ---------------------------------------------------------- */

/* Ids to their index: open addressing, FNV-1a, at most half full.  A
 * study may hold as many systems and times as its size cap allows (some
 * 10^5), so matching a time to its system must not scan every system. */
struct id_hash {
    size_t *slot;           /* index + 1; 0 = empty */
    size_t cap;             /* a power of two, or 0 */
};

struct load_state {
    const char *path;
    struct diag *d;
    int errors;
    int entity_line;        /* > 0: an entity declaration was seen there */
    char *entity_name;
    struct id_hash systems, problems;
};

static size_t id_hash_of(const char *id)
{
    uint64_t h = 1469598103934665603ull;          /* FNV-1a 64-bit offset basis */
    for (const unsigned char *p = (const unsigned char *)(id ? id : ""); *p; p++)
        h = (h ^ *p) * 1099511628211ull;          /* FNV-1a 64-bit prime */
    return (size_t)h;
}

/* The index of id (ids[i] the id of entry i), or -1. */
static long id_hash_find(const struct id_hash *h, const char *id, const char *(*id_at)(const void *, size_t),
                         const void *arr)
{
    if (!h->cap || !id)
        return -1;
    for (size_t i = id_hash_of(id) & (h->cap - 1); h->slot[i]; i = (i + 1) & (h->cap - 1))
        if (id_at(arr, h->slot[i] - 1) && strcmp(id_at(arr, h->slot[i] - 1), id) == 0)
            return (long)(h->slot[i] - 1);
    return -1;
}

/* Add entry idx (n entries in all once added). */
static void id_hash_add(struct id_hash *h, size_t idx, size_t n, const char *(*id_at)(const void *, size_t),
                        const void *arr)
{
    if (2 * n > h->cap) {
        free(h->slot);
        h->cap = h->cap ? 2 * h->cap : 64;
        while (2 * n > h->cap)
            h->cap *= 2;
        h->slot = xcalloc(h->cap, sizeof *h->slot);
        for (size_t k = 0; k < n; k++) {
            if (k == idx)
                continue;
            size_t i = id_hash_of(id_at(arr, k)) & (h->cap - 1);
            while (h->slot[i])
                i = (i + 1) & (h->cap - 1);
            h->slot[i] = k + 1;
        }
    }
    size_t i = id_hash_of(id_at(arr, idx)) & (h->cap - 1);
    while (h->slot[i])
        i = (i + 1) & (h->cap - 1);
    h->slot[i] = idx + 1;
}

static const char *system_id_at(const void *arr, size_t i)
{
    return ((const struct study_system *)arr)[i].id;
}

static const char *problem_id_at(const void *arr, size_t i)
{
    return ((const struct study_problem *)arr)[i].id;
}

/* Keeps libxml2's wording but in our format: lowercase start, no newline,
 * no full stop. */
static void report_xml_error(struct load_state *st, long line, long col, const char *msg)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addstr(&sb, msg ? msg : "malformed XML");
    while (sb.len && (sb.buf[sb.len - 1] == '\n' || sb.buf[sb.len - 1] == '.' ||
                      sb.buf[sb.len - 1] == ' '))
        sb.buf[--sb.len] = '\0';
    if (sb.len && sb.buf[0] >= 'A' && sb.buf[0] <= 'Z' &&
        !(sb.len > 1 && sb.buf[1] >= 'A' && sb.buf[1] <= 'Z'))
        sb.buf[0] = (char)(sb.buf[0] - 'A' + 'a');
    diag_error_at_quote(st->d, st->path, line, 0, col, "%s", strbuf_str(&sb));
    st->errors++;
    strbuf_release(&sb);
}

static void on_parse_error(void *data, xmlErrorPtr err)
{
    xmlParserCtxtPtr ctxt = data;
    struct load_state *st = ctxt->_private;
    if (!err || err->level == XML_ERR_WARNING)
        return;
    /* The first well-formedness error is the one to fix; the ones after it
     * are mostly echoes.  Stopping for an entity also raises one. */
    if (st->errors || st->entity_line)
        return;
    report_xml_error(st, err->line, err->int2, err->message);
}

/* Entities are how XML reads other files (XXE) and blows up memory
 * (billion laughs); a study never needs one, so declaring any stops the
 * parse before it can be referenced. */
static void on_entity_decl(void *data, const xmlChar *name, int type,
                           const xmlChar *public_id, const xmlChar *system_id,
                           xmlChar *content)
{
    xmlParserCtxtPtr ctxt = data;
    struct load_state *st = ctxt->_private;
    if (!st->entity_line) {
        st->entity_line = xmlSAX2GetLineNumber(ctxt);
        if (st->entity_line <= 0)
            st->entity_line = 1;
        st->entity_name = xstrdup(name ? (const char *)name : "?");
    }
    xmlStopParser(ctxt);
}

static void on_schema_error(void *data, xmlErrorPtr err)
{
    struct load_state *st = data;
    if (!err || err->level == XML_ERR_WARNING)
        return;
    if (st->errors == STUDY_MAX_SCHEMA_ERRORS)
        diag_error_at_quote(st->d, st->path, err->line, 0, 0, "too many schema errors; stopping here");
    if (st->errors >= STUDY_MAX_SCHEMA_ERRORS) {
        st->errors++;
        return;
    }
    report_xml_error(st, err->line, 0, err->message);
}

static int read_whole_file(const char *path, struct strbuf *sb, struct diag *d)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return diag_syserr(d, "cannot open '%s': %s", path, strerror(errno));
    char buf[8192];
    size_t n;
    int rc = FOM_OK;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
        strbuf_add(sb, buf, n);
        if (sb->len > STUDY_MAX_BYTES) {
            rc = diag_error_at(d, path, 0, 0, "found a file over %u MiB, expected a study file",
                               STUDY_MAX_BYTES >> 20);
            goto out;
        }
    }
    if (ferror(fp))
        rc = diag_syserr(d, "cannot read '%s': %s", path, strerror(errno));
out:
    fclose(fp);
    return rc;
}

static int parse_xml(const char *path, const struct strbuf *text, struct load_state *st,
                     xmlDocPtr *doc_out)
{
    int rc = FOM_OK;
    xmlDocPtr doc = NULL;
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt)
        return diag_syserr(st->d, "out of memory creating an XML parser");
    ctxt->_private = st;
    ctxt->sax->serror = on_parse_error;
    ctxt->sax->entityDecl = on_entity_decl;
    if (text->len > (size_t)INT32_MAX) {
        rc = diag_error_at(st->d, path, 0, 0, "found a file too large, expected a study file");
        goto out;
    }
    /* No XML_PARSE_NOENT (substitution), no XML_PARSE_DTDLOAD: nothing
     * outside the file is ever read. */
    doc = xmlCtxtReadMemory(ctxt, strbuf_str(text), (int)text->len, path, NULL,
                            XML_PARSE_NONET | XML_PARSE_BIG_LINES | XML_PARSE_NOWARNING);
    if (st->entity_line) {
        rc = diag_error_at_quote(st->d, path, st->entity_line, 0, 0,
                                 "found a declaration of entity '%s', expected no entities "
                                 "(refused: they can read other files or expand without bound)",
                                 st->entity_name);
        goto out;
    }
    if (!doc || !ctxt->wellFormed) {
        if (!st->errors)
            report_xml_error(st, 0, 0, "malformed XML");
        rc = FOM_EDATA;
        goto out;
    }
    *doc_out = doc;
    doc = NULL;
out:
    if (doc)
        xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    return rc;
}

static int validate_schema(xmlDocPtr doc, struct load_state *st)
{
    int rc = FOM_OK;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    /* Another fom file given where a study belongs: say which it is. */
    if (root && xmlStrcmp(root->name, (const xmlChar *)"study") != 0) {
        int machine = xmlStrcmp(root->name, (const xmlChar *)"machine") == 0;
        return diag_error_at_quote(st->d, st->path, xmlGetLineNo(root), 0, 0,
                                   "found <%s>%s, expected a study (<study>; see reports/README.md)",
                                   (const char *)root->name,
                                   machine ? ": this is a machine file (give it to a study's <system "
                                             "machine=\"...\">, or to fom machine show)" : "");
    }
    xmlSchemaParserCtxtPtr pctxt = NULL;
    xmlSchemaPtr schema = NULL;
    xmlSchemaValidCtxtPtr vctxt = NULL;

    pctxt = xmlSchemaNewMemParserCtxt(study_xsd, (int)(sizeof study_xsd - 1));
    if (!pctxt) {
        rc = diag_syserr(st->d, "out of memory reading the study schema");
        goto out;
    }
    xmlSchemaSetParserStructuredErrors(pctxt, on_schema_error, st);
    schema = xmlSchemaParse(pctxt);
    if (!schema) {
        rc = diag_syserr(st->d, "the built-in study schema does not compile");
        goto out;
    }
    vctxt = xmlSchemaNewValidCtxt(schema);
    if (!vctxt) {
        rc = diag_syserr(st->d, "out of memory validating '%s'", st->path);
        goto out;
    }
    xmlSchemaSetValidStructuredErrors(vctxt, on_schema_error, st);
    int v = xmlSchemaValidateDoc(vctxt, doc);
    if (v != 0) {
        if (!st->errors)
            report_xml_error(st, 0, 0, "does not match the study schema");
        rc = v < 0 ? diag_syserr(st->d, "cannot validate '%s'", st->path) : FOM_EDATA;
    }
out:
    if (vctxt)
        xmlSchemaFreeValidCtxt(vctxt);
    if (schema)
        xmlSchemaFree(schema);
    if (pctxt)
        xmlSchemaFreeParserCtxt(pctxt);
    return rc;
}

/* ---- building the struct ------------------------------------------------ */

/* The attribute's value (caller frees) or NULL when absent. */
static char *attr(xmlNodePtr n, const char *name)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v)
        return NULL;
    char *s = xstrdup((const char *)v);
    xmlFree(v);
    return s;
}

static int is_elem(xmlNodePtr n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* Relative paths in a study are relative to the study file. */
static char *resolve_path(const char *study_path, const char *p)
{
    const char *slash = strrchr(study_path, '/');
    if (p[0] == '/' || !slash)
        return xstrdup(p);
    struct strbuf sb = STRBUF_INIT;
    strbuf_add(&sb, study_path, (size_t)(slash - study_path) + 1);
    strbuf_addstr(&sb, p);
    return strbuf_detach(&sb);
}

static int parse_int64(const char *s, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno == ERANGE)
        return -1;
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
        end++;
    if (*end)
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* A positive finite number without unit (weight, epochs). */
static int parse_positive(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v) || v <= 0)
        return -1;
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
        end++;
    if (*end)
        return -1;
    *out = v;
    return 0;
}

static void sem_error(struct load_state *st, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void sem_error(struct load_state *st, long line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror_at_quote(st->d, st->path, line, 0, 0, fmt, ap);
    va_end(ap);
    st->errors++;
}

static void system_ids(const struct study *s, struct strbuf *sb)
{
    for (size_t i = 0; i < s->n_systems; i++) {
        if (i)
            strbuf_addstr(sb, ", ");
        strbuf_addf(sb, "'%s'", s->systems[i].id);
    }
}

static long find_system(const struct study *s, const struct load_state *st, const char *id)
{
    return id_hash_find(&st->systems, id, system_id_at, s->systems);
}

static void load_system(xmlNodePtr n, struct study *s, struct load_state *st)
{
    long line = xmlGetLineNo(n);
    char *id = attr(n, "id"), *nodes = attr(n, "nodes");
    char *machine = attr(n, "machine"), *kernels = attr(n, "kernels");
    char *power = attr(n, "node-power"), *price = attr(n, "node-price");
    long dup = find_system(s, st, id);
    if (dup >= 0) {
        sem_error(st, line, "found a second system '%s', expected unique ids (first at line %ld)",
                  id, s->systems[dup].line);
        goto out;
    }
    ALLOC_GROW(s->systems, s->n_systems + 1, s->alloc_systems);
    struct study_system *sys = &s->systems[s->n_systems++];
    memset(sys, 0, sizeof *sys);
    sys->id = id;
    id = NULL;
    sys->line = line;
    id_hash_add(&st->systems, s->n_systems - 1, s->n_systems, system_id_at, s->systems);
    if (parse_int64(nodes, &sys->nodes) || sys->nodes <= 0)
        sem_error(st, line, "found nodes='%s', expected a positive integer", nodes);
    if (machine)
        sys->machine = resolve_path(s->path, machine);
    if (kernels)
        sys->kernels = resolve_path(s->path, kernels);
    const char *want = NULL;
    if (power && (unit_parse(power, QTY_POWER, &sys->node_power_w, &want) ||
                  !(sys->node_power_w > 0)))
        sem_error(st, line, "found node-power='%s', expected a positive power with a unit "
                  "(e.g. \"2.8kW\")", power);
    if (price && (parse_positive(price, &sys->node_price_usd) || !isfinite(sys->node_price_usd)))
        sem_error(st, line, "found node-price='%s', expected a positive number of US dollars", price);
out:
    free(power);
    free(price);
    free(id);
    free(nodes);
    free(machine);
    free(kernels);
}

static void load_workload(xmlNodePtr n, struct study *s, struct study_problem *p,
                          struct load_state *st)
{
    struct study_workload *w = &p->workload;
    long line = xmlGetLineNo(n);
    char *profile = attr(n, "profile"), *batch = attr(n, "batch");
    char *spe = attr(n, "samples-per-epoch"), *epochs = attr(n, "epochs");
    char *prec = attr(n, "precision");
    char *dpr = attr(n, "devices-per-run"), *params = attr(n, "parameters");
    char *pbatch = attr(n, "profile-batch");
    char *tf32 = attr(n, "cudnn-tf32");
    w->present = 1;
    w->line = line;
    w->profile = resolve_path(s->path, profile);
    if (parse_int64(batch, &w->batch) || w->batch <= 0)
        sem_error(st, line, "found batch='%s', expected a positive integer", batch);
    if (pbatch && (parse_int64(pbatch, &w->profile_batch) || w->profile_batch <= 0))
        sem_error(st, line, "found profile-batch='%s', expected a positive integer", pbatch);
    free(pbatch);
    if (parse_int64(spe, &w->samples_per_epoch) || w->samples_per_epoch <= 0)
        sem_error(st, line, "found samples-per-epoch='%s', expected a positive integer", spe);
    if (parse_positive(epochs, &w->epochs))
        sem_error(st, line, "found epochs='%s', expected a positive number", epochs);
    w->precision = PREC_UNKNOWN;
    if (prec) {
        w->precision = precision_parse(prec);
        if (w->precision == PREC_UNKNOWN)
            sem_error(st, line, "found precision='%s', expected fp32, tf32, bf16 or fp16", prec);
    }
    /* xs:boolean's four spellings (the schema has checked it is one) */
    w->cudnn_tf32 = tf32 && (strcmp(tf32, "true") == 0 || strcmp(tf32, "1") == 0);
    free(tf32);
    free(profile);
    free(spe);
    w->devices_per_run = 1;
    if (dpr && (parse_int64(dpr, &w->devices_per_run) || w->devices_per_run <= 0))
        sem_error(st, line, "found devices-per-run='%s', expected a positive integer", dpr);
    if (params && (parse_int64(params, &w->parameters) || w->parameters <= 0))
        sem_error(st, line, "found parameters='%s', expected a positive integer", params);
    if (w->devices_per_run > 1 && w->batch > 0 && w->batch % w->devices_per_run)
        sem_error(st, line, "found batch='%s' over devices-per-run='%s', expected a batch "
                  "that splits evenly over the devices", batch, dpr);
    free(epochs);
    free(prec);
    free(dpr);
    free(params);
    free(batch);
}

static void load_time(xmlNodePtr n, struct study *s, struct study_problem *p,
                      struct load_state *st)
{
    long line = xmlGetLineNo(n);
    char *sysid = attr(n, "system");
    char *unit = attr(n, "per-unit"), *epoch = attr(n, "per-epoch");
    long si = find_system(s, st, sysid);
    struct study_time t = { 0 };
    t.line = line;
    if (si < 0) {
        struct strbuf sb = STRBUF_INIT;
        system_ids(s, &sb);
        sem_error(st, line, "found system='%s', expected one of the systems %s", sysid,
                  strbuf_str(&sb));
        strbuf_release(&sb);
        goto out;
    }
    t.system = (size_t)si;
    if ((unit != NULL) == (epoch != NULL)) {
        sem_error(st, line, "found %s, expected exactly one of per-unit or per-epoch",
                  unit ? "both per-unit and per-epoch" : "neither per-unit nor per-epoch");
        goto out;
    }
    t.basis = unit ? TIME_PER_UNIT : TIME_PER_EPOCH;
    const char *name = unit ? "per-unit" : "per-epoch";
    const char *text = unit ? unit : epoch;
    const char *expected = NULL;
    if (unit_parse(text, QTY_TIME, &t.time_s, &expected)) {
        sem_error(st, line, "found %s='%s', expected %s", name, text, expected);
        goto out;
    }
    if (!(t.time_s > 0)) {
        sem_error(st, line, "found %s='%s', expected a time greater than zero", name, text);
        goto out;
    }
    ALLOC_GROW(p->times, p->n_times + 1, p->alloc_times);
    p->times[p->n_times++] = t;
out:
    free(sysid);
    free(unit);
    free(epoch);
}

static long find_problem(const struct study *s, const struct load_state *st, const char *id)
{
    return id_hash_find(&st->problems, id, problem_id_at, s->problems);
}

static void load_problem(xmlNodePtr n, struct study *s, struct load_state *st)
{
    long line = xmlGetLineNo(n);
    char *id = attr(n, "id"), *weight = attr(n, "weight"), *epochs = attr(n, "epochs");
    long dup = find_problem(s, st, id);
    if (dup >= 0) {
        sem_error(st, line, "found a second problem '%s', expected unique ids (first at line %ld)",
                  id, s->problems[dup].line);
        goto out;
    }
    ALLOC_GROW(s->problems, s->n_problems + 1, s->alloc_problems);
    struct study_problem *p = &s->problems[s->n_problems++];
    memset(p, 0, sizeof *p);
    p->id = id;
    id = NULL;
    p->line = line;
    id_hash_add(&st->problems, s->n_problems - 1, s->n_problems, problem_id_at, s->problems);
    p->weight = 1.0;
    if (weight) {
        p->has_weight = 1;
        s->has_weights = 1;
        if (parse_positive(weight, &p->weight))
            sem_error(st, line, "found weight='%s', expected a positive number", weight);
    }
    if (epochs && parse_positive(epochs, &p->epochs))
        sem_error(st, line, "found epochs='%s', expected a positive number", epochs);
    int errors_before = st->errors;
    for (xmlNodePtr c = n->children; c; c = c->next) {
        if (is_elem(c, "workload"))
            load_workload(c, s, p, st);
        else if (is_elem(c, "time"))
            load_time(c, s, p, st);
    }
    if (p->workload.present && p->workload.epochs > 0) {
        if (p->epochs > 0 && p->epochs != p->workload.epochs)
            sem_error(st, line,
                      "found epochs='%s' on problem '%s' but %g on its workload, expected "
                      "one number of epochs per unit of work", epochs, p->id, p->workload.epochs);
        p->epochs = p->workload.epochs;
    }
    for (size_t i = 0; i < p->n_times; i++) {
        if (p->times[i].basis == TIME_PER_EPOCH && !(p->epochs > 0)) {
            sem_error(st, p->times[i].line,
                      "found a per-epoch time in problem '%s' without epochs, expected an "
                      "epochs attribute on <problem> or a <workload>", p->id);
            break;
        }
    }
    /* A problem is only comparable if every system has a time for it, or
     * a workload to estimate the missing ones from.  After a bad <time>
     * the missing one is that time, already reported. */
    if (!p->workload.present && st->errors == errors_before) {
        char *timed = xcalloc(s->n_systems + 1, 1);
        for (size_t k = 0; k < p->n_times; k++)
            if (p->times[k].system < s->n_systems)
                timed[p->times[k].system] = 1;
        for (size_t si = 0; si < s->n_systems; si++) {
            if (!timed[si])
                sem_error(st, line,
                          "found no time for system '%s' in problem '%s', expected a <time> "
                          "for every system or a <workload> to estimate it from",
                          s->systems[si].id, p->id);
        }
        free(timed);
    }
out:
    free(id);
    free(weight);
    free(epochs);
}

static void load_tree(xmlDocPtr doc, struct study *s, struct load_state *st)
{
    xmlNodePtr root = xmlDocGetRootElement(doc);
    char *baseline = attr(root, "baseline");
    s->name = attr(root, "name");
    for (xmlNodePtr c = root->children; c; c = c->next)
        if (is_elem(c, "system"))
            load_system(c, s, st);
    for (xmlNodePtr c = root->children; c; c = c->next)
        if (is_elem(c, "problem"))
            load_problem(c, s, st);
    long b = find_system(s, st, baseline);
    if (b < 0) {
        struct strbuf sb = STRBUF_INIT;
        system_ids(s, &sb);
        sem_error(st, xmlGetLineNo(root), "found baseline='%s', expected one of the systems %s",
                  baseline, strbuf_str(&sb));
        strbuf_release(&sb);
    } else {
        s->baseline = (size_t)b;
    }
    free(baseline);
}

int study_load(const char *path, struct study *out, struct diag *d)
{
    struct strbuf text = STRBUF_INIT;
    struct load_state st = { .path = path, .d = d };
    xmlDocPtr doc = NULL;
    int rc;

    out->path = xstrdup(path);
    rc = read_whole_file(path, &text, d);
    if (rc)
        goto out;
    rc = parse_xml(path, &text, &st, &doc);
    if (rc)
        goto out;
    rc = validate_schema(doc, &st);
    if (rc)
        goto out;
    load_tree(doc, out, &st);
    if (st.errors)
        rc = FOM_EDATA;
out:
    if (doc)
        xmlFreeDoc(doc);
    free(st.entity_name);
    free(st.systems.slot);
    free(st.problems.slot);
    strbuf_release(&text);
    return rc;
}

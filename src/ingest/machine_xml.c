/* Machine files: libxml2 parse (no network, no entities), schema check
 * with the built-in schema, then value checks with units.
 *
 * Entities are refused rather than left unexpanded: a machine file has no
 * use for them, and refusing at the declaration is the only way to be sure
 * that neither an external file (XXE) nor an exponential internal
 * expansion (billion laughs) is ever read. */
#include "ingest/machine_xml.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "core/xalloc.h"

/* The first error libxml2 reports; later ones are mostly consequences. */
struct xml_err {
    long line;
    long col;       /* libxml2's column of a parse error, for the caret; 0: none */
    char *msg;
};

/* libxml2's messages start with a capital and end with ".\n"; ours are
 * lowercase without a full stop. */
static char *tidy_message(const char *m)
{
    struct strbuf sb = STRBUF_INIT;
    size_t n = strlen(m);
    while (n > 0 && (isspace((unsigned char)m[n - 1]) || m[n - 1] == '.'))
        n--;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)m[i];
        if (c == '\n')
            c = ' ';
        int starts = i == 0 || (i >= 2 && m[i - 1] == ' ' && (m[i - 2] == ':' || m[i - 2] == '.'));
        if (starts && isupper(c) && i + 1 < n && islower((unsigned char)m[i + 1]))
            c = tolower(c);
        strbuf_addch(&sb, c);
    }
    return strbuf_detach(&sb);
}

static void err_set(struct xml_err *e, long line, const char *msg)
{
    if (e->msg)
        return;
    e->line = line;
    e->msg = tidy_message(msg);
}

static void on_parse_error(void *user, xmlErrorPtr err)
{
    xmlParserCtxtPtr ctxt = user;
    if (!err || err->level == XML_ERR_WARNING)
        return;
    struct xml_err *e = ctxt->_private;
    if (!e->msg)
        e->col = err->int2;
    err_set(e, err->line, err->message ? err->message : "malformed XML");
}

static void on_valid_error(void *user, xmlErrorPtr err)
{
    if (!err || err->level == XML_ERR_WARNING)
        return;
    err_set(user, err->line, err->message ? err->message : "schema validation failed");
}

static void refuse_entity(xmlParserCtxtPtr ctxt, const char *what, const xmlChar *name)
{
    struct xml_err *e = ctxt->_private;
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "found %s '%s', expected no entities (machine files may not declare or use them)",
                what, name ? (const char *)name : "?");
    if (!e->msg) {
        e->line = xmlSAX2GetLineNumber(ctxt);
        e->msg = strbuf_detach(&sb);
    }
    strbuf_release(&sb);
    xmlStopParser(ctxt);
}

static void on_entity_decl(void *user, const xmlChar *name, int type,
                           const xmlChar *public_id, const xmlChar *system_id,
                           xmlChar *content)
{
    refuse_entity(user, "entity declaration", name);
}

/* Called for every reference other than the five predefined entities. */
static xmlEntityPtr on_get_entity(void *user, const xmlChar *name)
{
    refuse_entity(user, "entity reference", name);
    return NULL;
}

static xmlEntityPtr on_get_param_entity(void *user, const xmlChar *name)
{
    refuse_entity(user, "parameter entity reference", name);
    return NULL;
}

static void on_reference(void *user, const xmlChar *name)
{
    refuse_entity(user, "entity reference", name);
}

/* Parse buf into a tree; on failure reports and returns NULL. */
static xmlDocPtr parse_doc(const char *name, const char *buf, size_t len, struct diag *d, int *rc)
{
    struct xml_err e = { 0, 0, NULL };
    xmlDocPtr doc = NULL;
    xmlParserCtxtPtr ctxt = NULL;
    *rc = 0;
    if (len == 0) {
        *rc = diag_error_at(d, name, 0, 0, "found an empty file, expected a <machine> document");
        goto out;
    }
    ctxt = xmlCreateMemoryParserCtxt(buf, (int)len);
    if (!ctxt) {
        *rc = diag_syserr(d, "cannot create an XML parser for '%s'", name);
        goto out;
    }
    /* Never XML_PARSE_NOENT, DTDLOAD or DTDATTR: nothing is substituted or
     * fetched.  NOERROR/NOWARNING silence libxml2's own printing; errors
     * still reach serror. */
    xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                            XML_PARSE_BIG_LINES | XML_PARSE_NOCDATA);
    ctxt->_private = &e;
    ctxt->sax->serror = on_parse_error;
    ctxt->sax->entityDecl = on_entity_decl;
    ctxt->sax->getEntity = on_get_entity;
    ctxt->sax->getParameterEntity = on_get_param_entity;
    ctxt->sax->reference = on_reference;
    ctxt->sax->externalSubset = NULL;
    xmlParseDocument(ctxt);
    doc = ctxt->myDoc;
    ctxt->myDoc = NULL;
    if (!ctxt->wellFormed || e.msg) {
        if (e.msg)
            *rc = diag_error_at_quote(d, name, e.line, 0, e.col, "%s", e.msg);
        else
            *rc = diag_error_at(d, name, 0, 0, "found malformed XML, expected a machine document");
        xmlFreeDoc(doc);
        doc = NULL;
    }
out:
    free(e.msg);
    if (ctxt)
        xmlFreeParserCtxt(ctxt);
    return doc;
}

static int validate_doc(const char *name, xmlDocPtr doc, struct diag *d)
{
    struct xml_err e = { 0, 0, NULL };
    xmlSchemaParserCtxtPtr pc = NULL;
    xmlSchemaPtr schema = NULL;
    xmlSchemaValidCtxtPtr vc = NULL;
    int rc = 0;
    pc = xmlSchemaNewMemParserCtxt(machine_xsd, (int)strlen(machine_xsd));
    if (!pc) {
        rc = diag_syserr(d, "cannot load the machine schema");
        goto out;
    }
    xmlSchemaSetParserStructuredErrors(pc, on_valid_error, &e);
    schema = xmlSchemaParse(pc);
    if (!schema) {
        rc = diag_syserr(d, "cannot load the machine schema: %s", e.msg ? e.msg : "unknown error");
        goto out;
    }
    vc = xmlSchemaNewValidCtxt(schema);
    if (!vc) {
        rc = diag_syserr(d, "cannot create a schema validator");
        goto out;
    }
    xmlSchemaSetValidStructuredErrors(vc, on_valid_error, &e);
    int r = xmlSchemaValidateDoc(vc, doc);
    if (r != 0 || e.msg) {
        if (r < 0 && !e.msg)
            rc = diag_syserr(d, "%s: schema validation failed internally", name);
        else
            rc = diag_error_at_quote(d, name, e.msg ? e.line : 0, 0, 0, "%s",
                                     e.msg ? e.msg : "found a document the schema rejects, expected a valid machine");
    }
out:
    free(e.msg);
    if (vc)
        xmlSchemaFreeValidCtxt(vc);
    if (schema)
        xmlSchemaFree(schema);
    if (pc)
        xmlSchemaFreeParserCtxt(pc);
    return rc;
}

/* ---- values ---------------------------------------------------------- */

struct loader {
    const char *file;
    struct diag *d;
    struct machine *m;
};

static long node_line(xmlNodePtr n)
{
    return n ? xmlGetLineNo(n) : 0;
}

/* Text with surrounding white space removed; caller frees. */
static char *trimmed(const xmlChar *s)
{
    if (!s)
        return NULL;
    const char *b = (const char *)s;
    while (isspace((unsigned char)*b))
        b++;
    size_t n = strlen(b);
    while (n > 0 && isspace((unsigned char)b[n - 1]))
        n--;
    return xstrndup(b, n);
}

static char *node_text(xmlNodePtr n)
{
    xmlChar *c = xmlNodeGetContent(n);
    char *s = trimmed(c);
    xmlFree(c);
    return s ? s : xstrdup("");
}

static char *node_attr(xmlNodePtr n, const char *name)
{
    xmlChar *c = xmlGetProp(n, (const xmlChar *)name);
    char *s = trimmed(c);
    xmlFree(c);
    return s;
}

/* Explain why unit_parse refused text: no number, no unit, which unit. */
static int bad_quantity(struct loader *L, xmlNodePtr n, const char *where,
                        const char *text, const char *expected)
{
    const char *p = text;
    if (*p == '+' || *p == '-')
        p++;
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
        errno = 0;
        char *end;
        double v = strtod(text, &end);
        while (isspace((unsigned char)*end))
            end++;
        size_t ulen = strcspn(end, " \t\r\n");
        const char *rest = end + ulen;
        while (isspace((unsigned char)*rest))
            rest++;
        if (errno == ERANGE || !isfinite(v))
            return diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                       "found '%s' in %s, expected a finite number with a unit", text, where);
        if (ulen == 0)
            return diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                       "found '%s' with no unit in %s, expected %s", text, where, expected);
        if (!*rest)
            return diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                       "found unit '%.*s' in %s, expected %s", (int)ulen, end, where, expected);
    }
    return diag_error_at_quote(L->d, L->file, node_line(n), 0, 0, "found '%s' in %s, expected %s",
                               text, where, expected);
}

/* A positive, finite quantity of kind q. */
static int get_qty(struct loader *L, xmlNodePtr n, const char *where, const char *text,
                   enum qty q, double *out)
{
    const char *expected = NULL;
    double v = 0;
    int rc = unit_parse(text, q, &v, &expected);
    if (rc == UNIT_ERANGE)
        return diag_error_at(L->d, L->file, node_line(n), 0, "found '%s' in %s, expected %s",
                             text, where, expected);
    if (rc != 0)
        return bad_quantity(L, n, where, text, expected);
    if (!(v > 0))
        return diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                   "found '%s' in %s, expected a value greater than zero", text, where);
    *out = v;
    return 0;
}

/* An optional attribute holding a quantity: absent leaves *out alone. */
static int attr_qty(struct loader *L, xmlNodePtr n, const char *attr, enum qty q, double *out)
{
    char *text = node_attr(n, attr);
    int rc = 0;
    if (text) {
        struct strbuf where = STRBUF_INIT;
        strbuf_addf(&where, "<%s %s>", (const char *)n->name, attr);
        rc = get_qty(L, n, where.buf, text, q, out);
        strbuf_release(&where);
    }
    free(text);
    return rc;
}

static int text_qty(struct loader *L, xmlNodePtr n, enum qty q, double *out)
{
    char *text = node_text(n);
    struct strbuf where = STRBUF_INIT;
    strbuf_addf(&where, "<%s>", (const char *)n->name);
    int rc = get_qty(L, n, where.buf, text, q, out);
    strbuf_release(&where);
    free(text);
    return rc;
}

static int is_elem(xmlNodePtr n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* A positive count of at most max in an element's text (<devices-per-node>,
 * <compute-units>). */
static int load_count(struct loader *L, xmlNodePtr n, long max, int *out)
{
    char *text = node_text(n);
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    int rc = 0;
    if (end == text || *end || errno == ERANGE || v < 1 || v > max)
        rc = diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                 "found '%s' in <%s>, expected an integer from 1 to %ld", text,
                                 (const char *)n->name, max);
    else
        *out = (int)v;
    free(text);
    return rc;
}

static int load_peak(struct loader *L, xmlNodePtr n, long seen[PREC_COUNT][EXEC_COUNT])
{
    char *prec = node_attr(n, "precision");
    char *unit = node_attr(n, "unit");
    int rc = 0;
    enum precision p = prec ? precision_parse(prec) : PREC_UNKNOWN;
    int u = !unit ? -1 : strcmp(unit, "vector") == 0 ? EXEC_VECTOR
                       : strcmp(unit, "matrix") == 0 ? EXEC_MATRIX : -1;
    if (p == PREC_UNKNOWN || u < 0) {
        rc = diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                 "found <peak precision=\"%s\" unit=\"%s\">, expected a precision "
                                 "(fp64, fp32, tf32, bf16, fp16, fp8, int8) and unit (vector, matrix)",
                                 prec ? prec : "", unit ? unit : "");
        goto out;
    }
    if (seen[p][u]) {
        rc = diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                 "found a second <peak precision=\"%s\" unit=\"%s\">, expected one "
                                 "(the first is on line %ld)", prec, unit, seen[p][u]);
        goto out;
    }
    seen[p][u] = node_line(n) > 0 ? node_line(n) : 1;
    rc = text_qty(L, n, QTY_RATE, &L->m->peak_flops[p][u]);
out:
    free(prec);
    free(unit);
    return rc;
}

static int load_memory(struct loader *L, xmlNodePtr n)
{
    struct machine *m = L->m;
    struct mem_level lv = { NULL, 0, 0 };
    int rc = attr_qty(L, n, "capacity", QTY_BYTES, &lv.capacity_b);
    if (!rc)
        rc = attr_qty(L, n, "bandwidth", QTY_BW, &lv.bw_bs);
    if (rc)
        return rc;
    lv.name = node_attr(n, "level");
    if (!lv.name || !*lv.name) {
        free(lv.name);
        return diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                   "found <memory> without a level name, expected level=\"HBM3\" or similar");
    }
    if (m->n_mem > 0) {
        const struct mem_level *prev = &m->mem[m->n_mem - 1];
        if (prev->capacity_b > 0 && lv.capacity_b > 0 && lv.capacity_b < prev->capacity_b) {
            rc = diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                     "found <memory level=\"%s\"> smaller than \"%s\" above it, "
                                     "expected levels closest to the cores first, main memory last",
                                     lv.name, prev->name);
            free(lv.name);
            return rc;
        }
    }
    size_t alloc = m->n_mem;
    ALLOC_GROW(m->mem, m->n_mem + 1, alloc);
    m->mem[m->n_mem++] = lv;
    return 0;
}

/* <overheads>: each attribute a time, its field in struct machine. */
static const struct { const char *attr; size_t off; } overhead_attrs[] = {
    { "launch", offsetof(struct machine, launch_latency_s) },
    { "kernel-gap", offsetof(struct machine, kernel_gap_s) },
    { "dispatch", offsetof(struct machine, dispatch_s) },
    { "rnn-forward-step", offsetof(struct machine, rnn_fwd_step_s) },
    { "rnn-backward-step", offsetof(struct machine, rnn_bwd_step_s) },
    { "rnn-persistent-forward", offsetof(struct machine, rnn_persist_fwd_s) },
    { "rnn-persistent-backward", offsetof(struct machine, rnn_persist_bwd_s) },
    { "rnn-persistent-forward-half", offsetof(struct machine, rnn_persist_fwd_half_s) },
    { "rnn-persistent-backward-half", offsetof(struct machine, rnn_persist_bwd_half_s) },
};

static int load_overheads(struct loader *L, xmlNodePtr n)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < sizeof overhead_attrs / sizeof overhead_attrs[0]; i++)
        rc = attr_qty(L, n, overhead_attrs[i].attr, QTY_TIME,
                      (double *)((char *)L->m + overhead_attrs[i].off));
    return rc;
}

/* nics="N" on the inter-node link: an integer from 1 to 64 (the most NICs
 * any shipped node has is 8; 64 leaves room and catches typos). */
static int link_nics(struct loader *L, xmlNodePtr n, const char *text, int inter, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!inter)
        return diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                   "found nics=\"%s\" on the intra-node link, expected nics only on "
                                   "<link scope=\"inter-node\">", text);
    if (end == text || *end || errno == ERANGE || v < 1 || v > 64)
        return diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                   "found nics=\"%s\", expected an integer from 1 to 64", text);
    *out = (int)v;
    return 0;
}

static int link_topology_attr(struct loader *L, xmlNodePtr n, const char *text, int inter,
                              enum link_topology *out)
{
    enum link_topology t = link_topology_parse(text);
    if (t == TOPO_COUNT || !link_topology_fits(t, inter))
        return diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                   "found topology=\"%s\" on the %s link, expected %s", text,
                                   inter ? "inter-node" : "intra-node",
                                   inter ? "fat-tree, dragonfly or torus" : "switch, direct or pcie");
    *out = t;
    return 0;
}

/* <link scope bandwidth latency fabric topology nics>: bandwidth is per
 * device (intra-node) or per NIC when nics is given, else the node's
 * injection (inter-node); the struct keeps the node's injection in bw_bs
 * either way. */
static int load_link(struct loader *L, xmlNodePtr n, long *intra_line, long *inter_line)
{
    char *scope = node_attr(n, "scope");
    char *topo = node_attr(n, "topology"), *nics = node_attr(n, "nics");
    int intra = scope && strcmp(scope, "intra-node") == 0;
    int inter = scope && strcmp(scope, "inter-node") == 0;
    long *seen = intra ? intra_line : inter_line;
    struct net_link *k = intra ? &L->m->intra : &L->m->inter;
    int rc = 0;
    if (!intra && !inter) {
        rc = diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                 "found <link scope=\"%s\">, expected intra-node or inter-node",
                                 scope ? scope : "");
        goto out;
    }
    if (*seen) {
        rc = diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                 "found a second <link scope=\"%s\">, expected one (the first is on line %ld)",
                                 scope, *seen);
        goto out;
    }
    *seen = node_line(n) > 0 ? node_line(n) : 1;
    rc = attr_qty(L, n, "bandwidth", QTY_BW, &k->bw_bs);
    if (!rc)
        rc = attr_qty(L, n, "latency", QTY_TIME, &k->latency_s);
    if (!rc && topo)
        rc = link_topology_attr(L, n, topo, inter, &k->topology);
    if (!rc && nics)
        rc = link_nics(L, n, nics, inter, &k->nics);
    if (rc)
        goto out;
    if (k->nics) {
        k->nic_bw_bs = k->bw_bs;
        k->bw_bs = k->nic_bw_bs * k->nics;
    }
    free(k->fabric);
    k->fabric = node_attr(n, "fabric");
out:
    free(scope);
    free(topo);
    free(nics);
    return rc;
}

static int load_price(struct loader *L, xmlNodePtr n)
{
    char *text = node_text(n);
    const char *p = text;
    int rc = 0;
    char *end = NULL;
    double v = 0;
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
        errno = 0;
        v = strtod(p, &end);
    }
    for (const char *s = text; *s; s++)
        if (*s == 'x' || *s == 'X')
            end = NULL;     /* no hex floats */
    if (!end || *end || errno == ERANGE || !isfinite(v) || !(v > 0))
        rc = diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                 "found '%s' in <price>, expected a number greater than zero (USD, no unit)",
                                 text);
    else
        L->m->price_usd = v;
    free(text);
    return rc;
}

static int load_tree(struct loader *L, xmlDocPtr doc)
{
    struct machine *m = L->m;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    long seen_peak[PREC_COUNT][EXEC_COUNT] = { { 0 } };
    long intra_line = 0, inter_line = 0;
    int n_peak = 0;
    int rc = 0;
    char *kind = NULL;

    if (!root || !is_elem(root, "machine"))
        return diag_error_at_quote(L->d, L->file, node_line(root), 0, 0,
                                   "found <%s>, expected <machine>", root ? (const char *)root->name : "");
    m->id = node_attr(root, "id");
    kind = node_attr(root, "kind");
    m->kind = !kind ? MACHINE_GPU : strcmp(kind, "cpu") == 0 ? MACHINE_CPU
              : strcmp(kind, "accel") == 0 ? MACHINE_ACCEL : MACHINE_GPU;
    for (xmlNodePtr n = root->children; n && !rc; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (is_elem(n, "name"))
            m->name = node_text(n);
        else if (is_elem(n, "vendor"))
            m->vendor = node_text(n);
        else if (is_elem(n, "device-name"))
            m->device_name = node_text(n);
        else if (is_elem(n, "table-name")) {
            m->table_names = xrealloc(m->table_names,
                                      (m->n_table_names + 1) * sizeof *m->table_names);
            m->table_names[m->n_table_names++] = node_text(n);
        }
        else if (is_elem(n, "devices-per-node"))
            rc = load_count(L, n, 1000000, &m->devices_per_node);
        else if (is_elem(n, "compute-units"))
            rc = load_count(L, n, 1000000, &m->compute_units);
        else if (is_elem(n, "peak")) {
            rc = load_peak(L, n, seen_peak);
            n_peak++;
        } else if (is_elem(n, "memory"))
            rc = load_memory(L, n);
        else if (is_elem(n, "overheads"))
            rc = load_overheads(L, n);
        else if (is_elem(n, "link"))
            rc = load_link(L, n, &intra_line, &inter_line);
        else if (is_elem(n, "power"))
            rc = text_qty(L, n, QTY_POWER, &m->power_w);
        else if (is_elem(n, "device-power"))
            rc = text_qty(L, n, QTY_POWER, &m->device_power_w);
        else if (is_elem(n, "host-power"))
            rc = text_qty(L, n, QTY_POWER, &m->host_power_w);
        else if (is_elem(n, "price"))
            rc = load_price(L, n);
        else if (is_elem(n, "source"))
            m->source = node_text(n);
        else
            rc = diag_error_at_quote(L->d, L->file, node_line(n), 0, 0,
                                     "found <%s>, expected a machine element", (const char *)n->name);
    }
    if (rc)
        goto out;
    /* A node's power from its parts when no <power> gives it whole. */
    if (m->power_w <= 0 && m->device_power_w > 0 && m->host_power_w > 0) {
        m->power_w = m->devices_per_node * m->device_power_w + m->host_power_w;
        m->power_from_parts = 1;
    }
    /* The schema already demands these; kept so that a schema edit cannot
     * let an unusable machine through. */
    if (!m->id || !m->name || !m->vendor || !m->source) {
        rc = diag_error_at_quote(L->d, L->file, node_line(root), 0, 0,
                                 "found a <machine> without id, <name>, <vendor> or <source>, expected all four");
        goto out;
    }
    if (n_peak == 0 || m->n_mem == 0) {
        rc = diag_error_at_quote(L->d, L->file, node_line(root), 0, 0,
                                 "found %d <peak> and %zu <memory> elements, expected at least one of each",
                                 n_peak, m->n_mem);
        goto out;
    }
    if (m->devices_per_node < 1) {
        rc = diag_error_at_quote(L->d, L->file, node_line(root), 0, 0,
                                 "found no <devices-per-node>, expected an integer >= 1");
        goto out;
    }
    if (!(m->mem[m->n_mem - 1].bw_bs > 0)) {
        xmlNodePtr last = NULL;
        for (xmlNodePtr n = root->children; n; n = n->next)
            if (is_elem(n, "memory"))
                last = n;
        rc = diag_error_at_quote(L->d, L->file, node_line(last), 0, 0,
                                 "found <memory level=\"%s\"> without bandwidth, expected main memory "
                                 "(the last level) to give one", m->mem[m->n_mem - 1].name);
        goto out;
    }
out:
    free(kind);
    return rc;
}

int machine_load_mem(const char *name, const char *buf, size_t len, struct machine *out,
                     struct diag *d)
{
    struct loader L = { name, d, out };
    int rc = 0;
    xmlDocPtr doc = NULL;
    memset(out, 0, sizeof *out);
    if (len > MACHINE_FILE_MAX) {
        rc = diag_error_at(d, name, 0, 0, "found more than %d bytes, expected a machine file "
                           "of at most %d", MACHINE_FILE_MAX, MACHINE_FILE_MAX);
        goto out;
    }
    doc = parse_doc(name, buf, len, d, &rc);
    if (!doc)
        goto out;
    rc = validate_doc(name, doc, d);
    if (rc)
        goto out;
    out->path = xstrdup(name);
    rc = load_tree(&L, doc);
out:
    if (doc)
        xmlFreeDoc(doc);
    if (rc) {
        machine_release(out);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

int machine_load(const char *path, struct machine *out, struct diag *d)
{
    struct strbuf sb = STRBUF_INIT;
    FILE *fp = NULL;
    int rc = 0;
    memset(out, 0, sizeof *out);
    fp = fopen(path, "rb");
    if (!fp) {
        rc = diag_syserr(d, "cannot open '%s': %s", path, strerror(errno));
        goto out;
    }
    char chunk[8192];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        strbuf_add(&sb, chunk, got);
        if (sb.len > MACHINE_FILE_MAX)
            break;  /* machine_load_mem reports the size */
    }
    if (ferror(fp)) {
        rc = diag_syserr(d, "cannot read '%s': %s", path, strerror(errno));
        goto out;
    }
    rc = machine_load_mem(path, strbuf_str(&sb), sb.len, out, d);
out:
    if (fp)
        fclose(fp);
    strbuf_release(&sb);
    return rc;
}

/* ---- schema ---------------------------------------------------------- */

/* Verbatim copy of machines/machine.xsd (u-machine checks they are equal). */
const char machine_xsd[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<!-- Schema of fom machine files (machines/*.xml).  The same text is built\n"
    "     into fom (src/ingest/machine_xml.c); a unit test keeps the two equal.\n"
    "     Quantities are strings here on purpose: fom parses their units itself\n"
    "     so that an error says which unit was found and which were expected. -->\n"
    "<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\" elementFormDefault=\"qualified\">\n"
    "\n"
    "  <xs:simpleType name=\"nonEmpty\">\n"
    "    <xs:restriction base=\"xs:string\">\n"
    "      <xs:minLength value=\"1\"/>\n"
    "    </xs:restriction>\n"
    "  </xs:simpleType>\n"
    "\n"
    "  <xs:simpleType name=\"id\">\n"
    "    <xs:restriction base=\"xs:string\">\n"
    "      <xs:pattern value=\"[A-Za-z0-9][A-Za-z0-9._\\-]*\"/>\n"
    "    </xs:restriction>\n"
    "  </xs:simpleType>\n"
    "\n"
    "  <xs:simpleType name=\"kind\">\n"
    "    <xs:restriction base=\"xs:string\">\n"
    "      <xs:enumeration value=\"gpu\"/>\n"
    "      <xs:enumeration value=\"cpu\"/>\n"
    "      <xs:enumeration value=\"accel\"/>\n"
    "    </xs:restriction>\n"
    "  </xs:simpleType>\n"
    "\n"
    "  <xs:simpleType name=\"precision\">\n"
    "    <xs:restriction base=\"xs:string\">\n"
    "      <xs:enumeration value=\"fp64\"/>\n"
    "      <xs:enumeration value=\"fp32\"/>\n"
    "      <xs:enumeration value=\"tf32\"/>\n"
    "      <xs:enumeration value=\"bf16\"/>\n"
    "      <xs:enumeration value=\"fp16\"/>\n"
    "      <xs:enumeration value=\"fp8\"/>\n"
    "      <xs:enumeration value=\"int8\"/>\n"
    "    </xs:restriction>\n"
    "  </xs:simpleType>\n"
    "\n"
    "  <xs:simpleType name=\"execUnit\">\n"
    "    <xs:restriction base=\"xs:string\">\n"
    "      <xs:enumeration value=\"vector\"/>\n"
    "      <xs:enumeration value=\"matrix\"/>\n"
    "    </xs:restriction>\n"
    "  </xs:simpleType>\n"
    "\n"
    "  <xs:simpleType name=\"linkScope\">\n"
    "    <xs:restriction base=\"xs:string\">\n"
    "      <xs:enumeration value=\"intra-node\"/>\n"
    "      <xs:enumeration value=\"inter-node\"/>\n"
    "    </xs:restriction>\n"
    "  </xs:simpleType>\n"
    "\n"
    "  <!-- intra-node: switch (NVSwitch), direct (point-to-point links:\n"
    "       NVLink, xGMI, Xe Link), pcie; inter-node: fat-tree, dragonfly,\n"
    "       torus.  fom checks that the topology fits the scope. -->\n"
    "  <xs:simpleType name=\"linkTopology\">\n"
    "    <xs:restriction base=\"xs:string\">\n"
    "      <xs:enumeration value=\"switch\"/>\n"
    "      <xs:enumeration value=\"direct\"/>\n"
    "      <xs:enumeration value=\"pcie\"/>\n"
    "      <xs:enumeration value=\"fat-tree\"/>\n"
    "      <xs:enumeration value=\"dragonfly\"/>\n"
    "      <xs:enumeration value=\"torus\"/>\n"
    "    </xs:restriction>\n"
    "  </xs:simpleType>\n"
    "\n"
    "  <!-- A peak rate per device, e.g. <peak precision=\"bf16\" unit=\"matrix\">989.4 TFLOP/s</peak> -->\n"
    "  <xs:complexType name=\"peak\">\n"
    "    <xs:simpleContent>\n"
    "      <xs:extension base=\"nonEmpty\">\n"
    "        <xs:attribute name=\"precision\" type=\"precision\" use=\"required\"/>\n"
    "        <xs:attribute name=\"unit\" type=\"execUnit\" use=\"required\"/>\n"
    "      </xs:extension>\n"
    "    </xs:simpleContent>\n"
    "  </xs:complexType>\n"
    "\n"
    "  <!-- One level of the memory hierarchy per device, closest to the cores\n"
    "       first; the last level is main memory and must give its bandwidth. -->\n"
    "  <xs:complexType name=\"memory\">\n"
    "    <xs:attribute name=\"level\" type=\"nonEmpty\" use=\"required\"/>\n"
    "    <xs:attribute name=\"capacity\" type=\"nonEmpty\"/>\n"
    "    <xs:attribute name=\"bandwidth\" type=\"nonEmpty\"/>\n"
    "  </xs:complexType>\n"
    "\n"
    "  <xs:complexType name=\"overheads\">\n"
    "    <xs:attribute name=\"launch\" type=\"nonEmpty\"/>\n"
    "    <xs:attribute name=\"kernel-gap\" type=\"nonEmpty\"/>\n"
    "    <xs:attribute name=\"dispatch\" type=\"nonEmpty\"/>\n"
    "    <xs:attribute name=\"rnn-forward-step\" type=\"nonEmpty\"/>\n"
    "    <xs:attribute name=\"rnn-backward-step\" type=\"nonEmpty\"/>\n"
    "    <xs:attribute name=\"rnn-persistent-forward\" type=\"nonEmpty\"/>\n"
    "    <xs:attribute name=\"rnn-persistent-backward\" type=\"nonEmpty\"/>\n"
    "    <xs:attribute name=\"rnn-persistent-forward-half\" type=\"nonEmpty\"/>\n"
    "    <xs:attribute name=\"rnn-persistent-backward-half\" type=\"nonEmpty\"/>\n"
    "  </xs:complexType>\n"
    "\n"
    "  <!-- intra-node: bandwidth per device to its peers, per direction;\n"
    "       inter-node: per NIC and direction when nics is given, else the\n"
    "       injection bandwidth of the whole node, per direction.  latency: per\n"
    "       message step.  fabric: what the link is (\"NVLink 4\", \"Slingshot-11\"). -->\n"
    "  <xs:complexType name=\"link\">\n"
    "    <xs:attribute name=\"scope\" type=\"linkScope\" use=\"required\"/>\n"
    "    <xs:attribute name=\"bandwidth\" type=\"nonEmpty\" use=\"required\"/>\n"
    "    <xs:attribute name=\"latency\" type=\"nonEmpty\"/>\n"
    "    <xs:attribute name=\"fabric\" type=\"nonEmpty\"/>\n"
    "    <xs:attribute name=\"topology\" type=\"linkTopology\"/>\n"
    "    <xs:attribute name=\"nics\" type=\"xs:positiveInteger\"/>\n"
    "  </xs:complexType>\n"
    "\n"
    "  <xs:complexType name=\"price\">\n"
    "    <xs:simpleContent>\n"
    "      <xs:extension base=\"nonEmpty\">\n"
    "        <xs:attribute name=\"currency\" use=\"required\">\n"
    "          <xs:simpleType>\n"
    "            <xs:restriction base=\"xs:string\">\n"
    "              <xs:enumeration value=\"USD\"/>\n"
    "            </xs:restriction>\n"
    "          </xs:simpleType>\n"
    "        </xs:attribute>\n"
    "      </xs:extension>\n"
    "    </xs:simpleContent>\n"
    "  </xs:complexType>\n"
    "\n"
    "  <xs:element name=\"machine\">\n"
    "    <xs:complexType>\n"
    "      <xs:sequence>\n"
    "        <xs:element name=\"name\" type=\"nonEmpty\"/>\n"
    "        <xs:element name=\"vendor\" type=\"nonEmpty\"/>\n"
    "        <xs:element name=\"device-name\" type=\"nonEmpty\" minOccurs=\"0\"/>\n"
    "        <!-- table-name: another name the device goes by in kernel tables\n"
    "             (DeepBench's hw column, e.g. NV_V100): a table of that name\n"
    "             attaches to this machine as one named by device-name does -->\n"
    "        <xs:element name=\"table-name\" type=\"nonEmpty\" minOccurs=\"0\" maxOccurs=\"unbounded\"/>\n"
    "        <xs:element name=\"devices-per-node\" type=\"xs:integer\"/>\n"
    "        <!-- compute-units: multiprocessors per device (NVIDIA SMs, AMD\n"
    "             compute units, Intel Xe cores), from the datasheet -->\n"
    "        <xs:element name=\"compute-units\" type=\"xs:integer\" minOccurs=\"0\"/>\n"
    "        <xs:element name=\"peak\" type=\"peak\" maxOccurs=\"unbounded\"/>\n"
    "        <xs:element name=\"memory\" type=\"memory\" maxOccurs=\"unbounded\"/>\n"
    "        <xs:element name=\"overheads\" type=\"overheads\" minOccurs=\"0\"/>\n"
    "        <xs:element name=\"link\" type=\"link\" minOccurs=\"0\" maxOccurs=\"2\"/>\n"
    "        <!-- device-power: per device, its datasheet TDP; host-power: per node,\n"
    "             everything else (CPUs, memory, NICs, fans); without <power> a\n"
    "             node draws devices x device-power + host-power -->\n"
    "        <xs:element name=\"device-power\" type=\"nonEmpty\" minOccurs=\"0\"/>\n"
    "        <xs:element name=\"host-power\" type=\"nonEmpty\" minOccurs=\"0\"/>\n"
    "        <!-- per node: device TDPs plus whatever the comment says is included -->\n"
    "        <xs:element name=\"power\" type=\"nonEmpty\" minOccurs=\"0\"/>\n"
    "        <xs:element name=\"price\" type=\"price\" minOccurs=\"0\"/>\n"
    "        <xs:element name=\"source\" type=\"nonEmpty\"/>\n"
    "      </xs:sequence>\n"
    "      <xs:attribute name=\"id\" type=\"id\" use=\"required\"/>\n"
    "      <xs:attribute name=\"kind\" type=\"kind\" use=\"required\"/>\n"
    "    </xs:complexType>\n"
    "  </xs:element>\n"
    "</xs:schema>\n";

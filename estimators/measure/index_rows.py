#!/usr/bin/env python3
"""Turn index_ops.py's timings into kernel-table rows of the element-wise
kind (op, precision, elements, bytes, times), one per op, precision and
size, for `fom --kernels`.

The bytes are the ones fom counts for the op from its recorded arguments
(src/model/ops.c, ops_fill): the element size times every input element
(the index counted like the others) plus one output, the output of a
gather being the gathered rows (index length x row width), that of
another op its largest input.  The table looks an op up by these bytes,
so they must be counted the same way on both sides (u-ops checks fom's).

  index_rows.py IN/index_ops.csv OUT.csv
"""
import csv
import sys

ESZ = {"fp32": 4, "bf16": 2}


def op_bytes(op, n, f, e, s):
    rows, gathered = n * f, e * f
    if op == "index_select":          # (self [N,F], dim, index [E])
        return s * (rows + e + gathered)
    if op == "index_add_":            # (self [N,F], dim, index [E], source [E,F], alpha)
        return s * (rows + e + gathered + max(rows, gathered))
    if op == "index_select_backward":  # (grad [E,F], sizes, dim, index [E])
        return s * (gathered + e + gathered)
    if op == "gather":                # (self [N,F], dim, index [E,F])
        return s * (rows + gathered + gathered)
    if op == "scatter_add_":          # (self [N,F], dim, index [E,F], src [E,F])
        return s * (rows + 2 * gathered + max(rows, gathered))
    # advanced indexing records its indices as a list the trace gives no
    # shape of: the index is not counted, the result is the gradient's
    # (ops_index_outputs)
    if op == "index":                 # (self [N,F], indices)
        return s * (rows + gathered)
    if op == "_index_put_impl_":      # (self [N,F], indices, values [E,F], accumulate)
        return s * (rows + gathered + max(rows, gathered))
    return None


def main():
    src, dst = sys.argv[1:3]
    out = []
    for r in csv.DictReader(open(src)):
        n, f, e = int(r["rows"]), int(r["width"]), int(r["index"])
        b = op_bytes(r["op"], n, f, e, ESZ[r["precision"]])
        if b is None:
            continue    # the copy: a reference, the stream rows have copies
        t = float(r["time_us"])
        out.append(dict(op=r["op"], precision=r["precision"], elements=e * f, bytes=b,
                        gbps="%.3f" % (b / t / 1e3), time_us=r["time_us"],
                        time_us_min=r["time_us_min"], time_us_max=r["time_us_max"],
                        reps=r["reps"], source="index_ops"))
    out.sort(key=lambda x: (x["op"], x["precision"], x["bytes"]))
    with open(dst, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(out[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(out)


if __name__ == "__main__":
    main()

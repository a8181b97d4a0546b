#!/usr/bin/env python3
"""Write DeepBench-stdout fixtures (the form gemm_bench and conv_bench
print) from our measured H100 tables, so that the stdout reader is tested
against rows whose values we know.  Run from this directory:
    python3 make-fixtures.py
Times are printed in usec with 3 decimals; precisions use DeepBench's
words (float, half) where it has one and ours otherwise."""
import csv

PREC = {"fp32": "float", "fp16": "half"}

with open("h100_gemm.csv") as f, open("deepbench_stdout_gemm.txt", "w") as o:
    o.write("-" * 88 + "\n")
    o.write("    m       n      k      a_t     b_t      precision        time (usec) \n")
    o.write("-" * 88 + "\n")
    for r in csv.DictReader(f):
        if r["source"] != "deepbench_train" or r["precision"] not in ("fp32", "fp16"):
            continue
        at = "1" if r["a_t"] == "T" else "0"
        bt = "1" if r["b_t"] == "T" else "0"
        o.write("%7s%7s%7s%7s%7s%15s%20.3f\n" % (r["m"], r["n"], r["k"], at, bt,
                PREC[r["precision"]], float(r["time_us"])))

with open("h100_conv.csv") as f, open("deepbench_stdout_conv.txt", "w") as o:
    o.write("-" * 160 + "\n")
    o.write("   w      h      c      n      k      f_w      f_h    pad_w  pad_h    stride_w  "
            "stride_h    precision  fwd_time (usec)  bwd_inputs_time (usec)  "
            "bwd_params_time (usec)  total_time (usec)\n")
    o.write("-" * 160 + "\n")
    for r in csv.DictReader(f):
        if r["precision"] != "fp32":
            continue
        fwd, bi, bp = (float(r[c]) for c in ("fwd_time_us", "bwd_inputs_time_us", "bwd_params_time_us"))
        cols = [r[c] for c in ("w", "h", "c", "n", "k", "f_w", "f_h", "pad_w", "pad_h", "stride_w", "stride_h")]
        o.write("".join("%7s" % c for c in cols))
        o.write("%13s%17.3f%24.3f%24.3f%19.3f\n" % ("float", fwd, bi, bp, fwd + bi + bp))

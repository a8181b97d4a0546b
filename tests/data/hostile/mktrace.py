#!/usr/bin/env python3
"""Hand-made Kineto traces for the hostile-input tests (t6001, t6002).

mktrace.py KIND OUT: writes one trace.  Kinds:
  big-gemm     aten::mm of 2^40 x 2^40 by 2^40 x 2^40 (flops 2^121)
  big-conv     aten::convolution with dims and padding near 2^62
  neg-dims     aten::mm with negative dims
  nan-time     dur NaN (written bare, as some writers do) and Infinity
  neg-time     negative dur
  zero-time    dur 0 everywhere
  million N    N aten::mm events in one step (streamed, not built in memory)
  quote        names with an unescaped '"' (old PyTorch with_stack files)
  badutf8      names with invalid UTF-8 bytes
"""
import sys

HEAD = ('{"schemaVersion":1,"deviceProperties":[],"displayTimeUnit":"ms",'
        '"traceEvents":[\n')
STEP = ('{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,'
        '"ts":1000,"dur":%s,"args":{"External id":1}}')


def mm(ts, dur, dims, name="aten::mm", ext=2):
    return ('{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":1,"ts":%s,"dur":%s,'
            '"args":{"External id":%d,"Input Dims":%s,"Input type":["float","float"]}}'
            % (name, ts, dur, ext, dims))


def conv(ts, dur, dims, concrete):
    return ('{"ph":"X","cat":"cpu_op","name":"aten::convolution","pid":1,"tid":1,'
            '"ts":%s,"dur":%s,"args":{"External id":3,"Input Dims":%s,'
            '"Concrete Inputs":%s,"Input type":["float","float","","ScalarList",'
            '"ScalarList","ScalarList","Scalar","ScalarList","Scalar"]}}'
            % (ts, dur, dims, concrete))


def main():
    kind, out = sys.argv[1], sys.argv[2]
    f = open(out, "w", encoding="utf-8", errors="surrogateescape")
    f.write(HEAD)
    e = 2 ** 40
    big = 2 ** 62
    if kind == "big-gemm":
        ev = [STEP % 100, mm(1010, 50, "[[%d,%d],[%d,%d]]" % (e, e, e, e))]
    elif kind == "big-conv":
        ev = [STEP % 100, conv(1010, 50, "[[%d,%d,%d,%d],[%d,%d,3,3],[],[],[],[],[],[],[]]"
                               % (big, big, big, big, big, big),
                               '["","","","[1, 1]","[%d, %d]","[1, 1]","False","[0, 0]","1"]'
                               % (big, big))]
    elif kind == "neg-dims":
        ev = [STEP % 100, mm(1010, 50, "[[-5,7],[7,-9]]")]
    elif kind == "nan-time":
        ev = [STEP % 100, mm(1010, "NaN", "[[4,4],[4,4]]"),
              mm(1020, "Infinity", "[[4,4],[4,4]]", ext=3)]
    elif kind == "neg-time":
        ev = [STEP % 100, mm(1010, -50, "[[4,4],[4,4]]")]
    elif kind == "zero-time":
        ev = [STEP % 0, mm(1000, 0, "[[4,4],[4,4]]")]
    elif kind == "quote":
        ev = [STEP % 100, mm(1010, 50, "[[4,4],[4,4]]",
                             name='aten::mm"); torch/nn/modules/linear.py(125): forward(')]
    elif kind == "badutf8":
        ev = [STEP % 100, mm(1010, 50, "[[4,4],[4,4]]", name="aten::mm\udcff\udcfe\udcc3(")]
    elif kind == "million":
        n = int(sys.argv[3])
        f.write(STEP % (n * 10 + 10))
        for i in range(n):
            f.write(",\n" + mm(1000 + i * 10, 5, "[[64,64],[64,64]]", ext=i + 2))
        f.write("\n]}\n")
        return
    else:
        sys.exit("unknown kind " + kind)
    f.write(",\n".join(ev))
    f.write("\n]}\n")


main()

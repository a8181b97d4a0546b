#!/bin/sh
# fom ingest: text/json/csv output, --top, third-party traces, bad input.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"

P1B3=tests/data/traces/h200/p1b3_h200_fp32_b100.json.gz

# The p1b3 table, 95% of the pass kept.  Checked by hand against the
# trace: the first-layer addmm (100x29532 @ 29532x1000) is 2*100*1000*29532
# = 5.906 GFLOP and its two kernels take (357.2 us) per step.
fom_run 0 ingest "$P1B3" --top 0.95
expect_golden ingest-p1b3-h200-top95
expect_out_contains "dropped 53 ops, 0.042 ms"

fom_run 0 ingest "$P1B3" --format-out json
expect_json_num 'd["steps"]' 2 0
expect_json_num 'd["device"] == "NVIDIA H200"' 1 0
expect_json_num 'd["coverage"]' 1 0
# first-layer forward GEMM: m=100 n=1000 k=29532, B transposed (nn.Linear)
expect_json_num '[o for o in d["ops"] if o["name"]=="aten::addmm" and o["k"]==29532][0]["flops"]' 5906400000 1e-12
expect_json_num '[o for o in d["ops"] if o["name"]=="aten::addmm" and o["k"]==29532][0]["b_t"] == "T"' 1 0
expect_json_num 'sum(o["time_s"] for o in d["ops"]) - d["total_time_s"]' 0 1e-12
expect_json_num 'd["step_time_s"]' 0.0025822 0.001
# the 1000x29532 weight update (_foreach over all parameters) is the optimizer phase
expect_json_num 'all(o["phase"] == "optimizer" for o in d["ops"] if o["kind"] == "optimizer")' 1 0

fom_run 0 ingest "$P1B3" --format-out csv --top 0.5
expect_out_contains "# steps: 2"
expect_out_contains "name,kind,phase,dtype,count,time_s [s],device_time_s [s],host_time_s [s],kernels,flops [FLOP],bytes [B],m,n,k,batch,a_t,b_t,shapes,flags"
expect_out_contains 'aten::addmm,gemm,forward,fp32,1,'
expect_out_contains '"[1000], [100, 29532], [29532, 1000], [], []"'

fom_run 0 ingest "$P1B3" --format-out json -o "$T_TMP/p.json"
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T_TMP/p.json"; then ok "-o wrote JSON"; else not_ok "-o file"; fi

# CPU-only trace: host times, no device
fom_run 0 ingest tests/data/traces/hostcpu/p1b3_hostcpu_fp32_b100.json.gz --format-out json
expect_json_num 'd["steps"]' 1 0
expect_json_num 'd["device"] is None and not d["has_device"]' 1 0
expect_json_num 'all(o["time_s"] == o["host_time_s"] for o in d["ops"])' 1 0

# ResNet-50 on the H200: per kind, the device time per step equals the
# key_averages table of the same run (Self CUDA over 2 steps): batch norm
# (17.289 + 11.688) / 2 ms, convolution (11.734 + 6.135) / 2 ms.
fom_run 0 ingest tests/data/traces/h200/resnet50_h200_bf16_b64.json.gz --format-out json
expect_json_num 'sum(o["time_s"] for o in d["ops"] if o["kind"]=="norm")' 0.0144885 0.001
expect_json_num 'sum(o["time_s"] for o in d["ops"] if o["kind"]=="conv")' 0.0089345 0.001
expect_json_num 'd["dtype"] == "bf16"' 1 0

# Third-party traces: AMD MI250 (new linkage), A100 Triton, ET pair
fom_run 0 ingest tests/data/traces/third-party/kineto_amd_mi250_minitoy_record_shapes.json.gz --format-out json
expect_json_num '[o for o in d["ops"] if o["name"]=="aten::addmm"][0]["m"] * 1000 + [o for o in d["ops"] if o["name"]=="aten::addmm"][0]["n"]' 5128 0
expect_json_num 'd["device"] == "AMD Radeon Graphics"' 1 0
expect_json_num 'len([o for o in d["ops"] if o["kind"]=="gemm" and o["phase"]=="backward"]) > 0' 1 0
fom_run 0 ingest tests/data/traces/third-party/kineto_a100_triton_example.json.gz --format-out json
expect_json_num 'd["total_time_s"] > 0' 1 0
fom_run 0 ingest tests/data/traces/third-party/kineto_simple_add_pair_of_et.json.gz --format-out json
expect_json_num '[o["kind"] for o in d["ops"] if o["name"]=="aten::add"][0] == "elementwise"' 1 0

# Bad input: exit 1 with file and position
fom_run 1 ingest "$P1B3" --format tfprof
expect_err_contains "$P1B3:1: error: found a PyTorch profiler (Kineto) JSON trace, expected TensorFlow tfprof text (--format tfprof)"
head -c 3000 "$P1B3" >"$T_TMP/cut.json.gz"
fom_run 1 ingest "$T_TMP/cut.json.gz"
expect_err_contains "cut.json.gz: error: found a truncated or damaged gzip stream after byte"
gzip -dc "$P1B3" | head -c 5000 >"$T_TMP/cut.json"
fom_run 1 ingest "$T_TMP/cut.json"
expect_err_contains "cut.json:105: error: found the end of the file at byte 5000 inside the JSON"
printf '{"traceEvents": [{"ph": "X",, }]}' >"$T_TMP/bad.json"
fom_run 1 ingest "$T_TMP/bad.json"
expect_err_contains "bad.json:1: error: found invalid JSON at byte 29"
: >"$T_TMP/empty.json"
fom_run 1 ingest "$T_TMP/empty.json"
expect_err_contains "empty.json: error: found an empty file at byte 0"
printf 'hello\n' >"$T_TMP/hello.txt"
fom_run 1 ingest "$T_TMP/hello.txt"
expect_err_contains "hello.txt:1: error: found content starting 'hello', expected"
fom_run 3 ingest "$T_TMP/missing.json"
expect_err_contains "cannot open"
fom_run 2 ingest "$P1B3" --top 1.5
expect_err_contains "--top: found '1.5', expected a fraction in (0,1]"
fom_run 2 ingest "$P1B3" --format nope
fom_run 2 ingest
fom_run 0 ingest --help
expect_out_contains "usage: fom ingest TRACE"
done_testing

#!/bin/sh
# Measure one GPU host: kernel tables of every kind (the harness, its kinds
# spread over the host's GPUs so that the run fits in minutes), the
# development set's traces and step times on one GPU, and the same models on
# the host CPU.  Results go to $OUT as a few tarballs.
#   phase=1 sh profiles/devset/run-gpu-host.sh     (tables + single-device models)
#   phase=2 sh profiles/devset/run-gpu-host.sh     (collectives + DDP, 2..N GPUs)
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
W=/tmp/devset-work
mkdir -p "$W" "$OUT"
NGPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
*H100*) TAG=h100 ;;
*H200*) TAG=h200 ;;
*) TAG=gpu ;;
esac
CORES=$(nproc)
echo "tag $TAG, $NGPU GPUs, $CORES cores, phase ${phase:-1}"
M="timeout ${JOBMAX:-470} python3 estimators/measure/measure.py"
R="timeout ${JOBMAX:-470} python3 profiles/devset/record.py"
BUDGET=${BUDGET:-300}

if [ "${phase:-1}" = 1 ]; then
	nvidia-smi -q > "$W/nvidia-smi.txt" 2>&1; lscpu > "$W/lscpu.txt"
	if [ "$NGPU" -ge 4 ]; then
		# kinds over three GPUs, the models on the fourth, the CPU set on
		# cores no GPU process uses
		CUDA_VISIBLE_DEVICES=0 taskset -c 0-7 $M --device cuda:0 --grid full --kinds gemm \
			--name "$TAG" --out "$W/t0" --budget "$BUDGET" > "$W/t0.log" 2>&1 &
		CUDA_VISIBLE_DEVICES=1 taskset -c 8-15 $M --device cuda:0 --grid full --kinds conv \
			--name "$TAG" --out "$W/t1" --budget "$BUDGET" > "$W/t1.log" 2>&1 &
		CUDA_VISIBLE_DEVICES=2 taskset -c 16-23 $M --device cuda:0 --grid full \
			--kinds rnn,attention,norm,embedding,eltwise,optimizer \
			--name "$TAG" --out "$W/t2" --budget "$BUDGET" > "$W/t2.log" 2>&1 &
		CUDA_VISIBLE_DEVICES=3 taskset -c 24-31 $R single --device cuda --tag "$TAG" \
			--out "$W/dev" > "$W/dev.log" 2>&1 &
		taskset -c 32-47 $R single --device cpu --threads 16 --tag hostcpu \
			--out "$W/cpu" > "$W/cpu.log" 2>&1 &
		wait
	else
		# one GPU: the whole table run, then the models
		CUDA_VISIBLE_DEVICES=0 taskset -c 0-7 $M --device cuda:0 --grid full \
			--name "$TAG" --out "$W/t0" --budget "$BUDGET" > "$W/t0.log" 2>&1
		CUDA_VISIBLE_DEVICES=0 taskset -c 0-7 $R single --device cuda --tag "$TAG" \
			--out "$W/dev" > "$W/dev.log" 2>&1
	fi
	mkdir -p "$W/tables"
	for d in "$W"/t[0-9]; do cp "$d"/* "$W/tables/" 2>/dev/null; done
	cp "$W"/t*.log "$W/nvidia-smi.txt" "$W/lscpu.txt" "$W/tables/"
	tar -C "$W" -czf "$OUT/tables-$TAG.tgz" tables
	cp "$W/dev.log" "$W/dev/" 2>/dev/null; tar -C "$W" -czf "$OUT/dev-$TAG.tgz" dev
	[ -d "$W/cpu" ] && { cp "$W/cpu.log" "$W/cpu/"; tar -C "$W" -czf "$OUT/dev-hostcpu.tgz" cpu; }
else
	mkdir -p "$W/ddp" "$W/comm"
	$M --device cuda:0 --kinds comm --grid full --name "$TAG" --out "$W/comm" --budget 120 > "$W/comm/comm.log" 2>&1
	# the host CPU's tables on cores the DDP processes leave alone
	taskset -c 32-47 $M --device cpu --threads 16 --grid small --name hostcpu --out "$W/cputab" \
		--budget 240 > "$W/cputab.log" 2>&1 &
	n=2
	while [ "$n" -le "$NGPU" ]; do
		taskset -c 0-31 $R ddp --ranks "$n" --tag "$TAG" --out "$W/ddp" \
			--models mobilenetv2,vit,gptmini,bert,unet3d,dlrm >> "$W/ddp/ddp.log" 2>&1
		n=$((n * 2))
	done
	wait
	cp "$W/cputab.log" "$W/cputab/" 2>/dev/null
	tar -C "$W" -czf "$OUT/comm-ddp-$TAG.tgz" comm ddp
	tar -C "$W" -czf "$OUT/tables-hostcpu.tgz" cputab
fi
ls -la "$OUT"

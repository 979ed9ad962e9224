#!/usr/bin/env bash
# The CPU-scaling campaign, ready for a machine with many CPUs (docs/scaling.md): measure
# the producers scenario (T threads feed one epoll consumer), the private_sets scenario (T
# threads each poll a pipe of their own, epoll; and private_processes, the same as one-thread
# processes) and the shared_epoll scenario (T threads
# pass tokens through epoll over a shared ring of pipes: one instance, or EPOLLEXCLUSIVE) and
# the accept_herd scenario (T threads wait on one listening socket through one epoll
# instance, or EPOLLEXCLUSIVE, and accept what a client connects) at C = 1, 2, 4, ... up to
# min(CPUs, 16) with up to 4 x C threads (calibrate's full grids for the four, a few
# minutes), and the contention primitive beside them (cache_line: one
# cache line handed from the first CPU to each of up to 16 others and back), then fit
# the scalability law of each C on its smallest thread counts (capped, for C > 1, by C
# times the one-CPU series' capacity) and print, per C, what it predicted for the others
# against what was measured, and 64 and 128 threads; then predict every series wider than
# two CPUs from the one- and two-CPU series alone (scale --from-cpus 2, docs/scaling.md)
# and print the error per C; then the protocol judged from 2, 4 and 8 CPUs, per table
# (bench/scaling_wider.py, also in OUT_DIR/judged.md); then the corpus's capacity efficiency
# judged on this machine's series (bench/capacity_heldout.py, OUT_DIR/capacity_heldout.md).
#
# Usage: scripts/cpu_scaling_campaign.sh [OUT_DIR] [TRAIN_MAX]
#   OUT_DIR    where the dataset and the predictions go (default out/cpu-scaling-<UTC time>)
#   TRAIN_MAX  largest thread count (N) each law is fitted on (default 4)
# Needs a release build (scripts/study.sh makes one; POLLSCALE=PATH names another binary,
# e.g. one copied to the bigger machine) and python3. Exit status: 0, or the failing step's.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-out/cpu-scaling-$(date -u +%Y%m%d-%H%M%S)}
train_max=${2:-4}
bin=${POLLSCALE:-$root/build/release/app/pollscale}
if [[ ! -x $bin ]]; then
  echo "cpu_scaling_campaign: no $bin; build it first (cmake --preset release && cmake --build --preset release)" >&2
  exit 2
fi
if ! [[ $train_max =~ ^[1-9][0-9]*$ ]]; then
  echo "cpu_scaling_campaign: TRAIN_MAX '$train_max' is not a positive integer" >&2
  exit 2
fi
mkdir -p "$out"

echo "cpu_scaling_campaign: $(nproc) CPUs; measuring producers, private_sets, private_processes, shared_epoll, accept_herd, cache_line into $out/dataset" >&2
start=$(date +%s)
"$bin" calibrate --full --scenarios producers,private_sets,private_processes,shared_epoll,accept_herd,cache_line --mechanisms epoll/lt,epoll/oneshot \
  --out "$out/dataset" \
  --format csv > "$out/calibration.csv"
echo "cpu_scaling_campaign: measured in $(( $(date +%s) - start )) s" >&2

"$bin" scale "$out/dataset" --train "n_fds<=$train_max" --at 64,128 --format json > "$out/scale.json"
"$bin" scale "$out/dataset" --train "n_fds<=$train_max" --at 64,128 > "$out/scale.txt"

python3 - "$out/scale.json" "$train_max" <<'EOF'
import json, sys
result = json.load(open(sys.argv[1]))
print(f"fitted on N <= {sys.argv[2]} threads; per table (scenario, C CPUs), the held-out thread counts:")
print(f"{'C':>3} {'N':>4} {'measured/s':>12} {'predicted/s':>12} {'error':>8}  limited by")
for t in result["tables"]:
    c = t["table"].rsplit("cpus=", 1)[-1] if "cpus=" in t["table"] else "?"
    print(t["table"].split(" ", 1)[0])
    if "fit" not in t:
        print(f"{c:>3}  not fitted: {t.get('not_fitted', '')}")
        continue
    for r in t["held_out"]:
        print(f"{c:>3} {int(r['n']):>4} {r['measured']:>12.4g} {r['predicted']:>12.4g} {100 * r['rel_err']:>7.1f}%  {r['limited_by']}")
    for r in t["at"]:
        print(f"{c:>3} {int(r['n']):>4} {'-':>12} {r['predicted']:>12.4g} {'-':>8}  {r['limited_by']}")
s = result["summary"]
if s.get("n"):
    print(f"all: {s['n']} held out, median |error| {100 * s['median_rel_err']:.1f}%, max {100 * s['max_rel_err']:.1f}%")
EOF
# The wider-machine protocol: every series of more than two CPUs predicted from the one- and
# two-CPU series alone (what a 2-vCPU machine measures), and 32-128 CPUs nobody measured.
"$bin" scale "$out/dataset" --from-cpus 2 --cpus 32,64,128 --at 16,64,128 --format json > "$out/wider.json"
"$bin" scale "$out/dataset" --from-cpus 2 --cpus 32,64,128 --at 16,64,128 > "$out/wider.txt"
echo
echo "predicted from the 1- and 2-CPU series alone (scale --from-cpus 2):"
sed -n '/^#  *C  *n /,$p' "$out/wider.txt"
# The protocol's judgement as fixed (docs/scaling.md): from 2, 4 and 8 CPUs, per table.
echo
echo "the wider-machine protocol judged from C0 = 2, 4, 8 CPUs (bench/scaling_wider.py):"
python3 "$root/bench/scaling_wider.py" --pollscale "$bin" "$out/dataset" | tee "$out/judged.md"
# The corpus's capacity efficiency (what each doubling of the CPUs delivers, estimated on
# machines of two CPUs and one of sixteen) judged on this machine's wider series from one CPU.
echo
echo "the corpus's capacity efficiency judged on this machine (bench/capacity_heldout.py):"
python3 "$root/bench/capacity_heldout.py" --pollscale "$bin" "$out/dataset" | tee "$out/capacity_heldout.md"
echo "cpu_scaling_campaign: $out/scale.txt holds the laws, $out/wider.txt the wider machines; total $(( $(date +%s) - start )) s" >&2

#!/usr/bin/env bash
# Side-by-side benchmark of caddy-osdm, in one run on this machine:
#
#   A        OSDM POST /offers through a bare reverse_proxy (the floor)
#   B        the same search as a legacy XML AvailabilityRequest through
#            osdm_convert + osdm_token + reverse_proxy
#   C        A with osdm_token (the token layer alone)
#   Ddirect  POST /bookings + POST .../fulfillments through the bare proxy
#   Dconv    a legacy BookingRequest with OfferRef through the converter
#   Edirect  the OSDM calls of a legacy exchange (the booking read back,
#            exchange offers, exchange operation, fulfilment) through the
#            bare proxy
#   Econv    a legacy BookingRequest with ExchangeOf through the converter
#   Pdirect  the OSDM calls of a partial cancellation (the booking read
#            back, a refund offer for one passenger, its confirmation)
#            through the bare proxy
#   Pconv    a legacy CancelRequest with one Place of two through the
#            converter
#
# One sandbox partner Caddy (osdm_login + osdm_access + osdm_sandbox) serves
# every scenario; each scenario has a front Caddy process of its own, so
# that its peak RSS (VmHWM) is its own. The load driver (cmd/load, vegeta)
# warms each front up, then runs interleaved rounds (each round runs every
# scenario in turn), then profiles the fronts of A and B (CPU and
# allocations), then the micro-benchmarks run; the report goes to
# bench/results/<time>/results.md (bench/results/latest is the last run).
#
#   bench/run.sh [-c 8] [-d 15s] [-rounds 5] [-warmup 2s] [-rate 200]
#                [-open-d 10s] [-max-wait 600] [-no-profile] [-no-micro]
#                [-scenarios "A B C Ddirect Dconv Edirect Econv Pdirect Pconv"]
#                [-profile A,B] [-profile-d 12s] [-busy 1.0]
#
# -c/-d: closed loop, c workers, d per scenario in all; -rate/-open-d: open
# loop at a fixed rate, the latency comparison (-rate 0 skips it);
# -scenarios: the scenarios run; -profile/-profile-d: the fronts profiled
# after the rounds, and for how long each (bench/profile.sh). The fresh
# offers a D request books and the fulfilled bookings an E or P request
# acts on are made straight at the partner between that scenario's
# attacks, as many as its next attack may use (its fastest rate so far;
# before it ran, a share of A's warm-up rate), with the driver's token
# cache; nothing is made while a scenario is measured. Before
# starting it waits, at most -max-wait seconds, for the 1-minute load
# average to drop below 3. -busy: during the measured rounds and the
# micro-benchmarks the driver measures how many cores the rest of the
# machine kept busy (its CPU time, /proc/stat, less the bench's own
# processes'); above this load (default 1.0, in cores), over all rounds or
# one scenario's, the report judges no target ("not judged: machine
# busy") and says the load it saw. Ports: FRONT_PORT (18080 and one more per
# front after the first), FRONT_ADMIN (12080, the same way), PARTNER_PORT (18441),
# PARTNER_ADMIN (12441). BENCH_DATA_DIR: where the fronts' data directories
# (osdm_convert's bolt journal) go; default the run's temporary directory;
# the report's booking target depends on its file system (tmpfs or not).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"

concurrency=8 duration=15s rounds=5 warmup=2s rate=200 open_d=10s max_wait=600
busy=1.0
profile=1 micro=1 only="A B C Ddirect Dconv Edirect Econv Pdirect Pconv" profiled=A,B profile_d=12s
while [ $# -gt 0 ]; do
	case "$1" in
	-c) concurrency="$2"; shift 2 ;;
	-d) duration="$2"; shift 2 ;;
	-rounds) rounds="$2"; shift 2 ;;
	-warmup) warmup="$2"; shift 2 ;;
	-rate) rate="$2"; shift 2 ;;
	-open-d) open_d="$2"; shift 2 ;;
	-max-wait) max_wait="$2"; shift 2 ;;
	-no-profile) profile=0; shift ;;
	-no-micro) micro=0; shift ;;
	-scenarios) only="$2"; shift 2 ;;
	-profile) profiled="$2"; shift 2 ;;
	-profile-d) profile_d="$2"; shift 2 ;;
	-busy) busy="$2"; shift 2 ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done

FRONT_PORT="${FRONT_PORT:-18080}" FRONT_ADMIN="${FRONT_ADMIN:-12080}"
export PARTNER_PORT="${PARTNER_PORT:-18441}" PARTNER_ADMIN="${PARTNER_ADMIN:-12441}"
read -r -a scenarios <<<"$only"
for s in "${scenarios[@]}"; do
	case "$s" in
	A | B | C | Ddirect | Dconv | Edirect | Econv | Pdirect | Pconv) ;;
	*) echo "run.sh: unknown scenario \"$s\" in -scenarios (want some of: A B C Ddirect Dconv Edirect Econv Pdirect Pconv, separated by spaces)" >&2; exit 2 ;;
	esac
done

tmp="$(mktemp -d)"
pids=()
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

say() { echo "run.sh: $*" >&2; }

# Build ./caddy when it is older than any Go source of the product (as
# xcaddy.sh decides), then run a copy: others may rebuild ./caddy meanwhile.
stale() {
	[ ! -x "$repo/caddy" ] && return 0
	[ -n "$(cd "$repo" && find . -name '*.go' -newer ./caddy -not -path './bench/*' -print -quit)" ] && return 0
	[ "$repo/go.mod" -nt "$repo/caddy" ] && return 0
	return 1
}
if stale; then
	"$repo/xcaddy.sh" build
fi
cp "$repo/caddy" "$tmp/caddy"
(cd "$here" && go build -o "$tmp/load" ./cmd/load)
"$tmp/caddy" osdm-keygen --demo "$tmp/keys" >/dev/null
export KEYS="$tmp/keys"
# Caddy's autosave and storage go to the temporary directory, not ~.
export XDG_CONFIG_HOME="$tmp/xdg" XDG_DATA_HOME="$tmp/xdg"

results="$here/results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$results"
ln -sfn "$(basename "$results")" "$here/results/latest"
"$tmp/caddy" version >"$results/caddy-version.txt"

ports=("$PARTNER_PORT" "$PARTNER_ADMIN")
for i in "${!scenarios[@]}"; do
	ports+=($((FRONT_PORT + i)) $((FRONT_ADMIN + i)))
done
for port in "${ports[@]}"; do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		say "port $port is in use; set FRONT_PORT, FRONT_ADMIN, PARTNER_PORT, PARTNER_ADMIN"
		exit 1
	fi
done

# A busy machine makes every ratio noise: wait a while for it to calm down.
waited=0
while awk '{ exit !($1 >= 3) }' /proc/loadavg && [ "$waited" -lt "$max_wait" ]; do
	[ "$waited" -eq 0 ] && say "load average $(cut -d' ' -f1-3 /proc/loadavg); waiting up to ${max_wait}s for it to drop below 3"
	sleep 10
	waited=$((waited + 10))
done
say "load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"

# start_caddy NAME CADDYFILE ADMIN_PORT: runs a Caddy (with the environment
# already exported), waits until its admin endpoint answers, and sets
# $started to its pid.
start_caddy() {
	"$tmp/caddy" run --config "$2" --adapter caddyfile >"$results/$1.log" 2>&1 &
	started=$!
	pids+=("$started")
	"$tmp/load" wait -url "http://127.0.0.1:$3/config/"
	if ! kill -0 "$started" 2>/dev/null; then
		say "$1 Caddy exited; see $results/$1.log"
		exit 1
	fi
}

front_of() {
	case "$1" in
	A | Ddirect | Edirect | Pdirect) echo bare ;;
	B | Dconv | Econv | Pconv) echo convert ;;
	C) echo token ;;
	esac
}

start_caddy partner "$here/caddyfiles/partner.caddyfile" "$PARTNER_ADMIN"
partner_pid=$started

fronts=()
for i in "${!scenarios[@]}"; do
	s=${scenarios[$i]}
	port=$((FRONT_PORT + i)) admin=$((FRONT_ADMIN + i))
	# Each front its own data directory: osdm_convert's journal (a bolt
	# file there by default) is one process's. BENCH_DATA_DIR (a tmpfs,
	# say) puts them elsewhere, to see what the disk's fsync costs.
	FRONT_PORT=$port FRONT_ADMIN=$admin FRONT_SUBJECT="bench-$s" XDG_DATA_HOME="${BENCH_DATA_DIR:-$tmp}/xdg-$s" \
		start_caddy "front-$s" "$here/caddyfiles/front-$(front_of "$s").caddyfile" "$admin"
	fronts+=(-front "$s=$port,$admin,$started")
done

profile_args=()
[ "$profile" = 1 ] && profile_args=(-profile-dir "$results" -profile "$profiled" -profile-d "$profile_d")
"$tmp/load" bench "${fronts[@]}" "${profile_args[@]}" -keys "$KEYS" \
	-partner "http://127.0.0.1:$PARTNER_PORT" -partner-admin "http://127.0.0.1:$PARTNER_ADMIN" -partner-pid "$partner_pid" \
	-c "$concurrency" -d "$duration" -rounds "$rounds" -warmup "$warmup" -rate "$rate" -open-d "$open_d" \
	-busy "$busy" -data-fs "$(stat -f -c %T "${BENCH_DATA_DIR:-$tmp}")" -out "$results/results.json"

for pid in "${pids[@]}"; do
	kill "$pid"
	wait "$pid" 2>/dev/null || true
done
pids=()

if [ "$profile" = 1 ]; then
	for s in ${profiled//,/ }; do
		go tool pprof -top -nodecount=60 "$results/$s.cpu.pprof" >"$results/$s.cpu.top.txt" 2>/dev/null
		go tool pprof -top -cum -nodecount=150 "$results/$s.cpu.pprof" >"$results/$s.cpu.cum.txt" 2>/dev/null
		go tool pprof -sample_index=alloc_space -top -nodecount=40 "$results/$s.allocs.pprof" >"$results/$s.allocs.top.txt" 2>/dev/null
	done
fi

micro_args=()
if [ "$micro" = 1 ]; then
	say "micro-benchmarks"
	(cd "$here" && "$tmp/load" busy -results "$results/results.json" -- go test -run '^$' -bench . -benchmem -count 5 .) |
		tee "$results/micro.txt" >&2
	micro_args=(-micro "$results/micro.txt")
fi

"$tmp/load" report -in "$results/results.json" "${micro_args[@]}"
say "results in $results"

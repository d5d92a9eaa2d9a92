#!/usr/bin/env bash
# CPU profiles of the fronts of A, B and C under the closed loop, compared
# function by function in µs of front CPU per request:
#
#   bench/profile.sh [-profile-d 32s] [other run.sh flags]
#
# It runs bench/run.sh with only these three scenarios, one short round
# (the CPU per request it reports is a first reading, not the run's
# figures), no open loop and no micro-benchmarks, then profiles each front
# for -profile-d (30 s of CPU profile) while the closed loop runs, and
# writes bench/results/<time>/pprof-compare.md: B against A and C against
# A, cumulative and flat time, the largest differences first. Ports default
# to others than run.sh's (FRONT_PORT 18180, FRONT_ADMIN 12180,
# PARTNER_PORT 18541, PARTNER_ADMIN 12541), so the two can run at once.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
export FRONT_PORT="${FRONT_PORT:-18180}" FRONT_ADMIN="${FRONT_ADMIN:-12180}"
export PARTNER_PORT="${PARTNER_PORT:-18541}" PARTNER_ADMIN="${PARTNER_ADMIN:-12541}"

"$here/run.sh" -scenarios "A B C" -rounds 1 -d 5s -warmup 3s -rate 0 -no-micro \
	-profile A,B,C -profile-d 32s "$@"
dir="$(cd "$here/results/latest" && pwd -P)"
(cd "$here" && go run ./cmd/load pprof -dir "$dir" -base A -vs B,C)
echo "profile.sh: comparison in $dir/pprof-compare.md" >&2

#!/usr/bin/env bash
# Runs the libFuzzer harnesses of Fuzz/ (built by `make fuzz`), each for FUZZ_SECONDS.
#   FUZZ_TARGETS   harnesses to run (default: all)
#   FUZZ_SECONDS   seconds per harness (default 60)
#   FUZZ_FLAGS     extra libFuzzer flags, e.g. "-jobs=2" or "-fork=1 -ignore_crashes=1"
#   FUZZ_RUNS      stop each harness after this many inputs (with FUZZ_SEED and a fresh
#                  FUZZ_WORK, a run is reproducible: CI uses this so a finding is never luck;
#                  the seeds are then given in name order, not in the order the file system lists
#                  them, and Swift's hashing is deterministic, so any machine runs the same inputs)
#   FUZZ_SEED      libFuzzer's random seed (default: libFuzzer picks one)
#   FUZZ_WORK      the directory of what runs learn (default Fuzz/corpus/work)
# Seeds are regenerated from the fixtures into Fuzz/corpus/seeds/<harness>; what a run learns goes
# to Fuzz/corpus/work/<harness> (kept between runs); crashes, timeouts and out-of-memory inputs
# go to Fuzz/artifacts/<harness>/. Both directories are git-ignored. Exits 1 if any harness failed.
set -uo pipefail
cd "$(dirname "$0")/.."
bin="$1"
seconds="${FUZZ_SECONDS:-60}"
work="${FUZZ_WORK:-Fuzz/corpus/work}"
targets="${FUZZ_TARGETS:-LexicalJSONFuzz MarkdownFuzz ConfigFuzz CRDTBinaryFuzz LoroJSONFuzz TraceFuzz EditScriptFuzz}"
# LeakSanitizer reports the Swift runtime's metadata caches and lazily initialized globals at exit
# (the seed writer runs a harness as a plain program), never a leak of the code under test.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
if [ -n "${FUZZ_RUNS:-}" ]; then export SWIFT_DETERMINISTIC_HASHING=1; fi
python3 Tools/fuzz-seeds.py "$bin" || exit 1
failed=""
for target in $targets; do
  case "$target" in
    LexicalJSONFuzz) dict=json ;;
    MarkdownFuzz) dict=markdown ;;
    ConfigFuzz) dict=yaml ;;
    LoroJSONFuzz) dict=loro-json ;;
    TraceFuzz) dict=trace ;;
    EditScriptFuzz) dict=edit-script ;;
    *) dict="" ;;
  esac
  mkdir -p "$work/$target" "Fuzz/artifacts/$target"
  seeds=("Fuzz/corpus/seeds/$target")
  if [ -n "${FUZZ_RUNS:-}" ]; then
    find "Fuzz/corpus/seeds/$target" -type f | LC_ALL=C sort | paste -sd, - > "$work/$target.seeds"
    seeds=("-seed_inputs=@$work/$target.seeds")
  fi
  echo "== $target for ${seconds}s${FUZZ_RUNS:+ or $FUZZ_RUNS inputs}"
  # -timeout: one input may take 10 s (a slower one is a hang); -rss_limit_mb: 2 GB is a blow-up;
  # -detect_leaks=0: LeakSanitizer reports the Swift runtime's metadata caches and lazily
  # initialized globals (the harnesses' registries) on the very first input.
  # shellcheck disable=SC2086
  "$bin/$target" "$work/$target" "${seeds[@]}" \
    ${dict:+-dict=Fuzz/dictionaries/$dict.dict} \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -detect_leaks=0 \
    -artifact_prefix="Fuzz/artifacts/$target/" -print_final_stats=1 \
    ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} ${FUZZ_SEED:+-seed=$FUZZ_SEED} ${FUZZ_FLAGS:-} \
    || failed="$failed $target"
done
if [ -n "$failed" ]; then
  echo "fuzzing found failures in:$failed (inputs in Fuzz/artifacts/)" >&2
  exit 1
fi

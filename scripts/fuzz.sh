#!/bin/sh
# One libFuzzer target, run or merged (called by `make fuzz` / `make fuzz-merge`).
#   fuzz.sh run   BUILD NAME SECONDS JOBS   fuzz on a work copy of the checked-in corpus
#   fuzz.sh merge BUILD NAME                add what the work copy found, minimised, to the
#                                           checked-in corpus (the only step that writes it)
# The work copy lives in BUILD/corpus/NAME and survives between runs, so several runs add up;
# each run prints "execs NAME N (total T)" and keeps the running total in BUILD/execs/NAME.
set -eu
mode=$1 build=$2 name=$3
bin=$build/test/$name
seed=test/fuzz/corpus/$name
work=$build/corpus/$name
mkdir -p "$seed" "$work" "$build/execs" "$build/crashes/$name"
case $mode in
run)
    seconds=$4 jobs=$5
    # Seed the work copy (files only added, never removed: it holds earlier finds too).
    cp -n "$seed"/* "$work"/ 2>/dev/null || true
    log=$build/execs/$name.log
    : > "$log"
    echo "  FUZZ    $name (${seconds}s x $jobs)"
    # Allocation stacks are not recorded (OpenSSL's decoders allocate thousands of times per
    # input; recording cost half the time): leaks are still found; run the crash input
    # again without this to see where the memory came from.
    export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=0}"
    i=0 pids=""
    while [ $i -lt "$jobs" ]; do
        "$bin" -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 \
            -artifact_prefix="$build/crashes/$name/" -close_fd_mask=3 \
            "$work" > "$log.$i" 2>&1 &
        pids="$pids $!"
        i=$((i + 1))
    done
    status=0
    for p in $pids; do wait "$p" || status=1; done
    n=0
    for f in "$log".*; do
        e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$f" | tail -1)
        n=$((n + ${e:-0}))
        cat "$f" >> "$log"
        rm -f "$f"
    done
    total=$(( $(cat "$build/execs/$name" 2>/dev/null || echo 0) + n ))
    echo "$total" > "$build/execs/$name"
    echo "execs $name $n (total $total)"
    if [ $status != 0 ]; then
        grep -E 'ERROR|SUMMARY|==[0-9]+==|artifact' "$log" | head -20
        echo "fuzz: $name failed; crash inputs are in $build/crashes/$name/" >&2
        exit 1
    fi
    ;;
merge)
    before=$(ls "$seed" | wc -l)
    "$bin" -merge=1 -max_len=65536 "$seed" "$work" > "$build/execs/$name.merge.log" 2>&1
    echo "  MERGE   $name: $before -> $(ls "$seed" | wc -l) corpus files"
    ;;
*)
    echo "usage: fuzz.sh run|merge BUILD NAME ..." >&2
    exit 2
    ;;
esac

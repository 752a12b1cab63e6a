#!/usr/bin/env bash
# Runs each libFuzzer target of `make fuzz` for SECONDS seconds and prints, per target, the
# seconds, executions, executions per second, crashes (crash-, leak- and oom- inputs) and hangs
# (timeout- inputs) found, and the size of its working corpus; exits 1 if any target found one.
# A crash whose faulting frame (the first below the sanitizer's own) lies in libhdf5, not in
# opsim's code, is counted apart as library_crashes and does not fail the run: libhdf5 1.10 has
# such faults on damaged files (two are in tests/test_hardening.c), and opsim reads run files in
# a child process so that they end in "damaged run file", exit 65. Each is still saved and
# printed, its log kept as RUN_DIR/T/log.library.K, and the target started again for the
# seconds left, so that one fault in libhdf5 does not end a target's campaign.
#   tools/fuzz.sh SECONDS BIN_DIR RUN_DIR TARGET...
# Each target T reads its seeds and fuzz-regression inputs from tests/fuzz/T/ (read only) and
# grows RUN_DIR/T/corpus/; what it finds goes to RUN_DIR/T/findings/ (kept across runs, only
# this run's are counted), its log to RUN_DIR/T/log. libFuzzer stops a target at its first
# finding. A hang is an input that runs longer than the target's time limit below: the readers
# take microseconds per input, the builds (build, config, catalogue) and HDF5 milliseconds.
# Leak checking is off for the run-file target only: libhdf5 keeps free lists of its own, and
# with its exit handler off (op_platform_init) never frees them.
# Run from the project root.
set -uo pipefail
seconds=$1 bin=$2 runs=$3
shift 3

limit_of() {
    case $1 in
        off | obj) echo 10 ;;
        *) echo 60 ;;
    esac
}

# 0 when the sanitizer report in log $1 faults in libhdf5: its first stack frame that is not
# the sanitizer's own is "(/path/libhdf5....so...+0x...)".
faults_in_library() {
    sed -n '/==ERROR: AddressSanitizer/,$p' "$1" | grep -E '^ +#[0-9]+ 0x' |
        grep -v -E ' in (__asan|__interceptor_|__sanitizer|__lsan|__ubsan|(malloc|calloc|realloc|free|memcpy|memmove|memset) )' |
        head -1 | grep -q -E '/libhdf5[^/]*\.so[.0-9]*\+0x'
}

summary=$runs/summary.tsv
mkdir -p "$runs"
printf '# target\tseconds\texecutions\texec_per_s\tcrashes\tlibrary_crashes\thangs\tcorpus\n' > "$summary"
found_any=0
for target in "$@"; do
    dir=$runs/$target
    mkdir -p "$dir/corpus" "$dir/findings"
    options=(-max_total_time="$seconds" -timeout="$(limit_of "$target")" -print_final_stats=1
             -artifact_prefix="$dir/findings/" -rss_limit_mb=2048)
    [[ -f tests/fuzz/$target.dict ]] && options+=(-dict="tests/fuzz/$target.dict")
    leaks=1
    [[ $target == runfile ]] && options+=(-detect_leaks=0) && leaks=0
    start=$(date +%s)
    crashes=0 hangs=0 library=0 executions=0 new='' status=0 left=$seconds
    # A fault inside libhdf5 ends libFuzzer's run but is not opsim's finding: the target is
    # started again on its grown corpus for the time left, so the campaign gets its seconds.
    while ((left > 0)); do
        before=$(ls "$dir/findings" | sort)
        # libFuzzer ends without running atexit handlers, so the run-file target's input file
        # (tests/fuzz/fuzz_input.h) is left behind: kept under RUN_DIR/T/tmp/, emptied here
        rm -rf "$dir/tmp" && mkdir -p "$dir/tmp"
        options[0]=-max_total_time=$left
        TMPDIR=$dir/tmp ASAN_OPTIONS=detect_leaks=$leaks "$bin/$target" "${options[@]}" "$dir/corpus" "tests/fuzz/$target" > "$dir/log" 2>&1
        status=$?
        found=$(comm -13 <(printf '%s\n' "$before") <(ls "$dir/findings" | sort) | sed '/^$/d')
        new=$(printf '%s\n%s' "$new" "$found" | sed '/^$/d')
        ran=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
        executions=$((executions + ${ran:-0}))
        crashed=$(printf '%s\n' "$found" | grep -c -E '^(crash|leak|oom)-')
        hangs=$((hangs + $(printf '%s\n' "$found" | grep -c '^timeout-')))
        left=$((seconds - ($(date +%s) - start)))
        if ((crashed > 0)) && faults_in_library "$dir/log"; then
            library=$((library + crashed))
            cp "$dir/log" "$dir/log.library.$library"
            continue
        fi
        crashes=$((crashes + crashed))
        break
    done
    elapsed=$(($(date +%s) - start))
    rate=$((executions / (elapsed > 0 ? elapsed : 1)))
    corpus=$(ls "$dir/corpus" | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$elapsed" "${executions:-?}" "${rate:-?}" "$crashes" \
        "$library" "$hangs" "$corpus" >> "$summary"
    if [[ $library -gt 0 ]]; then
        echo "fuzz: $target: $library faults inside libhdf5 (not counted as opsim's), logs $dir/log.library.*" >&2
    fi
    if [[ $crashes -gt 0 || $hangs -gt 0 || ( $status -ne 0 && -z $new ) ]]; then
        found_any=1
        echo "fuzz: $target: exit status $status; findings in $dir/findings/, log $dir/log:" >&2
        printf '  %s\n' $new >&2
        grep -m 3 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$dir/log" >&2
    fi
done
column -t -s $'\t' "$summary"
exit $found_any

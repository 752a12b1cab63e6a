#!/usr/bin/env bash
# Runs each cmocka test executable given, then prints one closing line "N passed, N failed"
# over all of them, labelled $RUN_TESTS_LABEL (default "tests"); exits non-zero if any test failed or any executable crashed.
set -u
passed=0 failed=0 crashed=0
for t in "$@"; do
    out=$(CMOCKA_MESSAGE_OUTPUT=stdout "$t" 2>&1); rc=$?
    printf '%s\n' "$out"
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
    passed=$((passed + p)); failed=$((failed + f))
    if [[ $rc -ne 0 && $f -eq 0 ]]; then
        echo "run-tests: $t exited with status $rc" >&2
        crashed=$((crashed + 1))
    fi
done
echo
echo "${RUN_TESTS_LABEL:-tests}: $passed passed, $((failed + crashed)) failed"
[[ $failed -eq 0 && $crashed -eq 0 ]]

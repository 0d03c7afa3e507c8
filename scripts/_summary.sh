# shellcheck shell=bash
# The verdict of scripts/test, in a function a test can run on its own (tests/test_scripts.py).
# Source it; do not run it.
#
# summarize TOTAL_SECONDS
#   Reads the arrays STEP_NAMES, STEP_STATUS, STEP_SECS (one entry per step; a status is "ok",
#   "FAILED (exit N)", or anything else for a step that did not run: "not selected", "skipped",
#   "not run (dry run)") and SUBSET_NOTES (why this run is not the whole suite: AGUI_TEST_ONLY,
#   extra pytest arguments, a dry run). Prints the table and one verdict line; returns
#     0  SUCCESS  every step ran and passed, and nothing narrowed the run
#     1  FAILED   a step failed
#     2  PARTIAL  nothing failed, but something did not run or the run was narrowed:
#                 never reported as a success, whatever CI says
summarize() {
    local total="$1" i status failed=0 ok=0
    local not_run=()
    printf '\n%-12s %-22s %6s\n' step result seconds >&2
    for i in "${!STEP_NAMES[@]}"; do
        status="${STEP_STATUS[$i]}"
        printf '%-12s %-22s %6s\n' "${STEP_NAMES[$i]}" "$status" "${STEP_SECS[$i]}" >&2
        case "$status" in
        ok) ok=$((ok + 1)) ;;
        FAILED*) failed=$((failed + 1)) ;;
        *) not_run+=("${STEP_NAMES[$i]} ($status)") ;;
        esac
    done
    local why="" skipped_text=""
    if [[ ${#not_run[@]} -gt 0 ]]; then
        skipped_text="; did not run: $(_summary_join "${not_run[@]}")"
    fi
    if [[ ${#SUBSET_NOTES[@]} -gt 0 ]]; then
        why="; narrowed by $(_summary_join "${SUBSET_NOTES[@]}")"
    fi
    if [[ $failed -gt 0 ]]; then
        printf '\033[1;31mscripts/test: FAILED: %s step(s) failed, %s ok%s%s, in %ss\033[0m\n' \
            "$failed" "$ok" "$skipped_text" "$why" "$total"
        return 1
    fi
    if [[ ${#not_run[@]} -gt 0 || ${#SUBSET_NOTES[@]} -gt 0 ]]; then
        printf '\033[1;33mscripts/test: PARTIAL: %s step(s) ok%s%s, in %ss. Not the whole suite: not a success.\033[0m\n' \
            "$ok" "$skipped_text" "$why" "$total"
        return 2
    fi
    printf '\033[1;32mscripts/test: SUCCESS: all %s steps ok, in %ss\033[0m\n' "$ok" "$total"
    return 0
}

_summary_join() {
    local out="" item
    for item in "$@"; do
        out+="${out:+, }$item"
    done
    printf '%s' "$out"
}

# shellcheck shell=bash
# The verdict of scripts/test, in a function a test can run on its own (tests/test_scripts.py).
# Source it; do not run it.
#
# summarize TOTAL_SECONDS [BUDGET_SECONDS]
#   Reads the arrays STEP_NAMES, STEP_STATUS, STEP_SECS (one entry per step; a status is "ok",
#   "FAILED (exit N)", or anything else for a step that did not run: "not selected", "skipped",
#   "not run (dry run)"), STEP_LIMIT (each step's limit in seconds, "-" for none; optional) and
#   SUBSET_NOTES (why this run is not the whole suite: AGUI_TEST_ONLY, extra pytest arguments, a
#   dry run). Prints the table (each step's time and limit), the sum of the limits against the
#   budget when one is given, and one verdict line; returns
#     0  SUCCESS  every step ran and passed, and nothing narrowed the run
#     1  FAILED   a step failed
#     2  PARTIAL  nothing failed, but something did not run or the run was narrowed:
#                 never reported as a success, whatever CI says
summarize() {
    local total="$1" budget="${2:-}" i status limit failed=0 ok=0 limits=0
    local not_run=()
    printf '\n%-16s %-22s %7s %7s\n' step result seconds limit >&2
    for i in "${!STEP_NAMES[@]}"; do
        status="${STEP_STATUS[$i]}"
        limit="${STEP_LIMIT[$i]:--}"
        printf '%-16s %-22s %7s %7s\n' "${STEP_NAMES[$i]}" "$status" "${STEP_SECS[$i]}" "$limit" >&2
        if [[ "$limit" =~ ^[0-9]+$ ]]; then limits=$((limits + limit)); fi
        case "$status" in
        ok) ok=$((ok + 1)) ;;
        FAILED*) failed=$((failed + 1)) ;;
        *) not_run+=("${STEP_NAMES[$i]} ($status)") ;;
        esac
    done
    if [[ -n "$budget" ]]; then
        printf 'limits of the checks: %ss of a %ss budget (whole run: %ss)\n' "$limits" "$budget" "$total" >&2
    fi
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

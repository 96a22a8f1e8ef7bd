# Sourced by the tests that signal or kill commands with children
# (children.sh, hostile_processes.sh): the processes below one, counted.
descendants() {  # every process under $1, children first
    local c
    for c in $(pgrep -P "$1"); do
        echo "$c"
        descendants "$c"
    done
}
# wait_for_runs PID N: until PID has N processes below it (30 s at most).
wait_for_runs() {
    local i
    for i in $(seq 1 600); do
        [ "$(descendants "$1" | wc -l)" -ge "$2" ] && return 0
        sleep 0.05
    done
    return 1
}

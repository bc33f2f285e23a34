# The CPU seconds of a shell's waited-for children, from what bash's `times` printed: its second
# line, user then system time ("1m2.345s 0m0.678s"). Used by scripts/make-test.sh (the run's own
# processes) and Tests/e2e/run-all.sh (each suite's). Run `times` into a file, not a pipe: a pipe's
# `times` runs in a subshell of its own, which has waited for nothing.
NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.0f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }

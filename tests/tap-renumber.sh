#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Makes one TAP stream of what a suite prints: reads test lines with or
# without numbers ("ok - x", "not ok 7 - x"), numbers them 1..N in order,
# turns the plans and version lines of the programs it gathers into
# comments, passes every other line through, and ends with the plan
# "1..N". tools/check.sh runs every suite of make check through it.
#
#   make --no-print-directory -s check-xform | tests/tap-renumber.sh
exec awk '
/^(not )?ok([ \t]|$)/ {
	n++
	rest = $0
	sub(/^(not )?ok/, "", rest)
	sub(/^[ \t]+[0-9]+/, "", rest)
	print (/^not / ? "not ok " : "ok ") n rest
	next
}
/^1\.\.[0-9]+/ || /^TAP version / { print "# " $0; next }
{ print }
END { print "1.." n + 0 }
'

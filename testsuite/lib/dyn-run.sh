# dyn-run.sh - sourced by the transok/dyninst_* tests, after they make
# their directory $d: stap is the one on PATH, and `run CMD` runs CMD by
# sh in $d with $d as HOME (stap's cache goes there), as nobody when the
# suite runs as root and nobody can read the tapsets (a user-space
# session needs no privilege: it must work without), else as the caller.
stap=$(command -v stap)
as_nobody=false
[ "$(id -u)" = 0 ] && su nobody -s /bin/sh -c "test -x '$stap' -a -r '$SYSTEMTAP_TAPSET/string.stp'" &&
	as_nobody=true
run() {
	if $as_nobody; then
		su nobody -s /bin/sh -c "cd '$d' && env -u CTAP_CACHE_DIR HOME='$d' SYSTEMTAP_TAPSET='$SYSTEMTAP_TAPSET' SYSTEMTAP_RUNTIME='$SYSTEMTAP_RUNTIME' $*"
	else
		(cd "$d" && env -u CTAP_CACHE_DIR HOME="$d" sh -c "$*")
	fi
}

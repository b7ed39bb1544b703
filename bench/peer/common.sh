# common.sh - where the SystemTap 4.8 peer lives; sourced by bench/peer/*.
#
# The target kernel is $CTAP_KERNEL_BUILD when set (a build tree, as
# testsuite/guest-run takes it, or a release of `testsuite/kernels --list`),
# else the configured one (testsuite/site.sh).  It is exported again as
# CTAP_KERNEL_BUILD, so that guest-run boots the same kernel.
#
# Everything is kept under $CTAP_CACHE_DIR (default ~/.cache/ctap) in
# peer-<release>/: kallsyms of the guest, a kbuild copy with a real
# System.map, a patched runtime copy, and the guest payload (staprun,
# stapio and their libraries).
peer_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$peer_here/../.." && pwd)
site=$PWD/testsuite/site.sh; [ -f "$site" ] || site=$top/testsuite/site.sh
. "$site" 2>/dev/null || { echo "peer: run ./configure first" >&2; exit 2; }
site_release=$KERNEL_RELEASE	# the configured kernel's
if [ -n "${CTAP_KERNEL_BUILD:-}" ]; then
	KERNEL_BUILD=$CTAP_KERNEL_BUILD
	case $KERNEL_BUILD in
	*/*) ;;
	*) KERNEL_BUILD=$("$top/testsuite/kernels" --list | awk -v r="$KERNEL_BUILD" '$1 == r { print $2 }')
	   [ -n "$KERNEL_BUILD" ] || { echo "peer: no kernel $CTAP_KERNEL_BUILD in testsuite/kernels --list" >&2; exit 2; } ;;
	esac
	KERNEL_RELEASE=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
		"$KERNEL_BUILD/include/generated/utsrelease.h" 2>/dev/null)
	[ -n "$KERNEL_RELEASE" ] || { echo "peer: $KERNEL_BUILD is not a kernel build tree" >&2; exit 2; }
fi
[ -n "$KERNEL_BUILD" ] || { echo "peer: no kernel build tree configured" >&2; exit 2; }
export CTAP_KERNEL_BUILD=$KERNEL_BUILD
# The kernel's modules: installed, or unpacked by testsuite/kernels.
moddir=/lib/modules/$KERNEL_RELEASE
[ -d "$moddir/kernel" ] || moddir=${CTAP_KERNELS:-/var/cache/ctap/kernels}/$KERNEL_RELEASE/lib/modules/$KERNEL_RELEASE
peer=${CTAP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ctap}/peer-$KERNEL_RELEASE
kbuild=$peer/kbuild
runtime=$peer/runtime
payload=$peer/payload

# guest_run ARGS...: testsuite/guest-run, holding the lock file
# $CTAP_GUEST_LOCK (flock) while the guest runs, when set: on a machine
# whose guest runs must take turns, only the boot waits for its turn, not
# the builds before it (`CTAP_GUEST_LOCK=/tmp/ctap-guest.lock make bench`).
# An executable $CTAP_GUEST_LOCK is a wrapper run as `WRAPPER guest-run
# ARGS...` instead (a fair queue in front of the flock, for instance).
guest_run()
{
	if [ -n "${CTAP_GUEST_LOCK:-}" ] && [ -x "$CTAP_GUEST_LOCK" ] &&
	   [ ! -d "$CTAP_GUEST_LOCK" ]; then
		"$CTAP_GUEST_LOCK" "$top/testsuite/guest-run" "$@"
	elif [ -n "${CTAP_GUEST_LOCK:-}" ]; then
		flock "$CTAP_GUEST_LOCK" "$top/testsuite/guest-run" "$@"
	else
		"$top/testsuite/guest-run" "$@"
	fi
}

# common.sh - where the SystemTap 4.8 peer lives; sourced by bench/peer/*.
#
# Everything is kept under $CTAP_CACHE_DIR (default ~/.cache/ctap) in
# peer-<release>/: kallsyms of the guest, a kbuild copy with a real
# System.map, a patched runtime copy, and the guest payload (staprun,
# stapio and their libraries).
peer_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$peer_here/../.." && pwd)
site=$PWD/testsuite/site.sh; [ -f "$site" ] || site=$top/testsuite/site.sh
. "$site" 2>/dev/null || { echo "peer: run ./configure first" >&2; exit 2; }
[ -n "$KERNEL_BUILD" ] || { echo "peer: no kernel build tree configured" >&2; exit 2; }
peer=${CTAP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ctap}/peer-$KERNEL_RELEASE
kbuild=$peer/kbuild
runtime=$peer/runtime
payload=$peer/payload

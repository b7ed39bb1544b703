# kmod.sh - build the hand-written test modules (testsuite/kmod/*.c, listed
# in the top-level Kbuild) in one Kbuild run over a copy of the tree.
# Needs site.sh (top_srcdir, KERNEL_BUILD) sourced first.

# build_test_modules DIR - prints the paths of the built .ko files.
build_test_modules()
{
	local kdir=$1
	rm -rf "$kdir" && mkdir -p "$kdir/testsuite" || return 1
	cp -r "$top_srcdir/Kbuild" "$top_srcdir/kmod-runtime" "$kdir/" &&
		cp -r "$top_srcdir/testsuite/kmod" "$kdir/testsuite/" || return 1
	make -s -C "$KERNEL_BUILD" M="$kdir" -j"$(nproc)" modules \
		> "$kdir/build.log" 2>&1 || { cat "$kdir/build.log" >&2; return 1; }
	# Zero compiler warnings is part of the contract.
	if grep -E 'warning:' "$kdir/build.log" >&2; then
		return 1
	fi
	ls "$kdir"/*.ko
}

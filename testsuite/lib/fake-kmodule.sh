# Sourced by pass tests of module("M").statement: a made-up kernel release
# (RELEASE) with one module, dupmod.ko, built here from two C files with
# DWARF and a build id, installed under $CTAP_KERNELS (its modules.dep)
# and as its own DWARF under $dbg (--kernel-debuginfo).  Its two files
# each define a static dup_fn; a.c's uniq_fn has a function-scope static
# (calls, at a fixed address: DW_OP_addr).  The build tree $dir/build has
# a vmlinux with BTF (pahole), which pass 2 needs.  Removed on exit.
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
RELEASE=0.0.0-fakemod
moddir=$dir/kernels/$RELEASE/lib/modules/$RELEASE
dbg=$dir/dbg
mkdir -p "$dir/build/include/generated" "$dir/kernels/$RELEASE/boot" "$moddir/kernel" "$dbg/kernel" || exit 1
echo "#define UTS_RELEASE \"$RELEASE\"" > "$dir/build/include/generated/utsrelease.h"
touch "$dir/kernels/$RELEASE/boot/vmlinuz-$RELEASE"
echo "kernel/dupmod.ko:" > "$moddir/modules.dep"
cat > "$dir/a.c" <<'END'
static int __attribute__((noinline)) dup_fn(int x)
{
	return x * 3 + 1;
}
int uniq_fn(int x)
{
	static int calls;
	calls += dup_fn(x);
	return calls;
}
END
cat > "$dir/b.c" <<'END'
static int __attribute__((noinline)) dup_fn(int x)
{
	return x * 5 + 2;
}
int other_fn(int x)
{
	return dup_fn(x);
}
END
(cd "$dir" && gcc -O1 -g -c a.c -o a.o && gcc -O1 -g -c b.c -o b.o &&
 ld -r --build-id=sha1 a.o b.o -o "$moddir/kernel/dupmod.ko" && ld -r a.o -o build/vmlinux &&
 pahole -J build/vmlinux) || { echo "cannot build the module (gcc, ld, pahole)" >&2; exit 1; }
cp "$moddir/kernel/dupmod.ko" "$dbg/kernel/dupmod.ko" || exit 1
export CTAP_KERNELS="$dir/kernels" CTAP_CACHE_DIR="$dir/cache"

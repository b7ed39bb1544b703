# fuzz-sources.sh - what each libFuzzer target is built from, for both
# builds of it: run-tests' sanitized smoke run and fuzz/long-run's fast
# long run.  Sourced; bash.
#
# fuzz_target TARGET SRCDIR BUILDDIR: sets fuzz_srcs (the C files) and
# fuzz_flags (the compiler and linker flags beside them) for pass1, pass2
# or runtime, from the source tree and the configured tree that holds
# config.h.  Returns 1 for an unknown target.
fuzz_target()
{
	local t=$2/translator r=$2/kmod-runtime/core fz=$2/testsuite/fuzz f d
	# Every folder of the translator's: a header is included by its name alone.
	local ti=(-I"$t")
	for d in util kernel front user sem gen build; do ti+=(-I"$t/$d"); done

	fuzz_srcs=() fuzz_flags=()
	case $1 in
	pass1)
		fuzz_srcs=("$fz/fuzz_parse.c" "$t/util/arena.c" "$t/util/diag.c" "$t/front/lex.c"
			   "$t/front/preproc.c" "$t/front/parse.c" "$t/front/parse_expr.c"
			   "$t/front/printf_format.c"
			   "$t/front/print.c" "$t/util/strset.c")
		fuzz_flags=("${ti[@]}" -I"$3" -include config.h)
		;;
	runtime)
		fuzz_srcs=("$fz/fuzz_runtime.c" "$r/format.c" "$r/outbuf.c" "$r/regex_match.c"
			   "$t/sem/regex_compile.c")
		fuzz_flags=(-I"$r" "${ti[@]}")
		;;
	pass2)
		# Every translator file but main(), and the runtime's parts
		# the translator shares (histogram checks, output, regex), and
		# staprun's build-id reader, which kernel DWARF and --remote use.
		for f in "$t"/*.c "$t"/*/*.c; do
			[ "$(basename "$f")" = main.c ] || fuzz_srcs+=("$f")
		done
		fuzz_srcs+=("$fz/fuzz_pass2.c" "$r/stat.c" "$r/outbuf.c" "$r/regex_match.c" "$r/map.c"
			   "$r/json.c" "$2/staprun/build_id.c")
		# shellcheck disable=SC2046
		fuzz_flags=("${ti[@]}" -I"$3" -I"$3/translator/build" -I"$r" -I"$2/kmod-runtime" -include config.h
			    -DCTAP_PKGDATADIR='"/nonexistent"' -DCTAP_BINDIR='"/nonexistent"'
			    -DCTAP_PKGLIBEXECDIR='"/nonexistent"' -DCTAP_BUILDDIR="\"$3\""
			    -DCTAP_SRCDIR="\"$2\"" -DCTAP_KERNEL_BUILD='""'
			    $(pkg-config --cflags --libs libbpf libdw libelf libzstd) -llzma -lZydis)
		;;
	*)
		return 1
		;;
	esac
}

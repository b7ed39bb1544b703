# units.mk - the one list of the portable core's units (kmod-runtime/core/).
#
# Read by Makefile.am (the host unit tests and the no-kernel-header check),
# by the top-level Kbuild (the smoke module compiles every unit in the
# kernel) and, through translator/core_units.h which the Makefile writes
# from it, by stap -p4 (each module's runtime unit).  Adding a unit is one
# line here.  Paths are from the top of the source tree; the headers
# follow their units, plus the three that have none.
CTAP_CORE_UNITS = \
	kmod-runtime/core/outbuf.c \
	kmod-runtime/core/json.c \
	kmod-runtime/core/stat.c \
	kmod-runtime/core/format.c \
	kmod-runtime/core/map.c \
	kmod-runtime/core/regex_match.c \
	kmod-runtime/core/quote.c \
	kmod-runtime/core/umod.c \
	kmod-runtime/core/softfloat.c
CTAP_CORE_HDRS = \
	kmod-runtime/core/portable.h \
	kmod-runtime/core/ctap_limits.h \
	kmod-runtime/core/symoff.h \
	kmod-runtime/core/outbuf.h \
	kmod-runtime/core/json.h \
	kmod-runtime/core/stat.h \
	kmod-runtime/core/format.h \
	kmod-runtime/core/map.h \
	kmod-runtime/core/regex_match.h \
	kmod-runtime/core/quote.h \
	kmod-runtime/core/umod.h \
	kmod-runtime/core/softfloat.h

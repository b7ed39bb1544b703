// SPDX-License-Identifier: GPL-2.0
/*
 * umod.c - a user module's tables read: see umod.h.  Every search
 * is a binary search of a sorted table (the translator sorts them), and
 * every string written is bounded by the caller's buffer.
 */
#include "umod.h"

bool ctap_umod_place(const struct ctap_umod *m, uint64_t off, uint64_t *rel)
{
	for (int i = 0; i < m->nsegs; i++) {
		const struct ctap_useg *g = &m->segs[i];

		if (off >= g->offset && off < g->offset + g->filesz) {
			*rel = g->vaddr + (off - g->offset) - m->base;
			return true;
		}
	}
	return false;
}

/*
 * The last of n entries of size bytes, sorted by the u32 they start with
 * (a symbol's addr, a row's pc, a line's addr), whose key is at most rel;
 * -1 if none.
 */
static int last_at_or_below(const void *table, int n, size_t size, uint64_t rel)
{
	int lo = 0, hi = n - 1, found = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (*(const uint32_t *)((const char *)table + mid * size) <= rel) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

/* The symbol that holds rel, or NULL. */
const struct ctap_usym *ctap_umod_sym(const struct ctap_umod *m, uint64_t rel)
{
	int i = last_at_or_below(m->syms, m->nsyms, sizeof(*m->syms), rel);

	if (i < 0 || rel - m->syms[i].addr >= m->syms[i].size)
		return NULL;
	return &m->syms[i];
}

/* The row that covers rel, or NULL. */
const struct ctap_urow *ctap_umod_row(const struct ctap_umod *m, uint64_t rel)
{
	int i = last_at_or_below(m->rows, m->nrows, sizeof(*m->rows), rel);

	return i < 0 ? NULL : &m->rows[i];
}

/* The line row that covers rel, or NULL (none, or of no line). */
const struct ctap_uline *ctap_umod_line(const struct ctap_umod *m, uint64_t rel)
{
	int i;

	if (!m->lines)
		return NULL;
	i = last_at_or_below(m->lines, m->nlines, sizeof(*m->lines), rel);
	return i < 0 || !m->lines[i].line ? NULL : &m->lines[i];
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* usymfileline() and its kin: addr's source file and line, else its hex. */
static void format_line(char *buf, size_t size, unsigned long addr, const struct ctap_uloc *l,
			enum ctap_usym_form form)
{
	const struct ctap_uline *n = l->mod ? ctap_umod_line(l->mod, l->rel) : NULL;

	if (!n)
		snprintf(buf, size, "0x%lx", addr);
	else if (form == CTAP_USYM_FILELINE)
		snprintf(buf, size, "%s:%u", l->mod->files[n->file], (unsigned int)n->line);
	else if (form == CTAP_USYM_FILE)
		snprintf(buf, size, "%s", l->mod->files[n->file]);
	else
		snprintf(buf, size, "%u", (unsigned int)n->line);
}

/* SystemTap's formats: a symbol with its offset (and size), or without
 * one, where in the file's mappings the address is. */
void ctap_uloc_format(char *buf, size_t size, unsigned long addr, const struct ctap_uloc *l,
		      enum ctap_usym_form form)
{
	const struct ctap_usym *s = l->mod ? ctap_umod_sym(l->mod, l->rel) : NULL;
	const char *name = s ? l->mod->names + s->name : NULL;
	const char *frame = form == CTAP_USYM_FRAME ? " " : "";
	const char *path = l->path ? l->path : "";
	unsigned long long off = s ? l->rel - s->addr : 0;

	if (form >= CTAP_USYM_FILELINE)
		format_line(buf, size, addr, l, form);
	else if (form == CTAP_USYM_MODULE)
		snprintf(buf, size, "%s", path);
	else if (!s && form != CTAP_USYM_NAME && form != CTAP_USYM_SIMPLE)
		snprintf(buf, size, "%s0x%lx [%s+0x%lx/0x%lx]", frame, addr, path,
			 addr - l->start, l->size);
	else if (!s && form == CTAP_USYM_SIMPLE)
		snprintf(buf, size, "0x%lx [%s+0x%lx]", addr, base_name(path), addr - l->start);
	else if (!s)
		snprintf(buf, size, "0x%lx", addr);
	else if (form == CTAP_USYM_NAME)
		snprintf(buf, size, "%s", name);
	else if (form == CTAP_USYM_SIMPLE)
		snprintf(buf, size, "%s+0x%llx [%s]", name, off, l->mod->name);
	else if (form == CTAP_USYM_DATA)
		snprintf(buf, size, "%s+0x%llx/0x%x [%s]", name, off, (unsigned int)s->size, path);
	else
		snprintf(buf, size, " 0x%lx : %s+0x%llx/0x%x [%s]", addr, name, off,
			 (unsigned int)s->size, path);
}

bool ctap_uloc_unwind(const struct ctap_uloc *l, bool first, ctap_uread_word read,
		      unsigned long *ip, unsigned long *sp, unsigned long *bp)
{
	const struct ctap_urow *r;
	unsigned long cfa, ra, saved_bp = *bp;

	if (!l->mod)
		return false;
	/* A return address is after the call: its row is the call's. */
	r = ctap_umod_row(l->mod, first ? l->rel : l->rel - 1);
	if (!r || r->cfa_reg == CTAP_UCFA_UNKNOWN)
		return false;
	cfa = (r->cfa_reg == CTAP_UCFA_SP ? *sp : *bp) + r->cfa_off;
	if (!read(cfa - 8, &ra) || !ra)
		return false;
	if (r->bp_rule == CTAP_UBP_SAVED && !read(cfa + r->bp_off, &saved_bp))
		return false;
	if (r->bp_rule == CTAP_UBP_UNDEFINED)
		saved_bp = 0;
	if (cfa <= *sp)
		return false;	/* a stack grows down: no progress is a loop */
	*ip = ra;
	*sp = cfa;
	*bp = saved_bp;
	return true;
}

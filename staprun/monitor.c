// SPDX-License-Identifier: GPL-2.0
/*
 * monitor.c - staprun -M (stap --monitor): the session on the terminal,
 * with ncurses.  The top half is the status panel (monitor_view.c's lines
 * from /proc/systemtap/MODULE/monitor_status, read every interval and on
 * each key), the bottom half the script's output, which the relay writes
 * into a pipe a thread of ours reads into a ring of lines.  Keys write
 * commands to monitor_control (kmod-runtime/monitor.c).  Without a
 * terminal on stdout there is no view, and the output goes out as usual,
 * as SystemTap's staprun does.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include "monitor_view.h"
#include "staprun.h"

#define MAX_HISTORY	8192		/* output lines kept */
#define MAX_STATUS	262144		/* what monitor_status holds at most */

struct monitor {
	char status_path[128], control_path[128];
	int interval_ms;
	long next_read;			/* when monitor_status is read again */
	struct mon_status st;		/* its last text, parsed once per read */
	bool have_st;			/* st holds one (else: not available) */
	/* The script's output: the pipe's read end, a thread, the lines. */
	int pipe_rd;
	pthread_t reader;
	pthread_mutex_t lock;
	char *lines[MAX_HISTORY];	/* a ring: the oldest at first */
	int first, count;
	char partial[1024];		/* a line not ended yet */
	size_t partial_len;
	/* The view. */
	WINDOW *status, *output;
	enum mon_column sort;
	int probe_scroll, output_scroll;
	bool on_status;			/* the keys scroll the status panel */
	bool help, prompting, exited;
	char index[8];			/* 't': the probe index typed so far */
};

static long monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* ---- the script's output ---- */

static void keep_line(struct monitor *m, const char *text, size_t len)
{
	char *line = strndup(text, len);
	int slot;

	if (!line)
		return;
	pthread_mutex_lock(&m->lock);
	if (m->count == MAX_HISTORY) {
		free(m->lines[m->first]);
		m->lines[m->first] = line;
		m->first = (m->first + 1) % MAX_HISTORY;
	} else {
		slot = (m->first + m->count++) % MAX_HISTORY;
		m->lines[slot] = line;
	}
	pthread_mutex_unlock(&m->lock);
}

/* Whole lines into the ring; a line longer than partial goes in pieces. */
static void *read_output(void *arg)
{
	struct monitor *m = arg;
	char buf[4096];
	ssize_t n;

	while ((n = read(m->pipe_rd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n' && m->partial_len < sizeof(m->partial)) {
				m->partial[m->partial_len++] = buf[i];
				continue;
			}
			keep_line(m, m->partial, m->partial_len);
			m->partial_len = 0;
			if (buf[i] != '\n')
				m->partial[m->partial_len++] = buf[i];
		}
	}
	if (m->partial_len)
		keep_line(m, m->partial, m->partial_len);
	return NULL;
}

/* ---- the module's files ---- */

/* The text of monitor_status now (a new open runs its probe), or NULL. */
static char *read_status(struct monitor *m)
{
	int fd = open(m->status_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char *buf;
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = malloc(MAX_STATUS + 1);
	while (buf && len < MAX_STATUS && (n = read(fd, buf + len, MAX_STATUS - len)) > 0)
		len += n;
	close(fd);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static void write_command(struct monitor *m, const char *cmd)
{
	int fd = open(m->control_path, O_WRONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return;
	if (write(fd, cmd, strlen(cmd)) < 0)
		dbug("monitor: %s: %s\n", m->control_path, strerror(errno));
	close(fd);
}

/* ---- drawing ---- */

static void layout(struct monitor *m)
{
	if (m->status)
		delwin(m->status);
	if (m->output)
		delwin(m->output);
	m->status = newwin(LINES / 2, COLS, 0, 0);
	m->output = newwin(LINES - LINES / 2, COLS, LINES / 2, 0);
	scrollok(m->output, TRUE);
}

/* text's lines from the window's top, each cut to its width. */
static void draw_lines(WINDOW *w, const char *text, int rows)
{
	int cols = getmaxx(w);

	for (int row = 0; *text && row < rows; row++) {
		const char *end = strchr(text, '\n');
		int len = end ? (int)(end - text) : (int)strlen(text);

		mvwaddnstr(w, row, 0, text, len < cols ? len : cols);
		text += end ? len + 1 : len;
	}
}

static void draw_status(struct monitor *m)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f;
	int rows = getmaxy(m->status);

	werase(m->status);
	if (!m->have_st) {
		mvwprintw(m->status, 0, 0, "(data not available)");
	} else if ((f = open_memstream(&text, &size))) {
		mon_status_sort(&m->st, m->sort);
		if (m->probe_scroll >= m->st.nprobes)
			m->probe_scroll = m->st.nprobes ? m->st.nprobes - 1 : 0;
		mon_status_format(&m->st, m->sort, COLS - 1, rows, m->probe_scroll, f);
		fclose(f);
		if (m->on_status)
			wattron(m->status, A_BOLD);
		draw_lines(m->status, text, rows - 1);
		wattroff(m->status, A_BOLD);
		free(text);
	}
	if (m->prompting)
		mvwprintw(m->status, rows - 1, 0, "enter probe index: %s", m->index);
	else if (m->exited)
		mvwprintw(m->status, rows - 1, 0, "EXITED: press q again to quit");
	else
		mvwprintw(m->status, rows - 1, 0, "press h for help");
	wclrtoeol(m->status);
	wnoutrefresh(m->status);
}

static void draw_output(struct monitor *m)
{
	int rows = getmaxy(m->output), from, last;

	werase(m->output);
	pthread_mutex_lock(&m->lock);
	if (m->output_scroll > m->count - rows)
		m->output_scroll = m->count > rows ? m->count - rows : 0;
	last = m->count - m->output_scroll;
	from = last > rows ? last - rows : 0;
	for (int i = from; i < last; i++) {
		mvwaddnstr(m->output, i - from, 0, m->lines[(m->first + i) % MAX_HISTORY], COLS);
	}
	pthread_mutex_unlock(&m->lock);
	wnoutrefresh(m->output);
}

static void draw_help(void)
{
	static const char *const help[] = {
		"MONITOR MODE COMMANDS",
		"h - show/hide this help",
		"c - reset every global to its initial value",
		"s - sort the probes by the next column",
		"t - type the index of a probe to switch it off or on",
		"p/r - pause/resume: every probe off/on",
		"q - quit the script",
		"j,k/Down,Up - scroll by a line; PgDn/PgUp by a page; Home/End",
		"Tab - scroll the status panel or the output",
	};
	int n = sizeof(help) / sizeof(help[0]);
	WINDOW *w = newwin(n + 2, COLS * 3 / 4, LINES / 8, COLS / 8);

	if (!w)
		return;
	box(w, 0, 0);
	for (int i = 0; i < n; i++)
		mvwaddnstr(w, i + 1, 2, help[i], COLS * 3 / 4 - 4);
	wnoutrefresh(w);
	delwin(w);
}

static void draw(struct monitor *m)
{
	draw_status(m);
	draw_output(m);
	if (m->help)
		draw_help();
	doupdate();
}

/* ---- keys ---- */

static void scroll_by(struct monitor *m, int lines)
{
	if (m->on_status)
		m->probe_scroll = m->probe_scroll + lines < 0 ? 0 : m->probe_scroll + lines;
	else
		m->output_scroll = m->output_scroll - lines < 0 ? 0 : m->output_scroll - lines;
}

/* A digit, Enter or Backspace while the probe index is typed. */
static void prompt_key(struct monitor *m, int ch)
{
	size_t len = strlen(m->index);

	if (ch == '\n' || ch == KEY_ENTER) {
		if (len)
			write_command(m, m->index);
		m->prompting = false;
		m->index[0] = '\0';
	} else if ((ch == KEY_BACKSPACE || ch == 127) && len) {
		m->index[len - 1] = '\0';
	} else if (ch >= '0' && ch <= '9' && len + 1 < sizeof(m->index)) {
		m->index[len] = (char)ch;
		m->index[len + 1] = '\0';
	} else if (ch == 27) {
		m->prompting = false;
		m->index[0] = '\0';
	}
}

/* One key: true when it asks the session to end. */
static bool key(struct monitor *m, int ch)
{
	int page = getmaxy(m->on_status ? m->status : m->output) - 1;

	if (m->prompting) {
		prompt_key(m, ch);
		return false;
	}
	switch (ch) {
	case '\t': m->on_status = !m->on_status; break;
	case 'j': case KEY_DOWN: scroll_by(m, 1); break;
	case 'k': case KEY_UP: scroll_by(m, -1); break;
	case KEY_NPAGE: scroll_by(m, page); break;
	case KEY_PPAGE: scroll_by(m, -page); break;
	case KEY_HOME: scroll_by(m, m->on_status ? -m->probe_scroll : MAX_HISTORY); break;
	case KEY_END: scroll_by(m, m->on_status ? MAX_HISTORY : -m->output_scroll); break;
	case 's': m->sort = (m->sort + 1) % MON_NCOLUMNS; break;
	case 'c': write_command(m, "clear"); break;
	case 'p': write_command(m, "pause"); break;
	case 'r': write_command(m, "resume"); break;
	case 't': m->prompting = true; break;
	case 'h': m->help = !m->help; break;
	case 'q':
		if (m->exited)
			return true;
		write_command(m, "quit");
		break;
	case KEY_RESIZE: layout(m); break;
	}
	return false;
}

/* ---- the session's side ---- */

int monitor_start(const char *modname, int interval, int *out_fd, struct monitor **mp)
{
	struct monitor *m;
	int fds[2];

	*mp = NULL;
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	snprintf(m->status_path, sizeof(m->status_path), "/proc/systemtap/%s/monitor_status",
		 modname);
	snprintf(m->control_path, sizeof(m->control_path), "/proc/systemtap/%s/monitor_control",
		 modname);
	m->interval_ms = interval * 1000;
	pthread_mutex_init(&m->lock, NULL);
	if (pipe2(fds, O_CLOEXEC)) {
		free(m);
		return -errno;
	}
	m->pipe_rd = fds[0];
	if (pthread_create(&m->reader, NULL, read_output, m)) {
		close(fds[0]);
		close(fds[1]);
		free(m);
		return -EAGAIN;
	}
	initscr();
	cbreak();
	noecho();
	curs_set(0);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	layout(m);
	*out_fd = fds[1];
	*mp = m;
	return 0;
}

bool monitor_tick(struct monitor *m)
{
	bool keys = false, stop = false;
	int ch;

	if (!m)
		return false;
	while ((ch = getch()) != ERR) {
		stop |= key(m, ch);
		keys = true;
	}
	if (monotonic_ms() >= m->next_read || keys) {
		char *json = read_status(m);

		/* What the module printed last stays when it has stopped. */
		if (json && *json) {
			if (m->have_st)
				mon_status_free(&m->st);
			m->have_st = !mon_status_parse(json, &m->st);
		}
		free(json);
		m->next_read = monotonic_ms() + m->interval_ms;
	}
	draw(m);
	return stop;
}

void monitor_end(struct monitor *m, int out_fd)
{
	int ch;

	if (!m)
		return;
	close(out_fd);			/* the reader sees the end */
	pthread_join(m->reader, NULL);
	close(m->pipe_rd);
	m->exited = true;
	nodelay(stdscr, FALSE);
	draw(m);
	while ((ch = getch()) != ERR && !key(m, ch))
		draw(m);
	endwin();
	/* The output stays on the terminal once the view is gone. */
	for (int i = 0; i < m->count; i++) {
		char *line = m->lines[(m->first + i) % MAX_HISTORY];

		printf("%s\n", line);
		free(line);
	}
	fflush(stdout);
	if (m->have_st)
		mon_status_free(&m->st);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/*
 * staprun.h - the privileged loader's internal interfaces.
 *
 * staprun.c	options and the session loop
 * module.c	load and unload the kernel module
 * ctl.c	the .cmd control channel (ctap_msgs.h)
 * relay.c	draining the per-CPU relay output files
 * input.c	-i: stdin to the module's input probes
 * check.c	--check: can this kernel run ctap's modules here?
 *
 * Functions return 0 or a negative errno, and print nothing unless their
 * comment says so: the caller decides what to tell the user.
 */
#ifndef STAPRUN_H
#define STAPRUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>
#include <termios.h>

#include "ctap_msgs.h"

extern int verbose;
void dbug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* module.c */
int module_name_from_path(const char *path, char *name, size_t size);
int module_load(const char *path, const char *params);
int module_unload(const char *name);
bool module_is_loaded(const char *name);

/* check.c: staprun --check's report on stdout; 0 if modules can run here. */
int staprun_check(void);

/* ctl.c */
int ctl_open(const char *modname);
int ctl_send(int fd, uint32_t type, const void *payload, uint32_t len);
/* Reads one message; payload is NUL-terminated (size must allow it). */
int ctl_recv(int fd, struct ctap_msg_hdr *hdr, char *payload, size_t size);

/* relay.c */
struct relay {
	int ncpus;
	int *fds;		/* trace0..traceN, -1 where a CPU has none */
	int *out_fds;		/* where each CPU's output goes */
	bool own_outs;		/* out_fds are bulk files we opened */
	uint64_t bytes;		/* copied to the output so far */
	/* -o FILE in stream mode goes on in FILE.1, FILE.2 ... on request
	 * (switch_file(), SIGUSR2) and, with -S, once a file is larger than
	 * fsize_max; -S starts at FILE.0 (SystemTap's stapio names). */
	const char *base;	/* FILE, or NULL: no rotation */
	int fnum;		/* the file being written is FILE.fnum (0: FILE) */
	uint64_t wsize;		/* bytes written to it */
	uint64_t fsize_max;	/* -S MB as bytes; 0: only on request */
	int fnum_max;		/* -S MB,N: keep the N newest files; 0: all */
	bool switch_asked;
};
int relay_open_all(struct relay *r, const char *modname);
/* Every CPU's output to out_fd; or, in bulk mode, to PREFIX_cpuN files. */
void relay_output_to(struct relay *r, int out_fd);
int relay_output_bulk(struct relay *r, const char *prefix);

/* An output file (-o, -b's per-CPU files): created as the user who ran
 * staprun, never through a symlink.  An fd or -errno. */
int open_output(const char *path);
/* FILE's name number fnum under -S or after a switch: FILE.fnum. */
int relay_file_name(char *buf, size_t size, const char *base, int fnum);
/* Every CPU's output to out_fd, the first file of base (FILE, or FILE.0
 * under -S), which rotates from then on (see struct relay). */
void relay_output_rotating(struct relay *r, int out_fd, const char *base, uint64_t fsize_max,
			   int fnum_max);
/* Copies everything readable now to the outputs; returns bytes or -errno. */
long relay_drain(struct relay *r);
void relay_close_all(struct relay *r);

/* input.c */
struct input {
	char path[128];		/* /proc/systemtap/MODULE/__stdin */
	int proc_fd;
	bool active;		/* stdin is still being read */
	bool tty;		/* stdin is a terminal, saved is its mode */
	struct termios saved;
};
/* Opens the module's __stdin and sets up a terminal.  0 or -errno. */
int input_start(struct input *in, const char *modname);
/* What to poll for input, or -1 once stdin has ended. */
int input_fd(const struct input *in);
/* Forwards what stdin has now, a byte a write. */
void input_forward(struct input *in);
/* Restores the terminal and closes the file. */
void input_stop(struct input *in);

#endif /* STAPRUN_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * staprun.h - the privileged loader's internal interfaces.
 *
 * staprun.c	the session: start, the loop, control messages, signals, stop
 * options.c	the command line
 * log.c	-v's debug lines and the error messages
 * child.c	the -c command and system(), run as the user
 * trust.c	setuid: which module, which parameters; the user's uid
 * modinfo.c	a module file's .modinfo tags
 * module.c	load and unload the kernel module
 * bundle.c	a bundle's module for the running kernel
 * output.c	the output files, as the user
 * ctl.c	the .cmd control channel (ctap_msgs.h)
 * relay.c	draining the per-CPU relay output files
 * input.c	-i: stdin to the module's input probes
 * check.c	--check: can this kernel run ctap's modules here?
 * detach.c	-L and -D: the session goes on without a terminal
 * monitor.c	-M: the session's live view (monitor_view.c: its text)
 *
 * Functions return 0 or a negative errno, and print nothing unless their
 * comment says so: the caller decides what to tell the user.  Running out
 * of memory is one such error (-ENOMEM): nothing here exits on it.
 */
#ifndef STAPRUN_H
#define STAPRUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <limits.h>
#include <sys/types.h>
#include <termios.h>

#include "ctap_msgs.h"

/* log.c: on stderr, "staprun: " lines under -v, "ERROR: " lines always */
extern int verbose;
void dbug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* options.c: the command line */
struct options {
	const char *ko_path;	/* MODULE.ko, NAME, or -A/-d's session NAME */
	char modname[64];	/* the kernel's name for it, from the path */
	const char **param_args;	/* name=value, staprun's own first */
	int nparams;
	char buffer_arg[32];	/* ctap_buffer_mb=N */
	const char *cmd;	/* -c */
	pid_t target;		/* -x */
	pid_t ns_pid;		/* -N: the target namespaces' process */
	const char *outfile;	/* -o */
	uint64_t fsize_max;	/* -S MB, as bytes */
	int fnum_max;		/* -S MB,N */
	int timeout_s;		/* -T */
	bool bulk;		/* -b: a file per CPU */
	int buffer_mb;		/* -s: relay buffer size */
	bool attach, unload;	/* -A, -d: a module already loaded */
	bool load_only;		/* -L: start it, then detach */
	bool daemon;		/* -D: go on in the background */
	bool read_stdin;	/* -i: stdin goes to the input probes */
	int monitor;		/* -M: monitor mode's interval in seconds, or 0 */
};
/* Fills o from argv (-V and -h print and exit): 0, or -errno with the
 * reason said. */
int options_parse(struct options *o, int argc, char **argv);

/* monitor.c: -M, stap --monitor's view, when stdout is a terminal */
struct monitor;
/* The view starts, *out_fd becoming the pipe whose lines it shows; with
 * no terminal, *m is NULL and nothing changes.  0 or -errno. */
int monitor_start(const char *modname, int interval, int *out_fd, struct monitor **m);
/* From the session's loop: keys, the refresh.  True when asked to end. */
bool monitor_tick(struct monitor *m);
/* The session has ended: out_fd closed, the view kept until q, the
 * output then printed.  Nothing for NULL. */
void monitor_end(struct monitor *m, int out_fd);

/* child.c: the -c command's setup in the child (command.h); arg: a bool,
 * whether its stdin is /dev/null. */
void command_setup(void *arg);
/* system() in the script: sh -c cmd, not waited for; out_fd closed in it. */
int system_run(const char *cmd, int out_fd);

/* modinfo.c: tag=value strings of a module file's .modinfo section */
struct modinfo {
	char *text;		/* NUL-separated strings; NULL: none read */
	size_t len;
};
/* -ENOEXEC when the file is no 64-bit ELF module with a .modinfo. */
int modinfo_read(int fd, struct modinfo *mi);
const char *modinfo_get(const struct modinfo *mi, const char *tag);
const char *modinfo_next(const struct modinfo *mi, const char *tag, size_t *pos);
/* Does the module declare parameter name (its first len bytes)? */
bool modinfo_declares(const struct modinfo *mi, const char *name, size_t len);
void modinfo_free(struct modinfo *mi);

/* trust.c */
/* Installed setuid root and run by a user: the real uid is not root's. */
bool setuid_run(void);
/* In a child about to run the user's command: become the user, for good. */
void drop_privileges(void);

struct module_file {
	int fd;			/* what finit_module() loads */
	char name[64];		/* the kernel's name for it */
	struct modinfo info;	/* its .modinfo, if it has one */
};
/*
 * Opens the module to load, once: arg is a path or, without '/' and
 * ".ko", a name in /lib/modules/RELEASE/systemtap.  Setuid, only a ctap
 * module of that directory, checked (see trust.c).  0, or -errno with
 * the reason in why.
 */
int module_open(const char *arg, struct module_file *m, char *why, size_t size);
/* bundle.c: when m's file is a bundle of modules, m->fd becomes the one
 * for the running kernel (a memfd).  0 (a bundle or not), or -errno with
 * the reason in why. */
int bundle_select(struct module_file *m, const char *arg, char *why, size_t size);
void module_close(struct module_file *m);
/* The NAME=VALUE arguments as the kernel's parameter string (*params,
 * malloc'd); setuid, only parameters the module declares. */
int module_params(const struct module_file *m, const char *const *args, int n, char **params,
		  char *why, size_t size);
/* module_open() and module_params() for the session (*params malloc'd);
 * a refusal said to the user, setuid or not. */
int module_prepare(const char *arg, const char *const *args, int n, struct module_file *m,
		   char **params);
/* Loads the module opened already (that descriptor, not the path shown
 * again) and closes it; a refusal said, with the reason if signatures. */
int module_insert(struct module_file *m, const char *shown, const char *params);

/* module.c */
int module_name_from_path(const char *path, char *name, size_t size);
int module_load(int fd, const char *params);
/* Why the kernel refused the module at fd with -errno err, if signatures
 * are the reason; else NULL. */
const char *module_refusal(int fd, int err);
int module_unload(const char *name);
bool module_is_loaded(const char *name);

/* detach.c */
/* -L: tells the user how to attach again (SystemTap's words). */
void detach_say(const char *modname);
/* -D: the caller goes on as a daemon (0); staprun's own process prints
 * the daemon's pid and exits.  -errno (fork) if it cannot. */
int detach_daemon(void);

/* check.c: staprun --check's report on stdout; 0 if modules can run here. */
int staprun_check(void);

/* ctl.c */
int ctl_open(const char *modname);
/* Says why ctl_open() failed with err. */
void ctl_open_failed(const char *modname, int err);
int ctl_send(int fd, uint32_t type, const void *payload, uint32_t len);
/* Reads one message; payload is NUL-terminated (size must allow it). */
int ctl_recv(int fd, struct ctap_msg_hdr *hdr, char *payload, size_t size);

#include "relay.h"	/* relay.c, output.c: stapdyn's too */
#include "command.h"	/* command.c: stapdyn's too */
#include "warned.h"	/* warned.c: stapdyn's too */

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

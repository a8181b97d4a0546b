/* Temporaries to remove when SIGINT or SIGTERM interrupts fom: an output's
 * PATH.tmp.XXXXXX while it is written, a report's fresh folder while it is
 * filled.  The handler (async-signal-safe: unlink, unlinkat, rmdir and the
 * getdents64 system call only) removes what is registered, a folder with
 * the files in it, then ends the process by the same signal, so the exit
 * status says it was interrupted (128 + the signal number in a shell). */
#ifndef FOM_TMPREG_H
#define FOM_TMPREG_H

#include <signal.h>

/* Install the handler for SIGINT and SIGTERM (once, from main). */
void tmpreg_install(void);
/* Register path (a file, or with is_dir a folder whose files go too).
 * Returns the slot to pass to tmpreg_drop, or -1 when the registry is
 * full (the path is then not removed on interruption). */
int tmpreg_add(const char *path, int is_dir);
/* mkstemp and mkdtemp with the new name registered before SIGINT or
 * SIGTERM can be handled: a signal landing between the creation and the
 * registration would leave the temporary behind.  *slot gets the slot
 * (-1 when the registry is full or the creation failed). */
int tmpreg_mkstemp(char *tmpl, int *slot);
char *tmpreg_mkdtemp(char *tmpl, int *slot);
/* Hold SIGINT and SIGTERM back over a few steps that must not be cut in
 * two (renames that swap an output into place); release delivers any
 * that came meanwhile. */
void tmpreg_hold(sigset_t *old);
void tmpreg_release(const sigset_t *old);
/* Forget a slot (before the path is renamed or removed). */
void tmpreg_drop(int slot);
/* Remove every registered path now (before exiting on a fatal error). */
void tmpreg_remove_all(void);

#endif

#include "core/tmpreg.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/xalloc.h"

/* Outputs are written one at a time; a report holds its folder, one file
 * in it and gnuplot's output at once.  32 leaves room for nesting. */
#define TMPREG_SLOTS 32

/* A slot's path is set before it is published and unpublished before it
 * is freed, so the handler sees either a whole string or NULL. */
static char *volatile slot_path[TMPREG_SLOTS];
static volatile sig_atomic_t slot_dir[TMPREG_SLOTS];

/* Remove the entries of a flat folder, then the folder.  Entries are
 * read again from the start after each batch of removals. */
static void remove_dir_flat(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        static char buf[4096];
        for (int pass = 0; pass < 1000; pass++) {
            if (lseek(fd, 0, SEEK_SET) != 0)
                break;
            long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
            int removed = 0;
            for (long off = 0; off < n;) {
                /* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
                unsigned short reclen;
                memcpy(&reclen, buf + off + 16, sizeof reclen);
                const char *name = buf + off + 19;
                if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
                    unlinkat(fd, name, 0) == 0)
                    removed++;
                off += reclen;
            }
            if (n <= 0 || removed == 0)
                break;
        }
        close(fd);
    }
    rmdir(path);
}

void tmpreg_remove_all(void)
{
    for (int i = TMPREG_SLOTS - 1; i >= 0; i--) {
        const char *p = slot_path[i];
        if (!p)
            continue;
        if (slot_dir[i])
            remove_dir_flat(p);
        else
            unlink(p);
    }
}

static void on_signal(int sig)
{
    tmpreg_remove_all();
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: the process ends by sig */
}

void tmpreg_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Registration and removal block the two signals so that a handler never
 * runs while a slot is half-changed. */
void tmpreg_hold(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, old);
}

void tmpreg_release(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

int tmpreg_add(const char *path, int is_dir)
{
    char *copy = xstrdup(path);
    sigset_t old;
    int slot = -1;
    tmpreg_hold(&old);
    for (int i = 0; i < TMPREG_SLOTS; i++) {
        if (!slot_path[i]) {
            slot_dir[i] = is_dir;
            slot_path[i] = copy;
            slot = i;
            break;
        }
    }
    tmpreg_release(&old);
    if (slot < 0)
        free(copy);
    return slot;
}

void tmpreg_drop(int slot)
{
    if (slot < 0 || slot >= TMPREG_SLOTS)
        return;
    sigset_t old;
    tmpreg_hold(&old);
    char *p = slot_path[slot];
    slot_path[slot] = NULL;
    tmpreg_release(&old);
    free(p);
}

int tmpreg_mkstemp(char *tmpl, int *slot)
{
    sigset_t old;
    tmpreg_hold(&old);
    int fd = mkstemp(tmpl);
    *slot = fd >= 0 ? tmpreg_add(tmpl, 0) : -1;
    tmpreg_release(&old);
    return fd;
}

char *tmpreg_mkdtemp(char *tmpl, int *slot)
{
    sigset_t old;
    tmpreg_hold(&old);
    char *dir = mkdtemp(tmpl);
    *slot = dir ? tmpreg_add(tmpl, 1) : -1;
    tmpreg_release(&old);
    return dir;
}

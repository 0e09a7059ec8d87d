/* A failing disk, for fault drills: LD_PRELOAD this into one process, and its writes to files
 * under a path prefix fail with EIO at random, as a dying disk's would.
 *
 *   RECLAIM_EIO_PREFIX  only descriptors whose file lies under this path are faulted (required)
 *   RECLAIM_EIO_P       the chance that one write, pwrite, writev, fsync or fdatasync fails (0.01)
 *   RECLAIM_EIO_SEED    the random sequence, for a drill that can be run again (1)
 *
 * The library takes itself out of LD_PRELOAD as it loads, so that only the process it was
 * loaded into is faulted, never the processes that one starts (a sandbox, an agent).
 * Build: cc -shared -fPIC -O2 -o eio_preload.so eio_preload.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static const char *prefix;
static size_t prefix_len;
static double chance = 0.01;
static unsigned int seed = 1;

__attribute__((constructor)) static void setup(void) {
    const char *p = getenv("RECLAIM_EIO_PREFIX");
    if (p != NULL && *p != '\0') {
        prefix = strdup(p);
        prefix_len = strlen(prefix);
    }
    if ((p = getenv("RECLAIM_EIO_P")) != NULL) chance = atof(p);
    if ((p = getenv("RECLAIM_EIO_SEED")) != NULL) seed = (unsigned int)atoi(p);
    unsetenv("LD_PRELOAD");
}

static int faulted(int fd) {
    char link[64], target[4096];
    ssize_t n;
    if (prefix == NULL) return 0;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink(link, target, sizeof target - 1);
    if (n < 0) return 0;
    target[n] = '\0';
    if (strncmp(target, prefix, prefix_len) != 0) return 0;
    return (double)rand_r(&seed) / (double)RAND_MAX < chance;
}

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef int (*sync_fn)(int);

#define REAL(name, type) static type real_##name; if (!real_##name) real_##name = (type)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t count) {
    REAL(write, write_fn);
    if (faulted(fd)) { errno = EIO; return -1; }
    return real_write(fd, buf, count);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
    REAL(pwrite64, pwrite_fn);
    if (faulted(fd)) { errno = EIO; return -1; }
    return real_pwrite64(fd, buf, count, offset);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    REAL(pwrite, pwrite_fn);
    if (faulted(fd)) { errno = EIO; return -1; }
    return real_pwrite(fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
    REAL(writev, writev_fn);
    if (faulted(fd)) { errno = EIO; return -1; }
    return real_writev(fd, iov, iovcnt);
}

int fsync(int fd) {
    REAL(fsync, sync_fn);
    if (faulted(fd)) { errno = EIO; return -1; }
    return real_fsync(fd);
}

int fdatasync(int fd) {
    REAL(fdatasync, sync_fn);
    if (faulted(fd)) { errno = EIO; return -1; }
    return real_fdatasync(fd);
}

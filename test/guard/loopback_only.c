/* LD_PRELOAD shim for the test suites: a socket that would listen on anything but loopback
 * (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104) is refused with EACCES, as on hosts that police
 * listening sockets, and reported on stderr and in the file $WH_LISTEN_REPORT. The check sits in
 * listen(), not bind(), because only a listening socket is a server: a wildcard bind before
 * connect() or for UDP is none of the guard's business. test/guard/loopback-only runs a suite
 * under it and fails the suite when the report is not empty. */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef int (*listen_fn)(int, int);

static listen_fn real_listen;

/* Resolved before main, while the process has a single thread. */
__attribute__((constructor)) static void resolve(void)
{
    void *sym = dlsym(RTLD_NEXT, "listen");
    /* ISO C has no cast from an object pointer to a function pointer; POSIX makes the bytes
     * of dlsym's answer a valid function pointer. */
    memcpy(&real_listen, &sym, sizeof(sym));
}

static bool loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
    }
    if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        return IN6_IS_ADDR_LOOPBACK(&a->sin6_addr) ||
               (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr) && a->sin6_addr.s6_addr[12] == 127);
    }
    return true; /* AF_UNIX and the like reach no network */
}

static void report(const struct sockaddr_storage *ss)
{
    char addr[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &a->sin_addr, addr, sizeof(addr));
        port = ntohs(a->sin_port);
    } else {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &a->sin6_addr, addr, sizeof(addr));
        port = ntohs(a->sin6_port);
    }
    char comm[64] = "?";
    int fd = open("/proc/self/comm", O_RDONLY);
    if (fd >= 0) {
        ssize_t n = read(fd, comm, sizeof(comm) - 1);
        comm[n > 0 ? n : 0] = '\0';
        comm[strcspn(comm, "\n")] = '\0';
        close(fd);
    }
    char line[256];
    int n = snprintf(line, sizeof(line),
                     "loopback guard: refused listen on %s%s%s:%u by pid %ld (%s)\n",
                     ss->ss_family == AF_INET6 ? "[" : "", addr,
                     ss->ss_family == AF_INET6 ? "]" : "", port, (long)getpid(), comm);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
    /* One write(2) each, so that lines of concurrent processes never interleave. */
    if (write(2, line, len) < 0) {
        /* stderr closed: the report file below still has it */
    }
    const char *path = getenv("WH_LISTEN_REPORT");
    if (!path || !*path)
        return;
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (write(fd, line, len) < 0) {
        /* nothing more to try: the refusal itself still fails the server */
    }
    close(fd);
}

int listen(int fd, int backlog)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    /* An unbound socket reads as 0.0.0.0:0 here; listen() would bind it to every interface. */
    if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0 && !loopback(&ss)) {
        report(&ss);
        errno = EACCES;
        return -1;
    }
    if (!real_listen) {
        errno = ENOSYS;
        return -1;
    }
    return real_listen(fd, backlog);
}

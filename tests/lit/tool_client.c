/* tool_server.py's client in C, for lit's RUN lines: the same request as
 * `python3 -I -S tool_server.py client SOCKET TOOL ARGS...` sends, for ~1 ms of CPU
 * instead of a Python start-up's ~15 ms (a lit run starts ~550 clients). lit.cfg.py
 * builds it with the C compiler when there is one and uses the Python client otherwise.
 *
 *     tool_client SOCKET TOOL ARGS...
 *
 * Request: 4 bytes of length (big-endian), then NUL-terminated fields: the working
 * directory, the argument count, the arguments (TOOL ARGS...), the environment's
 * NAME=VALUE entries; file descriptors 0, 1 and 2 go along (SCM_RIGHTS). Reply: the
 * exit status, 4 bytes big-endian, which the client exits with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

extern char **environ;

static char *buf;
static size_t len, cap;  /* buf[0:len] is the request so far */

static void put(const char *s) {
    size_t n = strlen(s) + 1;
    if (len + n > cap) {
        cap = 2 * (len + n);
        buf = realloc(buf, cap);
        if (buf == NULL) {
            perror("tool_client");
            exit(70);
        }
    }
    memcpy(buf + len, s, n);
    len += n;
}

static int fail(const char *tool, const char *what) {
    fprintf(stderr, "tool_server: %s: %s\n", tool, what);
    return 70;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: tool_client SOCKET TOOL ARGS...\n");
        return 2;
    }
    const char *tool = argv[2];
    char *cwd = getcwd(NULL, 0);
    if (cwd == NULL) {
        perror("tool_client: getcwd");
        return 70;
    }
    char count[16];
    snprintf(count, sizeof count, "%d", argc - 2);
    len = 4;  /* the length, filled in below */
    put(cwd);
    put(count);
    for (int i = 2; i < argc; i++)
        put(argv[i]);
    for (char **e = environ; *e != NULL; e++)
        put(*e);
    size_t size = len - 4;
    buf[0] = (char)(size >> 24);
    buf[1] = (char)(size >> 16);
    buf[2] = (char)(size >> 8);
    buf[3] = (char)size;

    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(argv[1]) >= sizeof addr.sun_path)
        return fail(tool, "the socket path is too long");
    strcpy(addr.sun_path, argv[1]);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof addr) < 0)
        return fail(tool, "cannot connect to the server");

    int fds[3] = {0, 1, 2};
    union {
        char data[CMSG_SPACE(sizeof fds)];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.data,
                         .msg_controllen = sizeof control.data};
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(cmsg), fds, sizeof fds);
    ssize_t sent = sendmsg(s, &msg, 0);
    if (sent < 0)
        return fail(tool, "cannot send the request");
    for (size_t done = (size_t)sent; done < len; done += (size_t)sent) {
        sent = send(s, buf + done, len - done, 0);
        if (sent < 0)
            return fail(tool, "cannot send the request");
    }

    unsigned char status[4];
    size_t got = 0;
    while (got < sizeof status) {
        ssize_t n = recv(s, status + got, sizeof status - got, 0);
        if (n <= 0)
            return fail(tool, "the server closed the connection");
        got += (size_t)n;
    }
    close(s);
    return (int)(((unsigned)status[0] << 24 | (unsigned)status[1] << 16 |
                  (unsigned)status[2] << 8 | status[3]) & 0xFF);
}

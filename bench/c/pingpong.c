/* pingpong: the physical limit of request/reply over pipes on this machine.
 * Starts ./echo (argv[1]) as a child, then writes one request line of argv[3]
 * bytes and reads the reply line, argv[2] times; prints round trips per second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: pingpong ECHO N BYTES\n"); return 2; }
    long n = atol(argv[2]);
    int size = atoi(argv[3]);
    int to[2], from[2];
    if (pipe(to) || pipe(from)) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(to[0], 0); dup2(from[1], 1);
        close(to[1]); close(from[0]);
        execl(argv[1], argv[1], (char *)NULL);
        _exit(127);
    }
    close(to[0]); close(from[1]);
    char *msg = malloc(size);
    memset(msg, 'x', size - 1);
    msg[size - 1] = '\n';
    char reply[64];
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++) {
        if (write(to[1], msg, size) != size) return 1;
        ssize_t got = 0;
        do {
            ssize_t r = read(from[0], reply + got, sizeof reply - got);
            if (r <= 0) return 1;
            got += r;
        } while (reply[got - 1] != '\n');
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
    printf("%.0f\n", n / s);
    close(to[1]);
    waitpid(pid, NULL, 0);
    return 0;
}

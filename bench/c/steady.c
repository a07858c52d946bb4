/* steady: a bot that uses a fixed share of each request's time and says how long it took.
 * For each request "go <decision> <time-left-ms> ...", it waits until argv[1] (default 0.9)
 * of <time-left-ms> has passed since the line arrived, then writes "info self <ms>" (its own
 * measurement, from reading the line to writing the reply) and the first legal action in one
 * write. Used by bench/clock_accuracy.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    double share = argc > 1 ? atof(argv[1]) : 0.9;
    static char line[1 << 16];
    setvbuf(stdout, NULL, _IONBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        double arrived = now_ms();
        char *words[8];
        int n = 0;
        for (char *w = strtok(line, " \r\n"); w && n < 8; w = strtok(NULL, " \r\n")) words[n++] = w;
        if (n == 0) continue;
        if (strcmp(words[0], "pinochle") == 0) {
            fputs("id name steady\nready\n", stdout);
        } else if (strcmp(words[0], "ping") == 0 && n > 1) {
            printf("pong %s\n", words[1]);
        } else if (strcmp(words[0], "go") == 0 && n > 4) {
            double until = arrived + share * atof(words[2]);
            double left;
            while ((left = until - now_ms()) > 0) {
                struct timespec pause = {0, (long)(left > 1 ? (left - 0.5) * 1e6 : 50000)};
                nanosleep(&pause, NULL);
            }
            char *range = strstr(words[4], "..");
            if (range) *range = '\0';
            char out[256];
            int len = snprintf(out, sizeof out, "info self %.3f\n%s\n", now_ms() - arrived, words[4]);
            fwrite(out, 1, len, stdout);
        } else if (strcmp(words[0], "quit") == 0) {
            return 0;
        }
    }
    return 0;
}

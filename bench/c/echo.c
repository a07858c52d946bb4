/* echo: answer every line with a short reply line, as fast as possible.
 * The other end of the pipe-limit benchmark (bench/pipe_limit.py). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
    static char buf[1 << 16];
    size_t have = 0;
    for (;;) {
        ssize_t got = read(0, buf + have, sizeof buf - have);
        if (got <= 0) return 0;
        have += (size_t)got;
        char *start = buf, *nl;
        while ((nl = memchr(start, '\n', buf + have - start)) != NULL) {
            if (write(1, "AS\n", 3) != 3) return 1;  /* one reply per line, the size of a card */
            start = nl + 1;
        }
        have -= (size_t)(start - buf);
        memmove(buf, start, have);
    }
}

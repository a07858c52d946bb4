/* first_legal: the smallest complete pinochle-arena bot, in C.
 *
 * Answers the handshake, pings and every request with the first legal
 * action listed in the request; ignores every event. It thinks for no time
 * at all, which makes it the bot to measure the referee with (bench/).
 *
 * It speaks protocol 3 ("protocol 3" in the handshake) and uses none of its
 * extras: the "rule" and "setoption" lines are ignored like every event, and
 * a meld token such as royal:KH,QH=40 may be sent back as it is.
 *
 * Build: cc -O2 -o first_legal first_legal.c
 */
#include <stdio.h>
#include <string.h>

int main(void) {
    static char line[1 << 16];
    setvbuf(stdout, NULL, _IONBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        char *words[8];
        int n = 0;
        for (char *w = strtok(line, " \r\n"); w && n < 8; w = strtok(NULL, " \r\n")) words[n++] = w;
        if (n == 0) continue;
        if (strcmp(words[0], "pinochle") == 0) {
            fputs("id name first-legal\nid author pinochle-arena sample bots\nprotocol 3\nready\n", stdout);
        } else if (strcmp(words[0], "ping") == 0 && n > 1) {
            printf("pong %s\n", words[1]);
        } else if (strcmp(words[0], "go") == 0 && n > 4) {
            const char *first = words[4];
            const char *range = strstr(first, "..");
            if (range) { /* a range of bids such as bid:21..555: the lowest */
                printf("%.*s\n", (int)(range - first), first);
            } else {
                printf("%s\n", first);
            }
        } else if (strcmp(words[0], "quit") == 0) {
            return 0;
        }
    }
    return 0;
}

/* main.c: c-starter, a pinochle-arena bot in C11 (protocol version 3).
 *
 * The loop: read a line, parse it (protocol.c), answer the handshake and
 * pings, keep the game model up to date (game.c), and answer each `go`
 * request with the action strategy.c chooses. Only protocol lines go to
 * stdout, each flushed at once; anything else goes to stderr (the referee
 * keeps it in a log file).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "protocol.h"
#include "strategy.h"

#define BOT_NAME "c-starter"
#define BOT_AUTHOR "pinochle-arena starter kits"

/* One protocol line to the referee, flushed at once: a reply stuck in a
 * buffer is a reply that never came. */
static void send_line(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vfprintf(stdout, format, args);
    va_end(args);
    fputc('\n', stdout);
    fflush(stdout);
}

/* Reads one line of any length into *buf (grown as needed). Returns false at
 * the end of the input. Standard C only: fgets in chunks. */
static bool read_line(char **buf, size_t *cap) {
    size_t len = 0;
    if (*cap < 1024) {
        char *grown = realloc(*buf, 1024);
        if (!grown) return false;
        *buf = grown;
        *cap = 1024;
    }
    for (;;) {
        if (!fgets(*buf + len, (int)(*cap - len), stdin)) return len > 0;
        len += strlen(*buf + len);
        if (len > 0 && (*buf)[len - 1] == '\n') return true;
        if (len + 1 >= *cap) { /* the line goes on: make room */
            char *grown = realloc(*buf, *cap * 2);
            if (!grown) return false;
            *buf = grown;
            *cap *= 2;
        }
    }
}

static void handshake(int version) {
    send_line("id name %s", BOT_NAME);
    send_line("id author %s", BOT_AUTHOR);
    if (version >= 3) { /* opt in to version 3; a referee older than that would refuse it */
        send_line("protocol 3");
        send_line("want state"); /* a `state` line before every request */
    }
    send_line("ready");
}

/* Asks the strategy, makes sure the answer is legal, replies. */
static void answer(Game *g, const Request *req) {
    static char text[1 << 17]; /* room for any token of a 64 KiB line */
    Action reply;
    game_on_request(g, req);
    reply = choose(g, req);
    if (!request_allows(req, &reply)) {
        fprintf(stderr, "%s: choose() gave %s, which is not offered; replying with the first legal action\n",
                BOT_NAME, action_text(&reply, text, sizeof text));
        if (req->n_actions > 0 && req->actions[0].kind != ACT_BID_RANGE) reply = req->actions[0];
        else {
            int bid = 0;
            request_lowest_bid(req, &bid);
            reply = action_bid(bid);
        }
    }
    send_line("%s", action_text(&reply, text, sizeof text));
    game_on_reply(g, &reply);
}

int main(void) {
    static Game game; /* static: a few kilobytes of card lists */
    char *line = NULL;
    size_t cap = 0;
    bool running = true;

    game_init(&game);
    while (running && read_line(&line, &cap)) {
        Message msg;
        if (!message_parse(line, &msg)) continue; /* an empty line */

        switch (msg.type) {
        case MSG_PINOCHLE: handshake(msg.u.pinochle.version); break;
        case MSG_PING:
            if (*msg.u.ping.token) send_line("pong %s", msg.u.ping.token);
            else send_line("pong");
            break;
        case MSG_QUIT: running = false; break;
        case MSG_SETOPTION: break; /* this bot declares no options (see README) */
        case MSG_STATE: {
            StateView view;
            state_view(&msg.u.state, &view);
            game_on_state(&game, &view);
            state_view_free(&view);
            break;
        }
        case MSG_GO: answer(&game, &msg.u.go); break;
        case MSG_ERROR: fprintf(stderr, "%s: the referee says: %s\n", BOT_NAME, msg.u.error.text); break;
        case MSG_UNKNOWN: break; /* forward compatibility: ignore what we do not know */
        default: game_on_message(&game, &msg); break;
        }
        message_free(&msg);
    }
    free(line);
    game_free(&game);
    return 0;
}

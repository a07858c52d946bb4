/* protocol.c: text -> the types of protocol.h. No game logic here. */
#include "protocol.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const Card NO_CARD = {RANK_NONE, SUIT_NONE};

/* ---------------------------------------------------------------- helpers */

bool parse_int(const char *text, int *out) {
    char *end;
    long v;
    if (!text || !*text) return false;
    errno = 0;
    v = strtol(text, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX) return false;
    *out = (int)v;
    return true;
}

/* A whole number in text[0..len). */
static bool parse_int_span(const char *text, size_t len, int *out) {
    char buf[24];
    if (len == 0 || len >= sizeof buf) return false;
    memcpy(buf, text, len);
    buf[len] = '\0';
    return parse_int(buf, out);
}

static bool parse_long(const char *text, long *out) {
    char *end;
    if (!text || !*text) return false;
    errno = 0;
    *out = strtol(text, &end, 10);
    return *end == '\0' && errno != ERANGE;
}

bool equals_nocase(const char *a, const char *b) {
    while (*a && *b) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
        a++, b++;
    }
    return *a == *b;
}

/* Whether text[0..len) is word, ignoring case. */
static bool span_is(const char *text, size_t len, const char *word) {
    size_t i;
    if (strlen(word) != len) return false;
    for (i = 0; i < len; i++)
        if (tolower((unsigned char)text[i]) != tolower((unsigned char)word[i])) return false;
    return true;
}

/* A seat number, or "-" for none (-1). */
static bool parse_seat(const char *text, int *out) {
    if (strcmp(text, "-") == 0) {
        *out = -1;
        return true;
    }
    return parse_int(text, out) && *out >= 0;
}

/* ------------------------------------------------------------------ cards */

static const char RANK_CHARS[] = "9JQKTA"; /* indexed by Rank */
static const char SUIT_CHARS[] = "CDHS";   /* indexed by Suit */

Suit suit_parse(char c) {
    const char *p = strchr(SUIT_CHARS, toupper((unsigned char)c));
    return (c && p) ? (Suit)(p - SUIT_CHARS) : SUIT_NONE;
}

static Rank rank_parse(char c) {
    const char *p = strchr(RANK_CHARS, toupper((unsigned char)c));
    return (c && p) ? (Rank)(p - RANK_CHARS) : RANK_NONE;
}

char suit_char(Suit s) { return s >= 0 && s < NUM_SUITS ? SUIT_CHARS[s] : '-'; }
char rank_char(Rank r) { return r >= 0 && r < NUM_RANKS ? RANK_CHARS[r] : '?'; }

/* A card in text[0..2); "??" is the hidden card. */
static bool card_parse_span(const char *text, size_t len, Card *out) {
    Rank r;
    Suit s;
    if (len != 2) return false;
    if (text[0] == '?' && text[1] == '?') {
        *out = NO_CARD;
        return true;
    }
    r = rank_parse(text[0]);
    s = suit_parse(text[1]);
    if (r == RANK_NONE || s == SUIT_NONE) return false;
    out->rank = (signed char)r;
    out->suit = (signed char)s;
    return true;
}

bool card_parse(const char *text, Card *out) { return card_parse_span(text, strlen(text), out); }
bool card_is_known(Card c) { return c.rank != RANK_NONE; }
bool card_equal(Card a, Card b) { return a.rank == b.rank && a.suit == b.suit; }

char *card_text(Card c, char buf[3]) {
    if (card_is_known(c)) {
        buf[0] = rank_char((Rank)c.rank);
        buf[1] = suit_char((Suit)c.suit);
    } else {
        buf[0] = buf[1] = '?';
    }
    buf[2] = '\0';
    return buf;
}

void cards_clear(CardList *l) { l->n = 0; }

bool cards_push(CardList *l, Card c) {
    if (l->n >= MAX_CARDS) return false;
    l->v[l->n++] = c;
    return true;
}

bool cards_remove(CardList *l, Card c) {
    int i;
    for (i = 0; i < l->n; i++) {
        if (card_equal(l->v[i], c)) {
            l->v[i] = l->v[--l->n]; /* order does not matter */
            return true;
        }
    }
    return false;
}

int cards_count(const CardList *l, Card c) {
    int i, n = 0;
    for (i = 0; i < l->n; i++) n += card_equal(l->v[i], c);
    return n;
}

void cards_append(CardList *to, const CardList *from) {
    int i;
    for (i = 0; i < from->n; i++) cards_push(to, from->v[i]);
}

/* "AS,TD" or "-" in text[0..len). */
static bool cards_parse_span(const char *text, size_t len, char sep, CardList *out) {
    const char *p = text, *end = text + len;
    cards_clear(out);
    if (len == 1 && text[0] == '-') return true;
    while (p < end) {
        const char *q = memchr(p, sep, (size_t)(end - p));
        Card c;
        if (!q) q = end;
        if (!card_parse_span(p, (size_t)(q - p), &c) || !cards_push(out, c)) return false;
        p = q + 1;
    }
    return len > 0;
}

bool cards_parse_joined(const char *text, char sep, CardList *out) {
    return cards_parse_span(text, strlen(text), sep, out);
}

/* Cards as separate tokens: tokens[0..n). */
static bool cards_parse_tokens(char **tokens, int n, CardList *out) {
    int i;
    cards_clear(out);
    for (i = 0; i < n; i++) {
        Card c;
        if (!card_parse(tokens[i], &c) || !cards_push(out, c)) return false;
    }
    return true;
}

/* ---------------------------------------------------------------- actions */

bool action_parse(const char *token, Action *a) {
    const char *colon, *arg;
    size_t head;
    memset(a, 0, sizeof *a);
    a->text = token;
    a->card = NO_CARD;
    a->suit = SUIT_NONE;
    a->points = -1;
    a->kind = ACT_UNKNOWN;

    if (equals_nocase(token, "pass")) return a->kind = ACT_PASS, true;
    if (equals_nocase(token, "claim")) return a->kind = ACT_CLAIM, true;
    if (equals_nocase(token, "throw-in")) return a->kind = ACT_THROW_IN, true;
    if (strlen(token) == 2 && card_parse(token, &a->card) && card_is_known(a->card))
        return a->kind = ACT_CARD, true;

    colon = strchr(token, ':');
    if (!colon) return false;
    head = (size_t)(colon - token);
    arg = colon + 1;

    if (span_is(token, head, "table")) { /* table:KS or table:KS@kings+marriage */
        const char *at = strchr(arg, '@');
        size_t len = at ? (size_t)(at - arg) : strlen(arg);
        if (!card_parse_span(arg, len, &a->card) || !card_is_known(a->card)) return false;
        a->copy = at ? at + 1 : NULL;
        return a->kind = ACT_TABLE, true;
    }
    if (span_is(token, head, "take")) {
        if (equals_nocase(arg, "stock")) a->turnup = false;
        else if (equals_nocase(arg, "turnup")) a->turnup = true;
        else return false;
        return a->kind = ACT_TAKE, true;
    }
    if (span_is(token, head, "bid")) {
        const char *dots = strstr(arg, "..");
        if (!dots) {
            if (!parse_int(arg, &a->bid)) return false;
            return a->kind = ACT_BID, true;
        }
        { /* bid:A..B or bid:A..B/S */
            const char *hi = dots + 2, *slash = strchr(hi, '/');
            size_t hi_len = slash ? (size_t)(slash - hi) : strlen(hi);
            a->bid_step = 1;
            if (!parse_int_span(arg, (size_t)(dots - arg), &a->bid) ||
                !parse_int_span(hi, hi_len, &a->bid_hi) ||
                (slash && !parse_int(slash + 1, &a->bid_step)) || a->bid_step < 1)
                return false;
            return a->kind = ACT_BID_RANGE, true;
        }
    }
    if (span_is(token, head, "trump")) {
        if (strlen(arg) != 1 || (a->suit = suit_parse(arg[0])) == SUIT_NONE) return false;
        return a->kind = ACT_TRUMP, true;
    }
    if (span_is(token, head, "call") || span_is(token, head, "give") || span_is(token, head, "bury")) {
        if (!card_parse(arg, &a->card) || !card_is_known(a->card)) return false;
        a->kind = token[0] == 'c' || token[0] == 'C' ? ACT_CALL
                : token[0] == 'g' || token[0] == 'G' ? ACT_GIVE : ACT_BURY;
        return true;
    }
    { /* anything else with a colon is a meld: KIND:CARD,CARD[=POINTS] */
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        size_t i;
        if (head == 0 || head >= sizeof a->meld_kind) return false;
        for (i = 0; i < head; i++) a->meld_kind[i] = (char)tolower((unsigned char)token[i]);
        a->meld_kind[head] = '\0';
        if (!cards_parse_span(arg, len, ',', &a->meld_cards)) return false;
        if (eq && !parse_int(eq + 1, &a->points)) return false;
        return a->kind = ACT_MELD, true;
    }
}

Action action_bid(int amount) {
    Action a;
    memset(&a, 0, sizeof a);
    a.kind = ACT_BID;
    a.bid = amount;
    a.card = NO_CARD;
    a.suit = SUIT_NONE;
    a.points = -1;
    return a;
}

char *action_text(const Action *a, char *buf, size_t size) {
    char c[3];
    if (a->kind == ACT_BID) { /* built, never copied: it may come from a range */
        snprintf(buf, size, "bid:%d", a->bid);
        return buf;
    }
    if (a->text) {
        snprintf(buf, size, "%s", a->text);
        return buf;
    }
    switch (a->kind) { /* an action you built yourself */
    case ACT_CARD: snprintf(buf, size, "%s", card_text(a->card, c)); break;
    case ACT_TABLE:
        snprintf(buf, size, "table:%s%s%s", card_text(a->card, c), a->copy ? "@" : "", a->copy ? a->copy : "");
        break;
    case ACT_PASS: snprintf(buf, size, "pass"); break;
    case ACT_CLAIM: snprintf(buf, size, "claim"); break;
    case ACT_THROW_IN: snprintf(buf, size, "throw-in"); break;
    case ACT_TAKE: snprintf(buf, size, "take:%s", a->turnup ? "turnup" : "stock"); break;
    case ACT_TRUMP: snprintf(buf, size, "trump:%c", suit_char((Suit)a->suit)); break;
    case ACT_CALL: snprintf(buf, size, "call:%s", card_text(a->card, c)); break;
    case ACT_GIVE: snprintf(buf, size, "give:%s", card_text(a->card, c)); break;
    case ACT_BURY: snprintf(buf, size, "bury:%s", card_text(a->card, c)); break;
    case ACT_MELD: {
        size_t used = (size_t)snprintf(buf, size, "%s:", a->meld_kind);
        int i;
        for (i = 0; i < a->meld_cards.n && used < size; i++)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? "," : "", card_text(a->meld_cards.v[i], c));
        break;
    }
    default: snprintf(buf, size, "pass"); break;
    }
    return buf;
}

static bool same_cards(const CardList *a, const CardList *b) {
    int i;
    if (a->n != b->n) return false;
    for (i = 0; i < a->n; i++)
        if (cards_count(a, a->v[i]) != cards_count(b, a->v[i])) return false;
    return true;
}

bool action_same(const Action *a, const Action *b) {
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case ACT_CARD: case ACT_CALL: case ACT_GIVE: case ACT_BURY: return card_equal(a->card, b->card);
    case ACT_TABLE:
        return card_equal(a->card, b->card) &&
               ((!a->copy && !b->copy) || (a->copy && b->copy && equals_nocase(a->copy, b->copy)));
    case ACT_MELD: return equals_nocase(a->meld_kind, b->meld_kind) && same_cards(&a->meld_cards, &b->meld_cards);
    case ACT_TAKE: return a->turnup == b->turnup;
    case ACT_BID: return a->bid == b->bid;
    case ACT_BID_RANGE: return false; /* never a reply */
    case ACT_TRUMP: return a->suit == b->suit;
    case ACT_UNKNOWN: return a->text && b->text && equals_nocase(a->text, b->text);
    default: return true; /* pass, claim, throw-in */
    }
}

/* ------------------------------------------------------------ go requests */

BidIter bids_begin(const Request *req) {
    BidIter it;
    it.req = req;
    it.index = 0;
    it.next = 0;
    it.started = false;
    return it;
}

bool bids_next(BidIter *it, int *amount) {
    while (it->index < it->req->n_actions) {
        const Action *a = &it->req->actions[it->index];
        if (a->kind == ACT_BID_RANGE) {
            if (!it->started) {
                it->next = a->bid;
                it->started = true;
            }
            if (it->next <= a->bid_hi) {
                *amount = (int)it->next;
                it->next += a->bid_step;
                return true;
            }
        } else if (a->kind == ACT_BID && !it->started) {
            it->started = true;
            *amount = a->bid;
            return true;
        }
        it->index++; /* on to the next action */
        it->started = false;
    }
    return false;
}

bool request_lowest_bid(const Request *req, int *amount) {
    bool found = false;
    int i;
    for (i = 0; i < req->n_actions; i++) { /* a range starts at its lowest bid */
        const Action *a = &req->actions[i];
        if ((a->kind == ACT_BID || a->kind == ACT_BID_RANGE) && (!found || a->bid < *amount)) {
            *amount = a->bid;
            found = true;
        }
    }
    return found;
}

bool request_allows_bid(const Request *req, int amount) {
    int i;
    for (i = 0; i < req->n_actions; i++) {
        const Action *a = &req->actions[i];
        if (a->kind == ACT_BID && a->bid == amount) return true;
        if (a->kind == ACT_BID_RANGE && amount >= a->bid && amount <= a->bid_hi &&
            (amount - a->bid) % a->bid_step == 0)
            return true;
    }
    return false;
}

bool request_allows(const Request *req, const Action *a) {
    int i;
    if (a->kind == ACT_BID) return request_allows_bid(req, a->bid);
    for (i = 0; i < req->n_actions; i++)
        if (action_same(&req->actions[i], a)) return true;
    return false;
}

bool request_has(const Request *req, ActionKind kind) {
    int i;
    for (i = 0; i < req->n_actions; i++)
        if (req->actions[i].kind == kind) return true;
    return false;
}

static Decision decision_parse(const char *text) {
    static const char *const names[] = {"", "lead", "follow", "meld", "take", "bid", "trump", "call", "give", "bury"};
    int i;
    for (i = 1; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(text, names[i]) == 0) return (Decision)i;
    return DEC_UNKNOWN;
}

/* ----------------------------------------------------------------- rules */

static bool rule_parse(char **t, int n, Rule *r) {
    int i;
    memset(r, 0, sizeof *r);
    if (n < 2) return false;
    r->key = t[1];
    t += 2, n -= 2; /* the values */
    if (strcmp(r->key, "ranks") == 0) {
        r->kind = RULE_RANKS;
        for (i = 0; i < n && i < NUM_RANKS; i++)
            if (strlen(t[i]) != 1 || (r->ranks[i] = rank_parse(t[i][0])) == RANK_NONE) return false;
        r->n_ranks = i;
    } else if (strcmp(r->key, "copies") == 0 || strcmp(r->key, "last-trick") == 0 || strcmp(r->key, "target") == 0) {
        r->kind = r->key[0] == 'c' ? RULE_COPIES : r->key[0] == 'l' ? RULE_LAST_TRICK : RULE_TARGET;
        if (n < 1 || !parse_int(t[0], &r->value)) return false;
    } else if (strcmp(r->key, "points") == 0) { /* A=11 T=10 ... */
        r->kind = RULE_POINTS;
        for (i = 0; i < n; i++) {
            Rank rank = rank_parse(t[i][0]);
            if (rank == RANK_NONE || t[i][1] != '=' || !parse_int(t[i] + 2, &r->points[rank])) return false;
        }
    } else if (strcmp(r->key, "meld") == 0) { /* meld run 150 300 [- -] */
        r->kind = RULE_MELD;
        if (n < 2) return false;
        r->meld_kind = t[0];
        for (i = 1; i < n && i <= 4; i++) {
            if (strcmp(t[i], "-") == 0) r->meld_values[i - 1] = -1;
            else if (!parse_int(t[i], &r->meld_values[i - 1])) return false;
        }
        r->n_levels = i - 1;
    } else if (strcmp(r->key, "follow") == 0) { /* follow 2 suit trump head */
        r->kind = RULE_FOLLOW;
        if (n < 1 || !parse_int(t[0], &r->follow_phase)) return false;
        for (i = 1; i < n; i++) {
            if (strcmp(t[i], "free") == 0) r->duties |= DUTY_FREE;
            else if (strcmp(t[i], "suit") == 0) r->duties |= DUTY_SUIT;
            else if (strcmp(t[i], "trump") == 0) r->duties |= DUTY_TRUMP;
            else if (strcmp(t[i], "head") == 0) r->duties |= DUTY_HEAD;
            else if (strcmp(t[i], "head-if-trump-led") == 0) r->duties |= DUTY_HEAD_IF_TRUMP_LED;
            /* a duty word this kit does not know: ignored */
        }
    } else if (strcmp(r->key, "first-lead") == 0) {
        r->kind = RULE_FIRST_LEAD;
        r->first_lead = n > 0 ? t[0] : "";
    } else {
        r->kind = RULE_UNKNOWN; /* a rule added in a later version */
    }
    return true;
}

/* ----------------------------------------------------------------- state */

const char *state_get(const State *s, const char *key) {
    int i;
    for (i = 0; i < s->n; i++)
        if (strcmp(s->fields[i].key, key) == 0) return s->fields[i].value;
    return NULL;
}

bool state_int(const State *s, const char *key, int *out) {
    const char *v = state_get(s, key);
    return v && parse_int(v, out);
}

bool state_seat(const State *s, const char *key, int *out) {
    const char *v = state_get(s, key);
    return v && parse_seat(v, out);
}

bool state_cards(const State *s, const char *key, CardList *out) {
    const char *v = state_get(s, key);
    return v && cards_parse_joined(v, ',', out);
}

/* Per-seat fields: one value per seat, seat 0 first, separated by '/'. */
int state_ints(const State *s, const char *key, int out[], int max) {
    const char *v = state_get(s, key), *p;
    int n = 0;
    if (!v) return -1;
    for (p = v; n < max; n++) {
        const char *q = strchr(p, '/');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (!parse_int_span(p, len, &out[n])) return -1;
        if (!q) return n + 1;
        p = q + 1;
    }
    return n;
}

int state_card_lists(const State *s, const char *key, CardList out[], int max) {
    const char *v = state_get(s, key), *p;
    int n = 0;
    if (!v) return -1;
    for (p = v; n < max; n++) {
        const char *q = strchr(p, '/');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (!cards_parse_span(p, len, ',', &out[n])) return -1;
        if (!q) return n + 1;
        p = q + 1;
    }
    return n;
}

/* "AC:2,TC:1" or "-". */
static int parse_unseen(const char *v, CardCount *out, int max) {
    int n = 0;
    if (strcmp(v, "-") == 0) return 0;
    while (*v && n < max) {
        const char *comma = strchr(v, ',');
        size_t len = comma ? (size_t)(comma - v) : strlen(v);
        if (len < 4 || v[2] != ':' || !card_parse_span(v, 2, &out[n].card) ||
            !parse_int_span(v + 3, len - 3, &out[n].count))
            return n;
        n++;
        if (!comma) break;
        v = comma + 1;
    }
    return n;
}

/* "0:21,1:pass,2:22" or "-". Returns a malloc'd array (or NULL) and its size. */
static SeatBid *parse_bids(const char *v, int *count) {
    SeatBid *bids = NULL;
    int n = 0, cap = 0;
    *count = 0;
    if (strcmp(v, "-") == 0) return NULL;
    while (*v) {
        const char *comma = strchr(v, ','), *colon;
        size_t len = comma ? (size_t)(comma - v) : strlen(v);
        SeatBid b;
        colon = memchr(v, ':', len);
        if (!colon || !parse_int_span(v, (size_t)(colon - v), &b.seat)) break;
        if (span_is(colon + 1, len - (size_t)(colon + 1 - v), "pass")) b.amount = -1;
        else if (!parse_int_span(colon + 1, len - (size_t)(colon + 1 - v), &b.amount)) break;
        if (n == cap) {
            SeatBid *grown = realloc(bids, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *bids);
            if (!grown) break;
            bids = grown;
        }
        bids[n++] = b;
        if (!comma) break;
        v = comma + 1;
    }
    *count = n;
    return bids;
}

void state_view(const State *s, StateView *o) {
    const char *v;
    memset(o, 0, sizeof *o);
    o->hand = o->dealer = o->phase = o->leader = o->bidder = o->bid = o->partner = -1;
    o->stock = o->kitty = o->buried = o->dummy = o->target = -1;
    o->trump = SUIT_NONE;
    state_int(s, "hand", &o->hand);
    state_seat(s, "dealer", &o->dealer);
    state_int(s, "phase", &o->phase);
    if ((v = state_get(s, "trump")) != NULL) o->trump = suit_parse(v[0]);
    if ((v = state_get(s, "turnup")) != NULL) o->has_turnup = card_parse(v, &o->turnup);
    o->has_cards = state_cards(s, "cards", &o->cards);
    o->n_tables = state_card_lists(s, "tables", o->tables, MAX_SEATS);
    state_seat(s, "leader", &o->leader);
    state_cards(s, "trick", &o->trick);
    o->n_held = state_ints(s, "held", o->held, MAX_SEATS);
    state_int(s, "stock", &o->stock);
    state_int(s, "kitty", &o->kitty);
    state_int(s, "buried", &o->buried);
    state_int(s, "dummy", &o->dummy);
    if ((v = state_get(s, "bid")) != NULL && strcmp(v, "-") != 0) {
        const char *colon = strchr(v, ':');
        if (!colon || !parse_int_span(v, (size_t)(colon - v), &o->bidder) || !parse_int(colon + 1, &o->bid))
            o->bidder = o->bid = -1;
    }
    state_seat(s, "partner", &o->partner);
    o->n_meld = state_ints(s, "meld", o->meld, MAX_SEATS);
    o->n_tricks = state_ints(s, "tricks", o->tricks, MAX_SEATS);
    o->n_totals = state_ints(s, "totals", o->totals, MAX_SEATS);
    o->n_unseen = (v = state_get(s, "unseen")) != NULL
                      ? parse_unseen(v, o->unseen, (int)(sizeof o->unseen / sizeof o->unseen[0])) : -1;
    /* newer fields */
    state_int(s, "target", &o->target);
    o->n_bids = -1;
    if ((v = state_get(s, "bids")) != NULL) o->bids = parse_bids(v, &o->n_bids);
    o->n_won = state_ints(s, "won", o->won, MAX_SEATS);
    o->n_known = state_card_lists(s, "known", o->known, MAX_SEATS);
}

void state_view_free(StateView *v) {
    free(v->bids);
    v->bids = NULL;
}

/* --------------------------------------------------------------- messages */

static void free_body(Message *msg);

static const struct {
    const char *name;
    MessageType type;
} MESSAGE_NAMES[] = {
    {"pinochle", MSG_PINOCHLE}, {"setoption", MSG_SETOPTION}, {"rule", MSG_RULE}, {"state", MSG_STATE},
    {"game", MSG_GAME}, {"deal", MSG_DEAL}, {"bonus", MSG_BONUS}, {"play", MSG_PLAY}, {"trick", MSG_TRICK},
    {"draw", MSG_DRAW}, {"meld", MSG_MELD}, {"exchange", MSG_EXCHANGE}, {"phase2", MSG_PHASE2},
    {"claim", MSG_CLAIM}, {"handend", MSG_HANDEND}, {"go", MSG_GO}, {"error", MSG_ERROR},
    {"gameover", MSG_GAMEOVER}, {"bid", MSG_BID}, {"bidwon", MSG_BIDWON}, {"redeal", MSG_REDEAL},
    {"kitty", MSG_KITTY}, {"kittycard", MSG_KITTYCARD}, {"throwin", MSG_THROWIN}, {"trump", MSG_TRUMP},
    {"call", MSG_CALL}, {"partner", MSG_PARTNER}, {"give", MSG_GIVE}, {"bury", MSG_BURY},
    {"dummy", MSG_DUMMY}, {"contract", MSG_CONTRACT}, {"target", MSG_TARGET}, {"ping", MSG_PING},
    {"matchend", MSG_MATCHEND}, {"quit", MSG_QUIT},
};

/* Splits key=value tokens (in place) into a malloc'd array; tokens without '=' are skipped. */
static KeyValue *key_values(char **t, int n, int *count) {
    KeyValue *kv = n > 0 ? malloc((size_t)n * sizeof *kv) : NULL;
    int i, k = 0;
    for (i = 0; kv && i < n; i++) {
        char *eq = strchr(t[i], '=');
        if (!eq) continue;
        *eq = '\0';
        kv[k].key = t[i];
        kv[k].value = eq + 1;
        k++;
    }
    *count = k;
    return kv;
}

/* `handend 1 points 122 468 totals 122 468`: the numbers after `word`, up to the next word. */
static int numbers_after(char **t, int n, const char *word, double out[], int max) {
    int i, k = 0;
    for (i = 0; i < n && strcmp(t[i], word) != 0; i++) {}
    for (i++; i < n && k < max; i++) {
        char *end;
        double v = strtod(t[i], &end);
        if (*end != '\0') break;
        out[k++] = v;
    }
    return k;
}

/* Fills msg->u from msg->tokens; false when the line is malformed. */
static bool parse_body(Message *msg) {
    char **t = msg->tokens;
    int n = msg->n_tokens, i;
    double nums[MAX_SEATS];

    switch (msg->type) {
    case MSG_PINOCHLE:
        return n >= 2 && parse_int(t[1], &msg->u.pinochle.version);
    case MSG_SETOPTION:
        if (n < 3) return false;
        msg->u.setoption.name = t[1];
        msg->u.setoption.value = t[2];
        return true;
    case MSG_RULE:
        return rule_parse(t, n, &msg->u.rule);
    case MSG_STATE:
        msg->u.state.fields = key_values(t + 1, n - 1, &msg->u.state.n);
        return true;
    case MSG_GAME:
        if (n < 5) return false;
        msg->u.game.id = t[1];
        msg->u.game.variant = t[2];
        if (!parse_int(t[3], &msg->u.game.seat) || !parse_int(t[4], &msg->u.game.players)) return false;
        msg->u.game.options = key_values(t + 5, n - 5, &msg->u.game.n_options);
        return true;
    case MSG_DEAL:
        if (n < 4 || !parse_int(t[1], &msg->u.deal.hand) || !parse_int(t[2], &msg->u.deal.dealer)) return false;
        msg->u.deal.has_turnup = strcmp(t[3], "-") != 0;
        msg->u.deal.turnup = NO_CARD;
        if (msg->u.deal.has_turnup && !card_parse(t[3], &msg->u.deal.turnup)) return false;
        return cards_parse_tokens(t + 4, n - 4, &msg->u.deal.cards);
    case MSG_BONUS:
        msg->u.bonus.reason = n > 3 ? t[3] : "";
        return n >= 3 && parse_int(t[1], &msg->u.bonus.seat) && parse_int(t[2], &msg->u.bonus.points);
    case MSG_PLAY:
        return n >= 3 && parse_int(t[1], &msg->u.play.seat) && action_parse(t[2], &msg->u.play.action);
    case MSG_TRICK:
        return n >= 3 && parse_int(t[1], &msg->u.trick.winner) && parse_int(t[2], &msg->u.trick.points);
    case MSG_DRAW:
        return n >= 3 && parse_int(t[1], &msg->u.draw.seat) && card_parse(t[2], &msg->u.draw.card);
    case MSG_MELD:
        if (n < 4 || !parse_int(t[1], &msg->u.meld.seat) || !parse_int(t[3], &msg->u.meld.points)) return false;
        msg->u.meld.kind = t[2];
        return cards_parse_tokens(t + 4, n - 4, &msg->u.meld.cards);
    case MSG_EXCHANGE:
        return n >= 4 && parse_int(t[1], &msg->u.exchange.seat) && card_parse(t[2], &msg->u.exchange.dix) &&
               card_parse(t[3], &msg->u.exchange.taken);
    case MSG_PHASE2:
        return n >= 2 && parse_int(t[1], &msg->u.phase2.leader);
    case MSG_CLAIM:
        if (n < 3 || !parse_int(t[1], &msg->u.claim.seat)) return false;
        msg->u.claim.success = strcmp(t[2], "yes") == 0;
        return true;
    case MSG_HANDEND:
        if (n < 2 || !parse_int(t[1], &msg->u.handend.hand)) return false;
        msg->u.handend.n = numbers_after(t, n, "points", nums, MAX_SEATS);
        for (i = 0; i < msg->u.handend.n; i++) msg->u.handend.points[i] = (int)nums[i];
        if (numbers_after(t, n, "totals", nums, MAX_SEATS) != msg->u.handend.n) return false;
        for (i = 0; i < msg->u.handend.n; i++) msg->u.handend.totals[i] = (int)nums[i];
        return true;
    case MSG_GO: {
        Request *r = &msg->u.go;
        if (n < 4 || !parse_long(t[2], &r->time_left_ms) || !parse_long(t[3], &r->bank_ms)) return false;
        r->decision_text = t[1];
        r->decision = decision_parse(t[1]);
        r->n_actions = n - 4;
        r->actions = r->n_actions > 0 ? calloc((size_t)r->n_actions, sizeof *r->actions) : NULL;
        if (r->n_actions > 0 && !r->actions) return r->n_actions = 0, false;
        for (i = 0; i < r->n_actions; i++) action_parse(t[4 + i], &r->actions[i]); /* unknown: kept as text */
        return true;
    }
    case MSG_ERROR:
        return true; /* text filled in by message_parse */
    case MSG_GAMEOVER: {
        int k;
        if (n < 3) return false;
        msg->u.gameover.termination = t[1];
        if (!parse_seat(t[2], &msg->u.gameover.culprit)) return false;
        msg->u.gameover.n = numbers_after(t, n, "result", msg->u.gameover.result, MAX_SEATS);
        k = numbers_after(t, n, "totals", nums, MAX_SEATS);
        for (i = 0; i < k; i++) msg->u.gameover.totals[i] = (int)nums[i];
        return true;
    }
    case MSG_BID:
        if (n < 3 || !parse_int(t[1], &msg->u.bid.seat)) return false;
        if (strcmp(t[2], "pass") == 0) return msg->u.bid.amount = -1, true;
        return parse_int(t[2], &msg->u.bid.amount);
    case MSG_BIDWON:
        return n >= 3 && parse_int(t[1], &msg->u.bidwon.seat) && parse_int(t[2], &msg->u.bidwon.amount);
    case MSG_REDEAL:
        return n >= 2 && parse_int(t[1], &msg->u.redeal.dealer);
    case MSG_KITTY:
        return cards_parse_tokens(t + 1, n - 1, &msg->u.kitty.cards);
    case MSG_KITTYCARD:
        return n >= 2 && card_parse(t[1], &msg->u.kittycard.card);
    case MSG_THROWIN:
        return n >= 2 && parse_int(t[1], &msg->u.throwin.seat);
    case MSG_TRUMP:
        return n >= 3 && parse_int(t[1], &msg->u.trump.seat) && strlen(t[2]) == 1 &&
               (msg->u.trump.suit = suit_parse(t[2][0])) != SUIT_NONE;
    case MSG_CALL:
        return n >= 3 && parse_int(t[1], &msg->u.call.seat) && card_parse(t[2], &msg->u.call.card);
    case MSG_PARTNER:
        return n >= 3 && parse_int(t[1], &msg->u.partner.bidder) && parse_seat(t[2], &msg->u.partner.partner);
    case MSG_GIVE:
        return n >= 3 && parse_int(t[1], &msg->u.give.from) && parse_int(t[2], &msg->u.give.to) &&
               cards_parse_tokens(t + 3, n - 3, &msg->u.give.cards);
    case MSG_BURY:
        return n >= 2 && parse_int(t[1], &msg->u.bury.seat) && cards_parse_tokens(t + 2, n - 2, &msg->u.bury.cards);
    case MSG_DUMMY:
        return n >= 3 && parse_int(t[1], &msg->u.dummy.seat) && card_parse(t[2], &msg->u.dummy.card);
    case MSG_CONTRACT:
        if (n < 5 || !parse_int(t[1], &msg->u.contract.bidder) || !parse_int(t[2], &msg->u.contract.bid)) return false;
        msg->u.contract.made = strcmp(t[3], "made") == 0;
        return parse_int(t[4], &msg->u.contract.points);
    case MSG_TARGET:
        return n >= 2 && parse_int(t[1], &msg->u.target.target);
    case MSG_PING:
        msg->u.ping.token = n >= 2 ? t[1] : "";
        return true;
    case MSG_MATCHEND:
    case MSG_QUIT:
    case MSG_UNKNOWN:
        return true;
    }
    return false;
}

bool message_parse(char *line, Message *msg) {
    size_t len = strlen(line);
    char *p, *rest = NULL;
    int n = 0, cap = 0;
    size_t i;

    memset(msg, 0, sizeof *msg);
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';

    /* `error` keeps the rest of the line as one text */
    p = line + strspn(line, " ");
    if (strncmp(p, "error", 5) == 0 && (p[5] == ' ' || p[5] == '\0')) {
        rest = p + 5 + strspn(p + 5, " ");
        p[5] = '\0';
    }

    /* cut the line into tokens at single or repeated spaces */
    for (p = line;;) {
        p += strspn(p, " \t");
        if (!*p) break;
        if (n == cap) {
            char **grown = realloc(msg->tokens, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *grown);
            if (!grown) break;
            msg->tokens = grown;
        }
        msg->tokens[n++] = p;
        p += strcspn(p, " \t");
        if (!*p) break;
        *p++ = '\0';
    }
    msg->n_tokens = n;
    if (n == 0) {
        free(msg->tokens);
        msg->tokens = NULL;
        return false;
    }

    msg->type = MSG_UNKNOWN;
    for (i = 0; i < sizeof MESSAGE_NAMES / sizeof MESSAGE_NAMES[0]; i++) {
        if (strcmp(msg->tokens[0], MESSAGE_NAMES[i].name) == 0) {
            msg->type = MESSAGE_NAMES[i].type;
            break;
        }
    }
    if (msg->type == MSG_ERROR) msg->u.error.text = rest ? rest : "";
    if (!parse_body(msg)) { /* malformed: keep the tokens, ignore it like an unknown message */
        free_body(msg);
        msg->type = MSG_UNKNOWN;
    }
    return true;
}

/* Frees what the union holds and clears it (the tokens stay). */
static void free_body(Message *msg) {
    switch (msg->type) {
    case MSG_GO: free(msg->u.go.actions); break;
    case MSG_STATE: free(msg->u.state.fields); break;
    case MSG_GAME: free(msg->u.game.options); break;
    default: break;
    }
    memset(&msg->u, 0, sizeof msg->u);
}

void message_free(Message *msg) {
    free_body(msg);
    free(msg->tokens);
    memset(msg, 0, sizeof *msg);
}

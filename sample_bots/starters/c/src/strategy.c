/* strategy.c: HOW THE BOT PLAYS.  >>> This is the file to make your own. <<<
 *
 * choose() below is the one function an entrant replaces. It receives
 *   g    the game model (game.h): your hand, trump, the trick, the scores,
 *        the rules of this game, the auction...
 *   req  the request (protocol.h): what is asked (req->decision) and every
 *        legal action (req->actions), parsed: cards, melds with their
 *        points, bids (ranges are kept whole: use bids_begin/bids_next)
 * and returns one action. Everything else (reading lines, the handshake,
 * pings, following the events) is done for you.
 *
 * The play here is deliberately simple, a baseline to beat:
 *   auction  pass, unless passing is not allowed: then the lowest bid
 *   trump    the offered suit you hold most cards of
 *   meld     the meld that scores most
 *   tricks   the lowest card that wins the trick, else the lowest card
 *   claim    only when your score surely reaches the target
 *   others   (take, give, bury, call) the first action offered
 *
 * Time: req->time_left_ms is what this reply may take. Debug output goes
 * to stderr (fprintf(stderr, ...)), never to stdout.
 */
#include "strategy.h"

#include <stdio.h>

/* How "low" a card is: any trump is higher than any other card. */
static int lowness(Card c, Suit trump) { return c.rank + (c.suit == trump ? NUM_RANKS : 0); }

/* The first action of a kind, or NULL. */
static const Action *first_of(const Request *req, ActionKind kind) {
    int i;
    for (i = 0; i < req->n_actions; i++)
        if (req->actions[i].kind == kind) return &req->actions[i];
    return NULL;
}

/* The first offered action that is a reply (a range gives its lowest bid). */
static Action first_offered(const Request *req) {
    int bid;
    if (req->n_actions > 0 && req->actions[0].kind != ACT_BID_RANGE) return req->actions[0];
    if (request_lowest_bid(req, &bid)) return action_bid(bid);
    return req->n_actions > 0 ? req->actions[0] : action_bid(0);
}

/* The lowest offered card (from the hand or the table); with `beat`, the
 * lowest of those that would beat it. NULL when there is none. */
static const Action *lowest_card(const Game *g, const Request *req, const Card *beat) {
    const Action *best = NULL;
    int i;
    for (i = 0; i < req->n_actions; i++) {
        const Action *a = &req->actions[i];
        if (a->kind != ACT_CARD && a->kind != ACT_TABLE) continue;
        if (beat && !card_beats(a->card, *beat, g->trump)) continue;
        if (!best || lowness(a->card, g->trump) < lowness(best->card, g->trump) ||
            (lowness(a->card, g->trump) == lowness(best->card, g->trump) && a->kind == ACT_CARD &&
             best->kind == ACT_TABLE)) /* the same card: play it from the hand, keep the melded one */
            best = a;
    }
    return best;
}

/* Whether a claim would be right: this hand's points so far already reach the target. */
static bool claim_is_safe(const Game *g) {
    int me = g->seat;
    return g->target > 0 && g->totals[me] + g->meld_points[me] + g->trick_points[me] >= g->target;
}

static Action choose_bid(const Request *req) {
    const Action *pass = first_of(req, ACT_PASS);
    int bid;
    if (pass) return *pass;
    if (request_lowest_bid(req, &bid)) return action_bid(bid);
    return first_offered(req);
}

static Action choose_trump(const Game *g, const Request *req) {
    int held[NUM_SUITS] = {0}, i;
    const Action *best = NULL;
    for (i = 0; i < g->cards.n; i++) held[g->cards.v[i].suit]++;
    for (i = 0; i < req->n_actions; i++) {
        const Action *a = &req->actions[i];
        if (a->kind == ACT_TRUMP && (!best || held[a->suit] > held[best->suit])) best = a;
    }
    return best ? *best : first_offered(req);
}

static Action choose_meld(const Game *g, const Request *req) {
    const Action *best = NULL, *pass = first_of(req, ACT_PASS), *claim = first_of(req, ACT_CLAIM);
    int i;
    if (claim && claim_is_safe(g)) return *claim;
    for (i = 0; i < req->n_actions; i++) {
        const Action *a = &req->actions[i];
        /* version 3 gives each meld's points; without them, more cards is taken as more points */
        int value = a->points >= 0 ? a->points : a->meld_cards.n;
        if (a->kind == ACT_MELD && (!best || value > (best->points >= 0 ? best->points : best->meld_cards.n)))
            best = a;
    }
    if (best) return *best;
    return pass ? *pass : first_offered(req);
}

static Action choose_card(const Game *g, const Request *req) {
    const Action *claim = first_of(req, ACT_CLAIM), *card = NULL;
    int winner = trick_winning_index(g);
    if (claim && claim_is_safe(g)) return *claim;
    if (req->decision == DEC_FOLLOW && winner >= 0) card = lowest_card(g, req, &g->trick[winner]);
    if (!card) card = lowest_card(g, req, NULL);
    return card ? *card : first_offered(req);
}

/* ==================================================================== */
/*  THE FUNCTION TO REPLACE: your bot's thinking goes here.             */
/* ==================================================================== */
Action choose(const Game *g, const Request *req) {
    switch (req->decision) {
    case DEC_BID: return choose_bid(req);
    case DEC_TRUMP: return choose_trump(g, req);
    case DEC_MELD: return choose_meld(g, req);
    case DEC_LEAD:
    case DEC_FOLLOW: return choose_card(g, req);
    case DEC_TAKE:  /* take:stock or take:turnup */
    case DEC_CALL:  /* call:AS: its holder partners you (five players) */
    case DEC_GIVE:  /* give:AS: one card to your partner, asked once per card */
    case DEC_BURY:  /* bury:AS: one card out of play, asked once per card */
    case DEC_UNKNOWN:
    default: return first_offered(req);
    }
}

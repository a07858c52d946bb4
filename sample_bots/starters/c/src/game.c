/* game.c: the game model, event by event. */
#include "game.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int clamp_seats(int n) { return n < 1 ? 1 : n > MAX_SEATS ? MAX_SEATS : n; }
static bool is_seat(const Game *g, int seat) { return seat >= 0 && seat < g->players; }

/* Everything of one hand back to its start. */
static void new_hand(Game *g) {
    int s;
    g->phase = 1;
    g->trump = SUIT_NONE;
    g->has_turnup = false;
    g->turnup = NO_CARD;
    g->stock = 0;
    cards_clear(&g->cards);
    cards_clear(&g->set_aside);
    cards_clear(&g->kitty);
    for (s = 0; s < MAX_SEATS; s++) {
        cards_clear(&g->tables[s]);
        cards_clear(&g->known[s]);
        g->meld_points[s] = g->trick_points[s] = g->tricks_won[s] = 0;
    }
    g->n_known = 0;
    g->leader = -1;
    g->trick_n = 0;
    g->n_bids = 0;
    g->bidder = g->bid = g->partner = -1;
    g->called = NO_CARD;
}

void game_init(Game *g) {
    SeatBid *bids = g->bids; /* kept from game to game */
    int cap = g->cap_bids;
    memset(g, 0, sizeof *g);
    g->bids = bids;
    g->cap_bids = cap;
    g->players = 2;
    g->copies = 2;
    g->n_ranks = NUM_RANKS;
    g->hand = g->dealer = -1;
    new_hand(g);
}

void game_free(Game *g) {
    free(g->bids);
    g->bids = NULL;
    g->cap_bids = g->n_bids = 0;
}

static void push_bid(Game *g, int seat, int amount) {
    if (g->n_bids == g->cap_bids) {
        int cap = g->cap_bids ? 2 * g->cap_bids : 32;
        SeatBid *grown = realloc(g->bids, (size_t)cap * sizeof *grown);
        if (!grown) return;
        g->bids = grown;
        g->cap_bids = cap;
    }
    g->bids[g->n_bids].seat = seat;
    g->bids[g->n_bids].amount = amount;
    g->n_bids++;
}

/* My cards leave my hand: those I set aside already left it when I chose them. */
static void lose_my_cards(Game *g, const CardList *cards) {
    int i;
    for (i = 0; i < cards->n; i++)
        if (!cards_remove(&g->set_aside, cards->v[i])) cards_remove(&g->cards, cards->v[i]);
}

static void on_rule(Game *g, const Rule *r) {
    int i;
    switch (r->kind) {
    case RULE_RANKS: g->n_ranks = r->n_ranks; break;
    case RULE_COPIES: g->copies = r->value; break;
    case RULE_POINTS: memcpy(g->points, r->points, sizeof g->points); break;
    case RULE_LAST_TRICK: g->last_trick = r->value; break;
    case RULE_TARGET: g->target = r->value; break;
    case RULE_MELD:
        if (g->n_melds < MAX_MELD_KINDS) {
            MeldValue *m = &g->melds[g->n_melds++];
            snprintf(m->kind, sizeof m->kind, "%s", r->meld_kind);
            for (i = 0; i < 4; i++) m->values[i] = i < r->n_levels ? r->meld_values[i] : -1;
        }
        break;
    case RULE_FOLLOW:
        if (r->follow_phase >= 1 && r->follow_phase <= 2) g->follow[r->follow_phase] = r->duties;
        break;
    case RULE_FIRST_LEAD: g->first_lead_trump = strcmp(r->first_lead, "trump") == 0; break;
    case RULE_UNKNOWN: break;
    }
}

void game_on_message(Game *g, const Message *msg) {
    const int me = g->seat;
    int i;

    switch (msg->type) {
    case MSG_GAME: { /* a new game: forget the old one */
        int seat = msg->u.game.seat, players = msg->u.game.players;
        game_init(g);
        g->seat = seat;
        g->players = clamp_seats(players);
        snprintf(g->variant, sizeof g->variant, "%s", msg->u.game.variant);
        for (i = 0; i < msg->u.game.n_options; i++)
            if (strcmp(msg->u.game.options[i].key, "target") == 0) parse_int(msg->u.game.options[i].value, &g->target);
        break;
    }
    case MSG_RULE: on_rule(g, &msg->u.rule); break;
    case MSG_DEAL:
        new_hand(g);
        g->hand = msg->u.deal.hand;
        g->dealer = msg->u.deal.dealer;
        g->cards = msg->u.deal.cards;
        g->stock_game = msg->u.deal.has_turnup;
        if (g->stock_game) { /* the turn-up's suit is trump; the rest of the deck is the stock */
            g->has_turnup = true;
            g->turnup = msg->u.deal.turnup;
            g->trump = (Suit)g->turnup.suit;
            g->stock = g->copies * g->n_ranks * NUM_SUITS - g->players * g->cards.n - 1;
        }
        break;
    case MSG_BONUS:
        if (is_seat(g, msg->u.bonus.seat)) g->meld_points[msg->u.bonus.seat] += msg->u.bonus.points;
        break;
    case MSG_PLAY: {
        int seat = msg->u.play.seat;
        const Action *a = &msg->u.play.action;
        if (!is_seat(g, seat)) break;
        if (g->trick_n == 0) {
            g->leader = seat;
            if (!g->stock_game) g->phase = 2; /* the bidding games: the tricks have begun */
        }
        if (a->kind == ACT_TABLE) cards_remove(&g->tables[seat], a->card);
        else if (seat == me) cards_remove(&g->cards, a->card);
        if (g->trick_n < MAX_SEATS) {
            g->trick_seat[g->trick_n] = seat;
            g->trick[g->trick_n++] = a->card;
        }
        break;
    }
    case MSG_TRICK:
        if (is_seat(g, msg->u.trick.winner)) {
            g->trick_points[msg->u.trick.winner] += msg->u.trick.points;
            g->tricks_won[msg->u.trick.winner]++;
        }
        g->trick_n = 0;
        g->leader = -1;
        break;
    case MSG_DRAW: {
        Card c = msg->u.draw.card;
        /* The last two cards are the stock's last one and the turn-up, in either order. */
        if (g->stock <= 0 || (g->stock == 1 && card_is_known(c) && card_equal(c, g->turnup))) g->has_turnup = false;
        else g->stock--;
        if (msg->u.draw.seat == me && card_is_known(c)) cards_push(&g->cards, c);
        break;
    }
    case MSG_MELD: {
        int seat = msg->u.meld.seat;
        if (!is_seat(g, seat)) break;
        g->meld_points[seat] += msg->u.meld.points;
        if (g->stock_game) { /* the cards go face up on the table; in the bidding games they stay in the hand */
            if (seat == me)
                for (i = 0; i < msg->u.meld.cards.n; i++) cards_remove(&g->cards, msg->u.meld.cards.v[i]);
            cards_append(&g->tables[seat], &msg->u.meld.cards);
        }
        break;
    }
    case MSG_EXCHANGE: { /* the melded dix goes under the stock, the turn-up into the hand */
        int seat = msg->u.exchange.seat;
        if (!is_seat(g, seat)) break;
        if (!cards_remove(&g->tables[seat], msg->u.exchange.dix) && seat == me)
            cards_remove(&g->cards, msg->u.exchange.dix);
        g->turnup = msg->u.exchange.dix;
        g->has_turnup = true;
        if (seat == me) cards_push(&g->cards, msg->u.exchange.taken);
        break;
    }
    case MSG_PHASE2: /* the melds go back to the hands */
        g->phase = 2;
        cards_append(&g->cards, &g->tables[me]);
        for (i = 0; i < MAX_SEATS; i++) cards_clear(&g->tables[i]);
        g->has_turnup = false;
        g->stock = 0;
        break;
    case MSG_HANDEND:
        for (i = 0; i < msg->u.handend.n && i < MAX_SEATS; i++) g->totals[i] = msg->u.handend.totals[i];
        break;
    case MSG_BID: push_bid(g, msg->u.bid.seat, msg->u.bid.amount); break;
    case MSG_BIDWON:
        g->bidder = msg->u.bidwon.seat;
        g->bid = msg->u.bidwon.amount;
        break;
    case MSG_KITTY: /* shown to all; the bid winner takes it */
        g->kitty = msg->u.kitty.cards;
        if (g->bidder == me) cards_append(&g->cards, &msg->u.kitty.cards);
        break;
    case MSG_KITTYCARD: cards_push(&g->kitty, msg->u.kittycard.card); break;
    case MSG_TRUMP: g->trump = msg->u.trump.suit; break;
    case MSG_CALL: g->called = msg->u.call.card; break;
    case MSG_PARTNER: g->partner = msg->u.partner.partner; break;
    case MSG_GIVE:
        if (msg->u.give.from == me) lose_my_cards(g, &msg->u.give.cards);
        if (msg->u.give.to == me)
            for (i = 0; i < msg->u.give.cards.n; i++)
                if (card_is_known(msg->u.give.cards.v[i])) cards_push(&g->cards, msg->u.give.cards.v[i]);
        break;
    case MSG_BURY:
        if (msg->u.bury.seat == me) lose_my_cards(g, &msg->u.bury.cards);
        break;
    case MSG_TARGET: g->target = msg->u.target.target; break;
    default: break; /* the rest changes nothing this model keeps */
    }
}

void game_on_state(Game *g, const StateView *s) {
    int i;
    if (s->hand < 0) return; /* not a state line this kit understands */
    g->hand = s->hand;
    if (s->dealer >= 0) g->dealer = s->dealer;
    if (s->phase >= 0) g->phase = s->phase;
    g->trump = s->trump;
    g->has_turnup = s->has_turnup;
    if (s->has_turnup) g->turnup = s->turnup;
    if (s->has_cards) g->cards = s->cards;
    for (i = 0; i < s->n_tables; i++) g->tables[i] = s->tables[i];
    g->leader = s->leader;
    g->trick_n = 0;
    if (s->leader >= 0)
        for (i = 0; i < s->trick.n && i < MAX_SEATS; i++) {
            g->trick_seat[i] = (s->leader + i) % g->players;
            g->trick[g->trick_n++] = s->trick.v[i];
        }
    if (s->stock >= 0) g->stock = s->stock;
    g->bidder = s->bidder;
    g->bid = s->bid;
    g->partner = s->partner;
    for (i = 0; i < s->n_meld; i++) g->meld_points[i] = s->meld[i];
    for (i = 0; i < s->n_tricks; i++) g->trick_points[i] = s->tricks[i];
    for (i = 0; i < s->n_totals; i++) g->totals[i] = s->totals[i];
    /* newer fields, when the referee sends them */
    if (s->target >= 0) g->target = s->target;
    for (i = 0; i < s->n_won; i++) g->tricks_won[i] = s->won[i];
    if (s->n_known >= 0) {
        g->n_known = s->n_known;
        for (i = 0; i < s->n_known; i++) g->known[i] = s->known[i];
    }
    if (s->n_bids >= 0) {
        g->n_bids = 0;
        for (i = 0; i < s->n_bids; i++) push_bid(g, s->bids[i].seat, s->bids[i].amount);
    }
}

void game_on_request(Game *g, const Request *req) {
    /* The bidding games: the tricks begin (phase 2) with the first request to play a card. */
    if (!g->stock_game && (req->decision == DEC_LEAD || req->decision == DEC_FOLLOW)) g->phase = 2;
}

void game_on_reply(Game *g, const Action *reply) {
    if (reply->kind == ACT_GIVE || reply->kind == ACT_BURY) {
        if (cards_remove(&g->cards, reply->card)) cards_push(&g->set_aside, reply->card);
    }
}

bool card_beats(Card challenger, Card best, Suit trump) {
    if (challenger.suit == best.suit) return challenger.rank > best.rank; /* equal cards: the first wins */
    return challenger.suit == trump; /* of another suit, only a trump wins */
}

int trick_winning_index(const Game *g) {
    int i, best = g->trick_n > 0 ? 0 : -1;
    for (i = 1; i < g->trick_n; i++)
        if (card_beats(g->trick[i], g->trick[best], g->trump)) best = i;
    return best;
}

int meld_value(const Game *g, const char *kind, int times) {
    int i;
    if (times < 1 || times > 4) return -1;
    for (i = 0; i < g->n_melds; i++)
        if (strcmp(g->melds[i].kind, kind) == 0) return g->melds[i].values[times - 1];
    return -1;
}

/* game.h: what the bot knows of the game, kept up to date from the events.
 *
 * game_on_message() follows every event; game_on_state() puts the model
 * right from a `state` line (sent before every request, since the bot asks
 * for it with `want state`). The model works without state lines too.
 */
#ifndef GAME_H
#define GAME_H

#include "protocol.h"

#define MAX_MELD_KINDS 16

typedef struct {
    char kind[24];
    int values[4]; /* made once, twice, 3 and 4 times; -1 where no meld */
} MeldValue;

typedef struct {
    /* ---- the game (from `game` and `rule` lines) */
    char variant[64];
    int seat, players;
    int copies;                /* 2, or 4 in the double deck */
    int n_ranks;               /* 6, or 5 without nines */
    int points[NUM_RANKS];     /* counter points of each rank, by Rank */
    int last_trick;            /* bonus for the last trick */
    int target;                /* the score that wins (it can rise: `target` event) */
    int n_melds;
    MeldValue melds[MAX_MELD_KINDS];
    unsigned follow[3];        /* follow duties of phase 1 and 2 (DUTY_* flags) */
    bool first_lead_trump;

    /* ---- this hand */
    int hand, dealer;
    int phase;                 /* 1 or 2 (see PROTOCOL.md, `state` phase) */
    bool stock_game;           /* two-handed with a stock (a turn-up was dealt) */
    Suit trump;                /* SUIT_NONE until known */
    bool has_turnup;
    Card turnup;
    int stock;                 /* face-down cards in the stock */
    CardList cards;            /* my concealed hand */
    CardList tables[MAX_SEATS];/* each seat's melded cards on the table (stock games) */
    CardList set_aside;        /* cards I chose to give or bury, not yet shown by an event */
    int leader;                /* who led the trick in play, -1 for none */
    int trick_n;               /* cards played to it so far */
    int trick_seat[MAX_SEATS];
    Card trick[MAX_SEATS];
    int meld_points[MAX_SEATS], trick_points[MAX_SEATS], tricks_won[MAX_SEATS];
    int totals[MAX_SEATS];     /* the game totals before this hand */
    int n_known;               /* from `state known=` (newer referees), else 0 */
    CardList known[MAX_SEATS]; /* concealed cards I know each seat holds */

    /* ---- the bidding games */
    SeatBid *bids;             /* this hand's auction so far */
    int n_bids, cap_bids;
    int bidder, bid;           /* who won the auction, at what; -1 before */
    int partner;               /* the bid winner's partner (five players), -1 none */
    Card called;
    CardList kitty;            /* the kitty cards shown */
} Game;

void game_init(Game *g);
void game_free(Game *g);
void game_on_message(Game *g, const Message *msg);
void game_on_state(Game *g, const StateView *s);
/* Call on each request, before choosing: what the request itself tells. */
void game_on_request(Game *g, const Request *req);
/* Call after replying: a card given or buried leaves the hand at once
 * (the event that shows it comes only after the last one). */
void game_on_reply(Game *g, const Action *reply);

/* Trick helpers. */
bool card_beats(Card challenger, Card best, Suit trump); /* `best` was played first */
int trick_winning_index(const Game *g);                  /* -1 for an empty trick */
int meld_value(const Game *g, const char *kind, int times); /* from the rule lines; -1 if unknown */

#endif

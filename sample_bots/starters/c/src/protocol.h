/* protocol.h: the pinochle-arena protocol (version 3) as C types.
 *
 * Every line the referee sends is parsed by message_parse() into a Message:
 * an enum tag (msg.type) and a union with one struct per message (msg.u).
 * Cards are a small value type (Card). Nothing here knows how to play; it
 * only turns text into data. See protocol/PROTOCOL.md for what each message
 * means; the comments below give the line each struct comes from.
 *
 * Memory: message_parse() cuts the line into tokens in place, so every
 * `const char *` in a Message points into your line buffer and lives as long
 * as that buffer is unchanged. Call message_free() when you are done with a
 * message. Lists of cards are fixed arrays (no pinochle deck has more than
 * 80 cards), so they need no freeing.
 */
#ifndef PROTOCOL_H
#define PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>

/* ------------------------------------------------------------------ cards */

/* Suits in the protocol's order: C D H S. */
typedef enum { SUIT_NONE = -1, CLUBS, DIAMONDS, HEARTS, SPADES } Suit;

/* Ranks from low to high, so that a plain comparison orders them:
 * within a suit A > T > K > Q > J > 9 (the ten beats the king). */
typedef enum { RANK_NONE = -1, NINE, JACK, QUEEN, KING, TEN, ACE } Rank;

#define NUM_SUITS 4
#define NUM_RANKS 6
#define MAX_CARDS 80 /* the double deck; no list of cards can be longer */
#define MAX_SEATS 8  /* 2 to 5 in today's variants; room to spare */

/* A card; rank == RANK_NONE is a card you may not see ("??"). */
typedef struct {
    signed char rank;
    signed char suit;
} Card;

typedef struct {
    int n;
    Card v[MAX_CARDS];
} CardList;

extern const Card NO_CARD; /* the hidden card "??" */

bool card_parse(const char *text, Card *out); /* "AS", "td", "??" */
bool card_is_known(Card c);
bool card_equal(Card a, Card b);
char *card_text(Card c, char buf[3]); /* writes "AS" (or "??") into buf, returns buf */
Suit suit_parse(char c);              /* 'C' 'D' 'H' 'S' (any case), else SUIT_NONE */
char suit_char(Suit s);
char rank_char(Rank r);

void cards_clear(CardList *l);
bool cards_push(CardList *l, Card c);   /* false when full */
bool cards_remove(CardList *l, Card c); /* removes one copy; false if absent */
int cards_count(const CardList *l, Card c);
void cards_append(CardList *to, const CardList *from);
/* "AS,TD,KH" (sep ',') or "-" for none; false on a malformed card. */
bool cards_parse_joined(const char *text, char sep, CardList *out);

/* ---------------------------------------------------------------- actions */

/* One token of a `go` request (or a reply you build yourself). */
typedef enum {
    ACT_UNKNOWN,   /* a token this kit does not know: still a legal reply */
    ACT_CARD,      /* AS: play a card from the hand */
    ACT_TABLE,     /* table:AS or table:KS@kings: play a card melded on the table */
    ACT_MELD,      /* royal:KH,QH=40: make a meld (kind, cards from the hand, points) */
    ACT_PASS,      /* pass */
    ACT_TAKE,      /* take:stock / take:turnup */
    ACT_CLAIM,     /* claim */
    ACT_BID,       /* bid:25 */
    ACT_BID_RANGE, /* bid:21..555 or bid:65..100/5: a run of bids, NEVER a reply */
    ACT_TRUMP,     /* trump:H */
    ACT_THROW_IN,  /* throw-in */
    ACT_CALL,      /* call:AS */
    ACT_GIVE,      /* give:AS */
    ACT_BURY       /* bury:AS */
} ActionKind;

typedef struct {
    ActionKind kind;
    const char *text;   /* the token as the referee sent it; NULL for one you made */
    Card card;          /* CARD, TABLE, CALL, GIVE, BURY */
    const char *copy;   /* TABLE: the melds that copy served ("kings+marriage"), or NULL */
    char meld_kind[32]; /* MELD: "royal", "double-aces"... */
    CardList meld_cards;/* MELD: the cards it takes from the hand */
    int points;         /* MELD: what it would score now (version 3), -1 if not given */
    int bid;            /* BID: the amount; BID_RANGE: the lowest bid of the run */
    int bid_hi, bid_step;/* BID_RANGE: the highest bid and the step */
    Suit suit;          /* TRUMP */
    bool turnup;        /* TAKE: true for take:turnup, false for take:stock */
} Action;

bool action_parse(const char *token, Action *out); /* false (kind ACT_UNKNOWN) if not understood */
Action action_bid(int amount);               /* a concrete bid to reply with */
/* The reply text of an action: its token as listed, or built from its fields. */
char *action_text(const Action *a, char *buf, size_t size);
bool action_same(const Action *a, const Action *b);

/* ------------------------------------------------------------ go requests */

typedef enum {
    DEC_UNKNOWN, DEC_LEAD, DEC_FOLLOW, DEC_MELD, DEC_TAKE,
    DEC_BID, DEC_TRUMP, DEC_CALL, DEC_GIVE, DEC_BURY
} Decision;

/* go <decision> <time-left-ms> <bank-ms> <action>... */
typedef struct {
    Decision decision;
    const char *decision_text;
    long time_left_ms; /* what you may spend on this reply */
    long bank_ms;      /* your whole remaining bank */
    Action *actions;   /* as listed; bid ranges stay ranges (see the bid iterator) */
    int n_actions;
} Request;

/* The concrete bids of a request, ranges expanded lazily (a range may run to
 * a million):  BidIter it = bids_begin(req); int b; while (bids_next(&it, &b)) ... */
typedef struct {
    const Request *req;
    int index;      /* the action being read */
    long long next; /* the next amount of a range (may pass INT_MAX at the end) */
    bool started;   /* actions[index] has been begun */
} BidIter;
BidIter bids_begin(const Request *req);
bool bids_next(BidIter *it, int *amount);
bool request_lowest_bid(const Request *req, int *amount);
bool request_allows_bid(const Request *req, int amount);
/* Whether `a` is a legal reply (a listed action, or a bid inside a listed range). */
bool request_allows(const Request *req, const Action *a);
bool request_has(const Request *req, ActionKind kind);

/* ----------------------------------------------------------------- rules */

typedef enum {
    RULE_UNKNOWN, RULE_RANKS, RULE_COPIES, RULE_POINTS, RULE_LAST_TRICK,
    RULE_TARGET, RULE_MELD, RULE_FOLLOW, RULE_FIRST_LEAD
} RuleKind;

/* Follow duties of `rule follow` (bit flags). */
enum {
    DUTY_FREE = 1,              /* any card (the first phase with a stock) */
    DUTY_SUIT = 2,              /* follow suit if you can */
    DUTY_TRUMP = 4,             /* else trump if you can */
    DUTY_HEAD = 8,              /* beat the best card so far if you can */
    DUTY_HEAD_IF_TRUMP_LED = 16 /* ... only when trump was led */
};

/* rule <key> <value>... : one struct, the fields used depend on the kind. */
typedef struct {
    RuleKind kind;
    const char *key;          /* as sent, e.g. "last-trick" */
    int value;                /* COPIES, LAST_TRICK, TARGET */
    int n_ranks;              /* RANKS: the deck's ranks, high to low */
    Rank ranks[NUM_RANKS];
    int points[NUM_RANKS];    /* POINTS: counter points, indexed by Rank */
    const char *meld_kind;    /* MELD: the kind ("run", "aces"...) */
    int n_levels;             /* MELD: how many values follow (2, or 4 in the double deck) */
    int meld_values[4];       /* MELD: made once, twice, 3 and 4 times; -1 where no meld */
    int follow_phase;         /* FOLLOW: 1 or 2 */
    unsigned duties;          /* FOLLOW: DUTY_* flags */
    const char *first_lead;   /* FIRST_LEAD: "trump" */
} Rule;

/* ----------------------------------------------------------------- state */

typedef struct {
    const char *key;
    const char *value;
} KeyValue;

/* state <key=value>... : kept generically; read it with the accessors below
 * or all at once with state_view(). Unknown keys are simply never asked for. */
typedef struct {
    KeyValue *fields;
    int n;
} State;

const char *state_get(const State *s, const char *key); /* NULL when absent */
bool state_int(const State *s, const char *key, int *out);
bool state_seat(const State *s, const char *key, int *out); /* "-" gives -1 */
bool state_cards(const State *s, const char *key, CardList *out);
/* Per-seat fields "12/15/15": fills out[0..], returns the count, -1 when absent. */
int state_ints(const State *s, const char *key, int out[], int max);
int state_card_lists(const State *s, const char *key, CardList out[], int max);

typedef struct {
    Card card;
    int count;
} CardCount;

typedef struct {
    int seat;
    int amount; /* -1 for a pass */
} SeatBid;

/* Every documented field, typed. -1 (or n_... == -1, or NULL) when absent. */
typedef struct {
    int hand, dealer, phase;
    Suit trump;                    /* SUIT_NONE for "-" */
    bool has_turnup; Card turnup;
    bool has_cards; CardList cards; /* your concealed hand */
    int n_tables; CardList tables[MAX_SEATS]; /* with a stock */
    int leader; CardList trick;    /* trick: cards in play order from the leader */
    int n_held; int held[MAX_SEATS];
    int stock, kitty, buried, dummy;  /* face-down piles, -1 when not there */
    int bidder, bid;               /* "bid=0:25"; -1 when none yet */
    int partner;
    int n_meld; int meld[MAX_SEATS];
    int n_tricks; int tricks[MAX_SEATS];
    int n_totals; int totals[MAX_SEATS];
    int n_unseen; CardCount unseen[2 * NUM_SUITS * NUM_RANKS]; /* distinct cards */
    /* newer fields (absent from older referees) */
    int target;
    int n_bids; SeatBid *bids;     /* this hand's auction so far (malloc'd) */
    int n_won; int won[MAX_SEATS]; /* tricks won by each seat this hand */
    int n_known; CardList known[MAX_SEATS]; /* concealed cards you know each seat holds */
} StateView;

void state_view(const State *s, StateView *out);
void state_view_free(StateView *v);

/* --------------------------------------------------------------- messages */

typedef enum {
    MSG_UNKNOWN, /* not a message this kit knows: ignore it */
    MSG_PINOCHLE, MSG_SETOPTION, MSG_RULE, MSG_STATE, MSG_GAME, MSG_DEAL,
    MSG_BONUS, MSG_PLAY, MSG_TRICK, MSG_DRAW, MSG_MELD, MSG_EXCHANGE,
    MSG_PHASE2, MSG_CLAIM, MSG_HANDEND, MSG_GO, MSG_ERROR, MSG_GAMEOVER,
    MSG_BID, MSG_BIDWON, MSG_REDEAL, MSG_KITTY, MSG_KITTYCARD, MSG_THROWIN,
    MSG_TRUMP, MSG_CALL, MSG_PARTNER, MSG_GIVE, MSG_BURY, MSG_DUMMY,
    MSG_CONTRACT, MSG_TARGET, MSG_PING, MSG_MATCHEND, MSG_QUIT
} MessageType;

typedef struct {
    MessageType type;
    char **tokens; /* the line's tokens (tokens[0] names the message) */
    int n_tokens;
    union {
        struct { int version; } pinochle;                          /* pinochle 3 */
        struct { const char *name, *value; } setoption;            /* setoption depth 6 */
        Rule rule;                                                 /* rule ... */
        State state;                                               /* state k=v ... */
        struct {                                                   /* game ID VARIANT SEAT PLAYERS k=v... */
            const char *id, *variant;
            int seat, players;
            KeyValue *options; int n_options;
        } game;
        struct { int hand, dealer; Card turnup; bool has_turnup; CardList cards; } deal;
        struct { int seat, points; const char *reason; } bonus;    /* bonus 0 10 dix-turnup */
        struct { int seat; Action action; } play;                  /* play 1 AS / play 1 table:QD */
        struct { int winner, points; } trick;                      /* trick 1 21 */
        struct { int seat; Card card; } draw;                      /* draw 0 JS / draw 1 ?? */
        struct { int seat; const char *kind; int points; CardList cards; } meld;
        struct { int seat; Card dix, taken; } exchange;            /* exchange 1 9H QH */
        struct { int leader; } phase2;
        struct { int seat; bool success; } claim;                  /* claim 0 yes */
        struct { int hand, n; int points[MAX_SEATS], totals[MAX_SEATS]; } handend;
        Request go;
        struct { const char *text; } error;                        /* error <free text> */
        struct {                                                   /* gameover completed - result 1 0 totals .. */
            const char *termination;
            int culprit; /* -1 for "-" */
            int n; double result[MAX_SEATS]; int totals[MAX_SEATS];
        } gameover;
        struct { int seat, amount; } bid;                          /* amount -1: pass */
        struct { int seat, amount; } bidwon;
        struct { int dealer; } redeal;
        struct { CardList cards; } kitty;
        struct { Card card; } kittycard;
        struct { int seat; } throwin;
        struct { int seat; Suit suit; } trump;
        struct { int seat; Card card; } call;
        struct { int bidder, partner; } partner;                   /* partner -1: plays alone */
        struct { int from, to; CardList cards; } give;             /* ?? for cards you may not see */
        struct { int seat; CardList cards; } bury;
        struct { int seat; Card card; } dummy;
        struct { int bidder, bid; bool made; int points; } contract;
        struct { int target; } target;                             /* target 1250 */
        struct { const char *token; } ping;
    } u;
} Message;

/* Parses one line (modified in place; "\r\n" may still be on it). Returns
 * false for an empty line. A line it does not understand gives MSG_UNKNOWN. */
bool message_parse(char *line, Message *msg);
void message_free(Message *msg);

/* --------------------------------------------------------------- helpers */

bool parse_int(const char *text, int *out); /* whole number, no junk, fits an int */
bool equals_nocase(const char *a, const char *b);

#endif

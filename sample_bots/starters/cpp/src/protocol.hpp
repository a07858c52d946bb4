// protocol.hpp: the pinochle-arena protocol (version 3) as C++ types.
//
// parse_message() turns every line the referee sends into a Message, a
// std::variant with one struct per message; Card is a small value type.
// Nothing here knows how to play: it only turns text into data. See
// protocol/PROTOCOL.md for what each message means; the comment on each
// struct shows the line it comes from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace pinochle {

// ------------------------------------------------------------------ cards

enum class Suit : std::int8_t { Clubs, Diamonds, Hearts, Spades };  // C D H S
// Low to high, so that < orders them: within a suit A > T > K > Q > J > 9.
enum class Rank : std::int8_t { Nine, Jack, Queen, King, Ten, Ace };

constexpr int kSuits = 4;
constexpr int kRanks = 6;

std::optional<Suit> parse_suit(char c);
std::optional<Rank> parse_rank(char c);
char to_char(Suit s);
char to_char(Rank r);

struct Card {
    Rank rank = Rank::Nine;
    Suit suit = Suit::Clubs;

    static std::optional<Card> parse(std::string_view text);  // "AS", "td"; nullopt otherwise
    std::string text() const;                                 // "AS"
    friend bool operator==(Card a, Card b) { return a.rank == b.rank && a.suit == b.suit; }
    friend bool operator!=(Card a, Card b) { return !(a == b); }
};

using Cards = std::vector<Card>;
// A card another seat's move may hide from you: nullopt is "??".
using SeenCard = std::optional<Card>;

bool remove_one(Cards& cards, Card c);  // removes one copy; false if absent
int count_of(const Cards& cards, Card c);
std::string to_text(const Cards& cards, char sep = ',');  // "AS,TD" ("-" for none)

// ---------------------------------------------------------------- actions

// bid:A..B/S, the bids A, A+S, ..., B, kept whole (B can be a million).
struct BidRange {
    int lo = 0, hi = -1, step = 1;

    bool contains(int amount) const { return amount >= lo && amount <= hi && (amount - lo) % step == 0; }
    long long size() const { return hi < lo ? 0 : (static_cast<long long>(hi) - lo) / step + 1; }
};

// One token of a `go` request, or a reply you build yourself.
struct Action {
    enum class Kind {
        Unknown,   // a token this kit does not know: still a legal reply
        Card,      // AS: play a card from the hand
        Table,     // table:AS or table:KS@kings: play a card melded on the table
        Meld,      // royal:KH,QH=40: make a meld
        Pass,      // pass
        Take,      // take:stock / take:turnup
        Claim,     // claim
        Bid,       // bid:25
        BidRange,  // bid:21..555 or bid:65..100/5: a run of bids, NEVER a reply
        Trump,     // trump:H
        ThrowIn,   // throw-in
        Call,      // call:AS
        Give,      // give:AS
        Bury,      // bury:AS
    };

    Kind kind = Kind::Unknown;
    std::string text;                // the token as the referee sent it; empty for one you made
    std::optional<pinochle::Card> card;  // Card, Table, Call, Give, Bury
    std::string copy;                // Table: the melds that copy served ("kings+marriage"), or ""
    std::string meld_kind;           // Meld: "royal", "double-aces"...
    Cards meld_cards;                // Meld: the cards it takes from the hand
    std::optional<int> points;       // Meld: what it would score now (version 3)
    int bid = 0;                     // Bid
    BidRange range;                  // BidRange
    std::optional<Suit> suit;        // Trump
    bool turnup = false;             // Take: take:turnup (true) or take:stock

    static Action parse(std::string_view token);
    static Action make_bid(int amount);
    std::string reply_text() const;  // what to send back
    bool same_as(const Action& other) const;
};

// ------------------------------------------------------------ go requests

enum class Decision { Unknown, Lead, Follow, Meld, Take, Bid, Trump, Call, Give, Bury };

// The concrete bids of a request, ranges expanded lazily:
//   for (int amount : request.bids()) ...
class Bids {
public:
    class iterator {
    public:
        iterator(const std::vector<BidRange>* ranges, std::size_t index, long long next)
            : ranges_(ranges), index_(index), next_(next) {}
        int operator*() const { return static_cast<int>(next_); }
        iterator& operator++();
        bool operator!=(const iterator& o) const { return index_ != o.index_ || next_ != o.next_; }

    private:
        const std::vector<BidRange>* ranges_;
        std::size_t index_;
        long long next_;
    };

    explicit Bids(std::vector<BidRange> ranges) : ranges_(std::move(ranges)) {}
    iterator begin() const;
    iterator end() const { return iterator(&ranges_, ranges_.size(), 0); }
    bool empty() const { return ranges_.empty(); }
    bool contains(int amount) const;
    std::optional<int> lowest() const;
    long long size() const;

private:
    std::vector<BidRange> ranges_;  // a single bid is a range of one
};

// go <decision> <time-left-ms> <bank-ms> <action>...
struct Request {
    Decision decision = Decision::Unknown;
    std::string decision_text;
    long long time_left_ms = 0;  // what you may spend on this reply
    long long bank_ms = 0;       // your whole remaining bank
    std::vector<Action> actions; // as listed; bid ranges stay ranges (see bids())

    Bids bids() const;
    bool allows(const Action& reply) const;  // a listed action, or a bid inside a listed range
    const Action* first_of(Action::Kind kind) const;  // nullptr if none
};

// ------------------------------------------------------------------ rules

// rule ranks A T K Q J 9: the deck's ranks, high to low
struct RuleRanks { std::vector<Rank> ranks; };
// rule copies 2
struct RuleCopies { int copies = 2; };
// rule points A=11 T=10 K=4 Q=3 J=2 9=0
struct RulePoints { int points[kRanks] = {}; };  // indexed by Rank
// rule last-trick 10
struct RuleLastTrick { int points = 0; };
// rule target 1000
struct RuleTarget { int target = 0; };
// rule meld run 150 300 [- -]: made once, twice (3 and 4 times in the double deck); nullopt for "-"
struct RuleMeld {
    std::string kind;
    std::vector<std::optional<int>> values;
};
// rule follow 2 suit trump head
struct RuleFollow {
    int phase = 0;
    bool free = false, suit = false, trump = false, head = false, head_if_trump_led = false;
    std::vector<std::string> duties;  // every word, known or not
};
// rule first-lead trump
struct RuleFirstLead { std::string what; };
// a rule added in a later version
struct RuleOther { std::string key; std::vector<std::string> values; };

using Rule = std::variant<RuleRanks, RuleCopies, RulePoints, RuleLastTrick, RuleTarget, RuleMeld, RuleFollow,
                          RuleFirstLead, RuleOther>;

// ------------------------------------------------------------------ state

struct SeatBid {
    int seat = 0;
    std::optional<int> amount;  // nullopt for a pass
};

struct CardCount {
    Card card;
    int count;
};

// state <key=value>...: kept generically (fields()), and every documented
// field read once into a typed member. Each accessor returns nullopt when the
// field is absent (or "-" where that means none); unknown keys are ignored.
// The accessors return references into the State, so
//   for (Card c : *state.cards()) ...
// is safe as long as the State lives.
class State {
public:
    using Fields = std::vector<std::pair<std::string, std::string>>;

    State() = default;
    explicit State(Fields fields);

    const Fields& fields() const { return fields_; }  // in the order sent
    std::optional<std::string_view> get(std::string_view key) const;

    const std::optional<int>& hand() const { return hand_; }
    const std::optional<int>& dealer() const { return dealer_; }
    const std::optional<int>& phase() const { return phase_; }
    const std::optional<Suit>& trump() const { return trump_; }
    const std::optional<Card>& turnup() const { return turnup_; }
    const std::optional<Cards>& cards() const { return cards_; }  // your concealed hand
    const std::optional<std::vector<Cards>>& tables() const { return tables_; }  // with a stock
    const std::optional<int>& leader() const { return leader_; }
    const std::optional<Cards>& trick() const { return trick_; }  // in play order from the leader
    const std::optional<std::vector<int>>& held() const { return held_; }
    const std::optional<int>& stock() const { return stock_; }
    const std::optional<int>& kitty() const { return kitty_; }
    const std::optional<int>& buried() const { return buried_; }
    const std::optional<int>& dummy() const { return dummy_; }
    const std::optional<SeatBid>& bid() const { return bid_; }  // bid=0:25
    const std::optional<int>& partner() const { return partner_; }
    const std::optional<std::vector<int>>& meld() const { return meld_; }
    const std::optional<std::vector<int>>& tricks() const { return tricks_; }
    const std::optional<std::vector<int>>& totals() const { return totals_; }
    const std::optional<std::vector<CardCount>>& unseen() const { return unseen_; }
    // newer fields, absent from older referees
    const std::optional<int>& target() const { return target_; }
    const std::optional<std::vector<SeatBid>>& bids() const { return bids_; }  // this hand's auction so far
    const std::optional<std::vector<int>>& won() const { return won_; }        // tricks won by each seat
    const std::optional<std::vector<Cards>>& known() const { return known_; }  // cards you know each seat holds

    // Generic typed readers, for fields added later. They return values: bind
    // the result to a variable before iterating over *it.
    std::optional<int> integer(std::string_view key) const;
    std::optional<std::vector<int>> integers(std::string_view key) const;      // "12/15/15"
    std::optional<Cards> card_list(std::string_view key) const;               // "AS,TD" or "-"
    std::optional<std::vector<Cards>> card_lists(std::string_view key) const;  // "AS,TD/-/KH"

private:
    Fields fields_;
    std::optional<int> hand_, dealer_, phase_, leader_, stock_, kitty_, buried_, dummy_, partner_, target_;
    std::optional<Suit> trump_;
    std::optional<Card> turnup_;
    std::optional<Cards> cards_, trick_;
    std::optional<std::vector<Cards>> tables_, known_;
    std::optional<std::vector<int>> held_, meld_, tricks_, totals_, won_;
    std::optional<SeatBid> bid_;
    std::optional<std::vector<CardCount>> unseen_;
    std::optional<std::vector<SeatBid>> bids_;
};

// --------------------------------------------------------------- messages

struct Pinochle { int version = 0; };                     // pinochle 3
struct SetOption { std::string name, value; };          // setoption depth 6
struct RuleLine { Rule rule; };                          // rule ...
// (State above)                                         // state hand=1 ...
struct NewGame {                                         // game ID VARIANT SEAT PLAYERS key=value...
    std::string id, variant;
    int seat = 0, players = 0;
    std::vector<std::pair<std::string, std::string>> options;
};
struct Deal { int hand = 0, dealer = 0; std::optional<Card> turnup; Cards cards; };  // deal 1 0 QH JD ...
struct Bonus { int seat = 0, points = 0; std::string reason; };                    // bonus 0 10 dix-turnup
struct Play { int seat = 0; Action action; };           // play 1 AS / play 1 table:QD
struct Trick { int winner = 0, points = 0; };           // trick 1 21
struct Draw { int seat = 0; SeenCard card; };           // draw 0 JS / draw 1 ??
struct MeldShown { int seat = 0; std::string kind; int points = 0; Cards cards; };  // meld 1 royal 40 KH QH
struct Exchange { int seat = 0; Card dix, taken; };     // exchange 1 9H QH
struct Phase2 { int leader = 0; };                      // phase2 0
struct ClaimMade { int seat = 0; bool success = false; };  // claim 0 yes
struct HandEnd { int hand = 0; std::vector<int> points, totals; };  // handend 1 points .. totals ..
// (Request above)                                       // go lead 5000 60000 AS TS ...
struct Error { std::string text; };                      // error <free text>
struct GameOver {                                        // gameover completed - result 1 0 totals ..
    std::string termination;
    std::optional<int> culprit;
    std::vector<double> result;
    std::vector<int> totals;
};
struct BidMade { int seat = 0; std::optional<int> amount; };  // bid 2 20 / bid 1 pass
struct BidWon { int seat = 0, amount = 0; };                 // bidwon 0 25
struct Redeal { int dealer = 0; };
struct Kitty { Cards cards; };
struct KittyCard { Card card; };
struct ThrowIn { int seat = 0; };
struct TrumpDeclared { int seat = 0; Suit suit = Suit::Clubs; };           // trump 0 C
struct CardCalled { int seat = 0; Card card; };              // call 0 AS
struct Partner { int bidder = 0; std::optional<int> partner; };  // partner 0 3 / partner 0 -
struct Give { int from = 0, to = 0; std::vector<SeenCard> cards; };
struct Bury { int seat = 0; std::vector<SeenCard> cards; };
struct Dummy { int seat = 0; Card card; };
struct Contract { int bidder = 0, bid = 0; bool made = false; int points = 0; };  // contract 0 25 made 32
struct Target { int target = 0; };                       // target 1250
struct Ping { std::string token; };
struct MatchEnd {};
struct Quit {};
struct Unknown { std::vector<std::string> tokens; };     // not understood: ignore it

using Message = std::variant<Unknown, Pinochle, SetOption, RuleLine, State, NewGame, Deal, Bonus, Play, Trick,
                             Draw, MeldShown, Exchange, Phase2, ClaimMade, HandEnd, Request, Error, GameOver,
                             BidMade, BidWon, Redeal, Kitty, KittyCard, ThrowIn, TrumpDeclared, CardCalled,
                             Partner, Give, Bury, Dummy, Contract, Target, Ping, MatchEnd, Quit>;

// Parses one line ("\r\n" may still be on it). nullopt for an empty line;
// a line that is no known message, or is malformed, gives Unknown.
std::optional<Message> parse_message(std::string_view line);

}  // namespace pinochle

// game.hpp: what the bot knows of the game, kept up to date from the events.
//
// Game::on(message) follows every event; a `state` line (sent before every
// request, since the bot asks for it with `want state`) puts the model right
// where it differs. The model works without state lines too.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol.hpp"

namespace pinochle {

struct PlayedCard {
    int seat;
    Card card;
};

class Game {
public:
    // ---- the game (from `game` and `rule` lines)
    std::string variant;
    int seat = 0, players = 2;
    int copies = 2;                          // of each card: 2, or 4 in the double deck
    std::vector<Rank> ranks;                 // in the deck, high to low
    int points[kRanks] = {};                 // counter points of each rank, by Rank
    int last_trick = 0;                      // bonus for the last trick
    int target = 0;                          // the score that wins (it can rise: `target` event)
    std::map<std::string, std::vector<std::optional<int>>> meld_values;  // kind -> once, twice...
    RuleFollow follow[3];                    // duties of phase 1 and 2
    bool first_lead_trump = false;

    // ---- this hand
    int hand = 0, dealer = 0;
    int phase = 1;                           // 1 or 2 (PROTOCOL.md, `state` phase)
    bool stock_game = false;                 // two-handed with a stock (a turn-up was dealt)
    std::optional<Suit> trump;
    std::optional<Card> turnup;              // while it lies under the stock
    int stock = 0;                           // face-down cards in the stock
    Cards cards;                             // my concealed hand
    std::vector<Cards> tables;               // each seat's melded cards on the table (stock games)
    Cards set_aside;                         // cards I chose to give or bury, not yet shown by an event
    std::vector<PlayedCard> trick;           // the trick in play, in play order
    std::vector<int> meld_points, trick_points, tricks_won;  // per seat, this hand
    std::vector<int> totals;                 // the game totals before this hand
    std::vector<Cards> known;                // from `state known=` (newer referees): cards each seat holds

    // ---- the bidding games
    std::vector<SeatBid> bids;               // this hand's auction so far
    std::optional<int> bidder, bid;          // who won the auction, at what
    std::optional<int> partner;              // the bid winner's partner (five players)
    std::optional<Card> called;
    Cards kitty;                             // the kitty cards shown

    void on(const Message& message);        // every message but `go`
    void on_request(const Request& request);  // before choosing
    void on_reply(const Action& reply);     // after replying: a card given or buried leaves the hand

    // Trick helpers.
    static bool beats(Card challenger, Card best, std::optional<Suit> trump);  // `best` was played first
    std::optional<PlayedCard> winning() const;  // the best card of the trick so far
    std::optional<int> meld_value(const std::string& kind, int times) const;  // from the rule lines

private:
    void new_hand();
    void lose_mine(const std::vector<SeenCard>& cards);
    bool is_seat(int s) const { return s >= 0 && s < players; }

    // One handler per message; the template takes the rest (nothing to do).
    template <class T>
    void handle(const T&) {}
    void handle(const NewGame& m);
    void handle(const RuleLine& m);
    void handle(const State& m);
    void handle(const Deal& m);
    void handle(const Bonus& m);
    void handle(const Play& m);
    void handle(const Trick& m);
    void handle(const Draw& m);
    void handle(const MeldShown& m);
    void handle(const Exchange& m);
    void handle(const Phase2& m);
    void handle(const HandEnd& m);
    void handle(const BidMade& m);
    void handle(const BidWon& m);
    void handle(const Kitty& m);
    void handle(const KittyCard& m);
    void handle(const TrumpDeclared& m);
    void handle(const CardCalled& m);
    void handle(const Partner& m);
    void handle(const Give& m);
    void handle(const Bury& m);
    void handle(const Target& m);
};

}  // namespace pinochle

// strategy.cpp: HOW THE BOT PLAYS.  >>> This is the file to make your own. <<<
//
// choose() at the bottom is the one function an entrant replaces. It gets
//   game     the game model (game.hpp): your hand, trump, the trick, the
//            scores, the rules of this game, the auction...
//   request  the request (protocol.hpp): what is asked (request.decision)
//            and every legal action (request.actions), parsed: cards, melds
//            with their points, bids (for (int b : request.bids()) expands
//            the ranges lazily)
// and returns one action. Everything else (reading lines, the handshake,
// pings, following the events) is done for you.
//
// The play here is deliberately simple, a baseline to beat:
//   auction  pass, unless passing is not allowed: then the lowest bid
//   trump    the offered suit you hold most cards of
//   meld     the meld that scores most
//   tricks   the lowest card that wins the trick, else the lowest card
//   claim    only when your score surely reaches the target
//   others   (take, give, bury, call) the first action offered
//
// Time: request.time_left_ms is what this reply may take. Debug output goes
// to std::cerr, never to std::cout.
#include "strategy.hpp"

namespace pinochle {

namespace {

// How "low" a card is: any trump is higher than any other card.
int lowness(Card c, std::optional<Suit> trump) {
    return static_cast<int>(c.rank) + (c.suit == trump ? kRanks : 0);
}

// The first offered action that is a reply (a range gives its lowest bid).
Action first_offered(const Request& request) {
    if (!request.actions.empty() && request.actions.front().kind != Action::Kind::BidRange)
        return request.actions.front();
    if (auto low = request.bids().lowest()) return Action::make_bid(*low);
    return request.actions.empty() ? Action::make_bid(0) : request.actions.front();
}

// The lowest offered card (from the hand or the table); with `beat`, the
// lowest of those that would beat it. nullptr when there is none.
const Action* lowest_card(const Game& game, const Request& request, std::optional<Card> beat) {
    const Action* best = nullptr;
    for (const auto& a : request.actions) {
        if ((a.kind != Action::Kind::Card && a.kind != Action::Kind::Table) || !a.card) continue;
        if (beat && !Game::beats(*a.card, *beat, game.trump)) continue;
        int low = lowness(*a.card, game.trump);
        if (!best || low < lowness(*best->card, game.trump) ||
            (low == lowness(*best->card, game.trump) && a.kind == Action::Kind::Card &&
             best->kind == Action::Kind::Table))  // the same card: play it from the hand, keep the melded one
            best = &a;
    }
    return best;
}

// Whether a claim would be right: this hand's points so far already reach the target.
bool claim_is_safe(const Game& game) {
    auto me = static_cast<std::size_t>(game.seat);
    if (game.target <= 0 || me >= game.totals.size() || me >= game.meld_points.size() ||
        me >= game.trick_points.size())
        return false;
    return game.totals[me] + game.meld_points[me] + game.trick_points[me] >= game.target;
}

Action choose_bid(const Request& request) {
    if (auto pass = request.first_of(Action::Kind::Pass)) return *pass;
    if (auto low = request.bids().lowest()) return Action::make_bid(*low);
    return first_offered(request);
}

Action choose_trump(const Game& game, const Request& request) {
    int held[kSuits] = {};
    for (Card c : game.cards) ++held[static_cast<int>(c.suit)];
    const Action* best = nullptr;
    for (const auto& a : request.actions)
        if (a.kind == Action::Kind::Trump && a.suit &&
            (!best || held[static_cast<int>(*a.suit)] > held[static_cast<int>(*best->suit)]))
            best = &a;
    return best ? *best : first_offered(request);
}

Action choose_meld(const Game& game, const Request& request) {
    auto claim = request.first_of(Action::Kind::Claim);
    if (claim && claim_is_safe(game)) return *claim;
    // version 3 gives each meld's points; without them, more cards is taken as more points
    auto value = [](const Action& a) { return a.points.value_or(static_cast<int>(a.meld_cards.size())); };
    const Action* best = nullptr;
    for (const auto& a : request.actions)
        if (a.kind == Action::Kind::Meld && (!best || value(a) > value(*best))) best = &a;
    if (best) return *best;
    if (auto pass = request.first_of(Action::Kind::Pass)) return *pass;
    return first_offered(request);
}

Action choose_card(const Game& game, const Request& request) {
    auto claim = request.first_of(Action::Kind::Claim);
    if (claim && claim_is_safe(game)) return *claim;
    const Action* card = nullptr;
    if (auto winning = game.winning(); request.decision == Decision::Follow && winning)
        card = lowest_card(game, request, winning->card);
    if (!card) card = lowest_card(game, request, std::nullopt);
    return card ? *card : first_offered(request);
}

}  // namespace

// ====================================================================
//  THE FUNCTION TO REPLACE: your bot's thinking goes here.
// ====================================================================
Action choose(const Game& game, const Request& request) {
    switch (request.decision) {
    case Decision::Bid: return choose_bid(request);
    case Decision::Trump: return choose_trump(game, request);
    case Decision::Meld: return choose_meld(game, request);
    case Decision::Lead:
    case Decision::Follow: return choose_card(game, request);
    case Decision::Take:  // take:stock or take:turnup
    case Decision::Call:  // call:AS: its holder partners you (five players)
    case Decision::Give:  // give:AS: one card to your partner, asked once per card
    case Decision::Bury:  // bury:AS: one card out of play, asked once per card
    case Decision::Unknown:
    default: return first_offered(request);
    }
}

}  // namespace pinochle

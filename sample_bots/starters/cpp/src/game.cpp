// game.cpp: the game model, event by event.
#include "game.hpp"

#include <algorithm>
#include <cstdlib>

namespace pinochle {

void Game::on(const Message& message) {
    std::visit([this](const auto& m) { handle(m); }, message);
}

void Game::new_hand() {
    const auto n = static_cast<std::size_t>(players);
    phase = 1;
    trump.reset();
    turnup.reset();
    stock = 0;
    cards.clear();
    set_aside.clear();
    kitty.clear();
    tables.assign(n, Cards());
    known.clear();
    trick.clear();
    meld_points.assign(n, 0);
    trick_points.assign(n, 0);
    tricks_won.assign(n, 0);
    totals.resize(n, 0);
    bids.clear();
    bidder.reset();
    bid.reset();
    partner.reset();
    called.reset();
}

void Game::handle(const NewGame& m) {  // a new game: forget the old one
    *this = Game();
    variant = m.variant;
    seat = m.seat;
    players = std::max(1, m.players);
    totals.assign(static_cast<std::size_t>(players), 0);
    for (const auto& [key, value] : m.options)
        if (key == "target") target = std::atoi(value.c_str());
    new_hand();
}

// std::visit with one lambda per alternative.
template <class... F>
struct Overloaded : F... {
    using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

void Game::handle(const RuleLine& m) {
    std::visit(Overloaded{
                   [&](const RuleRanks& r) { ranks = r.ranks; },
                   [&](const RuleCopies& r) { copies = r.copies; },
                   [&](const RulePoints& r) { std::copy(std::begin(r.points), std::end(r.points), points); },
                   [&](const RuleLastTrick& r) { last_trick = r.points; },
                   [&](const RuleTarget& r) { target = r.target; },
                   [&](const RuleMeld& r) { meld_values[r.kind] = r.values; },
                   [&](const RuleFollow& r) {
                       if (r.phase == 1 || r.phase == 2) follow[r.phase] = r;
                   },
                   [&](const RuleFirstLead& r) { first_lead_trump = r.what == "trump"; },
                   [](const RuleOther&) {},  // a rule of a later version
               },
               m.rule);
}

// The state line: what the referee says we may know, which wins over our bookkeeping.
void Game::handle(const State& s) {
    if (!s.hand()) return;  // not a state line this kit understands
    hand = *s.hand();
    if (auto v = s.dealer()) dealer = *v;
    if (auto v = s.phase()) phase = *v;
    trump = s.trump();
    turnup = s.turnup();
    if (auto v = s.cards()) cards = *v;
    if (auto v = s.tables()) tables = *v;
    trick.clear();
    auto leader = s.leader();
    auto played = s.trick();
    if (leader && played) {  // in play order: the leader, then the seats after it
        int i = 0;
        for (Card c : *played) trick.push_back(PlayedCard{(*leader + i++) % players, c});
    }
    if (auto v = s.stock()) stock = *v;
    if (auto v = s.bid()) {
        bidder = v->seat;
        bid = v->amount;
    } else {
        bidder.reset();
        bid.reset();
    }
    partner = s.partner();
    if (auto v = s.meld()) meld_points = *v;
    if (auto v = s.tricks()) trick_points = *v;
    if (auto v = s.totals()) totals = *v;
    // newer fields, when the referee sends them
    if (auto v = s.target()) target = *v;
    if (auto v = s.won()) tricks_won = *v;
    if (auto v = s.bids()) bids = *v;
    if (auto v = s.known()) known = *v;
    tables.resize(static_cast<std::size_t>(players));
    for (auto* v : {&meld_points, &trick_points, &tricks_won, &totals}) v->resize(static_cast<std::size_t>(players));
}

void Game::handle(const Deal& m) {
    new_hand();
    hand = m.hand;
    dealer = m.dealer;
    cards = m.cards;
    stock_game = m.turnup.has_value();
    if (stock_game) {  // the turn-up's suit is trump; the rest of the deck is the stock
        turnup = m.turnup;
        trump = m.turnup->suit;
        int deck = copies * static_cast<int>(ranks.empty() ? kRanks : ranks.size()) * kSuits;
        stock = deck - players * static_cast<int>(cards.size()) - 1;
    }
}

void Game::handle(const Bonus& m) {
    if (is_seat(m.seat)) meld_points[static_cast<std::size_t>(m.seat)] += m.points;
}

void Game::handle(const Play& m) {
    if (!is_seat(m.seat) || !m.action.card) return;
    Card c = *m.action.card;
    if (trick.empty() && !stock_game) phase = 2;  // the bidding games: the tricks have begun
    if (m.action.kind == Action::Kind::Table) remove_one(tables[static_cast<std::size_t>(m.seat)], c);
    else if (m.seat == seat) remove_one(cards, c);
    trick.push_back(PlayedCard{m.seat, c});
}

void Game::handle(const Trick& m) {
    if (is_seat(m.winner)) {
        trick_points[static_cast<std::size_t>(m.winner)] += m.points;
        tricks_won[static_cast<std::size_t>(m.winner)] += 1;
    }
    trick.clear();
}

void Game::handle(const Draw& m) {
    // The last two cards are the stock's last one and the turn-up, in either order.
    if (stock <= 0 || (stock == 1 && m.card && m.card == turnup)) turnup.reset();
    else --stock;
    if (m.seat == seat && m.card) cards.push_back(*m.card);
}

void Game::handle(const MeldShown& m) {
    if (!is_seat(m.seat)) return;
    meld_points[static_cast<std::size_t>(m.seat)] += m.points;
    if (!stock_game) return;  // the bidding games: shown, and kept in the hand
    for (Card c : m.cards) {  // with a stock: the cards go face up on the table
        if (m.seat == seat) remove_one(cards, c);
        tables[static_cast<std::size_t>(m.seat)].push_back(c);
    }
}

void Game::handle(const Exchange& m) {  // the melded dix goes under the stock, the turn-up into the hand
    if (!is_seat(m.seat)) return;
    if (!remove_one(tables[static_cast<std::size_t>(m.seat)], m.dix) && m.seat == seat) remove_one(cards, m.dix);
    turnup = m.dix;
    if (m.seat == seat) cards.push_back(m.taken);
}

void Game::handle(const Phase2&) {  // the melds go back to the hands
    phase = 2;
    auto& mine = tables[static_cast<std::size_t>(seat)];
    cards.insert(cards.end(), mine.begin(), mine.end());
    tables.assign(static_cast<std::size_t>(players), Cards());
    turnup.reset();
    stock = 0;
}

void Game::handle(const HandEnd& m) {
    for (std::size_t i = 0; i < m.totals.size() && i < totals.size(); ++i) totals[i] = m.totals[i];
}

void Game::handle(const BidMade& m) { bids.push_back(SeatBid{m.seat, m.amount}); }

void Game::handle(const BidWon& m) {
    bidder = m.seat;
    bid = m.amount;
}

void Game::handle(const Kitty& m) {  // shown to all; the bid winner takes it
    kitty = m.cards;
    if (bidder == seat) cards.insert(cards.end(), m.cards.begin(), m.cards.end());
}

void Game::handle(const KittyCard& m) { kitty.push_back(m.card); }
void Game::handle(const TrumpDeclared& m) { trump = m.suit; }
void Game::handle(const CardCalled& m) { called = m.card; }
void Game::handle(const Partner& m) { partner = m.partner; }
void Game::handle(const Target& m) { target = m.target; }

// My cards leave my hand: those I set aside left it when I chose them.
void Game::lose_mine(const std::vector<SeenCard>& lost) {
    for (const auto& c : lost)
        if (c && !remove_one(set_aside, *c)) remove_one(cards, *c);
}

void Game::handle(const Give& m) {
    if (m.from == seat) lose_mine(m.cards);
    if (m.to == seat)
        for (const auto& c : m.cards)
            if (c) cards.push_back(*c);
}

void Game::handle(const Bury& m) {
    if (m.seat == seat) lose_mine(m.cards);
}

void Game::on_request(const Request& request) {
    // The bidding games: the tricks begin (phase 2) with the first request to play a card.
    if (!stock_game && (request.decision == Decision::Lead || request.decision == Decision::Follow)) phase = 2;
}

void Game::on_reply(const Action& reply) {
    if ((reply.kind == Action::Kind::Give || reply.kind == Action::Kind::Bury) && reply.card &&
        remove_one(cards, *reply.card))
        set_aside.push_back(*reply.card);
}

bool Game::beats(Card challenger, Card best, std::optional<Suit> trump) {
    if (challenger.suit == best.suit) return challenger.rank > best.rank;  // equal cards: the first wins
    return challenger.suit == trump;  // of another suit, only a trump wins
}

std::optional<PlayedCard> Game::winning() const {
    if (trick.empty()) return std::nullopt;
    PlayedCard best = trick.front();
    for (const auto& p : trick)
        if (beats(p.card, best.card, trump)) best = p;
    return best;
}

std::optional<int> Game::meld_value(const std::string& kind, int times) const {
    auto it = meld_values.find(kind);
    if (it == meld_values.end() || times < 1 || times > static_cast<int>(it->second.size())) return std::nullopt;
    return it->second[static_cast<std::size_t>(times - 1)];
}

}  // namespace pinochle

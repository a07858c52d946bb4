// protocol.cpp: text -> the types of protocol.hpp. No game logic here.
#include "protocol.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <stdexcept>

namespace pinochle {

namespace {

constexpr std::string_view kRankChars = "9JQKTA";  // indexed by Rank
constexpr std::string_view kSuitChars = "CDHS";    // indexed by Suit

// Thrown by the readers below on a malformed line; parse_message() turns it into Unknown.
struct Malformed : std::runtime_error {
    Malformed() : std::runtime_error("malformed line") {}
};

bool equals_nocase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

std::optional<int> to_int(std::string_view text) {
    int value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<long long> to_long(std::string_view text) {
    long long value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// Splits text at sep; "a,,b" gives an empty part.
std::vector<std::string_view> split(std::string_view text, char sep) {
    std::vector<std::string_view> parts;
    for (;;) {
        std::size_t at = text.find(sep);
        parts.push_back(text.substr(0, at));
        if (at == std::string_view::npos) return parts;
        text.remove_prefix(at + 1);
    }
}

// "AS,TD" or "-" for none.
std::optional<Cards> parse_cards(std::string_view text, char sep = ',') {
    Cards cards;
    if (text == "-") return cards;
    for (auto part : split(text, sep)) {
        auto c = Card::parse(part);
        if (!c) return std::nullopt;
        cards.push_back(*c);
    }
    return cards;
}

// Reads a line's tokens one by one; each reader throws Malformed.
class Reader {
public:
    explicit Reader(const std::vector<std::string>& tokens) : tokens_(tokens) {}

    bool done() const { return next_ >= tokens_.size(); }
    const std::string& word() {
        if (done()) throw Malformed();
        return tokens_[next_++];
    }
    int integer() {
        auto v = to_int(word());
        if (!v) throw Malformed();
        return *v;
    }
    long long long_integer() {
        auto v = to_long(word());
        if (!v) throw Malformed();
        return *v;
    }
    std::optional<int> seat_or_dash() {  // "-" for none
        const std::string& w = word();
        if (w == "-") return std::nullopt;
        auto v = to_int(w);
        if (!v) throw Malformed();
        return v;
    }
    Card card() {
        auto c = Card::parse(word());
        if (!c) throw Malformed();
        return *c;
    }
    SeenCard seen_card() {  // "??" for a card you may not see
        const std::string& w = word();
        if (w == "??") return std::nullopt;
        auto c = Card::parse(w);
        if (!c) throw Malformed();
        return c;
    }
    Cards cards() {
        Cards out;
        while (!done()) out.push_back(card());
        return out;
    }
    std::vector<SeenCard> seen_cards() {
        std::vector<SeenCard> out;
        while (!done()) out.push_back(seen_card());
        return out;
    }
    std::vector<std::string> rest() {
        auto from = tokens_.begin() + static_cast<std::ptrdiff_t>(std::min(next_, tokens_.size()));
        std::vector<std::string> out(from, tokens_.end());
        next_ = tokens_.size();
        return out;
    }
    // The numbers after `keyword` (handend ... points 1 2 totals 3 4), up to the next word.
    template <class T>
    std::vector<T> numbers_after(std::string_view keyword) {
        std::vector<T> out;
        auto it = std::find(tokens_.begin(), tokens_.end(), keyword);
        for (it = it == tokens_.end() ? it : it + 1; it != tokens_.end(); ++it) {
            char* end = nullptr;
            double v = std::strtod(it->c_str(), &end);
            if (it->empty() || *end != '\0') break;
            out.push_back(static_cast<T>(v));
        }
        return out;
    }

private:
    const std::vector<std::string>& tokens_;
    std::size_t next_ = 1;  // tokens_[0] names the message
};

std::vector<std::pair<std::string, std::string>> key_values(const std::vector<std::string>& words) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& w : words) {
        std::size_t eq = w.find('=');
        if (eq != std::string::npos) out.emplace_back(w.substr(0, eq), w.substr(eq + 1));
    }
    return out;
}

Decision parse_decision(std::string_view text) {
    static const std::pair<std::string_view, Decision> names[] = {
        {"lead", Decision::Lead}, {"follow", Decision::Follow}, {"meld", Decision::Meld},
        {"take", Decision::Take}, {"bid", Decision::Bid},       {"trump", Decision::Trump},
        {"call", Decision::Call}, {"give", Decision::Give},     {"bury", Decision::Bury}};
    for (const auto& [name, decision] : names)
        if (name == text) return decision;
    return Decision::Unknown;
}

Rule parse_rule(Reader& in) {
    std::string key = in.word();
    if (key == "ranks") {
        RuleRanks r;
        for (const auto& w : in.rest()) {
            auto rank = w.size() == 1 ? parse_rank(w[0]) : std::nullopt;
            if (!rank) throw Malformed();
            r.ranks.push_back(*rank);
        }
        return r;
    }
    if (key == "copies") return RuleCopies{in.integer()};
    if (key == "last-trick") return RuleLastTrick{in.integer()};
    if (key == "target") return RuleTarget{in.integer()};
    if (key == "points") {  // A=11 T=10 ...
        RulePoints r;
        for (const auto& w : in.rest()) {
            auto rank = parse_rank(w[0]);
            auto value = w.size() > 2 && w[1] == '=' ? to_int(std::string_view(w).substr(2)) : std::nullopt;
            if (!rank || !value) throw Malformed();
            r.points[static_cast<int>(*rank)] = *value;
        }
        return r;
    }
    if (key == "meld") {  // meld run 150 300 [- -]
        RuleMeld r;
        r.kind = in.word();
        for (const auto& w : in.rest()) {
            if (w == "-") {
                r.values.push_back(std::nullopt);
            } else {
                auto v = to_int(w);
                if (!v) throw Malformed();
                r.values.push_back(v);
            }
        }
        return r;
    }
    if (key == "follow") {  // follow 2 suit trump head
        RuleFollow r;
        r.phase = in.integer();
        r.duties = in.rest();
        for (const auto& d : r.duties) {
            if (d == "free") r.free = true;
            else if (d == "suit") r.suit = true;
            else if (d == "trump") r.trump = true;
            else if (d == "head") r.head = true;
            else if (d == "head-if-trump-led") r.head_if_trump_led = true;
        }
        return r;
    }
    if (key == "first-lead") return RuleFirstLead{in.done() ? std::string() : in.word()};
    return RuleOther{key, in.rest()};
}

Message parse_body(const std::vector<std::string>& tokens, std::string_view rest_of_line) {
    Reader in(tokens);
    const std::string& name = tokens[0];

    if (name == "pinochle") return Pinochle{in.integer()};
    if (name == "setoption") {
        SetOption m;
        m.name = in.word();
        m.value = in.word();
        return m;
    }
    if (name == "rule") return RuleLine{parse_rule(in)};
    if (name == "state") return State(key_values(in.rest()));
    if (name == "game") {
        NewGame m;
        m.id = in.word();
        m.variant = in.word();
        m.seat = in.integer();
        m.players = in.integer();
        m.options = key_values(in.rest());
        return m;
    }
    if (name == "deal") {
        Deal m;
        m.hand = in.integer();
        m.dealer = in.integer();
        const std::string& turnup = in.word();
        if (turnup != "-") {
            m.turnup = Card::parse(turnup);
            if (!m.turnup) throw Malformed();
        }
        m.cards = in.cards();
        return m;
    }
    if (name == "bonus") {
        Bonus m;
        m.seat = in.integer();
        m.points = in.integer();
        m.reason = in.done() ? std::string() : in.word();
        return m;
    }
    if (name == "play") {
        Play m;
        m.seat = in.integer();
        m.action = Action::parse(in.word());
        if (m.action.kind != Action::Kind::Card && m.action.kind != Action::Kind::Table) throw Malformed();
        return m;
    }
    if (name == "trick") {
        Trick m;
        m.winner = in.integer();
        m.points = in.integer();
        return m;
    }
    if (name == "draw") {
        Draw m;
        m.seat = in.integer();
        m.card = in.seen_card();
        return m;
    }
    if (name == "meld") {
        MeldShown m;
        m.seat = in.integer();
        m.kind = in.word();
        m.points = in.integer();
        m.cards = in.cards();
        return m;
    }
    if (name == "exchange") {
        Exchange m;
        m.seat = in.integer();
        m.dix = in.card();
        m.taken = in.card();
        return m;
    }
    if (name == "phase2") return Phase2{in.integer()};
    if (name == "claim") {
        ClaimMade m;
        m.seat = in.integer();
        m.success = in.word() == "yes";
        return m;
    }
    if (name == "handend") {
        HandEnd m;
        m.hand = in.integer();
        m.points = in.numbers_after<int>("points");
        m.totals = in.numbers_after<int>("totals");
        return m;
    }
    if (name == "go") {
        Request m;
        m.decision_text = in.word();
        m.decision = parse_decision(m.decision_text);
        m.time_left_ms = in.long_integer();
        m.bank_ms = in.long_integer();
        for (const auto& token : in.rest()) m.actions.push_back(Action::parse(token));
        return m;
    }
    if (name == "error") return Error{std::string(rest_of_line)};
    if (name == "gameover") {
        GameOver m;
        m.termination = in.word();
        m.culprit = in.seat_or_dash();
        m.result = in.numbers_after<double>("result");
        m.totals = in.numbers_after<int>("totals");
        return m;
    }
    if (name == "bid") {
        BidMade m;
        m.seat = in.integer();
        const std::string& amount = in.word();
        if (amount != "pass") {
            m.amount = to_int(amount);
            if (!m.amount) throw Malformed();
        }
        return m;
    }
    if (name == "bidwon") {
        BidWon m;
        m.seat = in.integer();
        m.amount = in.integer();
        return m;
    }
    if (name == "redeal") return Redeal{in.integer()};
    if (name == "kitty") return Kitty{in.cards()};
    if (name == "kittycard") return KittyCard{in.card()};
    if (name == "throwin") return ThrowIn{in.integer()};
    if (name == "trump") {
        TrumpDeclared m;
        m.seat = in.integer();
        const std::string& s = in.word();
        auto suit = s.size() == 1 ? parse_suit(s[0]) : std::nullopt;
        if (!suit) throw Malformed();
        m.suit = *suit;
        return m;
    }
    if (name == "call") {
        CardCalled m;
        m.seat = in.integer();
        m.card = in.card();
        return m;
    }
    if (name == "partner") {
        Partner m;
        m.bidder = in.integer();
        m.partner = in.seat_or_dash();
        return m;
    }
    if (name == "give") {
        Give m;
        m.from = in.integer();
        m.to = in.integer();
        m.cards = in.seen_cards();
        return m;
    }
    if (name == "bury") {
        Bury m;
        m.seat = in.integer();
        m.cards = in.seen_cards();
        return m;
    }
    if (name == "dummy") {
        Dummy m;
        m.seat = in.integer();
        m.card = in.card();
        return m;
    }
    if (name == "contract") {
        Contract m;
        m.bidder = in.integer();
        m.bid = in.integer();
        m.made = in.word() == "made";
        m.points = in.integer();
        return m;
    }
    if (name == "target") return Target{in.integer()};
    if (name == "ping") return Ping{in.done() ? std::string() : in.word()};
    if (name == "matchend") return MatchEnd{};
    if (name == "quit") return Quit{};
    return Unknown{tokens};  // forward compatibility: a message of a later version
}

}  // namespace

// ------------------------------------------------------------------ cards

std::optional<Suit> parse_suit(char c) {
    auto at = kSuitChars.find(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    if (c == '\0' || at == std::string_view::npos) return std::nullopt;
    return static_cast<Suit>(at);
}

std::optional<Rank> parse_rank(char c) {
    auto at = kRankChars.find(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    if (c == '\0' || at == std::string_view::npos) return std::nullopt;
    return static_cast<Rank>(at);
}

char to_char(Suit s) { return kSuitChars[static_cast<std::size_t>(s)]; }
char to_char(Rank r) { return kRankChars[static_cast<std::size_t>(r)]; }

std::optional<Card> Card::parse(std::string_view text) {
    if (text.size() != 2) return std::nullopt;
    auto rank = parse_rank(text[0]);
    auto suit = parse_suit(text[1]);
    if (!rank || !suit) return std::nullopt;
    return Card{*rank, *suit};
}

std::string Card::text() const { return {to_char(rank), to_char(suit)}; }

bool remove_one(Cards& cards, Card c) {
    auto it = std::find(cards.begin(), cards.end(), c);
    if (it == cards.end()) return false;
    cards.erase(it);
    return true;
}

int count_of(const Cards& cards, Card c) { return static_cast<int>(std::count(cards.begin(), cards.end(), c)); }

std::string to_text(const Cards& cards, char sep) {
    if (cards.empty()) return "-";
    std::string out;
    for (Card c : cards) {
        if (!out.empty()) out += sep;
        out += c.text();
    }
    return out;
}

// ---------------------------------------------------------------- actions

Action Action::parse(std::string_view token) {
    Action a;
    a.text = std::string(token);
    if (equals_nocase(token, "pass")) {
        a.kind = Kind::Pass;
    } else if (equals_nocase(token, "claim")) {
        a.kind = Kind::Claim;
    } else if (equals_nocase(token, "throw-in")) {
        a.kind = Kind::ThrowIn;
    } else if ((a.card = Card::parse(token))) {
        a.kind = Kind::Card;
    }
    if (a.kind != Kind::Unknown) return a;

    std::size_t colon = token.find(':');
    if (colon == std::string_view::npos) return a;  // Unknown
    std::string_view head = token.substr(0, colon), arg = token.substr(colon + 1);

    if (equals_nocase(head, "table")) {  // table:KS or table:KS@kings+marriage
        std::size_t at = arg.find('@');
        if ((a.card = Card::parse(arg.substr(0, at)))) {
            if (at != std::string_view::npos) a.copy = std::string(arg.substr(at + 1));
            a.kind = Kind::Table;
        }
        return a;
    }
    if (equals_nocase(head, "take")) {
        if (equals_nocase(arg, "stock") || equals_nocase(arg, "turnup")) {
            a.turnup = equals_nocase(arg, "turnup");
            a.kind = Kind::Take;
        }
        return a;
    }
    if (equals_nocase(head, "bid")) {
        std::size_t dots = arg.find("..");
        if (dots == std::string_view::npos) {  // bid:25
            if (auto v = to_int(arg)) {
                a.bid = *v;
                a.kind = Kind::Bid;
            }
            return a;
        }
        std::string_view hi = arg.substr(dots + 2), step = "1";  // bid:A..B or bid:A..B/S
        std::size_t slash = hi.find('/');
        if (slash != std::string_view::npos) {
            step = hi.substr(slash + 1);
            hi = hi.substr(0, slash);
        }
        auto l = to_int(arg.substr(0, dots)), h = to_int(hi), s = to_int(step);
        if (l && h && s && *s > 0) {
            a.range = BidRange{*l, *h, *s};
            a.bid = *l;
            a.kind = Kind::BidRange;
        }
        return a;
    }
    if (equals_nocase(head, "trump")) {
        if (arg.size() == 1 && (a.suit = parse_suit(arg[0]))) a.kind = Kind::Trump;
        return a;
    }
    if (equals_nocase(head, "call") || equals_nocase(head, "give") || equals_nocase(head, "bury")) {
        if ((a.card = Card::parse(arg)))
            a.kind = equals_nocase(head, "call") ? Kind::Call : equals_nocase(head, "give") ? Kind::Give : Kind::Bury;
        return a;
    }
    // anything else with a colon is a meld: KIND:CARD,CARD[=POINTS]
    std::size_t eq = arg.find('=');
    auto cards = parse_cards(arg.substr(0, eq));
    std::optional<int> points;
    if (eq != std::string_view::npos && !(points = to_int(arg.substr(eq + 1)))) return a;
    if (!cards || cards->empty() || head.empty()) return a;
    a.kind = Kind::Meld;
    a.meld_kind.reserve(head.size());
    for (char c : head) a.meld_kind += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    a.meld_cards = *cards;
    a.points = points;
    return a;
}

Action Action::make_bid(int amount) {
    Action a;
    a.kind = Kind::Bid;
    a.bid = amount;
    return a;
}

std::string Action::reply_text() const {
    if (kind == Kind::Bid) return "bid:" + std::to_string(bid);  // built: it may come from a range
    if (!text.empty()) return text;                              // as listed
    switch (kind) {  // an action you built yourself
    case Kind::Card: return card ? card->text() : "pass";
    case Kind::Table: return "table:" + (card ? card->text() : "") + (copy.empty() ? "" : "@" + copy);
    case Kind::Meld: return meld_kind + ":" + to_text(meld_cards);
    case Kind::Take: return turnup ? "take:turnup" : "take:stock";
    case Kind::Claim: return "claim";
    case Kind::Trump: return std::string("trump:") + (suit ? to_char(*suit) : '?');
    case Kind::ThrowIn: return "throw-in";
    case Kind::Call: return "call:" + (card ? card->text() : "");
    case Kind::Give: return "give:" + (card ? card->text() : "");
    case Kind::Bury: return "bury:" + (card ? card->text() : "");
    default: return "pass";
    }
}

bool Action::same_as(const Action& o) const {
    if (kind != o.kind) return false;
    switch (kind) {
    case Kind::Card: case Kind::Call: case Kind::Give: case Kind::Bury: return card == o.card;
    case Kind::Table: return card == o.card && equals_nocase(copy, o.copy);
    case Kind::Meld: {
        if (!equals_nocase(meld_kind, o.meld_kind) || meld_cards.size() != o.meld_cards.size()) return false;
        for (Card c : meld_cards)
            if (count_of(meld_cards, c) != count_of(o.meld_cards, c)) return false;
        return true;
    }
    case Kind::Take: return turnup == o.turnup;
    case Kind::Bid: return bid == o.bid;
    case Kind::BidRange: return false;  // never a reply
    case Kind::Trump: return suit == o.suit;
    case Kind::Unknown: return equals_nocase(text, o.text);
    default: return true;  // pass, claim, throw-in
    }
}

// ------------------------------------------------------------ go requests

Bids::iterator& Bids::iterator::operator++() {
    next_ += (*ranges_)[index_].step;
    if (next_ > (*ranges_)[index_].hi) {  // on to the next range
        ++index_;
        next_ = index_ < ranges_->size() ? (*ranges_)[index_].lo : 0;
    }
    return *this;
}

Bids::iterator Bids::begin() const { return ranges_.empty() ? end() : iterator(&ranges_, 0, ranges_[0].lo); }

bool Bids::contains(int amount) const {
    return std::any_of(ranges_.begin(), ranges_.end(), [amount](const BidRange& r) { return r.contains(amount); });
}

std::optional<int> Bids::lowest() const {
    std::optional<int> low;
    for (const auto& r : ranges_)
        if (!low || r.lo < *low) low = r.lo;
    return low;
}

long long Bids::size() const {
    long long n = 0;
    for (const auto& r : ranges_) n += r.size();
    return n;
}

Bids Request::bids() const {
    std::vector<BidRange> ranges;
    for (const auto& a : actions) {
        if (a.kind == Action::Kind::Bid) ranges.push_back(BidRange{a.bid, a.bid, 1});
        else if (a.kind == Action::Kind::BidRange && a.range.size() > 0) ranges.push_back(a.range);
    }
    return Bids(std::move(ranges));
}

bool Request::allows(const Action& reply) const {
    if (reply.kind == Action::Kind::Bid) return bids().contains(reply.bid);
    return std::any_of(actions.begin(), actions.end(), [&](const Action& a) { return a.same_as(reply); });
}

const Action* Request::first_of(Action::Kind kind) const {
    for (const auto& a : actions)
        if (a.kind == kind) return &a;
    return nullptr;
}

// ------------------------------------------------------------------ state

std::optional<std::string_view> State::get(std::string_view key) const {
    for (const auto& [k, v] : fields_)
        if (k == key) return std::string_view(v);
    return std::nullopt;
}

std::optional<int> State::integer(std::string_view key) const {
    auto v = get(key);
    return v ? to_int(*v) : std::nullopt;  // "-" gives nullopt too
}

std::optional<std::vector<int>> State::integers(std::string_view key) const {
    auto v = get(key);
    if (!v) return std::nullopt;
    std::vector<int> out;
    for (auto part : split(*v, '/')) {
        auto n = to_int(part);
        if (!n) return std::nullopt;
        out.push_back(*n);
    }
    return out;
}

std::optional<Cards> State::card_list(std::string_view key) const {
    auto v = get(key);
    return v ? parse_cards(*v) : std::nullopt;
}

std::optional<std::vector<Cards>> State::card_lists(std::string_view key) const {
    auto v = get(key);
    if (!v) return std::nullopt;
    std::vector<Cards> out;
    for (auto part : split(*v, '/')) {
        auto cards = parse_cards(part);
        if (!cards) return std::nullopt;
        out.push_back(std::move(*cards));
    }
    return out;
}

namespace {

std::optional<SeatBid> parse_seat_bid(std::string_view text) {  // "0:25" or "1:pass"
    std::size_t colon = text.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    auto seat = to_int(text.substr(0, colon));
    std::string_view amount = text.substr(colon + 1);
    if (!seat) return std::nullopt;
    SeatBid b{*seat, std::nullopt};
    if (amount != "pass" && !(b.amount = to_int(amount))) return std::nullopt;
    return b;
}

}  // namespace

State::State(Fields fields) : fields_(std::move(fields)) {
    hand_ = integer("hand");
    dealer_ = integer("dealer");
    phase_ = integer("phase");
    if (auto v = get("trump"); v && v->size() == 1) trump_ = parse_suit((*v)[0]);
    if (auto v = get("turnup")) turnup_ = Card::parse(*v);
    cards_ = card_list("cards");
    tables_ = card_lists("tables");
    leader_ = integer("leader");
    trick_ = card_list("trick");
    held_ = integers("held");
    stock_ = integer("stock");
    kitty_ = integer("kitty");
    buried_ = integer("buried");
    dummy_ = integer("dummy");
    if (auto v = get("bid")) {
        bid_ = parse_seat_bid(*v);
        if (bid_ && !bid_->amount) bid_.reset();  // the winning bid is a number
    }
    partner_ = integer("partner");
    meld_ = integers("meld");
    tricks_ = integers("tricks");
    totals_ = integers("totals");
    if (auto v = get("unseen")) {  // "AC:2,TC:1" or "-"
        std::vector<CardCount> out;
        bool ok = true;
        if (*v != "-") {
            for (auto part : split(*v, ',')) {
                auto card = Card::parse(part.substr(0, 2));
                auto count = part.size() > 3 && part[2] == ':' ? to_int(part.substr(3)) : std::nullopt;
                if (!card || !count) ok = false;
                else out.push_back(CardCount{*card, *count});
            }
        }
        if (ok) unseen_ = std::move(out);
    }
    target_ = integer("target");
    if (auto v = get("bids")) {  // "0:21,1:pass,2:22" or "-"
        std::vector<SeatBid> out;
        bool ok = true;
        if (*v != "-") {
            for (auto part : split(*v, ',')) {
                auto b = parse_seat_bid(part);
                if (!b) ok = false;
                else out.push_back(*b);
            }
        }
        if (ok) bids_ = std::move(out);
    }
    won_ = integers("won");
    known_ = card_lists("known");
}

// --------------------------------------------------------------- messages

std::optional<Message> parse_message(std::string_view line) {
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    std::vector<std::string> tokens;
    std::string_view after_first;  // the rest of the line after the first token (for `error`)
    for (std::size_t i = 0; i < line.size();) {
        if (line[i] == ' ' || line[i] == '\t') {
            ++i;
            continue;
        }
        std::size_t end = line.find_first_of(" \t", i);
        if (end == std::string_view::npos) end = line.size();
        tokens.emplace_back(line.substr(i, end - i));
        if (tokens.size() == 1) {
            after_first = line.substr(end);
            after_first.remove_prefix(std::min(after_first.find_first_not_of(' '), after_first.size()));
        }
        i = end;
    }
    if (tokens.empty()) return std::nullopt;
    try {
        return parse_body(tokens, after_first);
    } catch (const Malformed&) {
        return Unknown{tokens};  // ignore it like a message of a later version
    }
}

}  // namespace pinochle

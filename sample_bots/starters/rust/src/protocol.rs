//! The pinochle-arena bot protocol, version 3: every line the referee sends,
//! parsed into Rust types (see protocol/PROTOCOL.md in the pinochle-arena repo).
//!
//! * [`Card`], [`Rank`], [`Suit`]: cards such as `AS` (ace of spades), `TD`.
//! * [`Action`] / [`Offer`]: one token of a `go` request (`AS`, `table:KS`,
//!   `royal:KH,QH=40`, `bid:25`, `trump:H`...). Range tokens (`bid:21..555`)
//!   are expanded into one offer per bid, so you never reply with a range.
//! * [`Message`]: one referee line. `line.parse::<Message>()` (or
//!   [`parse_message`]) gives a variant per message; a line whose first word
//!   is unknown becomes `Message::Unknown` and should be ignored: later
//!   versions of the protocol add messages.
//! * [`State`]: a `state` line, kept as key -> value with typed accessors.
//!   Unknown keys are kept but never get in the way.
//!
//! You should not need to change this file to write a bot.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

// ------------------------------------------------------------------ errors

/// Why a line could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

pub type Result<T> = std::result::Result<T, ParseError>;

fn fail<T>(message: impl Into<String>) -> Result<T> {
    Err(ParseError(message.into()))
}

fn number<T: FromStr>(token: &str) -> Result<T> {
    token.parse().map_err(|_| ParseError(format!("not a number: {token:?}")))
}

/// A seat number, or `-` for none.
fn optional_seat(token: &str) -> Result<Option<usize>> {
    if token == "-" {
        Ok(None)
    } else {
        number(token).map(Some)
    }
}

// ------------------------------------------------------------------- cards

/// A suit: `C D H S`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    pub fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
        }
    }

    fn from_letter(c: char) -> Option<Suit> {
        match c.to_ascii_uppercase() {
            'C' => Some(Suit::Clubs),
            'D' => Some(Suit::Diamonds),
            'H' => Some(Suit::Hearts),
            'S' => Some(Suit::Spades),
            _ => None,
        }
    }
}

impl FromStr for Suit {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Suit> {
        let mut chars = s.chars();
        match (chars.next().and_then(Suit::from_letter), chars.next()) {
            (Some(suit), None) => Ok(suit),
            _ => fail(format!("not a suit: {s:?}")),
        }
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A rank. Declared from low to high, so `Rank::Ten > Rank::King` as in the
/// game: within a suit the order is `A T K Q J 9`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rank {
    Nine,
    Jack,
    Queen,
    King,
    Ten,
    Ace,
}

impl Rank {
    /// High to low, as in `rule ranks A T K Q J 9`.
    pub const ALL: [Rank; 6] = [Rank::Ace, Rank::Ten, Rank::King, Rank::Queen, Rank::Jack, Rank::Nine];

    pub fn letter(self) -> char {
        match self {
            Rank::Ace => 'A',
            Rank::Ten => 'T',
            Rank::King => 'K',
            Rank::Queen => 'Q',
            Rank::Jack => 'J',
            Rank::Nine => '9',
        }
    }

    fn from_letter(c: char) -> Option<Rank> {
        match c.to_ascii_uppercase() {
            'A' => Some(Rank::Ace),
            'T' => Some(Rank::Ten),
            'K' => Some(Rank::King),
            'Q' => Some(Rank::Queen),
            'J' => Some(Rank::Jack),
            '9' => Some(Rank::Nine),
            _ => None,
        }
    }
}

impl FromStr for Rank {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Rank> {
        let mut chars = s.chars();
        match (chars.next().and_then(Rank::from_letter), chars.next()) {
            (Some(rank), None) => Ok(rank),
            _ => fail(format!("not a rank: {s:?}")),
        }
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A card: rank then suit, `AS`, `TD`, `9C`. Two identical cards are
/// interchangeable, so `Card` is a plain value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    pub rank: Rank,
    pub suit: Suit,
}

impl Card {
    pub fn new(rank: Rank, suit: Suit) -> Card {
        Card { rank, suit }
    }
}

impl FromStr for Card {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Card> {
        let mut chars = s.chars();
        let rank = chars.next().and_then(Rank::from_letter);
        let suit = chars.next().and_then(Suit::from_letter);
        match (rank, suit, chars.next()) {
            (Some(rank), Some(suit), None) => Ok(Card { rank, suit }),
            _ => fail(format!("not a card: {s:?}")),
        }
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank, self.suit)
    }
}

/// A card that may be hidden: `??` is `None`.
pub fn parse_maybe_card(token: &str) -> Result<Option<Card>> {
    if token == "??" {
        Ok(None)
    } else {
        token.parse().map(Some)
    }
}

/// A comma-separated card list as in `state` lines (`AS,TS,KH`); `-` is none.
pub fn parse_card_list(text: &str) -> Result<Vec<Card>> {
    if text == "-" || text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(',').map(str::parse).collect()
}

fn join_cards(cards: &[Card]) -> String {
    cards.iter().map(Card::to_string).collect::<Vec<_>>().join(",")
}

// ----------------------------------------------------------------- actions

/// One action: what a `go` request offers, what you reply, and what
/// `play <seat> <action>` reports.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// `AS`: play a card from the hand.
    Play(Card),
    /// `table:AS` or `table:KS@kings`: play a card lying on the table as your
    /// meld (first phase of the stock games); `copy` names which copy.
    Table { card: Card, copy: Option<String> },
    /// `royal:KH,QH`: make a meld, naming the cards it takes from the hand.
    Meld { kind: String, cards: Vec<Card> },
    /// `pass`: no (more) meld, or pass in an auction.
    Pass,
    /// `take:stock` / `take:turnup`.
    Take(String),
    /// `claim`: claim to have reached the target.
    Claim,
    /// `bid:25`.
    Bid(u32),
    /// `trump:H`.
    Trump(Suit),
    /// `throw-in`: concede the hand instead of naming trump.
    ThrowIn,
    /// `call:AS`: call a card; its first holder is your partner.
    Call(Card),
    /// `give:AS`: pass a card to your partner.
    Give(Card),
    /// `bury:AS`: bury a card.
    Bury(Card),
    /// Anything else, kept as sent (a later version's action).
    Other(String),
}

impl Action {
    /// The card this action puts on the trick, if it is a play.
    pub fn card(&self) -> Option<Card> {
        match self {
            Action::Play(card) | Action::Table { card, .. } => Some(*card),
            _ => None,
        }
    }
}

impl FromStr for Action {
    type Err = ParseError;
    fn from_str(token: &str) -> Result<Action> {
        let lower = token.to_ascii_lowercase();
        match lower.as_str() {
            "pass" => return Ok(Action::Pass),
            "claim" => return Ok(Action::Claim),
            "throw-in" => return Ok(Action::ThrowIn),
            _ => {}
        }
        let (head, rest) = match token.split_once(':') {
            Some(parts) => parts,
            None => {
                return match token.parse::<Card>() {
                    Ok(card) => Ok(Action::Play(card)),
                    Err(_) => Ok(Action::Other(token.to_string())),
                }
            }
        };
        let head = head.to_ascii_lowercase();
        Ok(match head.as_str() {
            "table" => {
                let (card, copy) = match rest.split_once('@') {
                    Some((card, copy)) => (card, Some(copy.to_string())),
                    None => (rest, None),
                };
                Action::Table { card: card.parse()?, copy }
            }
            "take" => Action::Take(rest.to_ascii_lowercase()),
            "bid" => Action::Bid(number(rest)?),
            "trump" => Action::Trump(rest.parse()?),
            "call" => Action::Call(rest.parse()?),
            "give" => Action::Give(rest.parse()?),
            "bury" => Action::Bury(rest.parse()?),
            _ => match parse_card_list(rest) {
                Ok(cards) if !cards.is_empty() => Action::Meld { kind: head, cards },
                _ => Action::Other(token.to_string()),
            },
        })
    }
}

/// The token to send back (and the form the referee lists it in).
impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Play(card) => write!(f, "{card}"),
            Action::Table { card, copy: None } => write!(f, "table:{card}"),
            Action::Table { card, copy: Some(copy) } => write!(f, "table:{card}@{copy}"),
            Action::Meld { kind, cards } => write!(f, "{kind}:{}", join_cards(cards)),
            Action::Pass => f.write_str("pass"),
            Action::Take(what) => write!(f, "take:{what}"),
            Action::Claim => f.write_str("claim"),
            Action::Bid(amount) => write!(f, "bid:{amount}"),
            Action::Trump(suit) => write!(f, "trump:{suit}"),
            Action::ThrowIn => f.write_str("throw-in"),
            Action::Call(card) => write!(f, "call:{card}"),
            Action::Give(card) => write!(f, "give:{card}"),
            Action::Bury(card) => write!(f, "bury:{card}"),
            Action::Other(text) => f.write_str(text),
        }
    }
}

/// One legal action of a request, with the points a meld would score
/// (version 3 writes them as `royal:KH,QH=40`; `None` for other actions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Offer {
    pub action: Action,
    pub points: Option<i64>,
}

/// What a `go` request asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Lead,
    Follow,
    Meld,
    Take,
    Bid,
    Trump,
    Call,
    Give,
    Bury,
    Other(String),
}

impl Decision {
    fn parse(word: &str) -> Decision {
        match word {
            "lead" => Decision::Lead,
            "follow" => Decision::Follow,
            "meld" => Decision::Meld,
            "take" => Decision::Take,
            "bid" => Decision::Bid,
            "trump" => Decision::Trump,
            "call" => Decision::Call,
            "give" => Decision::Give,
            "bury" => Decision::Bury,
            other => Decision::Other(other.to_string()),
        }
    }
}

/// `go <decision> <time-left-ms> <bank-ms> <action>...`: reply with exactly
/// one of `offers` (write it with `to_string()`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub decision: Decision,
    pub time_left_ms: u64,
    pub bank_ms: u64,
    /// Every legal action, range tokens already expanded into single bids.
    pub offers: Vec<Offer>,
}

impl Request {
    /// Is `action` one of the offered actions?
    pub fn offers_action(&self, action: &Action) -> bool {
        self.offers.iter().any(|o| &o.action == action)
    }
}

/// Parses one token of a request into the offers it stands for: one, or
/// many for a range `bid:A..B` (every bid from A to B) or `bid:A..B/S`
/// (every S-th one).
pub fn parse_offer_token(token: &str, into: &mut Vec<Offer>) -> Result<()> {
    if let Some(range) = token.strip_prefix("bid:").filter(|r| r.contains("..")) {
        let (span, step) = match range.split_once('/') {
            Some((span, step)) => (span, number::<u32>(step)?),
            None => (range, 1),
        };
        let (low, high) = span.split_once("..").unwrap();
        let (low, high) = (number::<u32>(low)?, number::<u32>(high)?);
        if step == 0 || low > high {
            return fail(format!("bad bid range: {token:?}"));
        }
        let mut amount = low;
        while amount <= high {
            into.push(Offer { action: Action::Bid(amount), points: None });
            amount = match amount.checked_add(step) {
                Some(next) => next,
                None => break,
            };
        }
        return Ok(());
    }
    // A meld token in version 3 ends with =POINTS.
    let (text, points) = match token.rsplit_once('=') {
        Some((text, points)) if token.contains(':') => (text, Some(number::<i64>(points)?)),
        _ => (token, None),
    };
    into.push(Offer { action: text.parse()?, points });
    Ok(())
}

// ------------------------------------------------------------------- rules

/// A `rule` line (version 3): one rule of the game that has just begun.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rule {
    /// `rule ranks A T K Q J 9`: the ranks in the deck, high to low.
    Ranks(Vec<Rank>),
    /// `rule copies 2`: copies of each card (4 in the double deck).
    Copies(u32),
    /// `rule points A=11 T=10 ...`: counter points of each rank.
    Points(Vec<(Rank, i64)>),
    /// `rule last-trick 10`.
    LastTrick(i64),
    /// `rule target 1000`.
    Target(i64),
    /// `rule meld royal 40 80`: the value once, twice (and three and four
    /// times in the double deck); `None` where that many is no meld.
    Meld { kind: String, values: Vec<Option<i64>> },
    /// `rule follow 2 suit trump head`: the duties when following.
    Follow { phase: u32, duties: Vec<String> },
    /// `rule first-lead trump`.
    FirstLead(String),
    /// A rule this kit does not know (ignore it).
    Other { key: String, values: Vec<String> },
}

fn parse_rule(args: &[&str]) -> Result<Rule> {
    let (&key, values) = match args.split_first() {
        Some(parts) => parts,
        None => return fail("rule without a key"),
    };
    let one = || values.first().copied().ok_or_else(|| ParseError(format!("rule {key} without a value")));
    Ok(match key {
        "ranks" => Rule::Ranks(values.iter().map(|v| v.parse()).collect::<Result<_>>()?),
        "copies" => Rule::Copies(number(one()?)?),
        "points" => Rule::Points(
            values
                .iter()
                .map(|pair| match pair.split_once('=') {
                    Some((rank, points)) => Ok((rank.parse()?, number(points)?)),
                    None => fail(format!("bad points: {pair:?}")),
                })
                .collect::<Result<_>>()?,
        ),
        "last-trick" => Rule::LastTrick(number(one()?)?),
        "target" => Rule::Target(number(one()?)?),
        "meld" => {
            let (kind, levels) = match values.split_first() {
                Some(parts) => parts,
                None => return fail("rule meld without a kind"),
            };
            let values =
                levels.iter().map(|v| if *v == "-" { Ok(None) } else { number(v).map(Some) }).collect::<Result<_>>()?;
            Rule::Meld { kind: kind.to_string(), values }
        }
        "follow" => {
            Rule::Follow { phase: number(one()?)?, duties: values[1..].iter().map(|s| s.to_string()).collect() }
        }
        "first-lead" => Rule::FirstLead(one()?.to_string()),
        _ => Rule::Other { key: key.to_string(), values: values.iter().map(|s| s.to_string()).collect() },
    })
}

// ------------------------------------------------------------------- state

/// A `state` line: what the seat may know just before a request. The fields
/// are kept in order as key -> value; the accessors give the documented ones
/// typed, and `None` when a field is absent (some exist only in some
/// variants, and a newer referee adds more at the end: unknown keys are
/// simply never asked for).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    pub fields: Vec<(String, String)>,
    index: HashMap<String, usize>,
}

impl State {
    pub fn parse(args: &[&str]) -> State {
        let mut state = State::default();
        for token in args {
            if let Some((key, value)) = token.split_once('=') {
                state.index.insert(key.to_string(), state.fields.len());
                state.fields.push((key.to_string(), value.to_string()));
            }
        }
        state
    }

    /// The raw value of a field.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.index.get(key).map(|&i| self.fields[i].1.as_str())
    }

    fn typed<T>(&self, key: &str, parse: impl FnOnce(&str) -> Result<T>) -> Option<T> {
        let value = self.get(key)?;
        match parse(value) {
            Ok(v) => Some(v),
            Err(e) => {
                eprintln!("state field {key}={value}: {e}");
                None
            }
        }
    }

    fn int(&self, key: &str) -> Option<i64> {
        self.typed(key, number)
    }

    fn per_seat(&self, key: &str) -> Option<Vec<i64>> {
        self.typed(key, |v| v.split('/').map(number).collect())
    }

    /// `hand=<n>`: the hand number.
    pub fn hand(&self) -> Option<i64> {
        self.int("hand")
    }
    /// `dealer=<seat>`.
    pub fn dealer(&self) -> Option<usize> {
        self.typed("dealer", number)
    }
    /// `phase=<1|2>`.
    pub fn phase(&self) -> Option<i64> {
        self.int("phase")
    }
    /// `trump=<suit|->`: `Some(None)` while trump is not known yet.
    pub fn trump(&self) -> Option<Option<Suit>> {
        self.typed("trump", |v| if v == "-" { Ok(None) } else { v.parse().map(Some) })
    }
    /// `turnup=<card|->`.
    pub fn turnup(&self) -> Option<Option<Card>> {
        self.typed("turnup", |v| if v == "-" { Ok(None) } else { v.parse().map(Some) })
    }
    /// `cards=`: your concealed hand.
    pub fn cards(&self) -> Option<Vec<Card>> {
        self.typed("cards", parse_card_list)
    }
    /// `tables=`: each seat's melded cards on the table (stock games).
    pub fn tables(&self) -> Option<Vec<Vec<Card>>> {
        self.typed("tables", |v| v.split('/').map(parse_card_list).collect())
    }
    /// `leader=<seat|->`: who led the trick in play.
    pub fn leader(&self) -> Option<Option<usize>> {
        self.typed("leader", optional_seat)
    }
    /// `trick=`: the cards played to the trick so far, in order.
    pub fn trick(&self) -> Option<Vec<Card>> {
        self.typed("trick", parse_card_list)
    }
    /// `held=`: how many concealed cards each seat holds.
    pub fn held(&self) -> Option<Vec<i64>> {
        self.per_seat("held")
    }
    /// `stock=<n>`: face-down cards in the stock (absent when there is none).
    pub fn stock(&self) -> Option<i64> {
        self.int("stock")
    }
    /// `kitty=<n>`.
    pub fn kitty(&self) -> Option<i64> {
        self.int("kitty")
    }
    /// `buried=<n>`.
    pub fn buried(&self) -> Option<i64> {
        self.int("buried")
    }
    /// `dummy=<n>`.
    pub fn dummy(&self) -> Option<i64> {
        self.int("dummy")
    }
    /// `bid=<seat>:<amount>|-`: the auction's winner and its bid.
    pub fn bid(&self) -> Option<Option<(usize, i64)>> {
        self.typed("bid", |v| {
            if v == "-" {
                return Ok(None);
            }
            match v.split_once(':') {
                Some((seat, amount)) => Ok(Some((number(seat)?, number(amount)?))),
                None => fail("bad bid"),
            }
        })
    }
    /// `partner=<seat|->`: the bid winner's called partner (five players).
    pub fn partner(&self) -> Option<Option<usize>> {
        self.typed("partner", optional_seat)
    }
    /// `meld=`: each seat's meld points this hand.
    pub fn meld(&self) -> Option<Vec<i64>> {
        self.per_seat("meld")
    }
    /// `tricks=`: each seat's trick points this hand.
    pub fn tricks(&self) -> Option<Vec<i64>> {
        self.per_seat("tricks")
    }
    /// `totals=`: the game totals before this hand.
    pub fn totals(&self) -> Option<Vec<i64>> {
        self.per_seat("totals")
    }
    /// `unseen=`: every card you have not seen, with its number of copies.
    pub fn unseen(&self) -> Option<Vec<(Card, i64)>> {
        self.typed("unseen", |v| {
            if v == "-" {
                return Ok(Vec::new());
            }
            v.split(',')
                .map(|pair| match pair.split_once(':') {
                    Some((card, n)) => Ok((card.parse()?, number(n)?)),
                    None => fail(format!("bad unseen entry {pair:?}")),
                })
                .collect()
        })
    }
    /// `target=<n>`: the target score now (it may rise under tiebreak=play-on).
    pub fn target(&self) -> Option<i64> {
        self.int("target")
    }
    /// `bids=<seat>:<amount|pass>,...`: this hand's auction so far, in
    /// order; `None` in an entry is a pass.
    pub fn bids(&self) -> Option<Vec<(usize, Option<i64>)>> {
        self.typed("bids", |v| {
            if v == "-" {
                return Ok(Vec::new());
            }
            v.split(',')
                .map(|pair| match pair.split_once(':') {
                    Some((seat, "pass")) => Ok((number(seat)?, None)),
                    Some((seat, amount)) => Ok((number(seat)?, Some(number(amount)?))),
                    None => fail(format!("bad bids entry {pair:?}")),
                })
                .collect()
        })
    }
    /// `won=<n>/<n>/...`: tricks won by each seat this hand.
    pub fn won(&self) -> Option<Vec<i64>> {
        self.per_seat("won")
    }
    /// `known=<cards>/<cards>/...`: per seat, the concealed cards you know it
    /// holds (your own seat is `-`: your hand is `cards`).
    pub fn known(&self) -> Option<Vec<Vec<Card>>> {
        self.typed("known", |v| v.split('/').map(parse_card_list).collect())
    }
}

// ---------------------------------------------------------------- messages

/// `game <id> <variant> <seat> <players> <key=value>...`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameStart {
    pub id: String,
    pub variant: String,
    pub seat: usize,
    pub players: usize,
    /// Every rule option of the variant (`target=1000`, `claim=no`...), in order.
    pub options: Vec<(String, String)>,
}

/// Every line the referee sends.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// `pinochle 3`: the greeting; answer with the handshake.
    Pinochle(u32),
    /// `setoption <name> <value>`.
    SetOption { name: String, value: String },
    /// `rule <key> <value>...`.
    Rule(Rule),
    /// `state <key=value>...`.
    State(State),
    /// `game ...`: a new game begins; forget the old one.
    Game(GameStart),
    /// `deal <hand> <dealer> <turnup|-> <card>...`.
    Deal { hand: i64, dealer: usize, turnup: Option<Card>, cards: Vec<Card> },
    /// `bonus <seat> <points> <reason>`.
    Bonus { seat: usize, points: i64, reason: String },
    /// `play <seat> <action>`.
    Play { seat: usize, action: Action },
    /// `trick <winner> <points>`.
    Trick { winner: usize, points: i64 },
    /// `draw <seat> <card|??>`.
    Draw { seat: usize, card: Option<Card> },
    /// `meld <seat> <kind> <points> <card>...`.
    Meld { seat: usize, kind: String, points: i64, cards: Vec<Card> },
    /// `exchange <seat> <dix> <taken>`.
    Exchange { seat: usize, dix: Card, taken: Card },
    /// `phase2 <leader>`.
    Phase2 { leader: usize },
    /// `claim <seat> yes|no`.
    Claim { seat: usize, success: bool },
    /// `handend <hand> points <p>... totals <t>...`.
    HandEnd { hand: i64, points: Vec<i64>, totals: Vec<i64> },
    /// `go ...`: a request; reply with exactly one action.
    Go(Request),
    /// `error <text>`: why your last action was refused.
    Error(String),
    /// `gameover <termination> <seat|-> result <r>... totals <t>...`.
    GameOver { termination: String, culprit: Option<usize>, results: Vec<f64>, totals: Vec<i64> },
    /// `bid <seat> <amount|pass>` (`None` is a pass).
    Bid { seat: usize, amount: Option<i64> },
    /// `bidwon <seat> <amount>`.
    BidWon { seat: usize, amount: i64 },
    /// `redeal <dealer>`.
    Redeal { dealer: usize },
    /// `kitty <card>...`.
    Kitty(Vec<Card>),
    /// `kittycard <card>`.
    KittyCard(Card),
    /// `throwin <seat>`.
    ThrowIn { seat: usize },
    /// `trump <seat> <suit>`.
    Trump { seat: usize, suit: Suit },
    /// `call <seat> <card>`.
    Call { seat: usize, card: Card },
    /// `partner <bidder> <seat|->`.
    Partner { bidder: usize, partner: Option<usize> },
    /// `give <from> <to> <card|??>...`.
    Give { from: usize, to: usize, cards: Vec<Option<Card>> },
    /// `bury <seat> <card|??>...`.
    Bury { seat: usize, cards: Vec<Option<Card>> },
    /// `dummy <seat> <card>`.
    Dummy { seat: usize, card: Card },
    /// `contract <bidder> <bid> made|set <points>`.
    Contract { bidder: usize, bid: i64, made: bool, points: i64 },
    /// `target <n>`: the target score rose to n (tiebreak=play-on).
    Target(i64),
    /// `ping <token>`: answer `pong <token>` at once.
    Ping(String),
    /// `matchend`.
    MatchEnd,
    /// `quit`: exit now.
    Quit,
    /// A message this kit does not know: ignore it.
    Unknown(String),
}

impl FromStr for Message {
    type Err = ParseError;
    fn from_str(line: &str) -> Result<Message> {
        parse_message(line)
    }
}

/// Numbers after a keyword up to the next keyword: `points 1 2 totals 3 4`.
fn numbers_after<T: FromStr>(args: &[&str], keyword: &str, stop: Option<&str>) -> Result<Vec<T>> {
    let start = args.iter().position(|a| *a == keyword).ok_or_else(|| ParseError(format!("no {keyword:?}")))?;
    args[start + 1..].iter().take_while(|a| Some(**a) != stop).map(|a| number(a)).collect()
}

/// Parses one line from the referee (without its line end).
pub fn parse_message(line: &str) -> Result<Message> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (&name, args) = match words.split_first() {
        Some(parts) => parts,
        None => return Ok(Message::Unknown(String::new())),
    };
    // The n-th argument, or an error naming the message.
    let arg = |i: usize| args.get(i).copied().ok_or_else(|| ParseError(format!("{name}: too few words")));
    let rest_text =
        || line.trim_start().split_once(char::is_whitespace).map_or("", |(_, rest)| rest.trim()).to_string();
    Ok(match name {
        "pinochle" => Message::Pinochle(number(arg(0)?)?),
        "setoption" => Message::SetOption { name: arg(0)?.to_string(), value: args[1..].join(" ") },
        "rule" => Message::Rule(parse_rule(args)?),
        "state" => Message::State(State::parse(args)),
        "game" => Message::Game(GameStart {
            id: arg(0)?.to_string(),
            variant: arg(1)?.to_string(),
            seat: number(arg(2)?)?,
            players: number(arg(3)?)?,
            options: args[4..]
                .iter()
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }),
        "deal" => Message::Deal {
            hand: number(arg(0)?)?,
            dealer: number(arg(1)?)?,
            turnup: if arg(2)? == "-" { None } else { Some(arg(2)?.parse()?) },
            cards: args[3..].iter().map(|c| c.parse()).collect::<Result<_>>()?,
        },
        "bonus" => Message::Bonus { seat: number(arg(0)?)?, points: number(arg(1)?)?, reason: args[2..].join(" ") },
        "play" => Message::Play { seat: number(arg(0)?)?, action: arg(1)?.parse()? },
        "trick" => Message::Trick { winner: number(arg(0)?)?, points: number(arg(1)?)? },
        "draw" => Message::Draw { seat: number(arg(0)?)?, card: parse_maybe_card(arg(1)?)? },
        "meld" => Message::Meld {
            seat: number(arg(0)?)?,
            kind: arg(1)?.to_string(),
            points: number(arg(2)?)?,
            cards: args[3..].iter().map(|c| c.parse()).collect::<Result<_>>()?,
        },
        "exchange" => Message::Exchange { seat: number(arg(0)?)?, dix: arg(1)?.parse()?, taken: arg(2)?.parse()? },
        "phase2" => Message::Phase2 { leader: number(arg(0)?)? },
        "claim" => Message::Claim { seat: number(arg(0)?)?, success: arg(1)? == "yes" },
        "handend" => Message::HandEnd {
            hand: number(arg(0)?)?,
            points: numbers_after(args, "points", Some("totals"))?,
            totals: numbers_after(args, "totals", None)?,
        },
        "go" => {
            let mut offers = Vec::new();
            for token in &args[3.min(args.len())..] {
                if let Err(e) = parse_offer_token(token, &mut offers) {
                    // Keep it, unusable: one odd token must not cost the reply.
                    eprintln!("unparsed action {token:?}: {e}");
                    offers.push(Offer { action: Action::Other(token.to_string()), points: None });
                }
            }
            Message::Go(Request {
                decision: Decision::parse(arg(0)?),
                time_left_ms: number(arg(1)?)?,
                bank_ms: number(arg(2)?)?,
                offers,
            })
        }
        "error" => Message::Error(rest_text()),
        "gameover" => Message::GameOver {
            termination: arg(0)?.to_string(),
            culprit: optional_seat(arg(1)?)?,
            results: numbers_after(args, "result", Some("totals"))?,
            totals: numbers_after(args, "totals", None)?,
        },
        "bid" => Message::Bid {
            seat: number(arg(0)?)?,
            amount: if arg(1)? == "pass" { None } else { Some(number(arg(1)?)?) },
        },
        "bidwon" => Message::BidWon { seat: number(arg(0)?)?, amount: number(arg(1)?)? },
        "redeal" => Message::Redeal { dealer: number(arg(0)?)? },
        "kitty" => Message::Kitty(args.iter().map(|c| c.parse()).collect::<Result<_>>()?),
        "kittycard" => Message::KittyCard(arg(0)?.parse()?),
        "throwin" => Message::ThrowIn { seat: number(arg(0)?)? },
        "trump" => Message::Trump { seat: number(arg(0)?)?, suit: arg(1)?.parse()? },
        "call" => Message::Call { seat: number(arg(0)?)?, card: arg(1)?.parse()? },
        "partner" => Message::Partner { bidder: number(arg(0)?)?, partner: optional_seat(arg(1)?)? },
        "give" => Message::Give {
            from: number(arg(0)?)?,
            to: number(arg(1)?)?,
            cards: args[2..].iter().map(|c| parse_maybe_card(c)).collect::<Result<_>>()?,
        },
        "bury" => Message::Bury {
            seat: number(arg(0)?)?,
            cards: args[1..].iter().map(|c| parse_maybe_card(c)).collect::<Result<_>>()?,
        },
        "dummy" => Message::Dummy { seat: number(arg(0)?)?, card: arg(1)?.parse()? },
        "contract" => Message::Contract {
            bidder: number(arg(0)?)?,
            bid: number(arg(1)?)?,
            made: arg(2)? == "made",
            points: number(arg(3)?)?,
        },
        "target" => Message::Target(number(arg(0)?)?),
        "ping" => Message::Ping(rest_text()),
        "matchend" => Message::MatchEnd,
        "quit" => Message::Quit,
        _ => Message::Unknown(line.to_string()),
    })
}

// ------------------------------------------------------------------- tests

#[cfg(test)]
mod tests {
    use super::*;

    fn card(text: &str) -> Card {
        text.parse().unwrap()
    }

    fn go(line: &str) -> Request {
        match parse_message(line).unwrap() {
            Message::Go(request) => request,
            other => panic!("not a request: {other:?}"),
        }
    }

    #[test]
    fn cards_round_trip_and_order() {
        for text in ["AS", "TD", "9C", "QH", "JD", "KS"] {
            assert_eq!(card(text).to_string(), text);
        }
        assert_eq!(card("as"), card("AS"));
        assert!(Rank::Ten > Rank::King && Rank::Ace > Rank::Ten && Rank::Jack > Rank::Nine);
        assert!("XS".parse::<Card>().is_err());
        assert!("ASS".parse::<Card>().is_err());
        assert_eq!(parse_card_list("-").unwrap(), vec![]);
    }

    #[test]
    fn actions_round_trip() {
        for token in [
            "AS",
            "table:KS",
            "table:KS@marriage+pinochle",
            "royal:KH,QH",
            "double-pinochle:JD,JD,QS,QS",
            "pass",
            "take:stock",
            "take:turnup",
            "claim",
            "bid:25",
            "trump:H",
            "throw-in",
            "call:AS",
            "give:TS",
            "bury:9C",
        ] {
            assert_eq!(token.parse::<Action>().unwrap().to_string(), token);
        }
        assert_eq!("Royal:kh,qh".parse::<Action>().unwrap().to_string(), "royal:KH,QH");
        assert_eq!("frobnicate:x".parse::<Action>().unwrap(), Action::Other("frobnicate:x".into()));
    }

    #[test]
    fn request_with_meld_points() {
        let r = go("go meld 4900 59000 pass royal:KH,QH=40 run:AH,TH,JH=110");
        assert_eq!(r.decision, Decision::Meld);
        assert_eq!((r.time_left_ms, r.bank_ms), (4900, 59000));
        assert_eq!(r.offers.len(), 3);
        assert_eq!(r.offers[0], Offer { action: Action::Pass, points: None });
        assert_eq!(r.offers[2].points, Some(110));
        assert_eq!(r.offers[2].action.to_string(), "run:AH,TH,JH");
    }

    #[test]
    fn request_expands_bid_ranges() {
        let r = go("go bid 5000 60000 pass bid:52..60 bid:65..100/5 bid:110..1000/10");
        let bids: Vec<u32> =
            r.offers.iter().filter_map(|o| if let Action::Bid(n) = o.action { Some(n) } else { None }).collect();
        assert_eq!(bids.len(), 9 + 8 + 90);
        assert_eq!(&bids[..3], &[52, 53, 54]);
        assert!(bids.contains(&65) && bids.contains(&100) && bids.contains(&1000));
        assert!(!bids.contains(&61) && !bids.contains(&105));
        assert!(r.offers_action(&Action::Pass));
        let single = go("go bid 5000 60000 pass bid:20");
        assert_eq!(single.offers[1].action, Action::Bid(20));
        let bad = go("go bid 1 1 pass bid:5..3");
        assert_eq!(bad.offers[1].action, Action::Other("bid:5..3".into()));
    }

    #[test]
    fn request_plays() {
        let r = go("go follow 5000 60099 AC table:QD table:KS@kings TS");
        assert_eq!(r.decision, Decision::Follow);
        assert_eq!(r.offers[1].action.card(), Some(card("QD")));
        assert_eq!(r.offers[2].action, Action::Table { card: card("KS"), copy: Some("kings".into()) });
        let unknown = go("go ponder 5000 60000 x y");
        assert_eq!(unknown.decision, Decision::Other("ponder".into()));
    }

    #[test]
    fn events() {
        assert_eq!(parse_message("pinochle 3").unwrap(), Message::Pinochle(3));
        assert_eq!(
            parse_message("deal 1 0 QH JD TD").unwrap(),
            Message::Deal { hand: 1, dealer: 0, turnup: Some(card("QH")), cards: vec![card("JD"), card("TD")] }
        );
        match parse_message("deal 2 1 - AS").unwrap() {
            Message::Deal { turnup: None, .. } => {}
            other => panic!("{other:?}"),
        }
        assert_eq!(parse_message("draw 1 ??").unwrap(), Message::Draw { seat: 1, card: None });
        assert_eq!(
            parse_message("play 1 table:QD").unwrap(),
            Message::Play { seat: 1, action: Action::Table { card: card("QD"), copy: None } }
        );
        assert_eq!(
            parse_message("meld 2 double-aces 100 AC AC").unwrap(),
            Message::Meld { seat: 2, kind: "double-aces".into(), points: 100, cards: vec![card("AC"), card("AC")] }
        );
        assert_eq!(
            parse_message("exchange 1 9H QH").unwrap(),
            Message::Exchange { seat: 1, dix: card("9H"), taken: card("QH") }
        );
        assert_eq!(
            parse_message("handend 1 points 122 -25 totals 122 468").unwrap(),
            Message::HandEnd { hand: 1, points: vec![122, -25], totals: vec![122, 468] }
        );
        assert_eq!(
            parse_message("gameover completed - result 0.5 0.5 totals 1 2").unwrap(),
            Message::GameOver {
                termination: "completed".into(),
                culprit: None,
                results: vec![0.5, 0.5],
                totals: vec![1, 2]
            }
        );
        assert_eq!(parse_message("bid 1 pass").unwrap(), Message::Bid { seat: 1, amount: None });
        assert_eq!(parse_message("bid 2 20").unwrap(), Message::Bid { seat: 2, amount: Some(20) });
        assert_eq!(parse_message("give 0 2 ?? ??").unwrap(), Message::Give { from: 0, to: 2, cards: vec![None, None] });
        assert_eq!(parse_message("partner 3 -").unwrap(), Message::Partner { bidder: 3, partner: None });
        assert_eq!(
            parse_message("contract 0 25 made 32").unwrap(),
            Message::Contract { bidder: 0, bid: 25, made: true, points: 32 }
        );
        assert_eq!(parse_message("claim 0 no").unwrap(), Message::Claim { seat: 0, success: false });
        assert_eq!(parse_message("target 1250").unwrap(), Message::Target(1250));
        assert_eq!(parse_message("trump 0 C").unwrap(), Message::Trump { seat: 0, suit: Suit::Clubs });
        assert_eq!(parse_message("error not your card: AS").unwrap(), Message::Error("not your card: AS".into()));
        assert_eq!(parse_message("ping abc").unwrap(), Message::Ping("abc".into()));
        assert_eq!(parse_message("quit").unwrap(), Message::Quit);
        assert!(matches!(parse_message("hello there").unwrap(), Message::Unknown(_)));
        assert!(parse_message("trick x 1").is_err());
    }

    #[test]
    fn game_and_rules() {
        match parse_message("game 9144bba0d4f1 two-handed 0 2 target=200 claim=no").unwrap() {
            Message::Game(g) => {
                assert_eq!((g.seat, g.players, g.variant.as_str()), (0, 2, "two-handed"));
                assert_eq!(g.options[1], ("claim".into(), "no".into()));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            parse_message("rule meld roundhouse 24 240 - -").unwrap(),
            Message::Rule(Rule::Meld { kind: "roundhouse".into(), values: vec![Some(24), Some(240), None, None] })
        );
        assert_eq!(
            parse_message("rule points A=11 T=10 9=0").unwrap(),
            Message::Rule(Rule::Points(vec![(Rank::Ace, 11), (Rank::Ten, 10), (Rank::Nine, 0)]))
        );
        assert_eq!(
            parse_message("rule follow 2 suit trump head").unwrap(),
            Message::Rule(Rule::Follow { phase: 2, duties: vec!["suit".into(), "trump".into(), "head".into()] })
        );
        assert_eq!(parse_message("rule first-lead trump").unwrap(), Message::Rule(Rule::FirstLead("trump".into())));
        assert!(matches!(parse_message("rule colour blue").unwrap(), Message::Rule(Rule::Other { .. })));
    }

    #[test]
    fn state_fields() {
        let line = "state hand=1 dealer=0 phase=2 trump=C turnup=- cards=AC,TC tables=-/-/- leader=2 trick=AD \
                    held=13/13/12 buried=3 bid=0:25 partner=- meld=18/4/11 tricks=1/0/1 totals=0/0/0 \
                    unseen=AC:1,TC:1 target=150 bids=1:pass,2:20,0:21 won=1/0/1 known=-/KS,KS/- shiny=yes";
        let s = match parse_message(line).unwrap() {
            Message::State(s) => s,
            _ => panic!(),
        };
        assert_eq!(s.hand(), Some(1));
        assert_eq!(s.trump(), Some(Some(Suit::Clubs)));
        assert_eq!(s.turnup(), Some(None));
        assert_eq!(s.cards(), Some(vec![card("AC"), card("TC")]));
        assert_eq!(s.tables(), Some(vec![vec![], vec![], vec![]]));
        assert_eq!(s.leader(), Some(Some(2)));
        assert_eq!(s.trick(), Some(vec![card("AD")]));
        assert_eq!(s.held(), Some(vec![13, 13, 12]));
        assert_eq!((s.stock(), s.kitty(), s.buried()), (None, None, Some(3)));
        assert_eq!(s.bid(), Some(Some((0, 25))));
        assert_eq!(s.partner(), Some(None));
        assert_eq!(s.meld(), Some(vec![18, 4, 11]));
        assert_eq!(s.unseen(), Some(vec![(card("AC"), 1), (card("TC"), 1)]));
        assert_eq!(s.target(), Some(150));
        assert_eq!(s.bids(), Some(vec![(1, None), (2, Some(20)), (0, Some(21))]));
        assert_eq!(s.won(), Some(vec![1, 0, 1]));
        assert_eq!(s.known(), Some(vec![vec![], vec![card("KS"), card("KS")], vec![]]));
        assert_eq!(s.get("shiny"), Some("yes")); // an unknown key is kept, never in the way
                                                 // an older referee without the newer fields
        let old = match parse_message("state hand=1 dealer=0 bids=-").unwrap() {
            Message::State(old) => old,
            _ => panic!(),
        };
        assert_eq!((old.target(), old.won(), old.known()), (None, None, None));
        assert_eq!(old.bids(), Some(vec![]));
    }
}

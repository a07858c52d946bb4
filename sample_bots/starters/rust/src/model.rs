//! A small model of the game, kept up to date from the referee's events:
//! the rules, your hand, trump, the trick in play and the scores.
//!
//! It follows the events itself, and whenever a `state` line arrives (the
//! kit asks for one before every request) it takes the referee's word for
//! everything the line restates, so a slip in the bookkeeping below never
//! lasts beyond the next request.

use std::collections::HashMap;

use crate::protocol::{Action, Card, Message, Rank, Rule, State, Suit};

/// The rules of the current game, from its `rule` lines.
#[derive(Clone, Debug, Default)]
pub struct Rules {
    pub ranks: Vec<Rank>,
    pub copies: u32,
    pub points: HashMap<Rank, i64>,
    pub last_trick: i64,
    pub target: i64,
    /// Meld kind -> its value once, twice, ... (`None`: no such meld).
    pub melds: HashMap<String, Vec<Option<i64>>>,
    /// Follow duties by phase: 1 -> ["free"], 2 -> ["suit", "trump", "head"].
    pub follow: HashMap<u32, Vec<String>>,
    pub first_lead_trump: bool,
}

/// Everything the bot remembers about the game in progress.
#[derive(Clone, Debug, Default)]
pub struct Game {
    // --- the game, from `game` and `rule` lines
    pub id: String,
    pub variant: String,
    pub seat: usize,
    pub players: usize,
    /// The variant's options as sent on the `game` line (`claim` -> `yes`...).
    pub options: HashMap<String, String>,
    pub rules: Rules,
    /// The score that wins now (the `rule target`, raised by `target` events).
    pub target: i64,
    /// The totals before the current hand, one per seat.
    pub totals: Vec<i64>,

    // --- the hand in progress
    pub hand_number: i64,
    pub dealer: usize,
    /// True in the two-handed games with a stock (their `deal` has a turn-up).
    pub stock_game: bool,
    /// 1 while the stock lasts (stock games) or until the play begins, after
    /// the melds (bidding games); then 2.
    pub phase: u32,
    pub trump: Option<Suit>,
    pub turnup: Option<Card>,
    /// Your concealed cards.
    pub hand: Vec<Card>,
    /// Your melded cards on the table (stock games, first phase).
    pub table: Vec<Card>,
    /// The trick in play: (seat, card), in the order played.
    pub trick: Vec<(usize, Card)>,
    pub bidder: Option<usize>,
    pub bid: Option<i64>,
    pub partner: Option<usize>,
    /// Meld and trick points of each seat this hand.
    pub meld_points: Vec<i64>,
    pub trick_points: Vec<i64>,
    /// The last `state` line, if the referee sent one since the last request.
    pub state: Option<State>,
}

fn remove_card(cards: &mut Vec<Card>, card: Card) -> bool {
    match cards.iter().position(|c| *c == card) {
        Some(i) => {
            cards.remove(i);
            true
        }
        None => false,
    }
}

impl Game {
    /// Updates the model with one message from the referee.
    pub fn update(&mut self, message: &Message) {
        match message {
            Message::Game(start) => {
                // A new game: forget everything about the old one.
                *self = Game {
                    id: start.id.clone(),
                    variant: start.variant.clone(),
                    seat: start.seat,
                    players: start.players,
                    options: start.options.iter().cloned().collect(),
                    totals: vec![0; start.players],
                    meld_points: vec![0; start.players],
                    trick_points: vec![0; start.players],
                    ..Game::default()
                };
                if let Some(target) = self.options.get("target").and_then(|t| t.parse().ok()) {
                    self.target = target;
                }
            }
            Message::Rule(rule) => self.rules_update(rule),
            Message::Target(target) => self.target = *target,
            Message::Deal { hand, dealer, turnup, cards } => {
                self.hand_number = *hand;
                self.dealer = *dealer;
                self.stock_game = turnup.is_some();
                self.turnup = *turnup;
                self.trump = turnup.map(|c| c.suit);
                self.phase = 1;
                self.hand = cards.clone();
                self.table.clear();
                self.trick.clear();
                self.bidder = None;
                self.bid = None;
                self.partner = None;
                self.meld_points = vec![0; self.players];
                self.trick_points = vec![0; self.players];
            }
            Message::Play { seat, action } => {
                if *seat == self.seat {
                    match action {
                        Action::Play(card) => {
                            remove_card(&mut self.hand, *card);
                        }
                        Action::Table { card, .. } => {
                            remove_card(&mut self.table, *card);
                        }
                        _ => {}
                    }
                }
                if let Some(card) = action.card() {
                    self.trick.push((*seat, card));
                }
                if !self.stock_game {
                    self.phase = 2; // bidding games: the play has begun
                }
            }
            Message::Trick { winner, points } => {
                self.trick.clear();
                if let Some(p) = self.trick_points.get_mut(*winner) {
                    *p += points;
                }
            }
            // (When the turn-up is drawn, the next state line clears `turnup`.)
            Message::Draw { seat, card: Some(card) } if *seat == self.seat => self.hand.push(*card),
            Message::Meld { seat, points, cards, .. } => {
                if let Some(p) = self.meld_points.get_mut(*seat) {
                    *p += points;
                }
                if *seat == self.seat && self.stock_game {
                    // In the stock games a meld moves its cards from the hand to the table.
                    for card in cards {
                        if remove_card(&mut self.hand, *card) {
                            self.table.push(*card);
                        }
                    }
                }
            }
            Message::Exchange { seat, dix, taken } => {
                self.turnup = Some(*dix);
                if *seat == self.seat {
                    if !remove_card(&mut self.table, *dix) {
                        remove_card(&mut self.hand, *dix);
                    }
                    self.hand.push(*taken);
                }
            }
            Message::Phase2 { .. } => {
                self.phase = 2;
                self.turnup = None;
                self.hand.append(&mut self.table); // melds go back to the hand
            }
            Message::HandEnd { totals, .. } => self.totals = totals.clone(),
            Message::BidWon { seat, amount } => {
                self.bidder = Some(*seat);
                self.bid = Some(*amount);
            }
            Message::Kitty(cards) if self.bidder == Some(self.seat) => self.hand.extend(cards),
            Message::Trump { suit, .. } => self.trump = Some(*suit),
            Message::Partner { partner, .. } => self.partner = *partner,
            Message::Give { from, to, cards } => {
                for card in cards.iter().flatten() {
                    if *from == self.seat {
                        remove_card(&mut self.hand, *card);
                    } else if *to == self.seat {
                        self.hand.push(*card);
                    }
                }
            }
            Message::Bury { seat, cards } if *seat == self.seat => {
                for card in cards.iter().flatten() {
                    remove_card(&mut self.hand, *card);
                }
            }
            Message::State(state) => self.state_update(state),
            _ => {}
        }
    }

    fn rules_update(&mut self, rule: &Rule) {
        let r = &mut self.rules;
        match rule {
            Rule::Ranks(ranks) => r.ranks = ranks.clone(),
            Rule::Copies(n) => r.copies = *n,
            Rule::Points(points) => r.points = points.iter().cloned().collect(),
            Rule::LastTrick(n) => r.last_trick = *n,
            Rule::Target(n) => {
                r.target = *n;
                self.target = *n;
            }
            Rule::Meld { kind, values } => {
                r.melds.insert(kind.clone(), values.clone());
            }
            Rule::Follow { phase, duties } => {
                r.follow.insert(*phase, duties.clone());
            }
            Rule::FirstLead(what) => r.first_lead_trump = what == "trump",
            Rule::Other { .. } => {}
        }
    }

    /// Takes the referee's word for everything a `state` line restates.
    fn state_update(&mut self, state: &State) {
        if let Some(cards) = state.cards() {
            self.hand = cards;
        }
        if let Some(tables) = state.tables() {
            if let Some(mine) = tables.get(self.seat) {
                self.table = mine.clone();
            }
        }
        if let Some(trump) = state.trump() {
            self.trump = trump;
        }
        if let Some(turnup) = state.turnup() {
            self.turnup = turnup;
        }
        if let Some(phase) = state.phase() {
            self.phase = phase as u32;
        }
        if let (Some(leader), Some(cards)) = (state.leader(), state.trick()) {
            let players = self.players.max(1);
            self.trick = match leader {
                Some(leader) => cards.into_iter().enumerate().map(|(i, c)| ((leader + i) % players, c)).collect(),
                None => Vec::new(),
            };
        }
        if let Some(bid) = state.bid() {
            self.bidder = bid.map(|(seat, _)| seat);
            self.bid = bid.map(|(_, amount)| amount);
        }
        if let Some(partner) = state.partner() {
            self.partner = partner;
        }
        if let Some(meld) = state.meld() {
            self.meld_points = meld;
        }
        if let Some(tricks) = state.tricks() {
            self.trick_points = tricks;
        }
        if let Some(totals) = state.totals() {
            self.totals = totals;
        }
        if let Some(target) = state.target() {
            self.target = target;
        }
        self.state = Some(state.clone());
    }

    /// Is `card` a trump?
    pub fn is_trump(&self, card: Card) -> bool {
        Some(card.suit) == self.trump
    }

    /// Does `card` beat `best` (which was played before it)? Of two identical
    /// cards the first played wins, so a tie does not beat.
    pub fn beats(&self, card: Card, best: Card) -> bool {
        if card.suit == best.suit {
            card.rank > best.rank
        } else {
            self.is_trump(card)
        }
    }

    /// The best card of the trick so far.
    pub fn winning_card(&self) -> Option<Card> {
        let mut cards = self.trick.iter().map(|(_, c)| *c);
        let first = cards.next()?;
        Some(cards.fold(first, |best, c| if self.beats(c, best) { c } else { best }))
    }

    /// Would `card`, played now, take the lead of the trick?
    pub fn would_win(&self, card: Card) -> bool {
        match self.winning_card() {
            None => true,
            Some(best) => self.beats(card, best),
        }
    }

    /// Your points so far: the totals before this hand plus this hand's meld
    /// and trick points (what a claim is judged on).
    pub fn my_score_now(&self) -> i64 {
        let at = |v: &Vec<i64>| v.get(self.seat).copied().unwrap_or(0);
        at(&self.totals) + at(&self.meld_points) + at(&self.trick_points)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::parse_message;

    fn feed(game: &mut Game, lines: &str) {
        for line in lines.lines() {
            game.update(&parse_message(line.trim()).unwrap());
        }
    }

    #[test]
    fn follows_a_stock_game() {
        let mut g = Game::default();
        feed(
            &mut g,
            "game 9144bba0d4f1 two-handed 0 2 target=200
             rule target 200
             deal 1 0 QH JD TD JH AD 9D TS TD JH JS AC QH 9C
             play 1 9S",
        );
        assert_eq!((g.seat, g.target, g.trump), (0, 200, Some(Suit::Hearts)));
        assert_eq!(g.hand.len(), 12);
        let card = |t: &str| t.parse::<Card>().unwrap();
        assert!(g.would_win(card("AS")) && g.would_win(card("9H")) && !g.would_win(card("AC")));
        assert!(!g.would_win(card("9S"))); // an identical card played later does not win
        feed(&mut g, "play 0 9C\ntrick 1 0\ndraw 0 JS\ntarget 1250");
        assert!(g.trick.is_empty());
        assert_eq!((g.hand.len(), g.target), (12, 1250));
    }
}

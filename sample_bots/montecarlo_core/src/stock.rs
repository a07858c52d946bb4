//! Two-handed, while the stock lasts: the rest of the hand played out, melds and draws included.
//!
//! The first phase is a model, not the rules library: the playout needs only
//! to value a card, so its melds are the common ones at their single value
//! (run, royal marriage, marriages, dix, aces, kings, queens and jacks around,
//! pinochle; no doubles, no round house), each kind scored at most once a
//! hand (a dix twice), the best one the trick's winner can make (with a dix
//! beside it where the variant allows), made of cards in hand and on its
//! table with at least one new card from the hand. Draws, the last stock
//! card, the return of the melds to the hands and the strict second phase
//! are as the rules have them; the second phase is played by the trick
//! policy of [`crate::playout`].
//!
//! The simulated seats play much as the Python bot's `stock_policy`, and
//! mind their melds: lead the least useful card (no trump, no ace or ten,
//! not a card of a meld they nearly hold, from the hand before the table,
//! low); win as cheaply as possible a trick worth an ace or a ten, one with
//! any points that a card of the suit led wins, or any trick when they have
//! a meld to make; else throw the cheapest card (an ace or a ten last, meld
//! cards late); take the turn-up if it is a trump or an ace; make the best
//! meld.

use std::time::Instant;

use crate::cards::{faces, rank, strength, suit, suit_mask, Card, Hand};
use crate::pimc::PlaceKind;
use crate::playout::{play_out, Position, Table, MAX_SEATS};
use crate::rules::beats;
use crate::sample::{over_worlds, Places};

/// The meld kinds: run, royal marriage, four marriages (by suit; the trump's unused), dix, aces, kings,
/// queens and jacks around, pinochle.
pub const KINDS: usize = 12;
const RUN: usize = 0;
const ROYAL: usize = 1;
const MARRIAGE: usize = 2;
const DIX: usize = 6;
const AROUND: usize = 7;
const PINOCHLE: usize = 11;

/// The variant's facts for the first phase.
#[derive(Clone, Debug)]
pub struct StockRules {
    pub table: Table,           // the second phase's trick rules (two seats, sides 0 and 1)
    pub meld_values: [i32; 9],  // run royal marriage dix aces kings queens jacks pinochle (0: not a meld)
    pub meld_before_draw: bool,
    pub dix_with_other_meld: bool,
    pub face_down_to_winner: bool, // Hoyle: the winner takes the last face-down card (and shows it)
}

impl StockRules {
    fn kind_faces(&self, kind: usize) -> u32 {
        let trump = self.table.trump;
        let face = |s: u8, r: u8| 1u32 << (s * 6 + r);
        match kind {
            RUN => (0..5).fold(0, |m, r| m | face(trump, r)),
            ROYAL => face(trump, 2) | face(trump, 3),
            DIX => face(trump, 5),
            PINOCHLE => face(1, 4) | face(3, 3), // J of diamonds, Q of spades
            k if (MARRIAGE..MARRIAGE + 4).contains(&k) => face((k - MARRIAGE) as u8, 2) | face((k - MARRIAGE) as u8, 3),
            k => (0..4).fold(0, |m, s| m | face(s, around_rank(k))),
        }
    }

    fn kind_value(&self, kind: usize) -> i32 {
        match kind {
            RUN => self.meld_values[0],
            ROYAL => self.meld_values[1],
            k if (MARRIAGE..MARRIAGE + 4).contains(&k) => {
                if k - MARRIAGE == self.table.trump as usize { 0 } else { self.meld_values[2] }
            }
            DIX => self.meld_values[3],
            PINOCHLE => self.meld_values[8],
            k => self.meld_values[4 + k - AROUND],
        }
    }
}

/// The hand as it stands in the first phase.
#[derive(Clone, Debug)]
pub struct StockHand {
    pub hands: [Hand; 2],
    pub boards: [Hand; 2], // the melded cards on each seat's table
    pub stock: Vec<Card>,  // face down, the next card to draw first
    pub turnup: Option<Card>,
    pub leader: usize,
    pub led: Option<Card>,
    pub points: [i32; 2],
    pub meld: [i32; 2],
    pub scored: [u16; 2], // the meld kinds each seat has scored (a bit a kind; the dix counted apart)
    pub dixes: [u8; 2],
}

/// A card to play, from the hand or from the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Play {
    pub card: Card,
    pub from_table: bool,
}

/// What the seat to decide may do: play a card, or (the winner of the trick that left one face-down card
/// and the turn-up) take the turn-up or the face-down card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Play(Play),
    TakeTurnup,
    TakeFaceDown,
}

/// The rank of an "around" kind: aces, kings, queens, jacks.
fn around_rank(kind: usize) -> u8 {
    [0, 2, 3, 4][kind - AROUND]
}

impl StockRules {
    /// The best meld `seat` can make now (not a dix if `dix` is false, only a dix if `only_dix`).
    fn best_meld(&self, h: &StockHand, seat: usize, dix: bool, only_dix: bool) -> Option<usize> {
        let (hand, board) = (h.hands[seat].mask, h.boards[seat].mask);
        let mut best: Option<(i32, usize)> = None;
        for kind in 0..KINDS {
            let done = h.scored[seat] >> kind & 1 == 1;
            if (kind == DIX && (!dix || h.dixes[seat] >= 2)) || (kind != DIX && (only_dix || done)) {
                continue;
            }
            let value = self.kind_value(kind);
            let need = self.kind_faces(kind);
            let new = if kind == DIX { need & hand } else { need & hand & !board };
            if value <= 0 || need & (hand | board) != need || new == 0 {
                continue;
            }
            if best.map_or(true, |(v, _)| value > v) {
                best = Some((value, kind));
            }
        }
        best.map(|(_, kind)| kind)
    }

    fn make_meld(&self, h: &mut StockHand, seat: usize, kind: usize) {
        let need = self.kind_faces(kind);
        let hand = h.hands[seat].mask;
        let new = if kind == DIX { need & hand } else { need & hand & !h.boards[seat].mask };
        for c in faces(new) {
            h.hands[seat].remove(c);
            h.boards[seat].add(c);
        }
        h.meld[seat] += self.kind_value(kind);
        if kind == DIX {
            h.dixes[seat] += 1;
        } else {
            h.scored[seat] |= 1 << kind;
        }
    }

    /// The winner of a first-phase trick melds: the best meld, and a dix beside it where allowed.
    fn meld_turn(&self, h: &mut StockHand, seat: usize) {
        match self.best_meld(h, seat, true, false) {
            Some(DIX) => {
                self.make_meld(h, seat, DIX);
                if self.dix_with_other_meld {
                    if let Some(kind) = self.best_meld(h, seat, false, false) {
                        self.make_meld(h, seat, kind);
                    }
                }
            }
            Some(kind) => {
                self.make_meld(h, seat, kind);
                if self.dix_with_other_meld {
                    if let Some(kind) = self.best_meld(h, seat, true, true) {
                        self.make_meld(h, seat, kind);
                    }
                }
            }
            None => {}
        }
    }

    /// The draws after a trick: the winner first; of the last two cards, the face-down one where the rules
    /// say so, else the turn-up if it is a trump or an ace, unless `take_turnup` says.
    fn draw(&self, h: &mut StockHand, winner: usize, take_turnup: Option<bool>) {
        if h.stock.len() >= 2 {
            let (a, b) = (h.stock.remove(0), h.stock.remove(0));
            h.hands[winner].add(a);
            h.hands[1 - winner].add(b);
        } else if let (Some(&face_down), Some(turnup)) = (h.stock.first(), h.turnup) {
            let worth_taking = suit(turnup) == self.table.trump || rank(turnup) == 0;
            let take_turnup = take_turnup.unwrap_or(!self.face_down_to_winner && worth_taking);
            let (mine, theirs) = if take_turnup { (turnup, face_down) } else { (face_down, turnup) };
            h.hands[winner].add(mine);
            h.hands[1 - winner].add(theirs);
            h.stock.clear();
            h.turnup = None;
        }
    }

    /// Is `card` worth keeping for a meld: the seat's only copy of a face of a meld it has not scored and
    /// nearly holds (both cards of a marriage or a pinochle, three of a run's or an around's)?
    fn keeps(&self, h: &StockHand, seat: usize, card: Card) -> bool {
        let (hand, board) = (&h.hands[seat], &h.boards[seat]);
        if hand.counts[card as usize] + board.counts[card as usize] > 1 {
            return false;
        }
        let held = hand.mask | board.mask;
        (0..KINDS).any(|kind| {
            let need = self.kind_faces(kind);
            let size = need.count_ones();
            kind != DIX && h.scored[seat] >> kind & 1 == 0 && need >> card & 1 == 1 && self.kind_value(kind) > 0
                && (need & held).count_ones() >= if size == 2 { 2 } else { 3 }
        })
    }

    /// The simulated seat's card in the first phase: of its cards in hand and on its table, the least by
    /// a key (hand before table on equal keys).
    fn policy(&self, h: &StockHand, seat: usize) -> Play {
        let t = &self.table;
        let trump = t.trump;
        let high = t.values[1]; // a ten's points: the high counters are the aces and tens
        let least = |key: &dyn Fn(Card) -> [i32; 4]| -> Play {
            let mut best: Option<([i32; 5], Play)> = None;
            for (from_table, mask) in [(false, h.hands[seat].mask), (true, h.boards[seat].mask)] {
                for c in faces(mask) {
                    let [a, b, d, e] = key(c);
                    let k = [a, b, d, from_table as i32, e];
                    if best.as_ref().map_or(true, |(b, _)| k < *b) {
                        best = Some((k, Play { card: c, from_table }));
                    }
                }
            }
            best.expect("a card to play").1
        };
        let keep = |c: Card| self.keeps(h, seat, c) as i32;
        let is_trump = |c: Card| (suit(c) == trump) as i32;
        let led = match h.led {
            None => return least(&|c| [is_trump(c), (t.value(c) >= high) as i32, keep(c), strength(c) as i32]),
            Some(led) => led,
        };
        let all = h.hands[seat].mask | h.boards[seat].mask;
        let winners = faces(all).filter(|&c| beats(c, led, trump)).fold(0u32, |m, c| m | 1 << c);
        let worth = t.value(led);
        let wins_in_suit = winners & suit_mask(suit(led)) != 0;
        let would_meld = self.best_meld(h, seat, true, false).is_some();
        if winners != 0 && (worth >= high || (worth > 0 && wins_in_suit) || would_meld) {
            return least(&|c| [(winners >> c & 1 == 0) as i32, is_trump(c), keep(c), strength(c) as i32]);
        }
        least(&|c| [(t.value(c) >= high) as i32, keep(c), t.value(c) * 8 + is_trump(c) * 4, strength(c) as i32])
    }

    /// Play `play` for the seat to act; a full trick is scored, then the draws and the winner's meld.
    fn play(&self, h: &mut StockHand, play: Play) {
        let seat = if h.led.is_none() { h.leader } else { 1 - h.leader };
        if play.from_table {
            h.boards[seat].remove(play.card);
        } else {
            h.hands[seat].remove(play.card);
        }
        let led = match h.led {
            Some(led) => led,
            None => {
                h.led = Some(play.card);
                return;
            }
        };
        let winner = if beats(play.card, led, self.table.trump) { 1 - h.leader } else { h.leader };
        h.points[winner] += self.table.value(led) + self.table.value(play.card);
        h.led = None;
        h.leader = winner;
        if self.meld_before_draw {
            self.meld_turn(h, winner);
            self.draw(h, winner, None);
        } else {
            self.draw(h, winner, None);
            self.meld_turn(h, winner);
        }
    }

    /// The seat to decide, having won the trick that left the last two cards, takes one of them (and then
    /// melds, where melds come after the draw).
    fn take_last(&self, h: &mut StockHand, turnup: bool) {
        let winner = h.leader;
        self.draw(h, winner, Some(turnup));
        if !self.meld_before_draw {
            self.meld_turn(h, winner);
        }
    }

    /// The hand played to its end from `h`, `first` being the seat to act's play now: the margin of `seat`
    /// (its meld and trick points less the other seat's).
    pub fn play_out(&self, mut h: StockHand, first: Choice, seat: usize) -> i32 {
        match first {
            Choice::Play(play) => self.play(&mut h, play),
            Choice::TakeTurnup => self.take_last(&mut h, true),
            Choice::TakeFaceDown => self.take_last(&mut h, false),
        }
        while !h.stock.is_empty() || h.turnup.is_some() || h.led.is_some() {
            let to_act = if h.led.is_none() { h.leader } else { 1 - h.leader };
            let play = self.policy(&h, to_act);
            self.play(&mut h, play);
        }
        let mut hands = [Hand::default(); MAX_SEATS];
        for s in 0..2 {
            hands[s] = h.hands[s];
            for c in faces(h.boards[s].mask) {
                for _ in 0..h.boards[s].counts[c as usize] {
                    hands[s].add(c);
                }
            }
        }
        let mut pos = Position {
            hands, trick: Vec::new(), leader: h.leader, tricks_played: 0, points: [0; MAX_SEATS],
            won: [0; MAX_SEATS], dummy: Vec::new(),
        };
        pos.points[0] = h.points[0];
        pos.points[1] = h.points[1];
        play_out(&self.table, &mut pos, None);
        (h.meld[seat] + pos.points[seat]) - (h.meld[1 - seat] + pos.points[1 - seat])
    }
}

/// A first-phase decision: the hand as the seat sees it, what it cannot see, the choices to weigh.
pub struct StockDecision {
    pub rules: StockRules,
    pub seat: usize,
    pub start: StockHand, // the other seat's hand and the stock empty: each world fills them
    pub kinds: Vec<PlaceKind>,
    pub places: Places,
    pub candidates: Vec<Choice>,
}

/// Sum over worlds of each candidate's margin; stops after `worlds` worlds (0: no limit) or at `deadline`.
pub fn search(d: &StockDecision, seed: u64, worlds: usize, deadline: Option<Instant>) -> (Vec<f64>, usize) {
    let other = 1 - d.seat;
    over_worlds(&d.places, d.candidates.len(), seed, worlds, deadline, |rng, placed, totals| {
        let mut start = d.start.clone();
        for (p, cards) in placed.iter().enumerate() {
            match d.kinds[p] {
                PlaceKind::Seat(s) if s == other => start.hands[other] = Hand::from_cards(cards),
                PlaceKind::Stock => {
                    let mut pile = cards.clone();
                    rng.shuffle(&mut pile);
                    start.stock = pile;
                }
                _ => {}
            }
        }
        for (i, &choice) in d.candidates.iter().enumerate() {
            totals[i] += d.rules.play_out(start.clone(), choice, d.seat) as f64;
        }
    })
}

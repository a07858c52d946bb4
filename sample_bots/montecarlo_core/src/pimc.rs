//! Perfect-information Monte Carlo for a card to play: sample worlds, play every candidate out in each.

use std::time::Instant;

use crate::cards::{Card, Hand};
use crate::playout::{hand_scores, play_out, utility, Position, Scoring, Table, MAX_SEATS};
use crate::sample::{over_worlds, Places};

/// What a face-down place is, for the playout.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PlaceKind {
    Seat(usize),
    Dummy,  // 003's dummy: its top card goes to each trick's winner
    Buried, // cards the bid winner buried: they count for it
    Stock,  // two-handed's stock, from which the first phase draws
    Other,  // a pile that plays no part in the tricks (a kitty)
}

/// A decision: the seat to act, what it holds, where the hand stands, and what it cannot see.
pub struct Decision {
    pub table: Table,
    pub scoring: Scoring,
    pub seat: usize,
    pub start: Position, // the seat's own hand in place; the other hands empty but for cards known
    pub kinds: Vec<PlaceKind>,
    pub places: Places,
    pub buried: Option<i32>, // the buried cards' points, when the seat knows them
    pub candidates: Vec<Card>,
}

/// Sum over worlds of each candidate's result for the seat's side; stops after `worlds` worlds (0: no
/// limit) or at `deadline`. Returns (totals, worlds done); no world at all if the deal fails at once.
pub fn search(d: &Decision, seed: u64, worlds: usize, deadline: Option<Instant>) -> (Vec<f64>, usize) {
    over_worlds(&d.places, d.candidates.len(), seed, worlds, deadline, |rng, placed, totals| {
        let mut start = d.start.clone();
        let mut buried = d.buried.unwrap_or(0);
        for (p, cards) in placed.iter().enumerate() {
            match d.kinds[p] {
                PlaceKind::Seat(s) => start.hands[s] = Hand::from_cards(cards),
                PlaceKind::Dummy => {
                    let mut pile = cards.clone();
                    rng.shuffle(&mut pile);
                    start.dummy.extend(pile);
                }
                PlaceKind::Buried if d.buried.is_none() => buried = cards.iter().map(|&c| d.table.value(c)).sum(),
                _ => {}
            }
        }
        for (i, &card) in d.candidates.iter().enumerate() {
            totals[i] += outcome(d, &start, card, buried);
        }
    })
}

/// The seat's result of playing `card` now and the rest of the hand by the policy.
pub fn outcome(d: &Decision, start: &Position, card: Card, buried: i32) -> f64 {
    let mut pos = start.clone();
    play_out(&d.table, &mut pos, Some(card));
    let scores: [f64; MAX_SEATS] = hand_scores(&d.table, &d.scoring, &pos.points, &pos.won, buried);
    utility(&d.table, &scores, d.seat)
}

//! The two-handed second phase searched exactly: every card is known once the stock is gone.
//!
//! The Python bot's `Endgame`, compiled: a negamax over whole tricks whose
//! value is the margin (trick points less the other seat's, the last trick's
//! bonus included) the seat to lead makes of the rest of the hand against the
//! best defence, with alpha-beta cut-offs and a table of bounds keyed by the
//! two hands (the points already taken do not change what is best from
//! there). The table lives as long as the search object, a whole hand.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

use crate::cards::{Card, Hand};
use crate::rules::{beats, legal_plays, Duty};

const LOSS: i32 = 1_000_000_000;

/// A multiplicative hash for keys that are already well spread (two hands' counts).
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("keys are hashed as u128")
    }
    fn write_u128(&mut self, key: u128) {
        let folded = (key as u64) ^ ((key >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = folded.wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (folded >> 29);
    }
}

pub struct OutOfBudget;

/// A few distinct cards in the order to try them, without allocating.
struct Cards {
    cards: [Card; 24],
    len: usize,
}

impl Cards {
    fn one(card: Card) -> Cards {
        let mut cards = [0; 24];
        cards[0] = card;
        Cards { cards, len: 1 }
    }

    /// The faces of `mask`, strongest first (by rank, then by suit).
    fn by_strength(mask: u32) -> Cards {
        let mut out = Cards { cards: [0; 24], len: 0 };
        for rank in 0..6 {
            for suit in 0..4 {
                let card = suit * 6 + rank;
                if mask >> card & 1 == 1 {
                    out.cards[out.len] = card;
                    out.len += 1;
                }
            }
        }
        out
    }

    fn to_front(&mut self, card: Card) {
        if let Some(i) = self.cards[..self.len].iter().position(|&c| c == card) {
            self.cards[..=i].rotate_right(1);
        }
    }

    fn iter(&self) -> std::slice::Iter<'_, Card> {
        self.cards[..self.len].iter()
    }
}

pub struct Endgame {
    trump: u8,
    duty: Duty,
    values: [i32; 6],
    last_trick: i32,
    solved: HashMap<u128, (i32, i32, Card), BuildHasherDefault<KeyHasher>>,
    nodes: u64,
    budget: u64,
    deadline: Option<Instant>,
}

impl Endgame {
    pub fn new(trump: u8, duty: Duty, values: [i32; 6], last_trick: i32) -> Endgame {
        Endgame { trump, duty, values, last_trick, solved: HashMap::default(), nodes: 0, budget: 0, deadline: None }
    }

    fn value(&self, card: Card) -> i32 {
        self.values[crate::cards::rank(card)]
    }

    /// The best card holding `mine` against `theirs`, to lead (`led` None) or to follow `led`, with its
    /// value (the margin of the rest of the hand for this seat, this trick included).
    pub fn best(&mut self, mine: &Hand, theirs: &Hand, led: Option<Card>, budget: u64, deadline: Option<Instant>)
                -> Result<(Card, i32), OutOfBudget> {
        self.nodes = 0;
        self.budget = budget;
        self.deadline = deadline;
        let mut best = (255, -LOSS);
        match led {
            None => {
                for &card in self.leads(mine, None).iter() {
                    let v = self.after_lead(&mine.without(card), theirs, card, best.1, LOSS, None)?;
                    if v > best.1 {
                        best = (card, v);
                    }
                }
            }
            Some(led) => {
                for &card in self.replies(mine, led).iter() {
                    let v = -self.after_lead(theirs, mine, led, -LOSS, -best.1, Some(card))?;
                    if v > best.1 {
                        best = (card, v);
                    }
                }
            }
        }
        Ok(best)
    }

    /// The distinct cards of a hand, strongest first, `first` (the table's best lead) before them.
    fn leads(&self, hand: &Hand, first: Option<Card>) -> Cards {
        let mut cards = Cards::by_strength(hand.mask);
        if let Some(f) = first {
            cards.to_front(f);
        }
        cards
    }

    fn replies(&self, hand: &Hand, led: Card) -> Cards {
        Cards::by_strength(legal_plays(hand, &[led], self.trump, self.duty))
    }

    /// The margin for the seat holding `leader` of the rest of the hand, it to lead.
    fn to_lead(&mut self, leader: &Hand, follower: &Hand, mut alpha: i32, mut beta: i32) -> Result<i32, OutOfBudget> {
        if leader.is_empty() {
            return Ok(0);
        }
        self.nodes += 1;
        if self.nodes > self.budget
            || (self.nodes & 1023 == 0 && self.deadline.map_or(false, |t| Instant::now() > t)) {
            return Err(OutOfBudget);
        }
        let key = (leader.key() as u128) << 64 | follower.key() as u128;
        let known = self.solved.get(&key).copied();
        let mut first = None;
        if let Some((low, high, card)) = known {
            if low >= beta {
                return Ok(low);
            }
            if high <= alpha {
                return Ok(high);
            }
            alpha = alpha.max(low);
            beta = beta.min(high);
            first = Some(card);
        }
        let window = (alpha, beta);
        let mut best = (-LOSS, 255);
        for &card in self.leads(leader, first).iter() {
            let v = self.after_lead(&leader.without(card), follower, card, alpha, beta, None)?;
            if v > best.0 {
                best = (v, card);
                alpha = alpha.max(v);
                if alpha >= beta {
                    break;
                }
            }
        }
        let (mut low, mut high) = if best.0 >= window.1 {
            (best.0, LOSS)
        } else if best.0 <= window.0 {
            (-LOSS, best.0)
        } else {
            (best.0, best.0)
        };
        if let Some((l, h, _)) = known {
            low = low.max(l);
            high = high.min(h);
        }
        self.solved.insert(key, (low, high, best.1));
        Ok(best.0)
    }

    /// The leader's margin once it has led `led` (its hand now `leader`): the follower replies with the
    /// card that makes it least (or with `played`, if given).
    fn after_lead(&mut self, leader: &Hand, follower: &Hand, led: Card, alpha: i32, mut beta: i32,
                  played: Option<Card>) -> Result<i32, OutOfBudget> {
        let mut worst = LOSS;
        let replies = match played {
            Some(card) => Cards::one(card),
            None => self.replies(follower, led),
        };
        for &card in replies.iter() {
            let rest = follower.without(card);
            let points = self.value(led) + self.value(card) + if rest.is_empty() { self.last_trick } else { 0 };
            let v = if beats(card, led, self.trump) {
                -(points + self.to_lead(&rest, leader, -beta - points, -alpha - points)?)
            } else {
                points + self.to_lead(leader, &rest, alpha - points, beta - points)?
            };
            if v < worst {
                worst = v;
                beta = beta.min(v);
                if worst <= alpha {
                    break;
                }
            }
        }
        Ok(worst)
    }
}

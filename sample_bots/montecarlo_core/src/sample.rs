//! Worlds: the cards a seat has not seen dealt into the places it cannot see.
//!
//! The caller (the Python bot, from the rules library's `Sampler`) says what is
//! known: the cards already known to be in each place, how many more each
//! place takes, and the unseen cards in groups, each with the places its cards
//! may go to (a seat that has shown out of a suit is not among a heart's
//! places). A world deals each group's cards, the most constrained groups
//! first, one card at a time into an allowed place chosen with a chance in
//! proportion to the room left there; a deal that paints itself into a
//! corner starts again. That is close to uniform, not exactly uniform (the
//! rules library counts its worlds exactly); the Python sampler's check that a
//! hand melds exactly what its seat showed is not made.

use std::time::Instant;

use crate::cards::Card;

/// A small, fast generator (SplitMix64): the same seed gives the same worlds on any machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next() >> 32) * n as u64 >> 32) as usize
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// What a seat knows of where the unseen cards may be.
#[derive(Clone, Debug)]
pub struct Places {
    pub fixed: Vec<Vec<Card>>,          // per place, the cards known to be there
    pub room: Vec<usize>,               // per place, how many unseen cards it takes
    pub groups: Vec<(u32, Vec<Card>)>,  // (the places its cards may go to, as a mask; the cards)
}

const TRIES: usize = 200;

impl Places {
    /// One world: per place, its cards (fixed ones first). None if no deal was found (the constraints
    /// are too tight for this simple method, or contradict each other).
    pub fn deal(&self, rng: &mut Rng) -> Option<Vec<Vec<Card>>> {
        let mut order: Vec<usize> = (0..self.groups.len()).collect();
        order.sort_by_key(|&g| (self.groups[g].0.count_ones(), self.groups[g].1.len()));
        'again: for _ in 0..TRIES {
            let mut placed = self.fixed.clone();
            let mut room = self.room.clone();
            for &g in &order {
                let (allowed, cards) = &self.groups[g];
                let mut cards = cards.clone();
                rng.shuffle(&mut cards);
                for card in cards {
                    let open: usize = (0..room.len()).filter(|&p| allowed >> p & 1 == 1).map(|p| room[p]).sum();
                    if open == 0 {
                        continue 'again;
                    }
                    let mut pick = rng.below(open);
                    let place = (0..room.len())
                        .filter(|&p| allowed >> p & 1 == 1)
                        .find(|&p| {
                            if pick < room[p] {
                                return true;
                            }
                            pick -= room[p];
                            false
                        })
                        .expect("a place with room");
                    room[place] -= 1;
                    placed[place].push(card);
                }
            }
            return Some(placed);
        }
        None
    }
}

/// The world loop of every search: deals worlds from `places` until `worlds` are done (0: no limit) or, after
/// the first, `deadline` passes, and lets `score` add each candidate's result in that world to `totals` (it
/// gets the generator, to shuffle the piles it lays out). Returns (totals, worlds done); none at all if the
/// first deal fails.
pub fn over_worlds(
    places: &Places,
    candidates: usize,
    seed: u64,
    worlds: usize,
    deadline: Option<Instant>,
    mut score: impl FnMut(&mut Rng, &[Vec<Card>], &mut [f64]),
) -> (Vec<f64>, usize) {
    let mut rng = Rng::new(seed);
    let mut totals = vec![0.0; candidates];
    let mut done = 0;
    while worlds == 0 || done < worlds {
        if done > 0 && deadline.map_or(false, |t| Instant::now() >= t) {
            break;
        }
        let placed = match places.deal(&mut rng) {
            Some(placed) => placed,
            None => break,
        };
        score(&mut rng, &placed, &mut totals);
        done += 1;
    }
    (totals, done)
}

//! The rules of a trick, as the rules library states them (referee/rules/tricks.py):
//! who wins it, and which cards a follower may play.

use crate::cards::{faces, strength, suit, suit_mask, Card, Hand};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MustWin {
    Never,
    Always,
    TrumpLed,
}

/// What a follower owes the trick (the rules library's `FollowDuty`).
#[derive(Clone, Copy, Debug)]
pub struct Duty {
    pub must_follow: bool,
    pub must_trump: bool,
    pub must_win: MustWin,
}

/// Does `challenger`, played later, beat `best`, the card winning so far?
pub fn beats(challenger: Card, best: Card, trump: u8) -> bool {
    if suit(challenger) == suit(best) {
        strength(challenger) > strength(best)
    } else {
        suit(challenger) == trump
    }
}

/// The index into `played` of the card winning so far.
pub fn winning_index(played: &[Card], trump: u8) -> usize {
    let mut best = 0;
    for i in 1..played.len() {
        if beats(played[i], played[best], trump) {
            best = i;
        }
    }
    best
}

/// The faces of `hand` that may be played to the trick `played` (empty: a lead, any card).
pub fn legal_plays(hand: &Hand, played: &[Card], trump: u8, duty: Duty) -> u32 {
    let all = hand.mask;
    if played.is_empty() {
        return all;
    }
    let led = suit(played[0]);
    let follows = all & suit_mask(led);
    let trumps = all & suit_mask(trump);
    let mut candidates = all;
    if duty.must_follow {
        if follows != 0 {
            candidates = follows;
        } else if duty.must_trump && trumps != 0 {
            candidates = trumps;
        }
    } else if duty.must_trump && trumps != 0 && follows == 0 {
        candidates = trumps;
    }
    let must_win = match duty.must_win {
        MustWin::Never => false,
        MustWin::Always => true,
        MustWin::TrumpLed => led == trump,
    };
    if must_win {
        let best = played[winning_index(played, trump)];
        let winners = faces(candidates)
            .filter(|&c| beats(c, best, trump))
            .fold(0u32, |m, c| m | 1 << c);
        if winners != 0 {
            candidates = winners;
        }
    }
    candidates
}

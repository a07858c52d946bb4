//! The rest of a hand played out by a fast policy, and what the end of a hand is worth to a seat.
//!
//! The policy is the Python bot's `rollout_card`, card for card: lead an ace
//! of a plain suit, else the least useful card; to a trick, smear points on a
//! partner's card, else win as cheaply as possible, else throw the cheapest
//! card. Ties go to the lowest card number (the first card of a hand sorted
//! in the rules library's card order).

use crate::cards::{faces, rank, strength, suit, Card, Hand};
use crate::rules::{beats, legal_plays, winning_index, Duty};

pub const MAX_SEATS: usize = 5;

/// The facts of the hand in play that a playout needs.
#[derive(Clone, Debug)]
pub struct Table {
    pub seats: usize,
    pub trump: u8,
    pub duty: Duty,
    pub values: [i32; 6],
    pub last_trick: i32,
    pub first_lead_trump: bool,
    pub sides: [usize; MAX_SEATS],
}

impl Table {
    pub fn value(&self, card: Card) -> i32 {
        self.values[rank(card)]
    }
}

/// Where a hand stands: the hands, the trick so far, who led it, the points and tricks taken.
#[derive(Clone, Debug)]
pub struct Position {
    pub hands: [Hand; MAX_SEATS],
    pub trick: Vec<(usize, Card)>,
    pub leader: usize,
    pub tricks_played: usize,
    pub points: [i32; MAX_SEATS],
    pub won: [i32; MAX_SEATS],
    pub dummy: Vec<Card>, // top first
}

/// The policy's card for `seat` from `legal` (a mask), `trick` the cards played so far.
pub fn policy_card(table: &Table, legal: u32, trick: &[(usize, Card)], seat: usize) -> Card {
    let trump = table.trump;
    if legal.count_ones() == 1 {
        return legal.trailing_zeros() as Card;
    }
    if trick.is_empty() {
        return pick_min(legal, |c| {
            let plain_ace = rank(c) == 0 && suit(c) != trump;
            (!plain_ace as i32, (suit(c) == trump) as i32, (table.value(c) >= 10) as i32, strength(c) as i32)
        });
    }
    let cards: Vec<Card> = trick.iter().map(|&(_, c)| c).collect();
    let at = winning_index(&cards, trump);
    let best = cards[at];
    if table.sides[trick[at].0] == table.sides[seat] {
        return pick_min(legal, |c| (-table.value(c), strength(c) as i32, 0, 0));
    }
    let winners = faces(legal).filter(|&c| beats(c, best, trump)).fold(0u32, |m, c| m | 1 << c);
    if winners != 0 {
        return pick_min(winners, |c| ((suit(c) == trump) as i32, strength(c) as i32, 0, 0));
    }
    pick_min(legal, |c| (table.value(c), (suit(c) == trump) as i32, strength(c) as i32, 0))
}

/// The first card of `mask` (lowest number) with the least key.
fn pick_min<K: Ord>(mask: u32, key: impl Fn(Card) -> K) -> Card {
    let mut best: Option<(K, Card)> = None;
    for c in faces(mask) {
        let k = key(c);
        if best.as_ref().map_or(true, |(b, _)| k < *b) {
            best = Some((k, c));
        }
    }
    best.expect("a legal card").1
}

/// The cards `seat` may play now, the first lead's trump duty included.
pub fn legal_now(table: &Table, pos: &Position, seat: usize) -> u32 {
    let played: Vec<Card> = pos.trick.iter().map(|&(_, c)| c).collect();
    let legal = legal_plays(&pos.hands[seat], &played, table.trump, table.duty);
    if table.first_lead_trump && pos.tricks_played == 0 && played.is_empty() {
        let trumps = legal & crate::cards::suit_mask(table.trump);
        if trumps != 0 {
            return trumps;
        }
    }
    legal
}

/// Play `card` for the seat to act; a full trick is scored (its counters, the dummy's top card, the
/// last trick's bonus) and its winner leads. Returns false once the hand is over.
pub fn play(table: &Table, pos: &mut Position, card: Card) -> bool {
    let seat = (pos.leader + pos.trick.len()) % table.seats;
    pos.hands[seat].remove(card);
    pos.trick.push((seat, card));
    if pos.trick.len() < table.seats {
        return true;
    }
    let cards: Vec<Card> = pos.trick.iter().map(|&(_, c)| c).collect();
    let winner = (pos.leader + winning_index(&cards, table.trump)) % table.seats;
    let mut points: i32 = cards.iter().map(|&c| table.value(c)).sum();
    if !pos.dummy.is_empty() {
        points += table.value(pos.dummy.remove(0));
    }
    pos.points[winner] += points;
    pos.won[winner] += 1;
    pos.tricks_played += 1;
    pos.trick.clear();
    pos.leader = winner;
    if pos.hands[winner].is_empty() {
        pos.points[winner] += table.last_trick;
        return false;
    }
    true
}

/// Play the hand to its end by the policy, `first` (if any) being the card the seat to act plays now.
pub fn play_out(table: &Table, pos: &mut Position, first: Option<Card>) {
    let mut first = first;
    loop {
        let seat = (pos.leader + pos.trick.len()) % table.seats;
        if pos.hands[seat].is_empty() {
            return;
        }
        let card = match first.take() {
            Some(card) => card,
            None => policy_card(table, legal_now(table, pos, seat), &pos.trick, seat),
        };
        if !play(table, pos, card) {
            return;
        }
    }
}

/// How a hand is scored once its tricks are played (the Python bot's `hand_scores`).
#[derive(Clone, Debug)]
pub struct Scoring {
    pub stock_game: bool,
    pub meld: [i32; MAX_SEATS],
    pub bidder: Option<usize>,
    pub bid: i32,
    pub save_by_point: bool, // a side keeps its meld by taking a counter point (else by winning a trick)
    pub two_one: bool,       // bid made +2, set -1, a set's defenders +1
}

/// Each seat's score for the hand, given the trick points and tricks it ends with (`buried`: the
/// buried cards' points, which count for the bid winner).
pub fn hand_scores(table: &Table, rules: &Scoring, points: &[i32; MAX_SEATS], won: &[i32; MAX_SEATS],
                   buried: i32) -> [f64; MAX_SEATS] {
    let n = table.seats;
    let mut scores = [0.0; MAX_SEATS];
    if rules.stock_game {
        for s in 0..n {
            scores[s] = (rules.meld[s] + points[s]) as f64;
        }
        return scores;
    }
    let bidder = rules.bidder.unwrap_or(0);
    let mut points = *points;
    points[bidder] += buried;
    let bidder_side = table.sides[bidder];
    for which in 0..n {
        let members: Vec<usize> = (0..n).filter(|&s| table.sides[s] == which).collect();
        if members.is_empty() {
            continue;
        }
        let tricks: i32 = members.iter().map(|&s| points[s]).sum();
        let saved = if rules.save_by_point { tricks > 0 } else { members.iter().map(|&s| won[s]).sum::<i32>() > 0 };
        let total = tricks + if saved { members.iter().map(|&s| rules.meld[s]).sum() } else { 0 };
        let score = if which == bidder_side {
            let made = total >= rules.bid;
            if rules.two_one { if made { 2.0 } else { -1.0 } } else if made { total as f64 } else { -rules.bid as f64 }
        } else {
            total as f64
        };
        for &s in &members {
            scores[s] = score;
        }
    }
    if rules.two_one {
        let made = scores[bidder] > 0.0;
        for s in 0..n {
            if table.sides[s] != bidder_side {
                scores[s] = if made { 0.0 } else { 1.0 };
            }
        }
    }
    scores
}

/// How good an end of the hand is for `seat`: its side's score less the other sides' mean.
pub fn utility(table: &Table, scores: &[f64; MAX_SEATS], seat: usize) -> f64 {
    let mine = table.sides[seat];
    let mut others = [None; MAX_SEATS];
    for s in 0..table.seats {
        if table.sides[s] != mine {
            others[table.sides[s]] = Some(scores[s]);
        }
    }
    let (sum, count) = others.iter().flatten().fold((0.0, 0), |(t, k), &x| (t + x, k + 1));
    scores[seat] - if count > 0 { sum / count as f64 } else { 0.0 }
}

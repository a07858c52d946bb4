//! Cards as small numbers, hands as counts.
//!
//! A card is `suit * 6 + rank`, suits in the order C D H S and ranks from the
//! ace down (A T K Q J 9): the order of the rules library's `Card.order`, so a
//! hand sorted by one is sorted by the other. Within a suit a lower number is
//! the stronger card.

pub const FACES: usize = 24;

pub type Card = u8;

pub fn suit(card: Card) -> u8 {
    card / 6
}

/// Higher is stronger within a suit (the ace 6, the nine 1), as in the rules library.
pub fn strength(card: Card) -> u8 {
    6 - card % 6
}

pub fn rank(card: Card) -> usize {
    (card % 6) as usize
}

/// The cards of one suit, as a mask of faces.
pub fn suit_mask(suit: u8) -> u32 {
    0b111111 << (suit as u32 * 6)
}

/// A multiset of cards: how many copies of each face, and the faces present as a mask.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub struct Hand {
    pub counts: [u8; FACES],
    pub mask: u32,
    pub len: u8,
}

impl Hand {
    pub fn from_cards(cards: &[Card]) -> Hand {
        let mut hand = Hand::default();
        for &c in cards {
            hand.add(c);
        }
        hand
    }

    pub fn add(&mut self, card: Card) {
        self.counts[card as usize] += 1;
        self.mask |= 1 << card;
        self.len += 1;
    }

    pub fn remove(&mut self, card: Card) {
        let i = card as usize;
        self.counts[i] -= 1;
        if self.counts[i] == 0 {
            self.mask &= !(1 << card);
        }
        self.len -= 1;
    }

    pub fn without(&self, card: Card) -> Hand {
        let mut hand = *self;
        hand.remove(card);
        hand
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The hand in 2 bits a face (at most three copies of a face: two-handed has two).
    pub fn key(&self) -> u64 {
        let mut key = 0u64;
        for (i, &n) in self.counts.iter().enumerate() {
            key |= (n.min(3) as u64) << (2 * i);
        }
        key
    }
}

/// The faces of a mask, lowest first.
pub fn faces(mut mask: u32) -> impl Iterator<Item = Card> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let card = mask.trailing_zeros() as Card;
        mask &= mask - 1;
        Some(card)
    })
}

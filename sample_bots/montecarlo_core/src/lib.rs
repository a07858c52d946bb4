//! montecarlo_core: the search core of the montecarlo sample bot, behind a small C ABI.
//!
//! The Python bot (sample_bots/montecarlo_bot.py) loads this library with
//! ctypes. Cards are numbers `suit * 6 + rank` (suits C D H S, ranks A T K Q
//! J 9). A decision travels as one array of 32-bit integers (see
//! [`decode`]), so the ABI stays a handful of functions:
//!
//! * `mc_play`: perfect-information Monte Carlo for a card to play;
//! * `mc_stock`: the same for two-handed's first phase, melds and draws modelled;
//! * `mc_endgame_new` / `mc_endgame_best` / `mc_endgame_free`: the exact
//!   search of the two-handed second phase;
//! * `mc_version`: the ABI's version, which the Python side checks;
//! * `mc_legal_plays`, `mc_winning_index`, `mc_play_out`: the rules and the
//!   playout on their own, for the tests that hold them to the rules library.

pub mod cards;
pub mod endgame;
pub mod pimc;
pub mod playout;
pub mod rules;
pub mod sample;
pub mod stock;

use std::time::{Duration, Instant};

use cards::{Card, Hand, FACES};
use endgame::Endgame;
use pimc::{Decision, PlaceKind};
use playout::{hand_scores, play_out, utility, Position, Scoring, Table, MAX_SEATS};
use rules::{Duty, MustWin};
use sample::Places;
use stock::{Choice, Play, StockDecision, StockHand, StockRules};

/// Reads a decision's integers in order; any number out of its range makes the whole decision bad.
struct Reader<'a> {
    words: &'a [i32],
    at: usize,
}

impl Reader<'_> {
    fn int(&mut self, low: i32, high: i32) -> Option<i32> {
        let x = *self.words.get(self.at)?;
        self.at += 1;
        (low..=high).contains(&x).then_some(x)
    }
    fn count(&mut self, high: i32) -> Option<usize> {
        self.int(0, high).map(|x| x as usize)
    }
    fn card(&mut self) -> Option<Card> {
        self.int(0, FACES as i32 - 1).map(|x| x as Card)
    }
    fn cards(&mut self) -> Option<Vec<Card>> {
        let n = self.count(200)?;
        (0..n).map(|_| self.card()).collect()
    }
}

fn duty(must_follow: i32, must_trump: i32, must_win: i32) -> Option<Duty> {
    let must_win = match must_win {
        0 => MustWin::Never,
        1 => MustWin::Always,
        2 => MustWin::TrumpLed,
        _ => return None,
    };
    Some(Duty { must_follow: must_follow != 0, must_trump: must_trump != 0, must_win })
}

/// A decision from its integers, in this order:
///
/// ```text
/// seats seat trump must_follow must_trump must_win(0 never, 1 always, 2 trump led) first_lead_trump last_trick
/// values[6] (A T K Q J 9)   leader tricks_played
/// stock_game bidder(-1 none) bid save_by_point two_one buried(-1 unknown, else its points)
/// sides[seats] meld[seats] points[seats] won[seats]
/// n_trick (seat card)*   n_hand card*   n_candidates card*
/// n_places, each: kind(seat number, -1 dummy, -2 buried, -3 another pile, -4 the stock) room n_fixed card*
/// n_groups, each: allowed places (bit mask) n_cards card*
/// ```
pub fn decode(words: &[i32]) -> Option<Decision> {
    let mut r = Reader { words, at: 0 };
    let seats = r.int(2, MAX_SEATS as i32)? as usize;
    let seat = r.count(seats as i32 - 1)?;
    let trump = r.int(0, 3)? as u8;
    let duty = duty(r.int(0, 1)?, r.int(0, 1)?, r.int(0, 2)?)?;
    let first_lead_trump = r.int(0, 1)? == 1;
    let last_trick = r.int(0, 1000)?;
    let mut values = [0; 6];
    for v in values.iter_mut() {
        *v = r.int(0, 1000)?;
    }
    let leader = r.count(seats as i32 - 1)?;
    let tricks_played = r.count(100)?;
    let stock_game = r.int(0, 1)? == 1;
    let bidder = r.int(-1, seats as i32 - 1)?;
    let bid = r.int(0, 1_000_000)?;
    let save_by_point = r.int(0, 1)? == 1;
    let two_one = r.int(0, 1)? == 1;
    let buried = r.int(-1, 1_000_000)?;
    let mut sides = [0; MAX_SEATS];
    let mut meld = [0; MAX_SEATS];
    let mut points = [0; MAX_SEATS];
    let mut won = [0; MAX_SEATS];
    for side in sides.iter_mut().take(seats) {
        *side = r.count(seats as i32 - 1)?;
    }
    for list in [&mut meld, &mut points, &mut won] {
        for s in 0..seats {
            list[s] = r.int(-1_000_000, 1_000_000)?;
        }
    }
    let n_trick = r.count(seats as i32 - 1)?;
    let mut trick = Vec::new();
    for _ in 0..n_trick {
        trick.push((r.count(seats as i32 - 1)?, r.card()?));
    }
    let hand = r.cards()?;
    let candidates = r.cards()?;
    let (kinds, places) = read_places(&mut r, seats)?;
    if r.at != words.len() {
        return None;
    }
    let table = Table { seats, trump, duty, values, last_trick, first_lead_trump, sides };
    let scoring = Scoring {
        stock_game, meld, bidder: (bidder >= 0).then_some(bidder as usize), bid, save_by_point, two_one,
    };
    let mut hands = [Hand::default(); MAX_SEATS];
    hands[seat] = Hand::from_cards(&hand);
    let start = Position { hands, trick, leader, tricks_played, points, won, dummy: Vec::new() };
    let buried = (buried >= 0).then_some(buried);
    Some(Decision { table, scoring, seat, start, kinds, places, buried, candidates })
}

/// The version of this ABI: the Python side refuses a library of another.
pub const ABI_VERSION: i32 = 4;

#[no_mangle]
pub extern "C" fn mc_version() -> i32 {
    ABI_VERSION
}

/// The places of the unseen cards: `n_places`, each `kind room n_fixed card*` (kind: a seat, -1 dummy,
/// -2 buried, -3 another pile, -4 the stock), then `n_groups`, each `allowed n_cards card*`.
fn read_places(r: &mut Reader, seats: usize) -> Option<(Vec<PlaceKind>, Places)> {
    let n_places = r.count(31)?;
    let mut kinds = Vec::new();
    let mut places = Places { fixed: Vec::new(), room: Vec::new(), groups: Vec::new() };
    for _ in 0..n_places {
        kinds.push(match r.int(-4, seats as i32 - 1)? {
            -1 => PlaceKind::Dummy,
            -2 => PlaceKind::Buried,
            -3 => PlaceKind::Other,
            -4 => PlaceKind::Stock,
            s => PlaceKind::Seat(s as usize),
        });
        places.room.push(r.count(200)?);
        places.fixed.push(r.cards()?);
    }
    let n_groups = r.count(200)?;
    for _ in 0..n_groups {
        let allowed = r.int(1, (1 << n_places) - 1)? as u32;
        places.groups.push((allowed, r.cards()?));
    }
    Some((kinds, places))
}

/// A first-phase two-handed decision from its integers, in this order:
///
/// ```text
/// seat trump must_win(phase two: 0 never, 1 always, 2 trump led) last_trick values[6] (A T K Q J 9)
/// meld_values[9] (run royal marriage dix aces kings queens jacks pinochle; 0: none) meld_before_draw
/// dix_with_other_meld face_down_to_winner (Hoyle's last stock card) leader led(-1 none) points[2] meld[2] scored[2] (meld kinds, stock.rs) dixes[2]
/// n_hand card*  n_board card* (this seat's table)  n_board card* (the other's)  turnup(-1 none)
/// n_candidates (card how)*, how: 0 from the hand, 1 from the table, 2 take the turn-up (card: any),
///                             3 take the face-down card (the last stock card; card: any)
/// the places, as for decode
/// ```
pub fn decode_stock(words: &[i32]) -> Option<StockDecision> {
    let mut r = Reader { words, at: 0 };
    let seat = r.count(1)?;
    let trump = r.int(0, 3)? as u8;
    let duty = duty(1, 1, r.int(0, 2)?)?;
    let last_trick = r.int(0, 1000)?;
    let mut values = [0; 6];
    for v in values.iter_mut() {
        *v = r.int(0, 1000)?;
    }
    let mut meld_values = [0; 9];
    for v in meld_values.iter_mut() {
        *v = r.int(0, 100_000)?;
    }
    let meld_before_draw = r.int(0, 1)? == 1;
    let dix_with_other_meld = r.int(0, 1)? == 1;
    let face_down_to_winner = r.int(0, 1)? == 1;
    let leader = r.count(1)?;
    let led = r.int(-1, FACES as i32 - 1)?;
    let pair = |r: &mut Reader, high: i32| -> Option<[i32; 2]> { Some([r.int(0, high)?, r.int(0, high)?]) };
    let points = pair(&mut r, 100_000)?;
    let meld = pair(&mut r, 100_000)?;
    let scored = pair(&mut r, (1 << stock::KINDS) - 1)?;
    let dixes = pair(&mut r, 2)?;
    let hand = Hand::from_cards(&r.cards()?);
    let mine = Hand::from_cards(&r.cards()?);
    let theirs = Hand::from_cards(&r.cards()?);
    let turnup = r.int(-1, FACES as i32 - 1)?;
    let n = r.count(48)?;
    let mut candidates = Vec::new();
    for _ in 0..n {
        let card = r.card()?;
        candidates.push(match r.int(0, 3)? {
            0 => Choice::Play(Play { card, from_table: false }),
            1 => Choice::Play(Play { card, from_table: true }),
            2 => Choice::TakeTurnup,
            _ => Choice::TakeFaceDown,
        });
    }
    let (kinds, places) = read_places(&mut r, 2)?;
    if r.at != words.len() {
        return None;
    }
    let mut sides = [0; MAX_SEATS];
    sides[1] = 1;
    let table = Table { seats: 2, trump, duty, values, last_trick, first_lead_trump: false, sides };
    let rules = StockRules { table, meld_values, meld_before_draw, dix_with_other_meld, face_down_to_winner };
    let mut hands = [Hand::default(); 2];
    hands[seat] = hand;
    let mut boards = [Hand::default(); 2];
    boards[seat] = mine;
    boards[1 - seat] = theirs;
    let start = StockHand {
        hands, boards, stock: Vec::new(), turnup: (turnup >= 0).then_some(turnup as Card), leader,
        led: (led >= 0).then_some(led as Card), points, meld,
        scored: [scored[0] as u16, scored[1] as u16], dixes: [dixes[0] as u8, dixes[1] as u8],
    };
    Some(StockDecision { rules, seat, start, kinds, places, candidates })
}

fn deadline(seconds: f64) -> Option<Instant> {
    (seconds > 0.0).then(|| Instant::now() + Duration::from_secs_f64(seconds.min(3600.0)))
}

unsafe fn slice<'a, T>(ptr: *const T, len: usize) -> &'a [T] {
    if len == 0 { &[] } else { std::slice::from_raw_parts(ptr, len) }
}

/// Perfect-information Monte Carlo for the decision in `words`: `worlds` worlds (0: as many as fit in
/// `seconds`; with both, whichever ends first), seeded by `seed`. Writes each candidate's mean result
/// for the seat's side to `means`; returns the worlds done, or -1 if the decision cannot be read
/// (-2 if no world agreeing with it was found).
///
/// # Safety
/// `words` holds `len` integers; `means` has room for one number a candidate.
#[no_mangle]
pub unsafe extern "C" fn mc_play(words: *const i32, len: usize, seed: u64, worlds: i64, seconds: f64,
                                 means: *mut f64) -> i64 {
    let d = match decode(slice(words, len)) {
        Some(x) => x,
        None => return -1,
    };
    let (totals, done) = pimc::search(&d, seed, worlds.max(0) as usize, deadline(seconds));
    write_means(&totals, done, means)
}

/// `mc_play` for a first-phase two-handed decision (`decode_stock`'s integers): each candidate's mean
/// margin for the seat.
///
/// # Safety
/// As `mc_play`.
#[no_mangle]
pub unsafe extern "C" fn mc_stock(words: *const i32, len: usize, seed: u64, worlds: i64, seconds: f64,
                                  means: *mut f64) -> i64 {
    let d = match decode_stock(slice(words, len)) {
        Some(x) => x,
        None => return -1,
    };
    let (totals, done) = stock::search(&d, seed, worlds.max(0) as usize, deadline(seconds));
    write_means(&totals, done, means)
}

/// A search's answer to its caller: each candidate's total over the `done` worlds as a mean in `means`,
/// and the worlds done; -2 if there were none.
///
/// # Safety
/// `means` has room for one number a candidate.
unsafe fn write_means(totals: &[f64], done: usize, means: *mut f64) -> i64 {
    if done == 0 {
        return -2;
    }
    for (i, t) in totals.iter().enumerate() {
        *means.add(i) = t / done as f64;
    }
    done as i64
}

/// Play the decision in `words` out by the policy, with every hidden card placed by its `fixed`
/// cards (no room left anywhere): the first candidate, if any, is the card played now. Writes each
/// seat's trick points and tricks to `points` and `won` (room for `seats` each) and returns the
/// seat's result ×1000, rounded; `i64::MIN` if the decision cannot be read.
///
/// # Safety
/// `words` holds `len` integers; `points` and `won` have room for the seats.
#[no_mangle]
pub unsafe extern "C" fn mc_play_out(words: *const i32, len: usize, points: *mut i32, won: *mut i32) -> i64 {
    let d = match decode(slice(words, len)) {
        Some(x) => x,
        None => return i64::MIN,
    };
    let mut pos = d.start.clone();
    let mut buried = d.buried.unwrap_or(0);
    for (p, cards) in d.places.fixed.iter().enumerate() {
        match d.kinds[p] {
            PlaceKind::Seat(s) => pos.hands[s] = Hand::from_cards(cards),
            PlaceKind::Dummy => pos.dummy.extend(cards),
            PlaceKind::Buried if d.buried.is_none() => buried = cards.iter().map(|&c| d.table.value(c)).sum(),
            _ => {}
        }
    }
    play_out(&d.table, &mut pos, d.candidates.first().copied());
    for s in 0..d.table.seats {
        *points.add(s) = pos.points[s];
        *won.add(s) = pos.won[s];
    }
    let scores = hand_scores(&d.table, &d.scoring, &pos.points, &pos.won, buried);
    (utility(&d.table, &scores, d.seat) * 1000.0).round() as i64
}

/// The faces `hand` may play to the trick `played`, as a bit mask (bit n: card n).
///
/// # Safety
/// The pointers hold the lengths given.
#[no_mangle]
pub unsafe extern "C" fn mc_legal_plays(hand: *const u8, n_hand: usize, played: *const u8, n_played: usize,
                                        trump: i32, must_follow: i32, must_trump: i32, must_win: i32) -> u32 {
    let duty = match duty(must_follow, must_trump, must_win) {
        Some(x) => x,
        None => return 0,
    };
    let hand = Hand::from_cards(slice(hand, n_hand));
    rules::legal_plays(&hand, slice(played, n_played), trump as u8, duty)
}

/// The index of the card winning the trick `played` so far.
///
/// # Safety
/// `played` holds `n` cards, at least one.
#[no_mangle]
pub unsafe extern "C" fn mc_winning_index(played: *const u8, n: usize, trump: i32) -> i32 {
    rules::winning_index(slice(played, n), trump as u8) as i32
}

/// A search of the two-handed second phase, kept for a whole hand; free it with `mc_endgame_free`.
///
/// # Safety
/// `values` holds six numbers (A T K Q J 9).
#[no_mangle]
pub unsafe extern "C" fn mc_endgame_new(trump: i32, must_follow: i32, must_trump: i32, must_win: i32,
                                        values: *const i32, last_trick: i32) -> *mut Endgame {
    let duty = match duty(must_follow, must_trump, must_win) {
        Some(x) => x,
        None => return std::ptr::null_mut(),
    };
    let mut v = [0; 6];
    v.copy_from_slice(slice(values, 6));
    Box::into_raw(Box::new(Endgame::new(trump as u8, duty, v, last_trick)))
}

/// The best card holding `mine` against `theirs`, to lead (`led` -1) or to follow `led`: writes it and
/// its value (this seat's margin of the rest of the hand) and returns 0; returns 1 if the search met
/// `budget` positions or `seconds` (0: no limit) first.
///
/// # Safety
/// `search` comes from `mc_endgame_new`; the hands hold the lengths given.
#[no_mangle]
pub unsafe extern "C" fn mc_endgame_best(search: *mut Endgame, mine: *const u8, n_mine: usize, theirs: *const u8,
                                         n_theirs: usize, led: i32, budget: i64, seconds: f64,
                                         card: *mut i32, value: *mut i32) -> i32 {
    let search = &mut *search;
    let mine = Hand::from_cards(slice(mine, n_mine));
    let theirs = Hand::from_cards(slice(theirs, n_theirs));
    let led = (0..FACES as i32).contains(&led).then_some(led as Card);
    match search.best(&mine, &theirs, led, budget.max(0) as u64, deadline(seconds)) {
        Ok((c, v)) => {
            *card = c as i32;
            *value = v;
            0
        }
        Err(_) => 1,
    }
}

/// # Safety
/// `search` comes from `mc_endgame_new` and is not used again.
#[no_mangle]
pub unsafe extern "C" fn mc_endgame_free(search: *mut Endgame) {
    if !search.is_null() {
        drop(Box::from_raw(search));
    }
}

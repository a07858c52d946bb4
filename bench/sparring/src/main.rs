//! sparring: a heuristic, card-counting pinochle bot for pinochle-arena.
//!
//! Speaks protocol 3 (with `want state`), plays every preset. Bidding from
//! meld plus an estimate of trick points; trump by meld and suit strength;
//! greedy melding; heuristic card play with card counting; in the two-handed
//! games with a stock, an exact alpha-beta search of the second phase.
//! Every reply is one of the offered tokens; on any doubt or internal
//! error, the first offered token.

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

// ------------------------------------------------------------------ cards

const NC: usize = 24; // rank-suit slots (single and double deck alike)
type Counts = [u8; NC];

fn rank(c: usize) -> usize {
    c % 6
}
fn suit(c: usize) -> usize {
    c / 6
}
/// Strength within a suit: ace 5 .. nine 0.
fn strength(c: usize) -> i32 {
    5 - rank(c) as i32
}
fn card(s: usize, r: usize) -> usize {
    s * 6 + r
}

fn parse_card(t: &str) -> Option<usize> {
    let b = t.as_bytes();
    if b.len() != 2 {
        return None;
    }
    let r = match b[0].to_ascii_uppercase() {
        b'A' => 0,
        b'T' => 1,
        b'K' => 2,
        b'Q' => 3,
        b'J' => 4,
        b'9' => 5,
        _ => return None,
    };
    let s = parse_suit(b[1] as char)?;
    Some(card(s, r))
}
fn parse_suit(ch: char) -> Option<usize> {
    match ch.to_ascii_uppercase() {
        'C' => Some(0),
        'D' => Some(1),
        'H' => Some(2),
        'S' => Some(3),
        _ => None,
    }
}
fn card_name(c: usize) -> String {
    let r = ['A', 'T', 'K', 'Q', 'J', '9'][rank(c)];
    let s = ['C', 'D', 'H', 'S'][suit(c)];
    format!("{r}{s}")
}
fn parse_cards(v: &str) -> Counts {
    let mut out = [0u8; NC];
    if v == "-" {
        return out;
    }
    for t in v.split(',') {
        let name = t.split(':').next().unwrap_or("");
        let n: u8 = t.split(':').nth(1).and_then(|x| x.parse().ok()).unwrap_or(1);
        if let Some(c) = parse_card(name) {
            out[c] = out[c].saturating_add(n);
        }
    }
    out
}
fn total(h: &Counts) -> i32 {
    h.iter().map(|&x| x as i32).sum()
}
/// A later card `x` beats the best card so far `w`.
fn beats(x: usize, w: usize, trump: Option<usize>) -> bool {
    if suit(x) == suit(w) {
        return rank(x) < rank(w);
    }
    Some(suit(x)) == trump
}

// ------------------------------------------------------------------ rules

#[derive(Clone, Debug)]
struct Rules {
    pts: [i32; 6],
    last: i32,
    copies: u8,
    ranks: usize,
    target: i32,
    melds: HashMap<String, Vec<Option<i32>>>,
    duty_suit: bool,
    duty_trump: bool,
    duty_head: bool,
    duty_head_trump: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            pts: [11, 10, 4, 3, 2, 0],
            last: 10,
            copies: 2,
            ranks: 6,
            target: 1000,
            melds: HashMap::new(),
            duty_suit: true,
            duty_trump: true,
            duty_head: true,
            duty_head_trump: true,
        }
    }
}

impl Rules {
    fn meld_table(&self, kind: &str, n: usize) -> i32 {
        if n == 0 {
            return 0;
        }
        let Some(v) = self.melds.get(kind) else { return 0 };
        if v.is_empty() {
            return 0;
        }
        if n <= v.len() {
            if let Some(x) = v[n - 1] {
                return x;
            }
        }
        // that many is no meld of its own: the largest listed part, then the rest
        let mut m = n.min(v.len());
        while m > 0 && v[m - 1].is_none() {
            m -= 1;
        }
        if m == 0 {
            return 0;
        }
        v[m - 1].unwrap_or(0) + self.meld_table(kind, n - m)
    }
    /// Counter points in the whole deck plus the last trick.
    fn trick_total(&self) -> i32 {
        let per: i32 = (0..self.ranks).map(|r| self.pts[r]).sum();
        per * 4 * self.copies as i32 + self.last
    }
}

/// The meld of a set of cards, each card once per kind (bidding games' way;
/// an estimate for the two-handed games).
fn meld_value(h: &Counts, trump: usize, r: &Rules) -> i32 {
    let t = trump;
    let run = (0..5).map(|k| h[card(t, k)]).min().unwrap_or(0) as usize;
    let mut v = r.meld_table("run", run);
    let kt = h[card(t, 2)] as usize - run;
    let qt = h[card(t, 3)] as usize - run;
    if r.ranks == 6 {
        v += r.meld_table("dix", h[card(t, 5)] as usize);
    }
    for name_rank in [("aces", 0usize), ("jacks", 4)] {
        let n = (0..4).map(|s| h[card(s, name_rank.1)]).min().unwrap_or(0) as usize;
        v += r.meld_table(name_rank.0, n);
    }
    v += r.meld_table("pinochle", h[card(1, 4)].min(h[card(3, 3)]) as usize);
    // kings, queens, marriages, with the priced round house as an alternative
    let mut k = [0usize; 4];
    let mut q = [0usize; 4];
    for s in 0..4 {
        k[s] = if s == t { kt } else { h[card(s, 2)] as usize };
        q[s] = if s == t { qt } else { h[card(s, 3)] as usize };
    }
    let kings_all = (0..4).map(|s| h[card(s, 2)] as usize).min().unwrap_or(0);
    let queens_all = (0..4).map(|s| h[card(s, 3)] as usize).min().unwrap_or(0);
    let kq = |k: &[usize; 4], q: &[usize; 4], ka: usize, qa: usize| -> i32 {
        let mut v = r.meld_table("kings", ka) + r.meld_table("queens", qa);
        for s in 0..4 {
            let m = k[s].min(q[s]);
            v += if s == t { r.meld_table("royal", m) } else { r.meld_table("marriage", m) };
        }
        v
    };
    let mut best = kq(&k, &q, kings_all, queens_all);
    let rh_priced = r.melds.contains_key("roundhouse") && r.copies >= 4;
    if rh_priced {
        let rh = (0..4).map(|s| k[s].min(q[s])).min().unwrap_or(0);
        for n in 1..=rh {
            let mut k2 = k;
            let mut q2 = q;
            for s in 0..4 {
                k2[s] -= n;
                q2[s] -= n;
            }
            let ka = (0..4).map(|s| k2[s] + if s == t { run } else { 0 }).min().unwrap_or(0);
            let qa = (0..4).map(|s| q2[s] + if s == t { run } else { 0 }).min().unwrap_or(0);
            let alt = r.meld_table("roundhouse", n) + kq(&k2, &q2, ka, qa);
            best = best.max(alt);
        }
    }
    v + best
}

// ------------------------------------------------------------------ the game model

#[derive(Default)]
struct Game {
    seat: usize,
    n: usize,
    variant: String,
    opts: HashMap<String, String>,
    rules: Rules,
    has_stock: bool,
    // from the state line (and events)
    trump: Option<usize>,
    turnup: Option<usize>,
    dealer: usize,
    phase: u8,
    hand: Counts,
    tables: Vec<Counts>,
    leader: Option<usize>,
    trick: Vec<usize>,
    held: Vec<i32>,
    stock: i32,
    bid: Option<(usize, i32)>,
    partner: Option<usize>,
    meld: Vec<i32>,
    tricks: Vec<i32>,
    totals: Vec<i32>,
    target: i32,
    unseen: Counts,
    won: Vec<i32>,
    known: Vec<Counts>,
    bids: Vec<(usize, Option<i32>)>,
    // from events
    ev_trick: Vec<(usize, usize)>,
    voids: Vec<[bool; 4]>,
    strict: bool,
    think_ms: u64,
}

impl Game {
    fn side(&self, s: usize) -> usize {
        match self.n {
            4 => s % 2,
            5 => {
                if let Some((b, _)) = self.bid {
                    if s == b || Some(s) == self.partner {
                        return 100;
                    }
                    200
                } else {
                    s
                }
            }
            _ => s,
        }
    }
    fn same_side(&self, a: usize, b: usize) -> bool {
        a == b || self.side(a) == self.side(b)
    }
    fn pts(&self, c: usize) -> i32 {
        self.rules.pts[rank(c)]
    }
    /// Heuristic scale: 1 for the classic 250-point hand.
    fn sc(&self) -> f64 {
        let t = self.rules.trick_total() as f64;
        if self.has_stock {
            (t / 250.0).max(0.01)
        } else {
            (t / 250.0).max(0.01)
        }
    }

    fn on_game(&mut self, w: &[&str]) {
        let think = self.think_ms;
        *self = Game::default();
        self.think_ms = think;
        self.variant = w.get(2).unwrap_or(&"").to_string();
        self.seat = w.get(3).and_then(|x| x.parse().ok()).unwrap_or(0);
        self.n = w.get(4).and_then(|x| x.parse().ok()).unwrap_or(2).max(2);
        for kv in w.iter().skip(5) {
            if let Some((k, v)) = kv.split_once('=') {
                self.opts.insert(k.to_string(), v.to_string());
            }
        }
        self.has_stock = matches!(self.variant.as_str(), "two-handed" | "two-handed-hoyle" | "two-handed-150");
        self.reset_hand();
        // defaults from the options, before the rule lines
        if let Some(c) = self.opts.get("counting") {
            let nums: Vec<i32> = c.split('-').filter_map(|x| x.parse().ok()).collect();
            let mut p = [0; 6];
            for (i, x) in nums.iter().enumerate().take(6) {
                p[i] = *x;
            }
            self.rules.pts = p;
        }
        if let Some(v) = self.opts.get("last-trick").and_then(|x| x.parse().ok()) {
            self.rules.last = v;
        }
        if let Some(v) = self.opts.get("target").and_then(|x| x.parse().ok()) {
            self.rules.target = v;
            self.target = v;
        }
    }

    fn reset_hand(&mut self) {
        let n = self.n;
        self.tables = vec![[0; NC]; n];
        self.known = vec![[0; NC]; n];
        self.held = vec![0; n];
        self.meld = vec![0; n];
        self.tricks = vec![0; n];
        if self.totals.len() != n {
            self.totals = vec![0; n];
        }
        self.won = vec![0; n];
        self.voids = vec![[false; 4]; n];
        self.ev_trick.clear();
        self.trick.clear();
        self.leader = None;
        self.bids.clear();
        self.bid = None;
        self.partner = None;
        self.phase = 1;
        self.strict = !self.has_stock;
        if !self.has_stock {
            self.trump = None;
        }
    }

    fn on_rule(&mut self, w: &[&str]) {
        match *w.get(1).unwrap_or(&"") {
            "ranks" => self.rules.ranks = w.len() - 2,
            "copies" => self.rules.copies = w.get(2).and_then(|x| x.parse().ok()).unwrap_or(2),
            "points" => {
                for kv in &w[2..] {
                    if let Some((r, v)) = kv.split_once('=') {
                        let ri = match r {
                            "A" => 0,
                            "T" => 1,
                            "K" => 2,
                            "Q" => 3,
                            "J" => 4,
                            "9" => 5,
                            _ => continue,
                        };
                        self.rules.pts[ri] = v.parse().unwrap_or(0);
                    }
                }
            }
            "last-trick" => self.rules.last = w.get(2).and_then(|x| x.parse().ok()).unwrap_or(0),
            "target" => {
                self.rules.target = w.get(2).and_then(|x| x.parse().ok()).unwrap_or(1000);
                self.target = self.rules.target;
            }
            "meld" => {
                if let Some(kind) = w.get(2) {
                    let vals = w[3..].iter().map(|x| x.parse::<i32>().ok()).collect();
                    self.rules.melds.insert(kind.to_string(), vals);
                }
            }
            "follow" => {
                if w.get(2) == Some(&"2") {
                    self.rules.duty_suit = w.contains(&"suit");
                    self.rules.duty_trump = w.contains(&"trump");
                    self.rules.duty_head = w.contains(&"head");
                    self.rules.duty_head_trump = w.contains(&"head") || w.contains(&"head-if-trump-led");
                }
            }
            _ => {}
        }
    }

    fn on_state(&mut self, w: &[&str]) {
        let per = |v: &str| -> Vec<i32> { v.split('/').map(|x| x.parse().unwrap_or(0)).collect() };
        for kv in &w[1..] {
            let Some((k, v)) = kv.split_once('=') else { continue };
            match k {
                "dealer" => self.dealer = v.parse().unwrap_or(0),
                "phase" => self.phase = v.parse().unwrap_or(1),
                "trump" => self.trump = v.chars().next().and_then(parse_suit),
                "turnup" => self.turnup = parse_card(v),
                "cards" => self.hand = parse_cards(v),
                "tables" => self.tables = v.split('/').map(parse_cards).collect(),
                "leader" => self.leader = v.parse().ok(),
                "trick" => {
                    self.trick = if v == "-" { vec![] } else { v.split(',').filter_map(parse_card).collect() }
                }
                "held" => self.held = per(v),
                "stock" => self.stock = v.parse().unwrap_or(0),
                "bid" => {
                    self.bid = v.split_once(':').and_then(|(s, a)| Some((s.parse().ok()?, a.parse().ok()?)))
                }
                "partner" => {
                    if let Ok(p) = v.parse() {
                        self.partner = Some(p)
                    }
                }
                "meld" => self.meld = per(v),
                "tricks" => self.tricks = per(v),
                "totals" => self.totals = per(v),
                "unseen" => self.unseen = parse_cards(v),
                "target" => self.target = v.parse().unwrap_or(self.target),
                "won" => self.won = per(v),
                "known" => self.known = v.split('/').map(parse_cards).collect(),
                "bids" => {
                    self.bids = if v == "-" {
                        vec![]
                    } else {
                        v.split(',')
                            .filter_map(|e| {
                                let (s, a) = e.split_once(':')?;
                                Some((s.parse().ok()?, a.parse().ok()))
                            })
                            .collect()
                    }
                }
                _ => {}
            }
        }
        if self.has_stock && self.phase == 2 {
            self.strict = true;
        }
        let n = self.n;
        for v in [&mut self.tables, &mut self.known] {
            v.resize(n, [0; NC]);
        }
        for v in [&mut self.held, &mut self.meld, &mut self.tricks, &mut self.totals, &mut self.won] {
            v.resize(n, 0);
        }
    }

    fn on_event(&mut self, w: &[&str]) {
        match w[0] {
            "deal" => {
                self.reset_hand();
                self.dealer = w.get(2).and_then(|x| x.parse().ok()).unwrap_or(0);
                self.turnup = w.get(3).and_then(|x| parse_card(x));
                if self.has_stock {
                    self.trump = self.turnup.map(suit);
                }
                let mut h = [0; NC];
                for t in &w[4..] {
                    if let Some(c) = parse_card(t) {
                        h[c] += 1;
                    }
                }
                self.hand = h;
            }
            "phase2" => {
                self.strict = true;
                self.phase = 2;
            }
            "play" => {
                let seat: usize = w.get(1).and_then(|x| x.parse().ok()).unwrap_or(0);
                let tok = w.get(2).unwrap_or(&"");
                let c = parse_card(tok.trim_start_matches("table:").split('@').next().unwrap_or(""));
                if let Some(c) = c {
                    if let Some(&(_, lead)) = self.ev_trick.first() {
                        if self.strict && seat < self.voids.len() {
                            if suit(c) != suit(lead) {
                                self.voids[seat][suit(lead)] = true;
                                if let Some(t) = self.trump {
                                    if suit(c) != t {
                                        self.voids[seat][t] = true;
                                    }
                                }
                            }
                        }
                    }
                    self.ev_trick.push((seat, c));
                }
            }
            "trick" => self.ev_trick.clear(),
            "trump" => self.trump = w.get(2).and_then(|x| x.chars().next()).and_then(parse_suit),
            "partner" => {
                if let Some(p) = w.get(2).and_then(|x| x.parse().ok()) {
                    self.partner = Some(p);
                }
            }
            "target" => {
                if let Some(t) = w.get(1).and_then(|x| x.parse().ok()) {
                    self.target = t;
                }
            }
            "handend" => {
                // totals follow the word "totals"
                if let Some(i) = w.iter().position(|x| *x == "totals") {
                    self.totals = w[i + 1..].iter().map(|x| x.parse().unwrap_or(0)).collect();
                }
            }
            _ => {}
        }
    }
}

// ------------------------------------------------------------------ requests

struct Offer {
    tok: String,  // as listed (bids: a single bid)
    card: Option<usize>,
    table: bool,
    kind: String, // meld kind / action word
    pts: i32,     // meld points
}

fn first_legal(tokens: &[&str]) -> String {
    let t = tokens.first().copied().unwrap_or("pass");
    match t.split_once("..") {
        Some((low, _)) => low.to_string(),
        None => t.to_string(),
    }
}

/// Expand the offered tokens, bid ranges lazily (only the bids we may use).
fn parse_offers(tokens: &[&str]) -> (Vec<Offer>, Vec<i32>) {
    let mut offers = Vec::new();
    let mut bids = Vec::new();
    for &t in tokens {
        if let Some(rest) = t.strip_prefix("bid:") {
            if let Some((a, b)) = rest.split_once("..") {
                let (b, step) = match b.split_once('/') {
                    Some((b, s)) => (b, s.parse::<i32>().unwrap_or(1)),
                    None => (b, 1),
                };
                let (a, b): (i32, i32) = (a.parse().unwrap_or(0), b.parse().unwrap_or(0));
                let mut x = a;
                let mut k = 0;
                while x <= b && k < 2000 {
                    bids.push(x);
                    x += step.max(1);
                    k += 1;
                }
            } else if let Ok(x) = rest.parse() {
                bids.push(x);
            }
            continue;
        }
        let (body, pts) = match t.rsplit_once('=') {
            Some((b, p)) => (b, p.parse().unwrap_or(0)),
            None => (t, 0),
        };
        let mut o = Offer { tok: t.to_string(), card: None, table: false, kind: String::new(), pts };
        if let Some(c) = parse_card(body) {
            o.card = Some(c);
        } else if let Some(rest) = body.strip_prefix("table:") {
            o.card = parse_card(rest.split('@').next().unwrap_or(""));
            o.table = true;
        } else if let Some((k, v)) = body.split_once(':') {
            o.kind = k.to_string();
            if matches!(k, "give" | "bury" | "call") {
                o.card = parse_card(v);
            } else if k == "trump" {
                o.card = v.chars().next().and_then(parse_suit);
            }
        } else {
            o.kind = body.to_string();
        }
        offers.push(o);
    }
    bids.sort();
    bids.dedup();
    (offers, bids)
}

// ------------------------------------------------------------------ bidding

/// Estimated points of a hand with this trump: meld plus a share of the tricks.
fn estimate(g: &Game, h: &Counts, t: usize) -> f64 {
    let r = &g.rules;
    let meld = meld_value(h, t, r) as f64;
    let tt = r.trick_total() as f64;
    let ncards = total(h).max(1) as f64;
    let trumps: f64 = (0..6).map(|k| h[card(t, k)] as f64).sum();
    let avg_tr = ncards / 4.0;
    let mut aces = 0.0;
    let mut tens_backed = 0.0;
    for s in 0..4 {
        if s == t {
            continue;
        }
        aces += h[card(s, 0)] as f64;
        if h[card(s, 0)] > 0 {
            tens_backed += h[card(s, 1)].min(h[card(s, 0)]) as f64;
        }
    }
    let top_tr = h[card(t, 0)] as f64 + 0.6 * h[card(t, 1)] as f64;
    let share = match (g.n, g.variant.as_str()) {
        (2, _) => 0.40,
        (3, _) => 0.27,
        (4, _) => 0.42, // the side's, with the partner
        _ => 0.40,     // five: bidder and called partner
    };
    let per_card = 1.0 / (4.0 * r.copies as f64); // deck fraction per card kind
    let mut frac = share
        + (trumps - avg_tr).max(-2.0) * 0.035 * (24.0 * per_card * 2.0 / 2.0)
        + aces * 0.025
        + tens_backed * 0.01
        + top_tr * 0.02;
    frac = frac.clamp(0.15, 0.85);
    let mut v = meld + frac * tt;
    // partner's meld and the kitty are worth something too
    match g.n {
        4 | 5 => v += 0.10 * g.opts.get("min-bid").and_then(|x| x.parse::<f64>().ok()).unwrap_or(25.0),
        _ => v += 0.04 * tt,
    }
    v
}

fn best_trump(g: &Game, h: &Counts) -> (usize, f64) {
    let mut best = (0, f64::MIN);
    for s in 0..4 {
        let e = estimate(g, h, s);
        if e > best.1 {
            best = (s, e);
        }
    }
    best
}

fn choose_bid(g: &Game, offers: &[Offer], bids: &[i32]) -> Option<String> {
    let can_pass = offers.iter().any(|o| o.kind == "pass");
    if bids.is_empty() {
        return None;
    }
    let lowest = bids[0];
    if !can_pass {
        return Some(format!("bid:{lowest}"));
    }
    let (_, est) = best_trump(g, &g.hand);
    let tt = g.rules.trick_total() as f64;
    let margin = if g.n == 3 { 0.10 * tt } else { 0.06 * tt };
    let mut limit = est - margin;
    // the partner holds the bid: raise only with much more
    if g.n == 4 {
        let high = g.bids.iter().filter(|b| b.1.is_some()).last();
        if let Some((s, _)) = high {
            if g.same_side(*s, g.seat) && *s != g.seat {
                limit -= 0.15 * tt;
            }
        }
    }
    // a seat that is far behind near the end may gamble a little
    let me = g.side_total(g.seat);
    let best_other = g.best_other_total();
    if best_other as f64 >= 0.85 * g.target as f64 && me < best_other {
        limit += 0.05 * tt;
    }
    eprintln!("bid: estimate {est:.1} limit {limit:.1} lowest {lowest}");
    if (lowest as f64) <= limit {
        Some(format!("bid:{lowest}"))
    } else {
        Some("pass".to_string())
    }
}

impl Game {
    fn side_total(&self, s: usize) -> i32 {
        *self.totals.get(s).unwrap_or(&0)
    }
    fn best_other_total(&self) -> i32 {
        (0..self.n)
            .filter(|&s| !self.same_side(s, self.seat))
            .map(|s| self.side_total(s))
            .max()
            .unwrap_or(0)
    }
}

fn meld_loss(g: &Game, h: &Counts, c: usize) -> f64 {
    let Some(t) = g.trump else { return 0.0 };
    if h[c] == 0 {
        return 0.0;
    }
    let mut h2 = *h;
    h2[c] -= 1;
    (meld_value(h, t, &g.rules) - meld_value(&h2, t, &g.rules)) as f64
}

// ------------------------------------------------------------------ card play heuristics

impl Game {
    fn is_trump(&self, c: usize) -> bool {
        Some(suit(c)) == self.trump
    }
    /// Unseen cards of a suit stronger than c.
    fn unseen_higher(&self, c: usize) -> i32 {
        (0..rank(c)).map(|r| self.unseen[card(suit(c), r)] as i32).sum()
    }
    fn unseen_in_suit(&self, s: usize) -> i32 {
        (0..6).map(|r| self.unseen[card(s, r)] as i32).sum()
    }
    /// Seats that play after me in the current trick.
    fn later_seats(&self) -> Vec<usize> {
        let played = self.trick.len();
        let after = self.n - 1 - played;
        (1..=after).map(|i| (self.seat + i) % self.n).collect()
    }
    fn trick_seats(&self) -> Vec<(usize, usize)> {
        let l = self.leader.unwrap_or(self.seat);
        self.trick.iter().enumerate().map(|(i, &c)| ((l + i) % self.n, c)).collect()
    }
    /// Could a later seat beat card `w` (winning the trick so far)?
    fn threatened(&self, w: usize, later: &[usize]) -> bool {
        let t = self.trump;
        for &s in later {
            if self.same_side(s, self.seat) {
                continue;
            }
            let known = &self.known[s.min(self.known.len() - 1)];
            let void_lead = self.voids[s][suit(w)];
            if !void_lead && self.unseen_higher(w) > 0 {
                return true;
            }
            let _ = known;
            if let Some(t) = t {
                if suit(w) != t && self.unseen_in_suit(t) > 0 && !self.voids[s][t] {
                    // it can trump only when void in the suit
                    let void_likely = void_lead || self.unseen_in_suit(suit(w)) < later.len() as i32 + 1;
                    if void_likely {
                        return true;
                    }
                }
            }
        }
        false
    }
    /// What a card is worth keeping, in classic points.
    fn keep_value(&self, c: usize) -> f64 {
        let mut v = 0.0;
        if self.is_trump(c) {
            v += 8.0 + 2.5 * strength(c) as f64;
        } else if rank(c) == 0 {
            v += 5.0;
        } else if rank(c) == 1 {
            v += 2.0;
        }
        v
    }
    fn pv(&self, c: usize) -> f64 {
        // counter points normalised to the classic scale
        self.pts(c) as f64 / self.sc()
    }

    fn lead_strict(&self, cands: &[usize]) -> usize {
        let t = self.trump;
        let later: Vec<usize> = (1..self.n).map(|i| (self.seat + i) % self.n).collect();
        let bidding_side = self.bid.map(|(b, _)| self.same_side(b, self.seat)).unwrap_or(false);
        let my_trumps: i32 = t.map(|t| (0..6).map(|r| self.hand[card(t, r)] as i32).sum()).unwrap_or(0);
        let opp_trumps_unseen = t.map(|t| self.unseen_in_suit(t)).unwrap_or(0);
        // 1. cash sure winners of plain suits
        let mut best: Option<(f64, usize)> = None;
        for &c in cands {
            if self.is_trump(c) {
                continue;
            }
            if self.unseen_higher(c) == 0 && !self.threatened_lead(c, &later) {
                let v = self.pv(c) + strength(c) as f64;
                if best.map_or(true, |b| v > b.0) {
                    best = Some((v, c));
                }
            }
        }
        // 2. draw trumps with a sure trump winner when we hold the length
        if let Some(tr) = t {
            let top = cands.iter().copied().filter(|&c| suit(c) == tr && self.unseen_higher(c) == 0).max_by_key(|&c| strength(c));
            if let Some(c) = top {
                if opp_trumps_unseen > 0 && (bidding_side || self.n == 2) && my_trumps * 2 >= opp_trumps_unseen {
                    if best.is_none() || my_trumps >= 4 {
                        return c;
                    }
                }
            }
        }
        if let Some((_, c)) = best {
            return c;
        }
        // 3. a low card: no counters, no trump, from a suit where tens are not exposed
        let mut pick = cands[0];
        let mut bestcost = f64::MAX;
        for &c in cands {
            let mut cost = self.pv(c) * 1.5 + strength(c) as f64;
            if self.is_trump(c) {
                cost += 14.0 + 2.0 * strength(c) as f64;
            }
            // a partner known void and an opponent not: a good suit to lead
            let ss = suit(c);
            let count_suit: i32 = (0..6).map(|r| self.hand[card(ss, r)] as i32).sum();
            if !self.is_trump(c) && count_suit <= 2 && my_trumps > 0 {
                cost -= 2.0; // shorten a plain suit to trump it later
            }
            if cost < bestcost {
                bestcost = cost;
                pick = c;
            }
        }
        pick
    }
    fn threatened_lead(&self, c: usize, later: &[usize]) -> bool {
        let Some(t) = self.trump else { return false };
        if suit(c) == t {
            return false;
        }
        if self.unseen_in_suit(t) == 0 {
            return false;
        }
        for &s in later {
            if self.same_side(s, self.seat) {
                continue;
            }
            if self.voids[s][suit(c)] && !self.voids[s][t] {
                return true;
            }
        }
        // few of the suit left: someone is likely void
        let left = self.unseen_in_suit(suit(c));
        left < (later.len() as i32)
    }

    fn follow_strict(&self, cands: &[usize]) -> usize {
        let t = self.trump;
        let seats = self.trick_seats();
        let (mut ws, mut wc) = seats[0];
        for &(s, c) in &seats[1..] {
            if beats(c, wc, t) {
                ws = s;
                wc = c;
            }
        }
        let later = self.later_seats();
        let trick_pts: f64 = seats.iter().map(|&(_, c)| self.pv(c)).sum();
        let last_bonus = if self.held.get(self.seat).copied().unwrap_or(2) <= 1 { self.rules.last as f64 / self.sc() } else { 0.0 };
        let partner_winning = self.same_side(ws, self.seat) && ws != self.seat;
        let winners: Vec<usize> = cands.iter().copied().filter(|&c| beats(c, wc, t)).collect();
        let losers: Vec<usize> = cands.iter().copied().filter(|&c| !beats(c, wc, t)).collect();
        let lowest = |v: &[usize]| -> usize {
            *v.iter()
                .min_by(|&&a, &&b| {
                    let ca = self.pv(a) * 1.5 + strength(a) as f64 + if self.is_trump(a) { 12.0 } else { 0.0 };
                    let cb = self.pv(b) * 1.5 + strength(b) as f64 + if self.is_trump(b) { 12.0 } else { 0.0 };
                    ca.partial_cmp(&cb).unwrap()
                })
                .unwrap()
        };
        if partner_winning {
            let safe = !self.threatened(wc, &later);
            if !losers.is_empty() {
                if safe {
                    // smear counters on the partner's trick
                    return *losers
                        .iter()
                        .max_by(|&&a, &&b| {
                            let va = self.pv(a) - if self.is_trump(a) { 15.0 } else { 0.0 } - if rank(a) == 0 && self.unseen_higher(a) == 0 { 4.0 } else { 0.0 };
                            let vb = self.pv(b) - if self.is_trump(b) { 15.0 } else { 0.0 } - if rank(b) == 0 && self.unseen_higher(b) == 0 { 4.0 } else { 0.0 };
                            va.partial_cmp(&vb).unwrap()
                        })
                        .unwrap();
                }
                return lowest(&losers);
            }
            // forced to overtake: the highest to make it safe, else the cheapest
            return self.cheapest_winner(&winners, &later, true);
        }
        if !winners.is_empty() {
            let w = self.cheapest_winner(&winners, &later, trick_pts + last_bonus > 0.0);
            let holds = later.is_empty() || !self.threatened(w, &later);
            if holds || losers.is_empty() {
                return w;
            }
            // a winner that may be overtaken: worth it when the trick is rich
            if trick_pts + last_bonus >= 10.0 && self.pv(w) <= 4.0 {
                return w;
            }
            return lowest(&losers);
        }
        lowest(cands)
    }
    fn cheapest_winner(&self, winners: &[usize], later: &[usize], want_safe: bool) -> usize {
        let cost = |c: usize| -> f64 {
            let mut v = strength(c) as f64 + self.keep_value(c) * 0.5;
            if self.is_trump(c) {
                v += 6.0;
            }
            v
        };
        if want_safe && !later.is_empty() {
            let mut safe: Vec<usize> = winners.iter().copied().filter(|&c| !self.threatened(c, later)).collect();
            if !safe.is_empty() {
                safe.sort_by(|&a, &b| cost(a).partial_cmp(&cost(b)).unwrap());
                return safe[0];
            }
        }
        *winners.iter().min_by(|&&a, &&b| cost(a).partial_cmp(&cost(b)).unwrap()).unwrap()
    }
}

// ------------------------------------------------------------------ two-handed, first phase

impl Game {
    fn my_meld_cards(&self) -> Counts {
        let mut h = self.hand;
        if let Some(tb) = self.tables.get(self.seat) {
            for c in 0..NC {
                h[c] += tb[c];
            }
        }
        h
    }
    /// What a card adds to our meld prospects (hand and table together).
    fn meld_keep(&self, c: usize, from_table: bool) -> f64 {
        let Some(t) = self.trump else { return 0.0 };
        let all = self.my_meld_cards();
        if all[c] == 0 {
            return 0.0;
        }
        let mut less = all;
        less[c] -= 1;
        let d = (meld_value(&all, t, &self.rules) - meld_value(&less, t, &self.rules)) as f64 / self.sc();
        // a table card has scored already; only further melds of other kinds remain
        let stock_left = (self.stock.max(0) as f64 / 22.0).clamp(0.0, 1.0);
        if from_table {
            d * 0.25 * stock_left
        } else {
            d * (0.2 + 0.5 * stock_left)
        }
    }
    fn pending_meld(&self) -> f64 {
        let Some(t) = self.trump else { return 0.0 };
        let all = self.my_meld_cards();
        let mine = *self.meld.get(self.seat).unwrap_or(&0);
        ((meld_value(&all, t, &self.rules) - mine).max(0)) as f64 / self.sc()
    }
    fn phase1_play(&self, offers: &[&Offer]) -> usize {
        // index into offers
        let lead = self.trick.first().copied();
        let pending = self.pending_meld();
        let mut best = (f64::MIN, 0);
        for (i, o) in offers.iter().enumerate() {
            let Some(c) = o.card else { continue };
            let keep = self.keep_value(c) * if self.is_trump(c) { 1.0 } else { 0.8 } + self.meld_keep(c, o.table);
            let v = match lead {
                None => {
                    // leading: the opponent may take it freely; lose little
                    let mut v = -keep - self.pv(c) * 0.9;
                    if !self.is_trump(c) && self.unseen_higher(c) == 0 && rank(c) == 0 {
                        v += 2.0; // an ace can only be trumped
                    }
                    v
                }
                Some(l) => {
                    let p = self.pv(l) + self.pv(c);
                    if beats(c, l, self.trump) {
                        p + 3.0 + 0.35 * pending.min(150.0) - keep
                    } else {
                        -p - keep * 0.6
                    }
                }
            };
            if v > best.0 {
                best = (v, i);
            }
        }
        best.1
    }
}

// ------------------------------------------------------------------ two-handed, second phase: exact search

struct Search {
    trump: usize,
    pts: [i32; NC],
    last: i32,
    suit_duty: bool,
    trump_duty: bool,
    head: bool,
    head_trump: bool,
    tt: HashMap<u128, (i32, i32)>,
    nodes: u64,
    deadline: Instant,
    aborted: bool,
}

fn key(a: &Counts, b: &Counts, me_leads: bool) -> u128 {
    let mut k: u128 = me_leads as u128;
    for c in 0..NC {
        k = (k << 2) | a[c] as u128;
        k = (k << 2) | b[c] as u128;
    }
    k
}

impl Search {
    fn beats(&self, x: usize, w: usize) -> bool {
        beats(x, w, Some(self.trump))
    }
    fn follows(&self, f: &Counts, lead: usize) -> Vec<usize> {
        let s = suit(lead);
        let has = |pred: &dyn Fn(usize) -> bool| -> Vec<usize> { (0..NC).filter(|&c| f[c] > 0 && pred(c)).collect() };
        let in_suit = has(&|c| suit(c) == s);
        let head = self.head || (self.head_trump && s == self.trump);
        if self.suit_duty && !in_suit.is_empty() {
            if head {
                let w: Vec<usize> = in_suit.iter().copied().filter(|&c| self.beats(c, lead)).collect();
                if !w.is_empty() {
                    return w;
                }
            }
            return in_suit;
        }
        if self.trump_duty && s != self.trump {
            let tr = has(&|c| suit(c) == self.trump);
            if !tr.is_empty() {
                return tr;
            }
        }
        has(&|_| true)
    }
    fn leads(&self, h: &Counts) -> Vec<usize> {
        let mut v: Vec<usize> = (0..NC).filter(|&c| h[c] > 0).collect();
        // strong cards first: better cut-offs
        v.sort_by_key(|&c| (-(self.pts[c]), rank(c)));
        v
    }
    /// My points from the remaining tricks.
    fn val(&mut self, me: &mut Counts, op: &mut Counts, me_leads: bool, left: usize, alpha: i32, beta: i32) -> i32 {
        if left == 0 || self.aborted {
            return 0;
        }
        self.nodes += 1;
        if self.nodes & 1023 == 0 && Instant::now() > self.deadline {
            self.aborted = true;
            return 0;
        }
        let k = key(me, op, me_leads);
        let (mut lo, mut hi) = self.tt.get(&k).copied().unwrap_or((i32::MIN / 2, i32::MAX / 2));
        if lo >= beta {
            return lo;
        }
        if hi <= alpha {
            return hi;
        }
        if lo == hi {
            return lo;
        }
        let (a0, b0) = (alpha.max(lo), beta.min(hi));
        let mut a = a0;
        let mut b = b0;
        let result;
        if me_leads {
            let mut best = i32::MIN / 2;
            for c in self.leads(me) {
                me[c] -= 1;
                let mut vc = i32::MAX / 2;
                for f in self.follows(op, c) {
                    op[f] -= 1;
                    let op_wins = self.beats(f, c);
                    let p = self.pts[c] + self.pts[f] + if left == 1 { self.last } else { 0 };
                    let imm = if op_wins { 0 } else { p };
                    let v = imm + self.val(me, op, !op_wins, left - 1, a - imm, vc.min(b) - imm);
                    op[f] += 1;
                    if v < vc {
                        vc = v;
                    }
                    if vc <= a {
                        break;
                    }
                }
                me[c] += 1;
                if vc > best {
                    best = vc;
                }
                if best > a {
                    a = best;
                }
                if a >= b {
                    break;
                }
            }
            result = best;
        } else {
            let mut best = i32::MAX / 2;
            for c in self.leads(op) {
                op[c] -= 1;
                let mut vc = i32::MIN / 2;
                for f in self.follows(me, c) {
                    me[f] -= 1;
                    let me_wins = self.beats(f, c);
                    let p = self.pts[c] + self.pts[f] + if left == 1 { self.last } else { 0 };
                    let imm = if me_wins { p } else { 0 };
                    let v = imm + self.val(me, op, me_wins, left - 1, vc.max(a) - imm, b - imm);
                    me[f] += 1;
                    if v > vc {
                        vc = v;
                    }
                    if vc >= b {
                        break;
                    }
                }
                op[c] += 1;
                if vc < best {
                    best = vc;
                }
                if best < b {
                    b = best;
                }
                if a >= b {
                    break;
                }
            }
            result = best;
        }
        if self.aborted {
            return 0;
        }
        if result <= a0 {
            hi = hi.min(result);
        } else if result >= b0 {
            lo = lo.max(result);
        } else {
            lo = result;
            hi = result;
        }
        self.tt.insert(k, (lo, hi));
        result
    }
}

impl Game {
    /// The second phase of the two-handed games: every hidden card is in the
    /// opponent's hand, so search the rest of the hand exactly.
    fn solve_phase2(&self, cands: &[usize], budget: Duration) -> Option<usize> {
        let t = self.trump?;
        if self.n != 2 {
            return None;
        }
        let opp = 1 - self.seat;
        let mut me = self.hand;
        let mut op = self.unseen;
        let trick = self.trick.clone();
        let my_n = total(&me);
        let op_n = total(&op);
        let expect_op = self.held.get(opp).copied().unwrap_or(-1);
        if op_n != expect_op {
            eprintln!("search: unseen {op_n} != opponent's {expect_op}; heuristics");
            return None;
        }
        let mut pts = [0; NC];
        for c in 0..NC {
            pts[c] = self.pts(c);
        }
        let mut s = Search {
            trump: t,
            pts,
            last: self.rules.last,
            suit_duty: self.rules.duty_suit,
            trump_duty: self.rules.duty_trump,
            head: self.rules.duty_head,
            head_trump: self.rules.duty_head_trump,
            tt: HashMap::with_capacity(1 << 16),
            nodes: 0,
            deadline: Instant::now() + budget,
            aborted: false,
        };
        let mut best: Option<(i32, usize)> = None;
        let mut order: Vec<usize> = cands.to_vec();
        order.sort_by_key(|&c| (-(pts[c]), rank(c)));
        order.dedup();
        if trick.is_empty() {
            if my_n != op_n {
                return None;
            }
            let left = my_n as usize;
            for &c in &order {
                me[c] -= 1;
                let mut vc = i32::MAX / 2;
                let alpha = best.map_or(i32::MIN / 2, |b| b.0);
                for f in s.follows(&op, c) {
                    op[f] -= 1;
                    let op_wins = s.beats(f, c);
                    let p = pts[c] + pts[f] + if left == 1 { s.last } else { 0 };
                    let imm = if op_wins { 0 } else { p };
                    let v = imm + s.val(&mut me, &mut op, !op_wins, left - 1, alpha - imm, vc - imm);
                    op[f] += 1;
                    vc = vc.min(v);
                    if vc <= alpha {
                        break;
                    }
                }
                me[c] += 1;
                if s.aborted {
                    return None;
                }
                if best.map_or(true, |b| vc > b.0) {
                    best = Some((vc, c));
                }
            }
        } else {
            let lead = trick[0];
            if my_n != op_n + 1 {
                return None;
            }
            let left = my_n as usize;
            for &f in &order {
                me[f] -= 1;
                let me_wins = s.beats(f, lead);
                let p = pts[lead] + pts[f] + if left == 1 { s.last } else { 0 };
                let imm = if me_wins { p } else { 0 };
                let alpha = best.map_or(i32::MIN / 2, |b| b.0);
                let v = imm + s.val(&mut me, &mut op, me_wins, left - 1, alpha - imm, i32::MAX / 2);
                me[f] += 1;
                if s.aborted {
                    return None;
                }
                if best.map_or(true, |b| v > b.0) {
                    best = Some((v, f));
                }
            }
        }
        if let Some((v, c)) = best {
            eprintln!("search: {} cards, {} nodes, best {} worth {v}", my_n, s.nodes, card_name(c));
        }
        best.map(|b| b.1)
    }
}

// ------------------------------------------------------------------ deciding

fn decide(g: &Game, tokens: &[&str]) -> Option<String> {
    let decision = tokens[0];
    let time_left: u64 = tokens[1].parse().unwrap_or(1000);
    let budget_ms = (g.think_ms).min(time_left / 4).max(5);
    let budget = Duration::from_millis(budget_ms);
    let (offers, bids) = parse_offers(&tokens[3..]);
    let find = |k: &str| offers.iter().find(|o| o.kind == k).map(|o| o.tok.clone());

    // a claim that wins
    if let Some(claim) = find("claim") {
        let me = g.seat;
        let now = g.totals.get(me).unwrap_or(&0) + g.meld.get(me).unwrap_or(&0) + g.tricks.get(me).unwrap_or(&0);
        if now >= g.target {
            return Some(claim);
        }
    }
    match decision {
        "bid" => choose_bid(g, &offers, &bids),
        "trump" => {
            let (t, _) = best_trump(g, &g.hand);
            offers.iter().find(|o| o.kind == "trump" && o.card == Some(t)).map(|o| o.tok.clone())
        }
        "meld" => {
            // the most points now; ties: fewer cards from the hand
            offers
                .iter()
                .filter(|o| o.kind != "pass" && o.kind != "claim")
                .max_by_key(|o| (o.pts, -(o.tok.matches(',').count() as i32)))
                .map(|o| o.tok.clone())
                .or_else(|| find("pass"))
        }
        "take" => {
            let Some(tu) = g.turnup else { return find("take:turnup") };
            let val = |c: usize| -> f64 { g.pv(c) + g.keep_value(c) * 1.5 + g.meld_keep(c, false) };
            let n = total(&g.unseen).max(1) as f64;
            let avg: f64 = (0..NC).map(|c| g.unseen[c] as f64 * val(c)).sum::<f64>() / n;
            // the turn-up also goes to the opponent if we take the stock
            if val(tu) * 2.0 >= avg + avg.min(val(tu)) {
                offers.iter().find(|o| o.tok == "take:turnup").map(|o| o.tok.clone())
            } else {
                offers.iter().find(|o| o.tok == "take:stock").map(|o| o.tok.clone())
            }
        }
        "call" => {
            let t = g.trump?;
            let base = meld_value(&g.hand, t, &g.rules) as f64;
            let sc = g.sc();
            let mut best: Option<(f64, String)> = None;
            for o in offers.iter().filter(|o| o.kind == "call") {
                let Some(c) = o.card else { continue };
                let mut h = g.hand;
                let mut v;
                if h[c] as u8 >= g.rules.copies {
                    v = -1000.0; // alone
                } else {
                    h[c] += 1;
                    v = meld_value(&h, t, &g.rules) as f64 - base;
                    if suit(c) == t {
                        v += 3.0 * sc * 10.0 + strength(c) as f64 * sc * 4.0;
                    } else if rank(c) == 0 {
                        v += 2.0 * sc * 10.0;
                    }
                }
                if best.as_ref().map_or(true, |b| v > b.0) {
                    best = Some((v, o.tok.clone()));
                }
            }
            best.map(|b| b.1)
        }
        "give" => {
            let me_bidder = g.bid.map(|b| b.0 == g.seat).unwrap_or(false);
            let sc = g.sc();
            let mut best: Option<(f64, String)> = None;
            for o in offers.iter().filter(|o| o.kind == "give") {
                let Some(c) = o.card else { continue };
                let loss = meld_loss(g, &g.hand, c) / sc;
                let tr = g.is_trump(c);
                let v = if me_bidder {
                    // give back what we need least: no meld, no trump, no aces
                    -loss * 1.2 - if tr { 25.0 + 2.0 * strength(c) as f64 } else { 0.0 } - if rank(c) == 0 { 8.0 } else { 0.0 }
                        - strength(c) as f64 * 0.5
                } else {
                    // to the bid winner: trumps and aces; keep our own meld
                    let help = if tr { 20.0 + 3.0 * strength(c) as f64 } else if rank(c) == 0 { 10.0 } else { strength(c) as f64 * 0.5 };
                    help - loss * 0.7
                };
                if best.as_ref().map_or(true, |b| v > b.0) {
                    best = Some((v, o.tok.clone()));
                }
            }
            best.map(|b| b.1)
        }
        "bury" => {
            let sc = g.sc();
            let mut best: Option<(f64, String)> = None;
            for o in offers.iter().filter(|o| o.kind == "bury") {
                let Some(c) = o.card else { continue };
                let loss = meld_loss(g, &g.hand, c) / sc;
                let s = suit(c);
                let in_suit: i32 = (0..6).map(|r| g.hand[card(s, r)] as i32).sum();
                let mut v = -loss * 1.5 + g.pv(c) * 0.8;
                if g.is_trump(c) {
                    v -= 40.0;
                }
                if rank(c) == 0 {
                    v -= 9.0; // aces take tricks
                }
                if !g.is_trump(c) && in_suit <= 2 {
                    v += 4.0; // towards a void
                }
                if best.as_ref().map_or(true, |b| v > b.0) {
                    best = Some((v, o.tok.clone()));
                }
            }
            best.map(|b| b.1)
        }
        "lead" | "follow" => {
            let card_offers: Vec<&Offer> = offers.iter().filter(|o| o.card.is_some() && o.kind.is_empty()).collect();
            if card_offers.is_empty() {
                return None;
            }
            if card_offers.len() == 1 {
                return Some(card_offers[0].tok.clone());
            }
            let hand_cards: Vec<usize> = card_offers.iter().filter(|o| !o.table).filter_map(|o| o.card).collect();
            if g.has_stock && !g.strict {
                let i = g.phase1_play(&card_offers);
                return Some(card_offers[i].tok.clone());
            }
            if g.has_stock && g.strict && hand_cards.len() == card_offers.len() {
                if let Some(c) = g.solve_phase2(&hand_cards, budget) {
                    return card_offers.iter().find(|o| o.card == Some(c)).map(|o| o.tok.clone());
                }
            }
            let cands: Vec<usize> = card_offers.iter().filter_map(|o| o.card).collect();
            let c = if g.trick.is_empty() { g.lead_strict(&cands) } else { g.follow_strict(&cands) };
            card_offers.iter().find(|o| o.card == Some(c)).map(|o| o.tok.clone())
        }
        _ => None,
    }
}

/// The reply, always one of the offered tokens.
fn reply(g: &Game, line: &str) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    let tokens = &words[1..];
    if tokens.len() < 4 {
        return first_legal(&[]);
    }
    let fallback = first_legal(&tokens[3..]);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decide(g, tokens)));
    let choice = match result {
        Ok(Some(c)) => c,
        Ok(None) => {
            eprintln!("no decision for {:?}: first legal", tokens[0]);
            return fallback;
        }
        Err(_) => {
            eprintln!("internal error: first legal");
            return fallback;
        }
    };
    if is_offered(&choice, &tokens[3..]) {
        choice
    } else {
        eprintln!("chose {choice}, not offered: first legal");
        fallback
    }
}

fn is_offered(choice: &str, offered: &[&str]) -> bool {
    let ch = choice.to_ascii_lowercase();
    for t in offered {
        let tl = t.to_ascii_lowercase();
        if tl == ch {
            return true;
        }
        if let Some(rest) = tl.strip_prefix("bid:") {
            if let (Some((a, b)), Some(x)) = (rest.split_once(".."), ch.strip_prefix("bid:").and_then(|x| x.parse::<i64>().ok())) {
                let (b, step) = match b.split_once('/') {
                    Some((b, s)) => (b, s.parse::<i64>().unwrap_or(1)),
                    None => (b, 1),
                };
                if let (Ok(a), Ok(b)) = (a.parse::<i64>(), b.parse::<i64>()) {
                    if x >= a && x <= b && (x - a) % step.max(1) == 0 {
                        return true;
                    }
                }
            }
        }
    }
    false
}

fn send(out: &mut impl Write, line: &str) {
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn main() {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut g = Game { think_ms: 80, ..Default::default() };
    let mut raw = Vec::new();
    loop {
        raw.clear();
        match input.read_until(b'\n', &mut raw) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&raw);
        let line = text.trim_end_matches(['\n', '\r']);
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&head) = words.first() else { continue };
        match head {
            "pinochle" => {
                send(&mut out, "id name sparring-rs");
                send(&mut out, "id author sparring partner");
                send(&mut out, "id version 0.1.0");
                let v: u32 = words.get(1).and_then(|x| x.parse().ok()).unwrap_or(1);
                if v >= 3 {
                    send(&mut out, "protocol 3");
                    send(&mut out, "option think int 80 5 2000");
                    send(&mut out, "want state");
                }
                send(&mut out, "ready");
            }
            "setoption" => {
                if words.get(1) == Some(&"think") {
                    if let Some(v) = words.get(2).and_then(|x| x.parse().ok()) {
                        g.think_ms = v;
                    }
                }
            }
            "ping" => send(&mut out, &format!("pong {}", words.get(1).unwrap_or(&""))),
            "go" => {
                let r = reply(&g, line);
                send(&mut out, &r);
            }
            "quit" => return,
            "error" => eprintln!("referee: {line}"),
            _ => {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match head {
                    "game" => g.on_game(&words),
                    "rule" => g.on_rule(&words),
                    "state" => g.on_state(&words),
                    _ => g.on_event(&words),
                }));
                if r.is_err() {
                    eprintln!("could not follow {line:?}");
                }
            }
        }
    }
}

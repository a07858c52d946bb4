"use strict";
// The game as your bot sees it, kept up to date from the referee's messages.
//
// model.update(message) takes in every message; the fields below are what
// you read when deciding. With "want state" (bot.js asks for it) the referee
// also restates what you may know before every request, and update() copies
// that over the model's own bookkeeping, so a mistake here never lasts
// longer than one request.
//
// Add whatever your strategy needs (cards seen, voids, who may hold what...).

const { RANKS } = require("./messages.js");

/** Removes one copy of `card` from `cards`, if there is one. (Cards are interned: === works.) */
function remove(cards, card) {
  const i = cards.indexOf(card);
  if (i >= 0) cards.splice(i, 1);
}

class Model {
  constructor() {
    this.seat = 0;
    this.players = 2;
    this.options = {}; // your own options (setoption), name -> text
    this.rules = Model.newRules("", new Map());
    this.totals = []; // game totals before this hand, per seat
    this.target = 0; // the current target (it may rise under tiebreak=play-on)
    this.state = null; // the last state line, for fields the model does not keep
    this.newHand();
  }

  /** From the "game" line and the "rule" lines that follow it (protocol 3). */
  static newRules(variant, options) {
    return {
      variant,
      options, // every rule option of the "game" line: Map key -> text
      ranks: [...RANKS], // high to low
      copies: 2,
      points: {}, // counter points per rank
      lastTrick: 0,
      target: 0,
      melds: {}, // kind -> [value once, twice, ...]
      follow: {}, // phase -> duties
      firstLeadTrump: false,
    };
  }

  newHand() {
    const n = this.players;
    this.handNumber = 0;
    this.dealer = 0;
    this.stockGame = true; // two-handed with a stock (a turn-up), else a bidding game
    this.phase = 1;
    this.trump = null; // "C" "D" "H" "S"
    this.turnup = null;
    this.hand = []; // your concealed cards
    this.tables = Array.from({ length: n }, () => []); // per seat, melded cards on the table (stock games)
    this.trick = []; // [seat, card] played to the trick so far
    this.won = new Array(n).fill(0); // tricks won per seat
    this.meldPoints = new Array(n).fill(0); // per seat, this hand
    this.trickPoints = new Array(n).fill(0); // per seat, this hand
    this.bids = []; // the auction: [seat, amount or null for a pass]
    this.bidder = null;
    this.bid = null;
    this.partner = null; // five players: the bid winner's called partner (four: see isPartner)
    this.stock = 0; // face-down cards left in the stock (stock games)
    this.setAside = []; // cards we chose to give or bury, not yet shown
  }

  // --------------------------------------------------------------- questions
  /** Is `seat` on our side this hand? (Four-handed: opposite seats; five: the bid winner and its partner.) */
  isPartner(seat) {
    if (seat === this.seat) return true;
    if (this.players === 4) return seat % 2 === this.seat % 2;
    if (this.players === 5 && this.bidder !== null && this.partner !== null) {
      const side = [this.bidder, this.partner];
      return side.includes(seat) && side.includes(this.seat);
    }
    return false;
  }

  /** Game total plus this hand's meld and trick points so far (what a claim is judged on). */
  myPoints() {
    return this.totals[this.seat] + this.meldPoints[this.seat] + this.trickPoints[this.seat];
  }

  /** We chose to give or bury `card`: it leaves our hand now (as the state line counts it). */
  putAside(card) {
    remove(this.hand, card);
    this.setAside.push(card);
  }

  // ------------------------------------------------------------------ events
  /** Take in one message from the referee. */
  update(msg) {
    switch (msg.type) {
      case "game":
        this.seat = msg.seat;
        this.players = msg.players;
        this.rules = Model.newRules(msg.variant, msg.options);
        this.totals = new Array(msg.players).fill(0);
        this.target = Number(msg.options.get("target") ?? 0);
        this.newHand();
        break;
      case "rule":
        this.onRule(msg);
        break;
      case "setoption":
        this.options[msg.name] = msg.value;
        break;
      case "deal": {
        this.newHand();
        this.handNumber = msg.hand;
        this.dealer = msg.dealer;
        this.stockGame = msg.turnup !== null;
        this.turnup = msg.turnup;
        this.trump = msg.turnup ? msg.turnup.suit : null;
        this.hand = [...msg.cards];
        const deck = this.rules.ranks.length * 4 * this.rules.copies;
        this.stock = this.stockGame ? deck - this.players * msg.cards.length - 1 : 0;
        break;
      }
      case "bonus":
        this.meldPoints[msg.seat] += msg.points;
        break;
      case "play":
        if (msg.seat === this.seat) remove(msg.fromTable ? this.tables[msg.seat] : this.hand, msg.card);
        else if (msg.fromTable) remove(this.tables[msg.seat], msg.card);
        this.trick.push([msg.seat, msg.card]);
        if (!this.stockGame) this.phase = 2; // the bidding games: the tricks have begun
        break;
      case "trick":
        this.trickPoints[msg.winner] += msg.points;
        this.won[msg.winner] += 1;
        this.trick = [];
        break;
      case "draw":
        if (msg.seat === this.seat && msg.card !== null) this.hand.push(msg.card);
        if (this.stock === 0 || (this.stock === 1 && msg.card !== null && msg.card === this.turnup)) {
          this.turnup = null; // the last two cards: the turn-up went (to one seat or the other)
        } else {
          this.stock -= 1;
        }
        break;
      case "meld":
        this.meldPoints[msg.seat] += msg.points;
        if (this.stockGame) {
          // melded cards go to the table; in the bidding games they stay in the hand
          if (msg.seat === this.seat) for (const c of msg.cards) remove(this.hand, c);
          this.tables[msg.seat].push(...msg.cards);
        }
        break;
      case "exchange": // the dix goes under the stock, the old turn-up to the hand
        remove(this.tables[msg.seat], msg.dix);
        this.turnup = msg.dix;
        if (msg.seat === this.seat) this.hand.push(msg.taken);
        break;
      case "phase2":
        this.phase = 2;
        this.hand.push(...this.tables[this.seat]);
        this.tables = this.tables.map(() => []);
        this.turnup = null;
        break;
      case "bid":
        this.bids.push([msg.seat, msg.amount]);
        break;
      case "bidwon":
        this.bidder = msg.seat;
        this.bid = msg.amount;
        break;
      case "kitty":
        if (this.bidder === this.seat) this.hand.push(...msg.cards);
        break;
      case "trump":
        this.trump = msg.suit;
        break;
      case "partner":
        this.partner = msg.partner;
        break;
      case "give":
        if (msg.giver === this.seat) this.gone(msg.cards);
        if (msg.receiver === this.seat) this.hand.push(...msg.cards.filter((c) => c !== null));
        break;
      case "bury":
        if (msg.seat === this.seat) this.gone(msg.cards);
        break;
      case "handend":
        this.totals = [...msg.totals];
        break;
      case "target":
        this.target = msg.target;
        break;
      case "go":
        if (!this.stockGame && (msg.decision === "lead" || msg.decision === "follow")) this.phase = 2;
        break;
      case "state":
        this.restate(msg);
        break;
      // every other message changes nothing here
    }
  }

  onRule(msg) {
    const r = this.rules;
    switch (msg.key) {
      case "ranks": r.ranks = msg.ranks; break;
      case "copies": r.copies = msg.copies; break;
      case "points": r.points = msg.points; break;
      case "last-trick": r.lastTrick = msg.points; break;
      case "target": r.target = this.target = msg.target; break;
      case "meld": { // up to the first level that is no meld ("-")
        const cut = msg.values.indexOf(null);
        r.melds[msg.kind] = cut < 0 ? msg.values : msg.values.slice(0, cut);
        break;
      }
      case "follow": r.follow[msg.phase] = msg.duties; break;
      case "first-lead": r.firstLeadTrump = msg.what === "trump"; break;
    }
  }

  /** Our cards were given or buried: those we chose are gone already, others (a called card) go now. */
  gone(cards) {
    for (const c of cards) {
      if (this.setAside.includes(c)) remove(this.setAside, c);
      else if (c !== null) remove(this.hand, c);
    }
  }

  /** Copy what the state line says over our own bookkeeping (absent keys change nothing). */
  restate(s) {
    this.state = s;
    const n = this.players;
    const set = (value, apply) => { if (value !== null) apply(value); };
    set(s.hand, (v) => { this.handNumber = v; });
    set(s.dealer, (v) => { this.dealer = v; });
    set(s.phase, (v) => { this.phase = v; });
    if (s.fields.has("trump")) this.trump = s.trump;
    if (s.fields.has("turnup")) this.turnup = s.turnup;
    set(s.cards, (v) => { this.hand = v; });
    set(s.tables, (v) => { if (v.length === n) this.tables = v; });
    set(s.trick, (v) => {
      const leader = s.leader ?? 0;
      this.trick = v.map((c, i) => [(leader + i) % n, c]);
    });
    set(s.bid, ([seat, amount]) => { this.bidder = seat; this.bid = amount; });
    set(s.partner, (v) => { this.partner = v; });
    set(s.stock, (v) => { this.stock = v; });
    set(s.meld, (v) => { if (v.length === n) this.meldPoints = v; });
    set(s.tricks, (v) => { if (v.length === n) this.trickPoints = v; });
    set(s.totals, (v) => { if (v.length === n) this.totals = v; });
    set(s.won, (v) => { if (v.length === n) this.won = v; });
    set(s.bids, (v) => { this.bids = v; });
    set(s.target, (v) => { this.target = v; });
  }
}

module.exports = { Model };

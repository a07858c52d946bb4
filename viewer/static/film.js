// pinochle-arena: each seat's table at each step of a film (viewer/film.py), kept from the events it was shown,
// as a bot keeps its model from the referee's lines (the rules engine's Observer, referee/rules/observation.py,
// does the same in Python: this follows it, less what only a bot's guesses need). It knows no rule of the game:
// which seat sees what, the tricks' winners and the scores all come in the events.
"use strict";

const CARD_ORDER = { suits: "CDHS", ranks: "ATKQJ9" };  // as sort_cards: suit, then rank high to low

function cardOrder(text) {
  return CARD_ORDER.suits.indexOf(text[1]) * 8 + CARD_ORDER.ranks.indexOf(text[0]);
}

function sorted(cards) {
  return [...cards].sort((a, b) => cardOrder(a) - cardOrder(b));
}

function removeOne(list, card) {
  const at = list.indexOf(card);
  if (at < 0) throw new Error(`film: ${card} is not there to take`);
  list.splice(at, 1);
}

// One seat's table: what it knows of the hand in play, and the game's totals and target
class SeatTable {
  constructor(table, players, seat) {
    this.table = table;
    this.players = players;
    this.seat = seat;
    this.totals = new Array(players).fill(0);
    this.target = table.target;
    this.handNo = 0;
    this.dealer = 0;
    this.dealt = false;  // events before the first deal belong to a hand this seat is not asked about
    this.reset();
  }

  reset() {
    const n = this.players;
    const each = (make) => Array.from({ length: n }, make);
    Object.assign(this, { trump: "", turnup: "", phase: 1, hand: [], tables: each(() => []), trick: [], played: [],
      held: new Array(n).fill(0), piles: {}, kitty: [], dummy: [], aside: [], gave: [], received: [], buried: [],
      melds: each(() => []), bids: [], bidder: null, bid: null, partner: null, called: "",
      meldPoints: new Array(n).fill(0), trickPoints: new Array(n).fill(0) });
  }

  take(seat, cards) {  // cards come into a seat's concealed hand (null: one this seat does not see)
    for (const c of cards) {
      if (seat === this.seat) this.hand.push(c);
      else this.held[seat] += 1;
    }
  }

  lose(seat, cards) {  // cards leave a seat's concealed hand
    for (const c of cards) {
      if (seat !== this.seat) this.held[seat] -= 1;
      else if (this.aside.includes(c)) removeOne(this.aside, c);  // set aside before the passing was shown
      else removeOne(this.hand, c);
    }
  }

  see(kind, a, b, c, d) {
    if (!this.dealt && kind !== "deal") return;
    const on = this.events[kind];
    if (on) on.call(this, a, b, c, d);
  }

  // what the viewer draws: the fields of viewer/film.py's layout before films were events
  view() {
    const trick = this.trick.map(([s, c]) => [s, c]);
    const lastTrick = this.trick.length || !this.played.length ? []
      : this.played.slice(-this.players).map(([s, c]) => [s, c]);
    return {
      hand_no: this.handNo, dealer: this.dealer, phase: this.phase, trump: this.trump, turnup: this.turnup,
      cards: sorted(this.hand).join(" "), tables: this.tables.map((t) => sorted(t).join(" ")), trick,
      last_trick: lastTrick, held: this.held.map((n, s) => (s === this.seat ? this.hand.length : n)),
      piles: { ...this.piles }, kitty: this.kitty.join(" "), dummy: this.dummy.join(" "), gave: this.gave.join(" "),
      received: this.received.join(" "), buried: this.buried.join(" "),
      melds: this.melds.map((ms) => ms.map(([name, points, cards]) => `${name} ${points}: ${cards.join(" ")}`)),
      bids: this.bids.map(([s, amount]) => [s, amount]), bidder: this.bidder, bid: this.bid, called: this.called,
      partner: this.partner, meld_points: [...this.meldPoints], trick_points: [...this.trickPoints],
      totals: [...this.totals], target: this.target,
    };
  }
}

// kind -> what it does to a seat's table (the fields after the kind, as viewer/film.py's KINDS writes them)
SeatTable.prototype.events = {
  deal(hand, dealer, turnup, cards) {
    this.reset();
    this.dealt = true;
    this.handNo = hand;
    this.dealer = dealer;
    this.hand = [...cards];
    this.held = new Array(this.players).fill(this.table.hand_size);
    this.held[this.seat] = 0;  // its own hand is this.hand
    this.piles = { ...this.table.piles };
    if (this.table.stock) {
      this.turnup = turnup;
      this.trump = turnup[1];
    }
  },
  score(seat, points) { this.meldPoints[seat] += points; },
  play(seat, card, fromTable) {
    if (fromTable) removeOne(this.tables[seat], card);
    else this.lose(seat, [card]);
    this.trick.push([seat, card]);
    this.played.push([seat, card]);
  },
  trick(seat, points) {
    this.trickPoints[seat] += points;
    this.trick = [];
  },
  draw(seat, card) {  // the last two draws take the stock's last card and the turn-up, in either order
    const stock = this.piles.stock;
    if (stock === 0 || (stock === 1 && card !== null && card === this.turnup)) this.turnup = "";
    else this.piles.stock = stock - 1;
    this.take(seat, [card]);
  },
  meld(seat, name, points, cards) {
    this.meldPoints[seat] += points;
    this.melds[seat].push([name, points, cards]);
    if (this.table.stock) {  // the cards go on the table
      this.lose(seat, cards);
      this.tables[seat].push(...cards);
    }
  },
  exchange(seat, dix, taken) {  // the dix goes under the stock, the turn-up to the hand
    removeOne(this.tables[seat], dix);
    this.turnup = dix;
    this.take(seat, [taken]);
  },
  phase2() {  // the stock is gone: the melds on the table go back to the hands
    this.phase = 2;
    this.tables.forEach((cards, seat) => this.take(seat, cards));
    this.tables = this.tables.map(() => []);
  },
  playbegins() { this.phase = 2; },
  totals(totals) { this.totals = [...totals]; },
  target(target) { this.target = target; },
  bid(seat, amount) { this.bids.push([seat, amount]); },
  bidwon(seat, amount) {
    this.bidder = seat;
    this.bid = amount;
  },
  kittycard(card) {
    this.kitty.push(card);
    this.piles.kitty -= 1;
  },
  kitty(cards) {
    this.kitty = [...cards];
    delete this.piles.kitty;
    this.take(this.bidder, cards);
  },
  trump(suit) { this.trump = suit; },
  call(card) { this.called = card; },
  partner(partner) { this.partner = partner; },
  aside(card) {
    removeOne(this.hand, card);
    this.aside.push(card);
  },
  give(giver, receiver, cards) {
    if (giver === this.seat) this.gave.push(...cards);
    else if (receiver === this.seat) this.received.push(...cards);
    this.lose(giver, cards);
    this.take(receiver, cards);
  },
  bury(seat, cards) {
    if (seat === this.seat) this.buried = [...cards];
    else this.piles.buried = cards.length;
    this.lose(seat, cards);
  },
  dummy(seat, card) {
    this.piles.dummy -= 1;
    this.dummy.push(card);
  },
};

// A film as the viewer reads it: each step, a list [SEAT, ACTION, EVENTS, WORDS?, FAULT?] (viewer/film.py), as
// { seat, text, events, fault }, its text the words it has or "NAME: ACTION"
function readFilm(film) {
  const name = (seat) => film.names[seat] ?? `seat ${seat}`;
  film.steps = film.steps.map(([seat, action, events, words, fault]) =>
    ({ seat, text: words ?? `${name(seat)}: ${action}`, events, fault: Boolean(fault) }));
  return film;
}

// every step's view for every seat of a film read by readFilm: states[step][seat]
function filmStates(film) {
  const tables = Array.from({ length: film.players }, (_, seat) => new SeatTable(film.table, film.players, seat));
  return film.steps.map((step) => {
    for (const [seats, kind, ...fields] of step.events) {
      tables.forEach((table, seat) => { if (seats & (1 << seat)) table.see(kind, ...fields); });
    }
    return tables.map((table) => table.view());
  });
}

if (typeof module !== "undefined") module.exports = { readFilm, filmStates };  // (for the tests, under node)

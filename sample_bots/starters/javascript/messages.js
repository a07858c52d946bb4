"use strict";
// The pinochle-arena protocol (version 3), read into JavaScript objects.
//
// parseLine(line) turns one line from the referee into one message: a plain
// object whose `type` is the message's first word ("play", "trick", "go",
// "state", "rule"...) and whose other fields are already numbers, Cards and
// arrays. A line this module does not know, or cannot make sense of, becomes
// { type: "unknown", words }: a bot must ignore what it does not understand,
// because the referee adds messages over time (protocol/PROTOCOL.md, 1).
//
// You should not need to change this file: your thinking goes in bot.js,
// the game model in model.js.

const SUITS = "CDHS";
const RANKS = "ATKQJ9"; // high to low; the game's "rule ranks" line says which ranks the deck has
const HIDDEN = "??"; // a card you may not see

// ------------------------------------------------------------------ cards
const interned = new Map();

/** One card: Card.parse("AS") is the ace of spades (ten is "T"). */
class Card {
  constructor(rank, suit) {
    this.rank = rank; // A T K Q J 9
    this.suit = suit; // C D H S
    Object.freeze(this);
  }

  /**
   * "AS" -> the Card. Cards are interned: the same text gives the same object,
   * so === , indexOf, includes and Map keys work on cards.
   */
  static parse(text) {
    const t = String(text).toUpperCase();
    let card = interned.get(t);
    if (card === undefined) {
      if (t.length !== 2 || !RANKS.includes(t[0]) || !SUITS.includes(t[1])) throw new Error(`not a card: ${text}`);
      card = new Card(t[0], t[1]);
      interned.set(t, card);
    }
    return card;
  }

  /** Higher beats lower within a suit: A=6, T=5, K=4, Q=3, J=2, 9=1 (the ten beats the king). */
  get strength() {
    return RANKS.length - RANKS.indexOf(this.rank);
  }

  toString() {
    return this.rank + this.suit;
  }
}

/** A card, or null for "??" (a card you are not allowed to see). */
const cardOrHidden = (t) => (t === HIDDEN ? null : Card.parse(t));
/** "AS,TD,9C" (or "-" for none) -> cards. */
const cardList = (t) => (t === "-" || t === "" ? [] : t.split(",").map(Card.parse));
/** A whole number, or an exception (parseInt would read "12abc" as 12). */
function int(t) {
  if (!/^-?\d+$/.test(t)) throw new Error(`not a whole number: ${t}`);
  return Number(t);
}
const seatOrNull = (t) => (t === "-" ? null : int(t));

// ---------------------------------------------------------------- actions
/**
 * One legal action of a "go" request.
 *
 * token   exactly what you reply ("AS", "table:KS", "royal:KH,QH=40", "bid:25", "pass"...)
 * kind    card | table | meld | pass | take | claim | bid | trump | throw-in | call | give | bury
 *         (or the word before ":" of an action this kit does not know yet)
 * card    the card played, called, given or buried (card, table, call, give, bury)
 * cards   the hand cards a meld takes
 * meld    the meld's kind ("royal", "double-aces"...)
 * points  what a meld would score now (version 3 gives it after "=")
 * amount  a bid's amount
 * suit    the suit of "trump:H"
 * what    "stock" or "turnup" for "take:"
 */
class Action {
  constructor(token, kind, fields = {}) {
    this.token = token;
    this.kind = kind;
    this.card = fields.card ?? null;
    this.cards = fields.cards ?? [];
    this.meld = fields.meld ?? null;
    this.points = fields.points ?? null;
    this.amount = fields.amount ?? null;
    this.suit = fields.suit ?? null;
    this.what = fields.what ?? null;
  }

  toString() {
    return this.token;
  }
}

/** One (non-range) action token -> Action. Tokens this kit does not know keep kind = their prefix. */
function parseAction(token) {
  try {
    return actionOf(token);
  } catch {
    return new Action(token, token.split(":")[0].toLowerCase()); // still a legal reply
  }
}

function actionOf(token) {
  const low = token.toLowerCase();
  if (low === "pass" || low === "claim" || low === "throw-in") return new Action(token, low);
  if (token.length === 2) return new Action(token, "card", { card: Card.parse(token) });
  const colon = token.indexOf(":");
  const head = (colon < 0 ? token : token.slice(0, colon)).toLowerCase();
  const rest = colon < 0 ? "" : token.slice(colon + 1);
  switch (head) {
    case "table": // table:KS or table:KS@kings (a named copy)
      return new Action(token, "table", { card: Card.parse(rest.split("@")[0]) });
    case "bid":
      return new Action(token, "bid", { amount: int(rest) });
    case "trump":
      return new Action(token, "trump", { suit: rest.toUpperCase() });
    case "call":
    case "give":
    case "bury":
      return new Action(token, head, { card: Card.parse(rest) });
    case "take":
      return new Action(token, "take", { what: rest.toLowerCase() });
  }
  const [cardsText, points] = rest.split("=");
  if (cardsText && cardsText.split(",").every((c) => c.length === 2)) {
    // a meld: KIND:CARDS[=POINTS]
    return new Action(token, "meld", {
      cards: cardList(cardsText), meld: head, points: points === undefined ? null : int(points),
    });
  }
  return new Action(token, head);
}

/**
 * A range token into its bids: "bid:20..23" -> bid:20 bid:21 bid:22 bid:23; "bid:65..80/5" -> 65 70 75 80.
 * Never reply with a range token itself (PROTOCOL.md, section 4). Any other token comes back as it is.
 */
function expand(token) {
  if (!token.includes("..")) return [token];
  const m = /^([^:]+):(\d+)\.\.(\d+)(?:\/(\d+))?$/.exec(token);
  if (!m) throw new Error(`not a range: ${token}`);
  const [, head, low, high, step] = m;
  const out = [];
  for (let n = Number(low); n <= Number(high); n += Number(step || 1)) out.push(`${head}:${n}`);
  return out;
}

// ------------------------------------------------------------------ state
/**
 * "state key=value ...": what you may know now, sent before each request (with "want state").
 * `fields` holds every key as text, unknown keys included (later versions add keys at the end);
 * the getters read the documented ones, each null when its key is absent.
 */
class State {
  constructor(fields) {
    this.type = "state";
    this.fields = fields; // Map key -> text
  }

  get(key) {
    return this.fields.has(key) ? this.fields.get(key) : null;
  }

  _int(key) {
    const v = this.get(key);
    return v === null || v === "-" ? null : int(v);
  }

  _ints(key) {
    const v = this.get(key);
    return v === null ? null : v.split("/").map(int);
  }

  _perSeatCards(key) {
    const v = this.get(key);
    return v === null ? null : v.split("/").map(cardList);
  }

  get hand() { return this._int("hand"); } // hand number
  get dealer() { return this._int("dealer"); }
  get phase() { return this._int("phase"); } // 1 or 2
  get trump() { const v = this.get("trump"); return v === null || v === "-" ? null : v; }
  get turnup() { const v = this.get("turnup"); return v === null || v === "-" ? null : Card.parse(v); }
  get cards() { const v = this.get("cards"); return v === null ? null : cardList(v); } // your concealed hand
  get tables() { return this._perSeatCards("tables"); } // per seat, melded cards on the table
  get leader() { return this._int("leader"); } // who led the trick in play (null: no trick)
  get trick() { const v = this.get("trick"); return v === null ? null : cardList(v); } // cards so far, in order
  get held() { return this._ints("held"); } // concealed cards per seat
  get stock() { return this._int("stock"); }
  get kitty() { return this._int("kitty"); }
  get buried() { return this._int("buried"); }
  get dummy() { return this._int("dummy"); }
  get partner() { return this._int("partner"); }
  get meld() { return this._ints("meld"); } // meld points per seat this hand
  get tricks() { return this._ints("tricks"); } // trick points per seat this hand
  get totals() { return this._ints("totals"); } // game totals before this hand
  get target() { return this._int("target"); } // the current target (newer referees)
  get won() { return this._ints("won"); } // tricks won per seat this hand (newer referees)
  get known() { return this._perSeatCards("known"); } // per seat, concealed cards you know it holds (newer)

  /** [bid winner, amount], or null before the auction is won. */
  get bid() {
    const v = this.get("bid");
    if (v === null || v === "-") return null;
    const [seat, amount] = v.split(":");
    return [int(seat), int(amount)];
  }

  /** This hand's auction so far: [seat, amount or null for a pass], in order (newer referees). */
  get bids() {
    const v = this.get("bids");
    if (v === null) return null;
    if (v === "-") return [];
    return v.split(",").map((item) => {
      const [seat, amount] = item.split(":");
      return [int(seat), amount === "pass" ? null : int(amount)];
    });
  }

  /** Every card you have not seen, with how many copies: Map Card -> n. */
  get unseen() {
    const v = this.get("unseen");
    if (v === null) return null;
    const out = new Map();
    if (v !== "-") {
      for (const item of v.split(",")) {
        const [card, n] = item.split(":");
        out.set(Card.parse(card), int(n));
      }
    }
    return out;
  }
}

// --------------------------------------------------------------- messages
// One parser per message the referee sends; the comment is the line's shape.
// Seats are numbers from 0.
const ints = (words) => words.map(int);
/** The words after `start` up to `stop`: "points 1 2 totals 3 4" -> ["1", "2"]. */
function section(w, start, stop) {
  const i = w.indexOf(start);
  if (i < 0) throw new Error(`no ${start}`);
  const j = stop ? w.indexOf(stop, i + 1) : w.length;
  if (j < 0) throw new Error(`no ${stop}`);
  return w.slice(i + 1, j);
}
/** key=value words -> Map (words without "=" are skipped). */
function keyValues(words) {
  const out = new Map();
  for (const x of words) {
    const at = x.indexOf("=");
    if (at > 0) out.set(x.slice(0, at), x.slice(at + 1));
  }
  return out;
}

function parseRule(w) {
  const key = w[1];
  const v = w.slice(2);
  switch (key) {
    case "ranks": return { type: "rule", key, ranks: v }; //            rule ranks A T K Q J 9 (high to low)
    case "copies": return { type: "rule", key, copies: int(v[0]) }; //  rule copies 2
    case "points": //                                                    rule points A=11 T=10 K=4 ...
      return { type: "rule", key, points: Object.fromEntries(v.map((x) => [x.split("=")[0], int(x.split("=")[1])])) };
    case "last-trick": return { type: "rule", key, points: int(v[0]) }; // rule last-trick 10
    case "target": return { type: "rule", key, target: int(v[0]) }; //     rule target 1000
    case "meld": //   rule meld run 150 300 [- -]: value once, twice, ... (null: no such meld)
      return { type: "rule", key, kind: v[0], values: v.slice(1).map((x) => (x === "-" ? null : int(x))) };
    case "follow": return { type: "rule", key, phase: int(v[0]), duties: v.slice(1) }; // rule follow 2 suit trump head
    case "first-lead": return { type: "rule", key, what: v[0] }; //       rule first-lead trump
    default: return { type: "rule", key, values: v }; //                   a rule key this kit does not know yet
  }
}

function parseGo(w) {
  // go <decision> <time-left-ms> <bank-ms> <action>...: a request; reply with one of `actions`
  while (w.length < 4) w.push("0"); // never drop a request, however odd: it must be answered
  const tokens = w.slice(4);
  const actions = [];
  for (const token of tokens) {
    let concrete;
    try {
      concrete = expand(token); // bid:21..555 -> bid:21 ... bid:555
    } catch {
      continue; // a range of a shape this kit does not know: not a reply, skip it
    }
    for (const t of concrete) actions.push(parseAction(t));
  }
  const num = (t) => (/^\d+$/.test(t) ? Number(t) : 0);
  return { type: "go", decision: w[1], timeLeftMs: num(w[2]), bankMs: num(w[3]), tokens, actions };
}

const PARSERS = {
  pinochle: (w) => ({ type: "pinochle", version: int(w[1]) }), // pinochle <version>
  setoption: (w) => ({ type: "setoption", name: w[1], value: w[2] ?? "" }), // setoption <name> <value>
  rule: parseRule,
  state: (w) => new State(keyValues(w.slice(1))), // state <key=value>...
  game: (w) => ({ // game <id> <variant> <seat> <players> <key=value>...
    type: "game", id: w[1], variant: w[2], seat: int(w[3]), players: int(w[4]), options: keyValues(w.slice(5)),
  }),
  deal: (w) => ({ // deal <hand> <dealer> <turnup|-> <card>...  (turnup null in the bidding games)
    type: "deal", hand: int(w[1]), dealer: int(w[2]), turnup: w[3] === "-" ? null : Card.parse(w[3]),
    cards: w.slice(4).map(Card.parse),
  }),
  bonus: (w) => ({ type: "bonus", seat: int(w[1]), points: int(w[2]), reason: w[3] ?? "" }), // bonus <seat> <points> <reason>
  play: (w) => ({ // play <seat> <AS|table:AS>
    type: "play", seat: int(w[1]), card: Card.parse(w[2].split(":").pop().split("@")[0]),
    fromTable: w[2].toLowerCase().startsWith("table:"),
  }),
  trick: (w) => ({ type: "trick", winner: int(w[1]), points: int(w[2]) }), // trick <winner> <points>
  draw: (w) => ({ type: "draw", seat: int(w[1]), card: cardOrHidden(w[2]) }), // draw <seat> <card|??>
  meld: (w) => ({ // meld <seat> <kind> <points> <card>...
    type: "meld", seat: int(w[1]), kind: w[2], points: int(w[3]), cards: w.slice(4).map(Card.parse),
  }),
  exchange: (w) => ({ type: "exchange", seat: int(w[1]), dix: Card.parse(w[2]), taken: Card.parse(w[3]) }),
  phase2: (w) => ({ type: "phase2", leader: int(w[1]) }), // phase2 <leader>
  claim: (w) => ({ type: "claim", seat: int(w[1]), success: w[2] === "yes" }), // claim <seat> yes|no
  handend: (w) => ({ // handend <hand> points <p>... totals <t>...
    type: "handend", hand: int(w[1]), points: ints(section(w, "points", "totals")), totals: ints(section(w, "totals")),
  }),
  go: parseGo,
  error: (w) => ({ type: "error", text: w.slice(1).join(" ") }), // error <text>
  gameover: (w) => ({ // gameover <termination> <seat|-> result <r>... totals <t>...  (r: 1 win, 0 loss, 0.5 draw)
    type: "gameover", termination: w[1], culprit: seatOrNull(w[2]),
    result: section(w, "result", "totals").map(Number), totals: ints(section(w, "totals")),
  }),
  bid: (w) => ({ type: "bid", seat: int(w[1]), amount: w[2] === "pass" ? null : int(w[2]) }), // null: passed
  bidwon: (w) => ({ type: "bidwon", seat: int(w[1]), amount: int(w[2]) }), // bidwon <seat> <amount>
  redeal: (w) => ({ type: "redeal", dealer: int(w[1]) }), // redeal <dealer>
  kitty: (w) => ({ type: "kitty", cards: w.slice(1).map(Card.parse) }), // kitty <card>...
  kittycard: (w) => ({ type: "kittycard", card: Card.parse(w[1]) }), // kittycard <card>
  throwin: (w) => ({ type: "throwin", seat: int(w[1]) }), // throwin <seat>
  trump: (w) => ({ type: "trump", seat: int(w[1]), suit: w[2] }), // trump <seat> <suit>
  call: (w) => ({ type: "call", seat: int(w[1]), card: Card.parse(w[2]) }), // call <seat> <card>
  partner: (w) => ({ type: "partner", bidder: int(w[1]), partner: seatOrNull(w[2]) }), // null: plays alone
  give: (w) => ({ type: "give", giver: int(w[1]), receiver: int(w[2]), cards: w.slice(3).map(cardOrHidden) }),
  bury: (w) => ({ type: "bury", seat: int(w[1]), cards: w.slice(2).map(cardOrHidden) }), // bury <seat> <card|??>...
  dummy: (w) => ({ type: "dummy", seat: int(w[1]), card: Card.parse(w[2]) }), // dummy <seat> <card>
  contract: (w) => ({ // contract <bidder> <bid> made|set <points>
    type: "contract", bidder: int(w[1]), bid: int(w[2]), made: w[3] === "made", points: int(w[4]),
  }),
  target: (w) => ({ type: "target", target: int(w[1]) }), // target <n>: the target rose to n (tiebreak=play-on)
  ping: (w) => ({ type: "ping", token: w[1] ?? "" }), // ping <token>: reply pong <token>
  matchend: () => ({ type: "matchend" }),
  quit: () => ({ type: "quit" }), // exit now
};

/** One line from the referee -> one message ({ type: "unknown", words } for what this kit cannot read). */
function parseLine(line) {
  const words = line.trim().split(/\s+/).filter(Boolean);
  const parse = Object.hasOwn(PARSERS, words[0] ?? "") ? PARSERS[words[0]] : null;
  if (parse === null) return { type: "unknown", words };
  try {
    return parse(words);
  } catch {
    return { type: "unknown", words }; // a line of a shape this kit does not know: ignore it
  }
}

module.exports = { SUITS, RANKS, HIDDEN, Card, Action, State, parseLine, parseAction, expand };

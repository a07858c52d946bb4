#!/usr/bin/env node
// tactician: a two-handed pinochle bot for node, no dependencies.
//
// * counts cards: it follows every public event, so in the second phase it
//   knows the opponent's hand exactly (deck - own hand - cards played);
// * searches the second phase exactly (alpha-beta over the remaining tricks,
//   with a node budget) and falls back to heuristics when the tree is big;
// * first phase: highest meld, wins counters cheaply, keeps trumps and meld
//   material, leads its least useful card;
// * the bidding games: values its hand as meld of the best trump suit plus
//   its sure tricks (aces, long trumps), bids up to that, keeps count of the
//   cards played to lead winners, and never overtakes its partner.
"use strict";

const RANKS = "ATKQJ9";
const SUITS = "CDHS";
const STRENGTH = { A: 6, T: 5, K: 4, Q: 3, J: 2, 9: 1 };
const CLASSIC = { run: 150, royal: 40, marriage: 20, dix: 10, aces: 100, kings: 80, queens: 60, jacks: 40, pinochle: 40, roundhouse: 240 };
const UNIT = { run: 15, royal: 4, marriage: 2, dix: 1, aces: 10, kings: 8, queens: 6, jacks: 4, pinochle: 4, roundhouse: 24 };
const TIMES = { "double-": 2, "triple-": 3, "quadruple-": 4 };
const COUNTINGS = {
  "11-10-4-3-2": { A: 11, T: 10, K: 4, Q: 3, J: 2, 9: 0 },
  "10-10-5-5": { A: 10, T: 10, K: 5, Q: 5, J: 0, 9: 0 },
  "10-10-10": { A: 10, T: 10, K: 10, Q: 0, J: 0, 9: 0 },
  "1-1-1": { A: 1, T: 1, K: 1, Q: 0, J: 0, 9: 0 },
};
const NODE_BUDGET = 20000; // search nodes per decision
const SEARCH_FROM = 8; // cards in hand when exact search starts

const UNIT_TABLE = { run: [15, 150], royal: [4, 8], marriage: [2, 4], dix: [1, 2], aces: [10, 100], kings: [8, 80], queens: [6, 60], jacks: [4, 40], pinochle: [4, 30] };
const DOUBLE_TABLE = { run: [25, 250, 450, 500], royal: [4, 8, 12, 16], marriage: [2, 4, 6, 8], aces: [10, 100, 300, 500], kings: [8, 80, 240, 500], queens: [6, 60, 180, 500], jacks: [4, 40, 120, 500], pinochle: [15, 30, 90, 500] };

const state = {
  seat: 0, options: {}, trump: null, phase: 1, hand: [], table: [], played: [], trick: [], leader: 0,
  mode: "stock", variant: "", players: 2, bidder: null, partner: null,
};

// Meld a hand shows with this trump, as the bidding games count it.
function handMeld(cards, trump, table) {
  const count = {};
  for (const c of cards) count[c] = (count[c] || 0) + 1;
  const sets = (pattern) => Math.min(...pattern.map((c) => count[c] || 0));
  const value = (kind, times) => {
    const row = table[kind] || [];
    let total = 0;
    while (times > 0 && row.length) {
      const m = Math.min(times, row.length);
      total += row[m - 1];
      times -= m;
    }
    return total;
  };
  const runs = sets([..."ATKQJ"].map((r) => r + trump));
  let total = value("run", runs) + value("royal", sets(["K" + trump, "Q" + trump]) - runs);
  for (const s of SUITS) if (s !== trump) total += value("marriage", sets(["K" + s, "Q" + s]));
  total += value("dix", count["9" + trump] || 0);
  for (const [kind, r] of [["aces", "A"], ["kings", "K"], ["queens", "Q"], ["jacks", "J"]]) total += value(kind, sets([...SUITS].map((s) => r + s)));
  return total + value("pinochle", sets(["JD", "QS"]));
}

function meldTable() {
  return state.variant === "four-handed-double" || state.variant === "call-for-partner" ? DOUBLE_TABLE : UNIT_TABLE;
}

function suitValue(suit) {
  const trumps = state.hand.filter((c) => c[1] === suit);
  const high = trumps.filter((c) => c[0] === "A" || c[0] === "T").length;
  return handMeld(state.hand, suit, meldTable()) + 2 * trumps.length + high;
}

function chooseAuction(decision, legal) {
  const cardsOf = (prefix) => legal.map((t) => t.slice(prefix.length));
  if (decision === "bid") {
    const bids = legal.filter((t) => t.startsWith("bid:"));
    if (!bids.length) return "pass";
    const lowest = Number(bids[0].slice(4).split("..")[0]);
    const trickPoints = meldTable() === DOUBLE_TABLE ? 50 : 25;
    const bestSuit = [...SUITS].reduce((a, b) => (suitValue(b) > suitValue(a) ? b : a));
    const meld = handMeld(state.hand, bestSuit, meldTable());
    const trumps = state.hand.filter((c) => c[1] === bestSuit).length;
    const aces = state.hand.filter((c) => c[0] === "A").length;
    const fair = trickPoints / state.players;
    let estimate = meld + fair * (0.6 + 0.08 * trumps) + aces * 0.5;
    if (state.partner !== null) estimate += fair * 0.8;
    return estimate >= lowest || !legal.includes("pass") ? "bid:" + lowest : "pass";
  }
  if (decision === "trump") return "trump:" + [...SUITS].reduce((a, b) => (suitValue(b) > suitValue(a) ? b : a));
  if (decision === "call") {
    for (const r of "ATK") {
      const token = "call:" + r + state.trump;
      if (legal.includes(token) && state.hand.filter((c) => c === r + state.trump).length < 4) return token;
    }
    return legal[0];
  }
  const cards = cardsOf(decision + ":");
  const weak = (c) => (c[1] === state.trump ? 100 : 0) + keepValue(c, state.hand) + (c[0] === "A" ? 20 : 0);
  if (decision === "give" && state.seat !== state.bidder) {
    return "give:" + cards.reduce((a, b) => (weak(b) > weak(a) ? b : a));
  }
  return decision + ":" + cards.reduce((a, b) => (weak(b) < weak(a) ? b : a));
}

function remove(list, card) {
  const i = list.indexOf(card);
  if (i >= 0) list.splice(i, 1);
  return i >= 0;
}

function counter(card) {
  const table = COUNTINGS[state.options.counting] || COUNTINGS["11-10-4-3-2"];
  return table[card[0]];
}

function beats(challenger, best) {
  if (challenger[1] === best[1]) return STRENGTH[challenger[0]] > STRENGTH[best[0]];
  return challenger[1] === state.trump;
}

function meldValue(action) {
  let name = action.split(":")[0];
  let times = 1;
  for (const prefix of Object.keys(TIMES)) {
    if (name.startsWith(prefix)) { name = name.slice(prefix.length); times = TIMES[prefix]; }
  }
  const unit = state.options.scale === "unit";
  const table = unit ? UNIT : CLASSIC;
  if (name === "pinochle" && times === 2 && state.options["double-pinochle"] === "bonus") return unit ? 30 : 300;
  return (table[name] || 0) * times;
}

function keepValue(card, cards) {
  const [rank, suit] = card;
  let v = STRENGTH[rank];
  if (suit === state.trump) v += 9;
  if (rank === "A" || rank === "T") v += 4;
  if (state.phase === 1) {
    if (rank === "K" || rank === "Q") {
      const partner = (rank === "K" ? "Q" : "K") + suit;
      if (cards.includes(partner)) v += suit === state.trump ? 6 : 3;
    }
    if ((card === "JD" && cards.includes("QS")) || (card === "QS" && cards.includes("JD"))) v += 3;
    const same = cards.filter((c) => c[0] === rank).length;
    if (same >= 3 && rank !== "9" && rank !== "T") v += 3;
  }
  return v;
}

// ------------------------------------------------------------ second phase
function legalPlays(hand, led, best, mustWin) {
  if (!led) return [...new Set(hand)];
  let cands = hand.filter((c) => c[1] === led[1]);
  if (cands.length === 0) cands = hand.filter((c) => c[1] === state.trump);
  if (cands.length === 0) cands = hand.slice();
  const must = mustWin === "always" || (mustWin === "trump-led" && led[1] === state.trump);
  if (must) {
    const winners = cands.filter((c) => beats(c, best));
    if (winners.length) cands = winners;
  }
  return [...new Set(cands)];
}

function opponentHand() {
  const deck = [];
  for (const s of SUITS) for (const r of RANKS) deck.push(r + s, r + s);
  for (const c of state.hand) remove(deck, c);
  for (const c of state.played) remove(deck, c);
  return deck;
}

// Exact alpha-beta on trick points (mine minus theirs) for the rest of the hand.
function search(mine, theirs, leader, trick, budget) {
  const mustWin = state.options["must-win"] || "always";
  const lastBonus = Number(state.options["last-trick"] || 10);
  const memo = new Map();
  let nodes = 0;
  const me = 0;
  function value(hands, lead, cards, alpha, beta) {
    if (++nodes > budget) throw new Error("budget");
    if (cards.length === 0 && hands[0].length === 0) return 0;
    const toAct = cards.length === 0 ? lead : 1 - lead;
    const key = cards.length === 0 ? hands[0].slice().sort().join("") + "|" + hands[1].slice().sort().join("") + lead : null;
    if (key && memo.has(key)) return memo.get(key);
    const led = cards[0];
    const best = cards.length ? cards[0] : null;
    const options = legalPlays(hands[toAct], led, best, mustWin);
    let bestValue = toAct === me ? -Infinity : Infinity;
    for (const card of options) {
      const next = [hands[0].slice(), hands[1].slice()];
      remove(next[toAct], card);
      let v;
      if (cards.length === 0) {
        v = value(next, lead, [card], alpha, beta);
      } else {
        const winner = beats(card, cards[0]) ? toAct : lead;
        let pts = counter(cards[0]) + counter(card);
        if (next[0].length === 0) pts += lastBonus;
        v = (winner === me ? pts : -pts) + value(next, winner, [], alpha, beta);
      }
      if (toAct === me) { bestValue = Math.max(bestValue, v); alpha = Math.max(alpha, v); }
      else { bestValue = Math.min(bestValue, v); beta = Math.min(beta, v); }
      if (alpha >= beta) break;
    }
    if (key && alpha < bestValue && bestValue < beta) memo.set(key, bestValue);
    return bestValue;
  }
  // Root: choose my card.
  const hands = [mine, theirs];
  const led = trick.length ? trick[0] : null;
  const options = legalPlays(mine, led, led, mustWin);
  let choice = options[0];
  let bestV = -Infinity;
  for (const card of options) {
    const next = [mine.slice(), theirs.slice()];
    remove(next[0], card);
    let v;
    if (!led) v = value(next, me, [card], -Infinity, Infinity);
    else {
      const winner = beats(card, led) ? me : 1;
      let pts = counter(led) + counter(card);
      if (next[0].length === 0) pts += lastBonus;
      v = (winner === me ? pts : -pts) + value(next, winner, [], -Infinity, Infinity);
    }
    if (v > bestV) { bestV = v; choice = card; }
  }
  return choice;
}

// ----------------------------------------------------------------- choices
function choose(decision, legal) {
  if (["bid", "trump", "call", "give", "bury"].includes(decision)) return chooseAuction(decision, legal);
  if (decision === "meld") {
    const melds = legal.filter((a) => a.includes(":"));
    if (!melds.length) return "pass";
    return melds.reduce((a, b) => (meldValue(b) > meldValue(a) ? b : a));
  }
  if (decision === "take") {
    const t = state.turnup;
    const want = t && (t[1] === state.trump || t[0] === "A");
    return want && legal.includes("take:turnup") ? "take:turnup" : "take:stock";
  }
  const plays = legal.filter((a) => a !== "claim");
  const cardOf = (a) => a.split(":").pop();
  if (state.mode === "stock" && state.phase === 2 && state.hand.length <= SEARCH_FROM) {
    try {
      const card = search(state.hand.slice(), opponentHand(), state.leader, state.trick.map((t) => t[1]), NODE_BUDGET);
      if (plays.includes(card)) return card;
    } catch (e) {
      // tree too big for the budget: heuristics below
    }
  }
  const cards = plays.map(cardOf);
  const all = state.hand.concat(state.table);
  if (decision === "lead") {
    if (state.phase === 2) {
      const aces = plays.filter((p) => p[0] === "A" && p[1] !== state.trump);
      if (aces.length) return aces[0];
    }
    return plays.reduce((a, b) => (keepValue(cardOf(b), all) < keepValue(cardOf(a), all) ? b : a));
  }
  const led = state.trick[0][1];
  let best = led;
  let bestSeat = state.trick[0][0];
  for (const [seat, c] of state.trick.slice(1)) if (beats(c, best)) { best = c; bestSeat = seat; }
  if (state.partner !== null && bestSeat === state.partner) {
    // partner is winning: give it points, keep our strength
    return plays.reduce((a, b) => (counter(cardOf(b)) * 10 - keepValue(cardOf(b), all) > counter(cardOf(a)) * 10 - keepValue(cardOf(a), all) ? b : a));
  }
  const winners = plays.filter((p) => beats(cardOf(p), best));
  const stake = counter(led);
  const cheapest = (list, extra) => list.reduce((a, b) => (keepValue(cardOf(b), all) + extra(b) < keepValue(cardOf(a), all) + extra(a) ? b : a));
  if (winners.length && (state.phase === 2 || stake >= 10 || (stake > 0 && winners.some((w) => cardOf(w)[1] === led[1])))) {
    return cheapest(winners, () => 0);
  }
  void cards;
  return cheapest(plays, (p) => 2 * counter(cardOf(p)));
}

// ---------------------------------------------------------------- protocol
function onLine(line) {
  const w = line.trim().split(/\s+/);
  switch (w[0]) {
    case "pinochle":
      out("id name tactician\nid author pinochle-arena sample bots\nready");
      break;
    case "game":
      state.variant = w[2];
      state.players = Number(w[4]);
      state.seat = Number(w[3]);
      state.options = {};
      for (const kv of w.slice(5)) { const [k, v] = kv.split("="); state.options[k] = v; }
      break;
    case "deal":
      state.hand = w.slice(4);
      state.table = [];
      state.played = [];
      state.trick = [];
      state.mode = w[3] === "-" ? "auction" : "stock";
      state.turnup = state.mode === "stock" ? w[3] : null;
      state.trump = state.mode === "stock" ? w[3][1] : null;
      state.phase = state.mode === "stock" ? 1 : 2;
      state.leader = (Number(w[2]) + 1) % state.players;
      state.bidder = null;
      state.partner = state.players === 4 ? (state.seat + 2) % 4 : null;
      break;
    case "bidwon":
      state.bidder = Number(w[1]);
      break;
    case "kitty":
      if (state.bidder === state.seat) state.hand = state.hand.concat(w.slice(1));
      break;
    case "trump":
      state.trump = w[2];
      break;
    case "partner":
      if (w[2] !== "-") {
        if (state.seat === Number(w[1])) state.partner = Number(w[2]);
        else if (state.seat === Number(w[2])) state.partner = Number(w[1]);
      }
      break;
    case "give": {
      const cards = w.slice(3).filter((c) => c !== "??");
      if (Number(w[1]) === state.seat) for (const c of cards) remove(state.hand, c);
      if (Number(w[2]) === state.seat) state.hand = state.hand.concat(cards);
      break;
    }
    case "bury":
      if (Number(w[1]) === state.seat) for (const c of w.slice(2)) remove(state.hand, c);
      break;
    case "draw":
      if (Number(w[1]) === state.seat && w[2] !== "??") state.hand.push(w[2]);
      if (w[2] === state.turnup) state.turnup = null;
      break;
    case "meld":
      if (Number(w[1]) === state.seat && w[2] !== "dix-exchanged") {
        for (const c of w.slice(4)) { remove(state.hand, c); state.table.push(c); }
      }
      break;
    case "exchange":
      if (Number(w[1]) === state.seat) {
        // the dix went from hand to table by the meld event; it is in the stock now
        remove(state.table, w[2]);
        state.hand.push(w[3]);
      }
      state.turnup = w[2];
      break;
    case "play": {
      const seat = Number(w[1]);
      const fromTable = w[2].startsWith("table:");
      const card = w[2].split(":").pop();
      if (seat === state.seat) remove(fromTable ? state.table : state.hand, card);
      if (state.trick.length === 0) state.leader = seat;
      state.trick.push([seat, card]);
      state.played.push(card);
      break;
    }
    case "trick":
      state.trick = [];
      state.leader = Number(w[1]);
      break;
    case "phase2":
      state.phase = 2;
      state.hand = state.hand.concat(state.table);
      state.table = [];
      state.leader = Number(w[1]);
      break;
    case "go":
      out(choose(w[1], w.slice(4)));
      break;
    case "ping":
      out("pong " + w[1]);
      break;
    case "quit":
      process.exit(0);
  }
}

function out(text) {
  process.stdout.write(text + "\n");
}

let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  let cut;
  while ((cut = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, cut);
    pending = pending.slice(cut + 1);
    if (line.trim()) onLine(line);
  }
});
process.stdin.on("end", () => process.exit(0));

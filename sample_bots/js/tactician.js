#!/usr/bin/env node
// tactician: a two-handed pinochle bot for node, no dependencies.
//
// * counts cards: in the second phase it knows the opponent's hand exactly
//   (every card it has not seen);
// * searches the second phase exactly (alpha-beta over the remaining tricks,
//   with a node budget: option "budget") and falls back to heuristics when
//   the tree is big;
// * first phase: highest meld, wins counters cheaply, keeps trumps and meld
//   material, leads its least useful card;
// * the bidding games: values its hand as meld of the best trump suit plus
//   its sure tricks (aces, long trumps), bids up to that, and never
//   overtakes its partner.
//
// It speaks protocol 3 and follows no events at all: the game's "rule" lines
// give the meld values, card points and follow duties, and the "state" line
// it asks for ("want state") restates its hand, the tables, the trick and the
// unseen cards before every request. A bot built this way cannot lose track.
"use strict";

const SUITS = "CDHS";
const STRENGTH = { A: 6, T: 5, K: 4, Q: 3, J: 2, 9: 1 };
const SEARCH_FROM = 8; // cards in hand when exact search starts

const state = {
  seat: 0, trump: null, phase: 1, hand: [], table: [], unseen: [], trick: [], leader: 0,
  mode: "stock", players: 2, bidder: null, partner: null, turnup: null,
  budget: 20000, // search nodes per decision (option "budget")
  // from the game's rule lines
  meldTable: {}, points: {}, lastTrick: 0, trickPoints: 0, copies: 2, mustWin: "always",
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

function suitValue(suit) {
  const trumps = state.hand.filter((c) => c[1] === suit);
  const high = trumps.filter((c) => c[0] === "A" || c[0] === "T").length;
  return handMeld(state.hand, suit, state.meldTable) + 2 * trumps.length + high;
}

function chooseAuction(decision, legal) {
  const cardsOf = (prefix) => legal.map((t) => t.slice(prefix.length));
  if (decision === "bid") {
    const bids = legal.filter((t) => t.startsWith("bid:"));
    if (!bids.length) return "pass";
    const lowest = Number(bids[0].slice(4).split("..")[0]);
    const trickPoints = state.trickPoints;
    const bestSuit = [...SUITS].reduce((a, b) => (suitValue(b) > suitValue(a) ? b : a));
    const meld = handMeld(state.hand, bestSuit, state.meldTable);
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
  return state.points[card[0]] || 0;
}

function beats(challenger, best) {
  if (challenger[1] === best[1]) return STRENGTH[challenger[0]] > STRENGTH[best[0]];
  return challenger[1] === state.trump;
}

// Protocol 3 writes what a meld scores now after "=": run:AH,TH,JH=110 (an upgrade of a royal marriage).
function meldValue(action) {
  return Number(action.split("=").pop());
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

// Exact alpha-beta on trick points (mine minus theirs) for the rest of the hand.
function search(mine, theirs, leader, trick, budget) {
  const mustWin = state.mustWin;
  const lastBonus = state.lastTrick;
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
      // the stock is gone: every card not seen is in the other hand
      const card = search(state.hand.slice(), state.unseen.slice(), state.leader, state.trick.map((t) => t[1]), state.budget);
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
const list = (text) => (text === "-" ? [] : text.split(","));

// "rule KEY VALUE...": the game about to start (PROTOCOL.md, section 10).
function onRule(w) {
  const values = w.slice(2);
  switch (w[1]) {
    case "meld": {
      const levels = [];
      for (const v of values.slice(1)) { if (v === "-") break; levels.push(Number(v)); }
      state.meldTable[values[0]] = levels;
      break;
    }
    case "points":
      state.points = {};
      for (const kv of values) { const [rank, n] = kv.split("="); state.points[rank] = Number(n); }
      break;
    case "copies":
      state.copies = Number(values[0]);
      break;
    case "last-trick":
      state.lastTrick = Number(values[0]);
      state.trickPoints = Object.values(state.points).reduce((a, b) => a + b, 0) * 4 * state.copies + state.lastTrick;
      break;
    case "follow":
      if (values[0] === "2") state.mustWin = values.includes("head") ? "always" : values.includes("head-if-trump-led") ? "trump-led" : "never";
      break;
  }
}

// "state key=value...": everything the seat may know, before each request.
function onState(w) {
  const f = {};
  for (const kv of w.slice(1)) { const i = kv.indexOf("="); f[kv.slice(0, i)] = kv.slice(i + 1); }
  state.phase = Number(f.phase);
  state.trump = f.trump === "-" ? null : f.trump;
  state.turnup = f.turnup === "-" ? null : f.turnup;
  state.hand = list(f.cards);
  state.table = list(f.tables.split("/")[state.seat]);
  state.leader = f.leader === "-" ? state.seat : Number(f.leader);
  state.trick = list(f.trick).map((c, i) => [(state.leader + i) % state.players, c]);
  state.unseen = [];
  for (const item of list(f.unseen)) { const [c, n] = item.split(":"); for (let k = 0; k < Number(n); k++) state.unseen.push(c); }
  state.bidder = f.bid === "-" ? null : Number(f.bid.split(":")[0]);
  if (state.players === 5) { // "partner" is the bid winner's partner: ours if we won the bid or were called
    const called = f.partner === "-" ? null : Number(f.partner);
    state.partner = state.seat === state.bidder ? called : state.seat === called ? state.bidder : null;
  }
  if (state.mode === "auction" && state.phase === 1) state.phase = 2; // the bidding games play strict tricks
}

function onLine(line) {
  const w = line.trim().split(/\s+/);
  switch (w[0]) {
    case "pinochle":
      out("id name tactician\nid author pinochle-arena sample bots\nprotocol 3\nwant state\n" +
          "option budget int 20000 100 10000000\nready");
      break;
    case "setoption":
      if (w[1] === "budget") state.budget = Number(w[2]);
      break;
    case "game":
      state.players = Number(w[4]);
      state.seat = Number(w[3]);
      state.meldTable = {};
      break;
    case "rule":
      onRule(w);
      break;
    case "deal":
      state.mode = w[3] === "-" ? "auction" : "stock";
      state.partner = state.players === 4 ? (state.seat + 2) % 4 : null;
      break;
    case "state":
      onState(w);
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

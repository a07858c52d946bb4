#!/usr/bin/env node
"use strict";
// javascript-starter: a pinochle-arena bot to copy and make your own.
//
// It speaks protocol 3 (protocol/PROTOCOL.md) and plays every variant
// legally with a deliberately simple strategy. The files:
//
//   bot.js       this file: the strategy (choose, the one function to
//                replace) and the main loop that talks to the referee
//   model.js     the game model: your hand, trump, the trick, the scores,
//                kept up to date from the referee's messages
//   messages.js  every line the referee sends, read into JavaScript objects
//
// Run it with "node bot.js" (node 20, no packages, no build step).
// Standard output is for protocol lines only: debug with log(...), which
// writes to standard error (the referee saves it in a log file).

const readline = require("node:readline");
const { SUITS, Card, parseLine } = require("./messages.js");
const { Model } = require("./model.js");

const NAME = "javascript-starter";
const AUTHOR = "pinochle-arena starter kits";
// Options the organiser may set (protocol 3), one "option" line each, e.g.
//   "option depth int 4 1 12"   (a whole number: default 4, from 1 to 12)
// Their values arrive before the first game, in model.options.depth (text).
const OPTIONS = [];

/** Debug output: standard error, never standard output. */
function log(...args) {
  console.error(...args);
}

// =============================================================================
//  YOUR BOT: replace choose() (and its helpers below) with your own thinking.
//
//  choose() gets the request (go.decision, go.actions: every legal action,
//  bid ranges already expanded) and the model (model.js), and returns ONE of
//  go.actions. Everything below it is one simple way to do that.
// =============================================================================
function choose(go, model) {
  const byKind = {}; // the legal actions by kind: "card", "meld", "bid", "pass"...
  for (const a of go.actions) (byKind[a.kind] ??= []).push(a);

  // Claim the game when our points reach the target (only some variants offer
  // "claim"; a wrong claim loses the game).
  if (byKind.claim && model.target && model.myPoints() >= model.target) return byKind.claim[0];

  switch (go.decision) {
    case "bid":
      return chooseBid(byKind, model);
    case "trump": // the suit that melds most, then the longest (never "throw-in")
      if (!byKind.trump) return go.actions[0];
      return maxBy(byKind.trump, (a) => [
        handMeld(model.hand, a.suit, model), model.hand.filter((c) => c.suit === a.suit).length,
      ]);
    case "meld": // the meld that scores most, if there is one
      return byKind.meld ? maxBy(byKind.meld, (a) => [a.points ?? 0]) : byKind.pass[0];
    case "lead":
    case "follow":
      return chooseCard(go, byKind, model);
    case "give":
      if (model.bidder === model.seat) return minBy(byKind.give, (a) => weakness(a.card, model)); // our weakest
      return maxBy(byKind.give, (a) => [a.card.suit === model.trump ? 1 : 0, a.card.strength]); // partner: our best
    case "bury": // our weakest cards (buried counters still score for us)
      return minBy(byKind.bury, (a) => weakness(a.card, model));
    default: // take, call, and any request this kit does not know yet: the first action offered
      return go.actions[0];
  }
}

/** Bid the minimum when our meld alone is worth it; pass otherwise (unless passing is not allowed). */
function chooseBid(byKind, model) {
  const bids = byKind.bid ?? [];
  if (bids.length === 0) return byKind.pass[0];
  const lowest = minBy(bids, (a) => [a.amount]);
  const bestMeld = Math.max(...[...SUITS].map((suit) => handMeld(model.hand, suit, model)));
  if (!byKind.pass || bestMeld >= lowest.amount) return lowest;
  return byKind.pass[0];
}

/** Lead: a non-trump ace, else the weakest card. Follow: the weakest card that wins, else the weakest. */
function chooseCard(go, byKind, model) {
  const plays = [...(byKind.card ?? []), ...(byKind.table ?? [])];
  if (plays.length === 0) return go.actions[0];
  const weakest = minBy(plays, (a) => weakness(a.card, model));
  if (model.trick.length === 0) { // we lead
    const ace = plays.find((a) => a.card.rank === "A" && a.card.suit !== model.trump);
    return ace ?? weakest;
  }
  const [winner, best] = trickWinner(model.trick, model.trump);
  if (model.isPartner(winner)) return weakest; // our side is winning already
  const winning = plays.filter((a) => beats(a.card, best, model.trump));
  return winning.length ? minBy(winning, (a) => weakness(a.card, model)) : weakest;
}

// ------------------------------------------------------------------ card sense
/** Sort key, weakest first: non-trumps before trumps, then fewer counter points, then lower rank. */
function weakness(card, model) {
  return [card.suit === model.trump ? 1 : 0, model.rules.points[card.rank] ?? 0, card.strength];
}

/** Does `card` beat `best`, the card winning the trick so far? (Of two identical cards the first wins.) */
function beats(card, best, trump) {
  if (card.suit === best.suit) return card.strength > best.strength;
  return card.suit === trump;
}

/** [seat, card] winning the trick so far. */
function trickWinner(trick, trump) {
  let [seat, best] = trick[0];
  for (const [s, c] of trick.slice(1)) {
    if (beats(c, best, trump)) [seat, best] = [s, c];
  }
  return [seat, best];
}

/** Roughly what `cards` meld with `trump`, at this game's meld values ("rule meld" lines). */
function handMeld(cards, trump, model) {
  const count = new Map();
  for (const c of cards) count.set(c, (count.get(c) ?? 0) + 1);
  const times = (...names) => Math.min(...names.map((n) => count.get(Card.parse(n)) ?? 0)); // complete sets held
  const value = (kind, n) => { // n of a meld: as many times over as the table allows, then again
    const row = model.rules.melds[kind] ?? [];
    let total = 0;
    while (n > 0 && row.length) {
      const k = Math.min(n, row.length);
      total += row[k - 1];
      n -= k;
    }
    return total;
  };
  const runs = times(...[..."ATKQJ"].map((r) => r + trump));
  let total = value("run", runs) + value("royal", times("K" + trump, "Q" + trump) - runs);
  for (const s of SUITS) if (s !== trump) total += value("marriage", times("K" + s, "Q" + s));
  total += value("dix", count.get(Card.parse("9" + trump)) ?? 0);
  for (const [kind, rank] of [["aces", "A"], ["kings", "K"], ["queens", "Q"], ["jacks", "J"]]) {
    total += value(kind, times(...[...SUITS].map((s) => rank + s)));
  }
  return total + value("pinochle", times("JD", "QS"));
}

/** Compares sort keys (arrays of numbers) element by element. */
function compareKeys(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}
const minBy = (items, key) => items.reduce((x, y) => (compareKeys(key(y), key(x)) < 0 ? y : x));
const maxBy = (items, key) => items.reduce((x, y) => (compareKeys(key(y), key(x)) > 0 ? y : x));

// =============================================================================
//  The main loop: talks to the referee. You should not need to change it.
// =============================================================================
/** One protocol line to the referee. (Writes to a pipe are not buffered in node: nothing to flush.) */
function send(line) {
  process.stdout.write(line + "\n");
}

/** choose(), made safe: a crash or a reply that is not on the list becomes the first legal action. */
function decide(go, model) {
  try {
    let action = choose(go, model);
    if (typeof action === "string") { // a token is fine too: "AS", "bid:25", "royal:KH,QH"
      const want = action.toLowerCase();
      action = go.actions.find((a) => [a.token.toLowerCase(), a.token.split("=")[0].toLowerCase()].includes(want))
        ?? action;
    }
    if (go.actions.includes(action)) return action;
    log(`choose() returned ${action}, which is not a legal action; playing the first one instead`);
  } catch (err) {
    log(`choose() failed on: go ${go.decision} ${go.tokens.join(" ")}`);
    log(err);
  }
  return go.actions[0] ?? { token: "pass", kind: "pass", card: null };
}

function onLine(line, model) {
  const msg = parseLine(line);
  try {
    model.update(msg);
  } catch (err) { // a bookkeeping bug must not stop the bot; the next state line puts it right
    log(`model.update failed on: ${line}`);
    log(err);
  }
  switch (msg.type) {
    case "pinochle":
      send(`id name ${NAME}`);
      send(`id author ${AUTHOR}`);
      if (msg.version >= 3) { // a referee that greets with "pinochle 2" would refuse these lines
        send("protocol 3");
        for (const option of OPTIONS) send(option);
        send("want state");
      }
      send("ready");
      break;
    case "go": {
      const action = decide(msg, model);
      if ((action.kind === "give" || action.kind === "bury") && action.card) {
        model.putAside(action.card); // it leaves the hand now, as the state line counts it
      }
      send(action.token);
      break;
    }
    case "ping":
      send(`pong ${msg.token}`);
      break;
    case "error":
      log(`referee: error ${msg.text}`);
      break;
    case "gameover":
      log(`game over (${msg.termination}), result ${msg.result.join(" ")}`);
      break;
    case "quit":
      process.exit(0);
    // every other message only updates the model; unknown ones are ignored
  }
}

function main() {
  const model = new Model();
  const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  input.on("line", (line) => onLine(line, model));
  input.on("close", () => process.exit(0));
}

main();

// pinochle-arena: a person's seat. The page is a protocol-3 bot (protocol/PROTOCOL.md) whose moves are clicks:
// it answers the greeting, asks for a state line before every request, draws what that line says this seat may
// know, and offers each request's legal actions. It knows no rule: what is legal comes from the referee.
"use strict";

const params = new URLSearchParams(location.search);
const game = { seat: Number(params.get("seat")), players: 2, names: [], state: {}, request: null };
let socket = null;

function seatName(seat) {  // the names come from the page's server (/names), not from the protocol
  return seat === game.seat ? "you" : game.names[seat] || `seat ${seat}`;
}

function pretty(token) {  // a card's code in words' place: "AS" -> "A♠", "table:TD" -> "10♦ from the table"
  if (token.startsWith("table:")) return `${pretty(token.slice(6))} from the table`;
  return /^[AKQJT9][SHDC]$/.test(token) ? (token[0] === "T" ? "10" : token[0]) + SUITS[token[1]] : token;
}

function prettyAll(tokens) {
  return tokens.map(pretty).join(" ");
}

// ------------------------------------------------------------------ the protocol
function say(text) {
  socket.send(text);
}

function note(text) {
  document.getElementById("events").prepend(el("li", {}, text));
}

const EVENTS = {  // the lines that tell what happened, in words
  play: ([seat, what]) => `${seatName(+seat)} played ${pretty(what)}`,
  trick: ([seat, points]) => `${seatName(+seat)} took the trick (${points} points)`,
  draw: ([seat, what]) => `${seatName(+seat)} drew ${what === "??" ? "a card" : pretty(what)}`,
  meld: ([seat, kind, points, ...cs]) => `${seatName(+seat)} melded ${kind} for ${points}: ${prettyAll(cs)}`,
  exchange: ([seat, dix, taken]) => `${seatName(+seat)} exchanged ${pretty(dix)} for ${pretty(taken)}`,
  phase2: ([leader]) => `the stock is used up; ${seatName(+leader)} leads`,
  bid: ([seat, amount]) => `${seatName(+seat)} ${amount === "pass" ? "passed" : "bid " + amount}`,
  bidwon: ([seat, amount]) => `${seatName(+seat)} won the auction at ${amount}`,
  redeal: () => "everybody passed: the cards are dealt again",
  kitty: (cs) => `the kitty: ${prettyAll(cs)}`,
  kittycard: ([c]) => `a kitty card is turned: ${pretty(c)}`,
  throwin: ([seat]) => `${seatName(+seat)} threw the hand in`,
  trump: ([seat, suit]) => `${seatName(+seat)} named trump: ${SUITS[suit] || suit}`,
  call: ([seat, c]) => `${seatName(+seat)} called ${pretty(c)}`,
  partner: ([bidder, seat]) => seat === "-" ? `${seatName(+bidder)} plays alone` : `${seatName(+seat)} is the partner`,
  give: ([from, to, ...cs]) => `${seatName(+from)} passed ${prettyAll(cs)} to ${seatName(+to)}`,
  bury: ([seat, ...cs]) => `${seatName(+seat)} buried ${prettyAll(cs)}`,
  dummy: ([seat, c]) => `${seatName(+seat)} took the dummy's ${pretty(c)}`,
  contract: ([bidder, bid, made, points]) =>
    `${seatName(+bidder)}'s bid of ${bid} was ${made === "made" ? "made" : "set"} (${points} points towards it)`,
  bonus: ([seat, points, why]) =>
    `${seatName(+seat)} scores ${points} ${why === "dix-turnup" ? "for turning up the dix" : `(${why})`}`,
  claim: ([seat, yes]) => `${seatName(+seat)} claimed the game: ${yes === "yes" ? "rightly" : "wrongly"}`,
  handend: ([hand, ...words]) => {  // handend <hand> points <p>... totals <t>...
    const points = words.slice(1, words.indexOf("totals")), totals = words.slice(words.indexOf("totals") + 1);
    const each = (values) => values.map((v, seat) => `${seatName(seat)} ${v}`).join(", ");
    return `hand ${hand} is over: this hand ${each(points)}; the game so far ${each(totals)}`;
  },
  deal: ([hand, dealer]) => `hand ${hand}: ${seatName(+dealer)} dealt`,
};

function receive(line) {
  const [word, ...rest] = line.split(" ");
  if (word === "pinochle") {  // the greeting: answer as a version 3 bot that wants state lines
    ["id name human", "protocol 3", "want state", "ready"].forEach(say);
  } else if (word === "ping") {
    say(`pong ${rest[0]}`);
  } else if (word === "game") {
    game.seat = Number(rest[2]);
    game.players = Number(rest[3]);
    game.state = {};
    document.getElementById("who").textContent = `seat ${game.seat} of ${game.players}, ${rest[1]}`;
    setStatus("a game begins");
    document.getElementById("events").replaceChildren();
  } else if (word === "state") {
    game.state = Object.fromEntries(rest.map((kv) => kv.split("=")));
    draw();
  } else if (word === "go") {
    ask(rest[0], Number(rest[1]), rest.slice(3));
  } else if (word === "error") {
    const box = document.getElementById("error");
    box.hidden = false;
    box.textContent = rest.join(" ");
  } else if (word === "gameover") {
    over(rest);
  } else if (word === "matchend") {
    const status = document.getElementById("status");
    setStatus(`${status.textContent}. The match is over: you may close this page.`, true);
  } else if (EVENTS[word]) {
    note(EVENTS[word](rest));
  }
}

// ------------------------------------------------------------------ drawing what this seat knows
function perSeat(text) {
  return (text || "").split("/");
}

function draw() {
  const s = game.state;
  const held = perSeat(s.held), tables = perSeat(s.tables), meld = perSeat(s.meld), tricks = perSeat(s.tricks);
  const totals = perSeat(s.totals);
  const leader = s.leader === "-" ? null : Number(s.leader);
  const trick = cards(s.trick).map((c, i) =>
    el("span", { class: "played" }, c, el("small", {}, seatName((leader + i) % game.players))));
  const piles = ["stock", "kitty", "buried", "dummy"].filter((p) => p in s).map((p) => `${p} ${s[p]}`).join(", ");
  const middle = el("div", { class: "middle" },
    el("div", { class: "trick" }, trick.length ? trick : el("span", { class: "empty" }, "no cards in the trick")),
    labelled("trump:", s.trump && s.trump !== "-" ? el("span", { class: `suit-${s.trump}` }, SUITS[s.trump]) : ""),
    labelled("turn-up:", s.turnup && s.turnup !== "-" ? card(s.turnup) : ""),
    labelled("face down:", piles),
    labelled("bid:", s.bid && s.bid !== "-" ? `${seatName(Number(s.bid.split(":")[0]))} ${s.bid.split(":")[1]}` : ""));
  const toAct = game.request ? game.seat : null;
  const seats = Array.from({ length: game.players }, (_, seat) => el("div", {
    class: `seat place-${place(seat, game.seat, game.players)}${seat === toAct ? " to-act" : ""}`, "data-seat": seat },
    el("div", { class: "name" }, seat === game.seat ? `you (seat ${seat})` : seatName(seat),
       Number(s.dealer) === seat ? " \u2022 dealer" : ""),
    el("div", { class: "score" }, `totals ${totals[seat]}, meld ${meld[seat]}, tricks ${tricks[seat]}`),
    el("div", { class: "hand" }, seat === game.seat ? cards(s.cards) : backs(Number(held[seat] || 0))),
    labelled("on the table:", cards(tables[seat]))));
  const names = Array.from({ length: game.players }, (_, seat) => seatName(seat));
  document.getElementById("table-area").replaceChildren(
    scoreboard({ trump: s.trump && s.trump !== "-" ? s.trump : "", target: s.target, hand: s.hand, names,
      totals, toAct }),
    el("div", { class: `table seats-${game.players}` }, middle, seats));
}

// ------------------------------------------------------------------ a request: the legal actions, to click
function label(token) {  // "royal:KH,QH=40" -> "royal K♥ Q♥ (40)"; "table:KS" -> "K♠ from the table"
  const [action, points] = token.split("=");
  const pretty = (c) => (c[0] === "T" ? "10" : c[0]) + (SUITS[c[c.length - 1]] || c.slice(1));
  if (/^[AKQJT9][SHDC]$/.test(action)) return pretty(action);
  if (action.startsWith("table:")) return `${pretty(action.slice(6, 8))} from the table${action.slice(8)}`;
  const [kind, what] = action.split(":");
  const detail = what ? " " + what.split(",").map((c) => (/^[AKQJT9][SHDC]$/.test(c) ? pretty(c) : c)).join(" ") : "";
  return `${kind}${detail}${points ? ` (${points})` : ""}`;
}

function expand(tokens) {  // bid ranges "bid:50..60" and "bid:65..100/5" -> one choice per bid
  return tokens.flatMap((token) => {
    const range = /^bid:(\d+)\.\.(\d+)(?:\/(\d+))?$/.exec(token);
    if (!range) return [token];
    const [low, high, step] = [Number(range[1]), Number(range[2]), Number(range[3] || 1)];
    return Array.from({ length: Math.floor((high - low) / step) + 1 }, (_, i) => `bid:${low + i * step}`);
  });
}

function ask(decision, timeLeft, tokens) {
  const choices = expand(tokens);
  game.request = { decision, choices };
  draw();  // your seat is the one to act
  document.getElementById("request").hidden = false;
  document.getElementById("ask").textContent = `Your move: ${decision}`;
  document.getElementById("clock").textContent = `time left for this move: ${Math.round(timeLeft / 1000)} s`;
  document.getElementById("choices").replaceChildren(...choices.map((token) => {
    const button = el("button", { "data-token": token, class: /^[AKQJT9][SHDC]$/.test(token) ? "card" : "" },
      label(token));
    button.addEventListener("click", () => answer(token));
    return button;
  }));
  for (const c of document.querySelectorAll(`.seat[data-seat='${game.seat}'] .hand .card`)) {  // cards to click
    if (choices.includes(c.dataset.card)) {
      c.classList.add("legal");
      c.addEventListener("click", () => answer(c.dataset.card), { once: true });
    }
  }
  setStatus("your move");
}

function answer(token) {
  if (!game.request || !game.request.choices.includes(token)) return;
  game.request = null;
  document.getElementById("request").hidden = true;
  for (const c of document.querySelectorAll(".hand .card.legal")) c.classList.remove("legal");
  say(token);
  setStatus("waiting for the others");
  draw();
}

function over(words) {  // gameover <termination> <seat|-> result <r>... totals <t>...
  const result = words.slice(words.indexOf("result") + 1, words.indexOf("totals"));
  const totals = words.slice(words.indexOf("totals") + 1);
  const mine = Number(result[game.seat]);
  game.state.totals = totals.join("/");  // the final totals, which no state line gives
  draw();
  const how = words[0] === "completed" ? "" : ` (${words[0]} by ${seatName(Number(words[1]))})`;
  setStatus(`game over${how}: you ${mine === 1 ? "won" : mine === 0 ? "lost" : "drew"}; totals ${totals.join(" / ")}`,
    true);
  document.getElementById("request").hidden = true;
}

function setStatus(text, final = false) {
  const status = document.getElementById("status");
  status.textContent = text;
  status.className = final ? "over" : "";
}

// ------------------------------------------------------------------ the connection
const REFUSED = 4403;  // the server's close code for an address that is not a seat's

function connect() {
  socket = new WebSocket(`ws://${location.host}/seat?seat=${game.seat}&token=${params.get("token")}`);
  socket.onopen = () => setStatus("connected: waiting for the game");
  socket.onmessage = (event) => receive(event.data);
  socket.onclose = (event) => {
    if (event.code === REFUSED) refused();
    else if (!document.getElementById("status").classList.contains("over")) {
      setStatus("the referee closed the connection", true);
    }
  };
}

function refused() {
  setStatus("refused: this address's token is not this seat's (mistyped, or from an earlier game). Open the " +
    "address pinochle-arena play printed for your seat.", true);
}

fetch(`names?seat=${game.seat}&token=${params.get("token")}`)  // the seat's names; a wrong token is told here
  .then((reply) => {
    if (reply.status === 403) return refused();
    return reply.json().then((names) => { game.names = names; }, () => {}).finally(connect);
  }, () => connect());

// pinochle-arena report: the game list with its filters, and the replay viewer.
// Everything a game shows comes from its film (viewer/film.py): each step's events, with the seats the rules
// engine showed them to, from which film.js keeps each seat's table. This file knows no rule of the game; it only
// draws.
"use strict";

const films = {};      // game number -> film, once loaded
const waiting = {};    // game number -> callbacks waiting for its film
let current = null;    // { film, states, step, view, number }
// parts of the viewer in scripts loaded before this one (analysis.js): each has open(current) and show(current)
const viewerParts = window.VIEWER_PARTS || [];

// ------------------------------------------------------------------ loading films
// films/N.js calls pinochleFilm(N, base64 of the gzipped JSON); a script can be loaded from file://, a fetch cannot
async function pinochleFilm(number, packed) {
  const bytes = Uint8Array.from(atob(packed), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  films[number] = readFilm(JSON.parse(await new Response(stream).text()));  // (film.js)
  (waiting[number] || []).forEach((done) => done(films[number]));
  delete waiting[number];
}

function loadFilm(number, done) {
  if (films[number]) return done(films[number]);
  (waiting[number] = waiting[number] || []).push(done);
  if (waiting[number].length > 1) return;
  const script = document.createElement("script");
  script.src = `films/${number}.js`;
  document.body.appendChild(script);
}

// ------------------------------------------------------------------ drawing (el, card, backs, cards, labelled: cards.js)
function seatName(film, seat) {
  return `${film.names[seat]} (seat ${seat})`;
}

function drawSeat(film, states, seat, view, toAct) {
  const own = states[seat];                       // what this seat itself knew
  const seen = view === "all" ? own : states[view];  // the view's knowledge
  const faceUp = view === "all" || view === seat;
  const held = seen.held ? seen.held[seat] : 0;
  const hand = faceUp ? cards(own.cards) : backs(held);
  const score = `totals ${seen.totals[seat]}, meld ${seen.meld_points[seat]}, tricks ${seen.trick_points[seat]}`;
  const bottom = view === "all" ? 0 : view;
  const box = el("div", { class: `seat place-${place(seat, bottom, film.players)}${seat === toAct ? " to-act" : ""}`,
    "data-seat": seat },
    el("div", { class: "name" }, seatName(film, seat), seen.dealer === seat ? " \u2022 dealer" : "",
       seen.bidder === seat ? ` \u2022 bid ${seen.bid}` : "", seen.partner === seat ? " \u2022 partner" : ""),
    el("div", { class: "score" }, score),
    el("div", { class: "hand" }, hand),
    labelled("on the table:", cards(seen.tables ? seen.tables[seat] : "")),
    labelled("melds:", (seen.melds ? seen.melds[seat] : []).map((m) => el("span", { class: "meld" }, inWords(m)))));
  if (faceUp) {  // what only this seat knows of its own passing and burying
    box.append(...[labelled("passed:", cards(own.gave)), labelled("received:", cards(own.received)),
      labelled("buried:", cards(own.buried))].filter(Boolean));
  }
  return box;
}

function drawMiddle(film, states, view) {
  const seen = view === "all" ? states[0] : states[view];
  const trick = (seen.trick || []).map(([seat, text]) =>
    el("span", { class: "played" }, card(text), el("small", {}, film.names[seat])));
  const piles = Object.entries(seen.piles || {}).map(([name, n]) => `${name} ${n}`).join(", ");
  const bids = (seen.bids || []).map(([seat, amount]) => `${film.names[seat]} ${amount === null ? "pass" : amount}`);
  const taken = (seen.last_trick || []).map(([seat, text]) =>
    el("span", { class: "played" }, card(text), el("small", {}, film.names[seat])));
  return el("div", { class: "middle" },
    el("div", { class: "trick" }, trick.length ? trick : el("span", { class: "empty" }, "no cards in the trick")),
    taken.length ? el("div", { class: "last-trick" }, el("span", { class: "label" }, "trick taken: "), taken) : null,
    labelled("trump:", seen.trump ? el("span", { class: `suit-${seen.trump}` }, SUITS[seen.trump]) : ""),
    labelled("turn-up:", seen.turnup ? card(seen.turnup) : ""),
    labelled("face down:", piles),
    labelled("kitty:", cards(seen.kitty)),
    labelled("dummy:", cards(seen.dummy)),
    labelled("called:", seen.called ? card(seen.called) : ""),
    labelled("bids:", bids.join(", ")));
}

function show() {
  const { film, states, step, view } = current;
  const area = document.getElementById("table-area");
  const now = states[step];
  const next = film.steps[step + 1];
  const toAct = next && !next.fault ? next.seat : null;  // whose turn it is: who acts in the next step
  const seen = view === "all" ? now[0] : now[view];
  area.replaceChildren(
    scoreboard({ trump: seen.trump, target: seen.target, hand: seen.hand_no, names: film.names,
      totals: seen.totals || [], toAct }),
    el("div", { class: `table seats-${film.players}` },
      drawMiddle(film, now, view), film.names.map((_, seat) => drawSeat(film, now, seat, view, toAct))));
  const info = film.steps[step];
  const text = document.getElementById("step-text");
  text.textContent = inWords(info.text);
  text.className = info.fault ? "fault" : "";
  document.getElementById("step-count").textContent = `step ${step + 1} of ${film.steps.length}, hand ${now[0].hand_no}`;
  document.getElementById("hand-select").value = String(now[0].hand_no);
  viewerParts.forEach((part) => part.show(current));
}

function go(step) {
  if (!current) return;
  current.step = Math.max(0, Math.min(current.film.steps.length - 1, step));
  show();
}

function openGame(number) {
  loadFilm(number, (film) => {
    current = { film, states: filmStates(film), step: 0, view: "all", number };  // (film.js)
    viewerParts.forEach((part) => part.open(current));
    const viewer = document.getElementById("viewer");
    viewer.hidden = false;
    document.getElementById("viewer-title").textContent =
      `${film.id}: ${film.names.join(" vs ")} (${film.variant}), ${film.termination}`;
    const hands = [...new Set(current.states.map((seats) => seats[0].hand_no))];
    document.getElementById("hand-select").replaceChildren(...hands.map((h) => el("option", { value: h }, `hand ${h}`)));
    document.getElementById("view-select").replaceChildren(el("option", { value: "all" }, "every hand face up"),
      ...film.names.map((name, seat) => el("option", { value: seat }, `${name}'s view (seat ${seat})`)));
    show();
    viewer.scrollIntoView();
  });
}

// ------------------------------------------------------------------ the game list
function fillFilters(games) {
  const options = {
    "filter-bot": [...new Set(games.flatMap((g) => g.names))].sort(),
    "filter-variant": [...new Set(games.map((g) => g.variant))].sort(),
    "filter-termination": [...new Set(games.map((g) => g.termination))].sort(),
  };
  for (const [id, values] of Object.entries(options)) {
    const select = document.getElementById(id);
    select.append(...values.map((v) => el("option", { value: v }, v)));
    select.addEventListener("change", filter);
  }
}

function filter() {
  const bot = document.getElementById("filter-bot").value;
  const variant = document.getElementById("filter-variant").value;
  const ending = document.getElementById("filter-termination").value;
  let shown = 0;
  for (const row of document.querySelectorAll("#game-list tbody tr")) {
    const g = window.REPORT_GAMES[Number(row.dataset.n)];
    const visible = (!bot || g.names.includes(bot)) && (!variant || g.variant === variant) &&
      (!ending || g.termination === ending);
    row.hidden = !visible;
    shown += visible;
  }
  document.getElementById("shown").textContent = `${shown} of ${window.REPORT_GAMES.length} games`;
}

function listGames(games) {
  const body = document.querySelector("#game-list tbody");
  body.replaceChildren(...games.map((g) => {
    const ending = g.termination === "completed" ? g.termination : `${g.termination} by ${g.culprit}: ${g.detail}`;
    const link = el("a", { href: `#${g.anchor}` }, g.id);  // the address names the game by its id: it can be shared
    return el("tr", { "data-n": g.n, class: g.termination === "completed" ? "" : "faulted" },
      el("td", {}, link), el("td", {}, g.names.join(" vs ")), el("td", {}, g.variant),
      el("td", {}, g.result.join("-")), el("td", {}, g.totals.join(" / ")), el("td", {}, g.hands),
      el("td", {}, ending));
  }));
}

function start() {
  const games = window.REPORT_GAMES || [];
  fillFilters(games);
  listGames(games);
  filter();
  document.getElementById("first").onclick = () => go(0);
  document.getElementById("back").onclick = () => go(current.step - 1);
  document.getElementById("forward").onclick = () => go(current.step + 1);
  document.getElementById("last").onclick = () => go(Infinity);
  document.getElementById("close-viewer").onclick = () => { document.getElementById("viewer").hidden = true; current = null; };
  document.getElementById("hand-select").onchange = (event) =>
    go(current.states.findIndex((seats) => String(seats[0].hand_no) === event.target.value));
  document.getElementById("view-select").onchange = (event) => {
    current.view = event.target.value === "all" ? "all" : Number(event.target.value);
    show();
  };
  document.addEventListener("keydown", (event) => {
    if (!current || event.target.tagName === "SELECT") return;
    const moves = { ArrowRight: current.step + 1, ArrowLeft: current.step - 1, Home: 0, End: Infinity };
    if (event.key in moves) { event.preventDefault(); go(moves[event.key]); }
  });
  window.addEventListener("hashchange", openFromAddress);
  openFromAddress();
}

function openFromAddress() {
  const wanted = window.REPORT_GAMES.find((g) => `#${g.anchor}` === decodeURIComponent(location.hash));
  if (wanted) openGame(wanted.n);
}

start();

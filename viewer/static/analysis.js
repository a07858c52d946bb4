// pinochle-arena report: a game's analysis in the replay viewer (pinochle-arena analyse, docs/analysis.md).
// analysis/N.js hands over game N's weighed decisions (viewer/marks.py); on each step whose decision was weighed
// this shows the action chosen beside the best with their values and the loss with its noise, a mark where the
// loss was one (inaccuracy, mistake, blunder: a sign and a word, not colour alone), the next and previous mark,
// and the side's evaluation over the game as a line. A seat's view shows that seat's decisions only; every hand
// face up shows every analysed seat's. Loaded before report.js, which calls open and show (VIEWER_PARTS); a game
// without analysis leaves the viewer as it is without this file. Every text goes in as text (el, svg: cards.js).
"use strict";

const analyses = {};         // game number -> its analysis, once loaded
const analysisWaiting = {};  // game number -> callbacks waiting for it
const MARK_SIGNS = { inaccuracy: "?!", mistake: "?", blunder: "??" };  // as chess annotates a move
const LINE_STYLES = [{ colour: "#1f77b4", dash: "" }, { colour: "#d62728", dash: "5 3" },
  { colour: "#2ca02c", dash: "2 2" }, { colour: "#9467bd", dash: "8 3 2 3" }, { colour: "#ff7f0e", dash: "1 3" }];
const CHART = { width: 640, height: 120, left: 40, right: 8, top: 8, bottom: 16 };

// analysis/N.js calls this (a script loads from file://, a fetch does not)
function pinochleAnalysis(number, data) {
  analyses[number] = data;
  (analysisWaiting[number] || []).forEach((done) => done(data));
  delete analysisWaiting[number];
}

function loadAnalysis(number, done) {
  if (analyses[number]) return done(analyses[number]);
  (analysisWaiting[number] = analysisWaiting[number] || []).push(done);
  if (analysisWaiting[number].length > 1) return;
  const script = document.createElement("script");
  script.src = `analysis/${number}.js`;
  document.body.appendChild(script);
}

// ------------------------------------------------------------------ the viewer's part: its elements, made once
function analysisElements() {
  let nav = document.getElementById("mark-nav");
  if (nav) return { nav, step: document.getElementById("analysis-step"), line: document.getElementById("eval-line") };
  nav = el("div", { id: "mark-nav", class: "controls", hidden: "" },
    el("button", { id: "previous-mark", title: "previous marked decision (p)", "aria-keyshortcuts": "p" },
      "\u25C0 mistake"),
    el("button", { id: "next-mark", title: "next marked decision (n)", "aria-keyshortcuts": "n" }, "mistake \u25B6"),
    el("span", { id: "mark-scope" }));
  const step = el("div", { id: "analysis-step", hidden: "", "aria-live": "polite" });
  const line = el("figure", { id: "eval-line", hidden: "" });
  document.querySelector("#viewer .controls").after(nav);
  document.getElementById("step-text").after(step, line);
  nav.querySelector("#previous-mark").onclick = () => goToMark(-1);
  nav.querySelector("#next-mark").onclick = () => goToMark(1);
  document.addEventListener("keydown", markKey);
  return { nav, step, line };
}

function markKey(event) {
  if (!current || !current.analysis || event.ctrlKey || event.metaKey || event.altKey) return;
  if (["SELECT", "INPUT", "TEXTAREA"].includes(event.target.tagName)) return;
  const way = { n: 1, p: -1 }[event.key];
  if (way) { event.preventDefault(); goToMark(way); }
}

// ------------------------------------------------------------------ what is shown: the viewed seat's, or every seat's
function shownDecisions(viewing) {
  const all = viewing.analysis.decisions;
  return viewing.view === "all" ? all : all.filter((d) => d.seat === viewing.view);
}

function marked(viewing) {
  return shownDecisions(viewing).filter((d) => d.mark);
}

function goToMark(way) {
  if (!current || !current.analysis) return;
  const marks = marked(current);
  const next = way > 0 ? marks.find((d) => d.number > current.step)
    : marks.filter((d) => d.number < current.step).pop();
  if (next) go(next.number);
}

function points(value) {
  return `${value > 0 ? "+" : ""}${value.toFixed(1)}`;
}

function decisionLine(film, d) {
  const who = `${film.names[d.seat]} (seat ${d.seat}), ${d.kind}: `;
  const loss = d.exact ? `lost ${d.loss.toFixed(1)} (exact)` : `lost ${d.loss.toFixed(1)} \u00B1 ${d.noise.toFixed(1)}`;
  const parts = d.chosen === d.best
    ? [who, "played ", el("b", {}, inWords(d.chosen)), ` ${points(d.chosen_value)}, the best (points for its side)`]
    : [who, "played ", el("b", {}, inWords(d.chosen)), ` ${points(d.chosen_value)}; best `,
      el("b", {}, inWords(d.best)), ` ${points(d.best_value)} (points for its side); ${loss}`];
  const sign = d.mark ? el("span", { class: `mark mark-${d.mark}` }, `${MARK_SIGNS[d.mark]} ${d.mark}`) : null;
  const every = el("details", {}, el("summary", {}, "every action's value"),
    el("span", {}, d.values.map(([action, value]) => `${inWords(action)} ${points(value)}`).join(", ")));
  return el("div", { class: `decision${d.mark ? " marked" : ""}`, "data-mark": d.mark },
    sign, el("span", { class: "words" }, ...parts), every);
}

// Whose marks: with every hand face up, the seats the page holds analysis of (a league entrant's page holds its own)
function scopeText(film, viewing, count, weighed) {
  const seatName = (seat) => `${film.names[seat]}'s (seat ${seat})`;
  const held = [...new Set(viewing.analysis.decisions.map((d) => d.seat))].sort((a, b) => a - b);
  const allHeld = held.length === film.names.length;
  const whose = viewing.view !== "all" ? seatName(viewing.view) : allHeld ? "every seat's" : held.map(seatName).join(", ");
  if (!weighed) return `no decision of ${film.names[viewing.view]} (seat ${viewing.view}) was analysed`;
  return `${count} marked decision${count === 1 ? "" : "s"}, ${whose} (inaccuracies, mistakes, blunders): p / n`;
}

// ------------------------------------------------------------------ the evaluation line
function evalChart(viewing) {
  const { film, step } = viewing;
  const shown = shownDecisions(viewing);
  const seats = [...new Set(shown.map((d) => d.seat))].sort((a, b) => a - b);
  const values = shown.map((d) => d.best_value);
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values, low + 1);
  const last = Math.max(film.steps.length - 1, 1);
  const { width, height, left, right, top, bottom } = CHART;
  const x = (n) => (left + (width - left - right) * n / last).toFixed(1);
  const y = (v) => (top + (height - top - bottom) * (high - v) / (high - low)).toFixed(1);
  const drawing = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": "the best action's value at each weighed decision, by step" },
  svg("line", { x1: left, x2: width - right, y1: y(0), y2: y(0), class: "zero" }),
  svg("text", { x: left - 4, y: top + 8, "text-anchor": "end" }, points(high)),
  svg("text", { x: left - 4, y: height - bottom, "text-anchor": "end" }, points(low)),
  svg("text", { x: left - 4, y: Number(y(0)) + 3, "text-anchor": "end" }, "0"));
  for (const seat of seats) {
    const style = LINE_STYLES[seat % LINE_STYLES.length];
    const own = shown.filter((d) => d.seat === seat);
    for (const hand of new Set(own.map((d) => d.hand))) {  // a line a hand: a value is the hand's
      const pts = own.filter((d) => d.hand === hand).map((d) => `${x(d.number)},${y(d.best_value)}`).join(" ");
      drawing.append(svg("polyline", { points: pts, fill: "none", stroke: style.colour, "stroke-dasharray": style.dash,
        "data-seat": seat, class: "side" }));
    }
    for (const d of own.filter((d) => d.mark)) drawing.append(markSymbol(d, x(d.number), y(d.best_value), style));
  }
  drawing.append(svg("line", { x1: x(step), x2: x(step), y1: top, y2: height - bottom, class: "now" }));
  drawing.onclick = (event) => {  // a click goes to the step under it
    const box = drawing.getBoundingClientRect();
    const at = ((event.clientX - box.left) * width / box.width - left) / (width - left - right);
    go(Math.round(at * last));
  };
  const key = seats.map((seat) => el("span", { class: "key", "data-seat": seat },
    keyLine(LINE_STYLES[seat % LINE_STYLES.length]), ` ${film.names[seat]} (seat ${seat})`));
  return [drawing, el("figcaption", {}, "value of the best action for the side, at each weighed decision; ",
    "marks: \u25CB inaccuracy, \u25A1 mistake, \u25B3 blunder. ", ...key)];
}

function keyLine(style) {
  return svg("svg", { width: 24, height: 8, "aria-hidden": "true" }, svg("line", { x1: 0, x2: 24, y1: 4, y2: 4,
    stroke: style.colour, "stroke-dasharray": style.dash, "stroke-width": 2 }));
}

function markSymbol(d, cx, cy, style) {  // a shape a class: ○ inaccuracy, □ mistake, △ blunder
  const [px, py] = [Number(cx), Number(cy)];
  const shape = d.mark === "inaccuracy" ? svg("circle", { cx: px, cy: py, r: 3.5 })
    : d.mark === "mistake" ? svg("rect", { x: px - 3.5, y: py - 3.5, width: 7, height: 7 })
      : svg("path", { d: `M${px} ${py - 5}L${px + 4.5} ${py + 3.5}H${px - 4.5}z` });
  shape.setAttribute("class", `mark-symbol mark-${d.mark}`);
  shape.setAttribute("stroke", style.colour);
  shape.append(svg("title", {}, `step ${d.number + 1}: ${d.mark}, ${inWords(d.chosen)} for ${inWords(d.best)}`));
  return shape;
}

// ------------------------------------------------------------------ the part report.js calls
function openAnalysis(viewing) {
  viewing.analysis = null;
  const game = (window.REPORT_GAMES || [])[viewing.number];
  if (!game || !game.analysis) return;
  loadAnalysis(viewing.number, (data) => {
    if (current !== viewing) return;  // (another game was opened meanwhile)
    viewing.analysis = data;
    show();
  });
}

function showAnalysis(viewing) {
  const data = viewing.analysis;
  if (!data && !document.getElementById("mark-nav")) return;  // (never analysed: nothing made)
  const { nav, step, line } = analysisElements();
  nav.hidden = step.hidden = line.hidden = !data;
  if (!data) return;
  const shown = shownDecisions(viewing);
  const marks = marked(viewing);
  document.getElementById("previous-mark").disabled = !marks.some((d) => d.number < viewing.step);
  document.getElementById("next-mark").disabled = !marks.some((d) => d.number > viewing.step);
  document.getElementById("mark-scope").textContent = scopeText(viewing.film, viewing, marks.length, shown.length);
  const here = shown.find((d) => d.number === viewing.step);
  step.replaceChildren(...(here ? [decisionLine(viewing.film, here)] : []));
  line.hidden = !shown.length;  // (a seat's view of a seat not analysed: no line to draw)
  line.replaceChildren(...(shown.length ? evalChart(viewing) : []));
}

(window.VIEWER_PARTS = window.VIEWER_PARTS || []).push({ open: openAnalysis, show: showAnalysis });
